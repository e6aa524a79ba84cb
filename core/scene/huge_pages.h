// Room for the build's large arrays in transparent huge pages, where Linux offers them.
//
// Why: a 50M-triangle build writes gigabytes of fresh arrays, and every 4 KiB page of them costs
// a page fault on first touch. On virtual machines a fault costs 10-15 us (400 MB first touched:
// 1.5 s in 4 KiB pages, 40 ms in 2 MiB ones on the development machine), and faults of many
// threads contend for one process's page tables. With THP set to "madvise" (Debian's default)
// the kernel backs only ranges asked for with huge pages; elsewhere this changes nothing.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace ptbench {

// The x86-64 and 4 KiB-page AArch64 kernels' huge page. Arrays under twice this stay in ordinary
// pages: the kernel could back at most their aligned middle. (Arrays of 4 to 32 MiB may come from
// glibc's heap rather than a mapping of their own; the advice then covers that part of the heap.)
constexpr size_t hugePageBytes = size_t(2) << 20;

// Asks for huge pages over the 2 MiB-aligned part of [data, data + bytes); untouched memory only
// (pages already faulted in stay small until the kernel's background collapse).
inline void adviseHugePages([[maybe_unused]] void* data, [[maybe_unused]] size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const auto begin = (reinterpret_cast<uintptr_t>(data) + hugePageBytes - 1) & ~(hugePageBytes - 1);
  const auto end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(hugePageBytes - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#endif
}

// Room for `count` elements in `values`, a new allocation's huge pages asked for before any
// element is written to it. For the arrays the build fills from empty.
template <typename T>
void reserveInHugePages(std::vector<T>& values, size_t count) {
  if (count <= values.capacity()) return;
  if (count * sizeof(T) < 2 * hugePageBytes) return values.reserve(count);
  std::vector<T> fresh;
  fresh.reserve(count);
  adviseHugePages(fresh.data(), count * sizeof(T));
  fresh.assign(values.begin(), values.end());
  values.swap(fresh);
}

template <typename T>
void resizeInHugePages(std::vector<T>& values, size_t count) {
  reserveInHugePages(values, count);
  values.resize(count);
}

}  // namespace ptbench
