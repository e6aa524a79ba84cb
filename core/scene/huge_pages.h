// Room for the build's large arrays in transparent huge pages, where Linux offers them.
//
// Why: a 50M-triangle build writes gigabytes of fresh arrays, and every 4 KiB page of them costs
// a page fault on first touch. On virtual machines a fault costs 10-15 us (400 MB first touched:
// 1.5 s in 4 KiB pages, 40 ms in 2 MiB ones on the development machine), and faults of many
// threads contend for one process's page tables. With THP set to "madvise" (Debian's default)
// the kernel backs only ranges asked for with huge pages; elsewhere this changes nothing.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "core/scene/bvh/thread_budget.h"

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
template <typename T, typename Allocator>
void reserveInHugePages(std::vector<T, Allocator>& values, size_t count) {
  if (count <= values.capacity()) return;
  if (count * sizeof(T) < 2 * hugePageBytes) return values.reserve(count);
  std::vector<T, Allocator> fresh;
  fresh.reserve(count);
  adviseHugePages(fresh.data(), count * sizeof(T));
  fresh.assign(values.begin(), values.end());
  values.swap(fresh);
}

template <typename T, typename Allocator>
void resizeInHugePages(std::vector<T, Allocator>& values, size_t count) {
  reserveInHugePages(values, count);
  values.resize(count);
}

// Exactly `count` elements in an array the build is about to overwrite in full: memory it
// already holds is kept (a thread's next mesh reuses the pages its last one faulted in), and an
// array too small is freed before a fresh one is allocated, without copying what it held.
template <typename T, typename Allocator>
void resizeForOverwrite(std::vector<T, Allocator>& values, size_t count) {
  if (count > values.capacity()) std::vector<T, Allocator>().swap(values);
  resizeInHugePages(values, count);
}

// Arrays kept as std::vector (the collapses' trees, BvhTree), whose resize value-initialises
// every element on one thread: that thread would also take every page fault and the kernel's zeroing of every
// page. Room for `count` elements is reserved and its pages written to once, in chunks on the
// threads the budget spares, so that the resize which follows writes pages already in place.
// Elements `values` holds stay as they are; the room beyond them is raw storage until then.
template <typename T>
void reserveTouchedInHugePages(std::vector<T>& values, size_t count, ThreadBudget& budget) {
  static_assert(std::is_trivially_copyable_v<T>);
  reserveInHugePages(values, count);
  if (count <= values.size()) return;
  auto* room = reinterpret_cast<volatile unsigned char*>(values.data() + values.size());
  const size_t bytes = (count - values.size()) * sizeof(T);
  constexpr size_t pageBytes = 4096;  // the smallest page: a write to each faults in every page, huge or not
  parallelFor(budget, (bytes + hugePageBytes - 1) / hugePageBytes, [&](size_t c) {
    const size_t end = std::min(bytes, (c + 1) * hugePageBytes);
    for (size_t at = c * hugePageBytes; at < end; at += pageBytes) room[at] = 0;
    room[end - 1] = 0;
  });
}

// Resizing leaves elements of trivially copyable types unwritten, default member initialisers
// included (a Bounds' empty box, a node's zeros): for arrays written in full, in parallel, right
// after they are sized, so that their first touch (a page fault and the kernel's zeroing of the
// page) falls on the threads that fill them rather than on one thread's value-initialisation.
// Such types are implicit-lifetime aggregates or trivial classes: the allocation itself gives
// them their lifetime, with indeterminate values until the fill writes them.
template <typename T>
struct UninitialisedAllocator : std::allocator<T> {
  template <typename U>
  struct rebind {
    using other = UninitialisedAllocator<U>;
  };
  UninitialisedAllocator() = default;
  template <typename U>
  UninitialisedAllocator(const UninitialisedAllocator<U>&) noexcept {}
  template <typename U, typename... Args>
  void construct(U* at, Args&&... args) {
    if constexpr (sizeof...(Args) == 0 && std::is_trivially_copyable_v<U>)
      return;
    else if constexpr (sizeof...(Args) == 0)
      ::new (static_cast<void*>(at)) U;
    else
      ::new (static_cast<void*>(at)) U(std::forward<Args>(args)...);
  }
};

template <typename T>
using UninitialisedArray = std::vector<T, UninitialisedAllocator<T>>;

// Memory that one array after another uses, each of its own type, where the one before is dead:
// on 16 threads building 16 meshes each thread's memory is fresh, and the pages the kernel
// faults in and zeroes cost more the more threads fault at once. Grows as resizeForOverwrite
// does, in huge pages; never shrinks.
class ScratchMemory {
 public:
  // `count` objects of T at the start, their values indeterminate: the array taken before ends
  // here (its memory is reused, whatever it held).
  template <typename T>
  std::span<T> take(size_t count) {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_default_constructible_v<T>);
    static_assert(alignof(T) <= alignof(Line));
    const size_t bytes = count * sizeof(T);
    resizeForOverwrite(lines_, (bytes + sizeof(Line) - 1) / sizeof(Line));
    if (count == 0) return {};
    // An array of bytes begun over the memory creates the T objects the caller then uses.
    return {std::launder(reinterpret_cast<T*>(::new (static_cast<void*>(lines_.data())) std::byte[bytes])), count};
  }
  size_t bytes() const { return lines_.capacity() * sizeof(Line); }  // held, whatever the last array took

 private:
  struct alignas(64) Line {
    std::byte bytes[64];
  };
  UninitialisedArray<Line> lines_;
};

}  // namespace ptbench
