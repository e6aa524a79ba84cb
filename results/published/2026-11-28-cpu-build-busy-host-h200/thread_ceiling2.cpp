// What one machine's threads give when they run at once with nothing shared: each thread does the
// same fixed work on its own data, started together behind a barrier, and reports its own time.
// Scaling at N threads = N * (one thread's time) / (slowest of N threads' time).
//   thread_ceiling2 alu|alu4|port|stream|fault|fault-huge THREADS
//   thread_ceiling2 chase THREADS MIB
//   thread_ceiling2 touch GIB
//   thread_ceiling2 hog-stream|hog-alu THREADS   (runs until killed)
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using Clock = std::chrono::steady_clock;

static uint64_t alu() {
  uint64_t x = 88172645463325252ull, sum = 0;
  for (long i = 0; i < 400'000'000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    sum += x;
  }
  return sum;
}

// Four independent chains: bound by the core's ALU throughput rather than one chain's latency, so
// that two threads sharing a physical core (SMT siblings) would show.
static uint64_t alu4() {
  uint64_t x[4] = {88172645463325252ull, 1ull, 12345ull, 987654321ull}, sum = 0;
  for (long i = 0; i < 400'000'000; ++i)
    for (int c = 0; c < 4; ++c) {
      x[c] ^= x[c] << 13;
      x[c] ^= x[c] >> 7;
      x[c] ^= x[c] << 17;
      sum += x[c];
    }
  return sum;
}

// Eight independent multiply-add chains: bound by the one port that multiplies, which two threads
// on one physical core (SMT siblings) share, so a pair of siblings each take about twice as long.
__attribute__((optimize("no-tree-vectorize"))) static uint64_t port() {
  uint64_t x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  for (long i = 0; i < 200'000'000; ++i)
    for (int c = 0; c < 8; ++c) x[c] = x[c] * 6364136223846793005ull + 1442695040888963407ull;
  uint64_t sum = 0;
  for (uint64_t v : x) sum += v;
  return sum;
}

// A random cyclic chase through `mib` MiB of its own (one 64-byte line per step): the latency of
// wherever a working set of that size lives, alone and when every thread has one.
static uint64_t chase(std::vector<uint32_t>& next) {
  uint32_t at = 0;
  for (long i = 0; i < 20'000'000; ++i) at = next[at];
  return at;
}
static void makeChase(std::vector<uint32_t>& next, size_t mib, uint64_t seed) {
  const size_t lines = (mib << 20) / 64, stride = 16;
  std::vector<uint32_t> order(lines);
  for (size_t i = 0; i < lines; ++i) order[i] = uint32_t(i);
  for (size_t i = lines - 1; i > 0; --i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    std::swap(order[i], order[(seed >> 33) % (i + 1)]);
  }
  next.assign(lines * stride, 0);
  for (size_t i = 0; i < lines; ++i) next[order[i] * stride] = order[(i + 1) % lines] * stride;
}

// 128 MiB of its own, touched first (untimed would be nicer, but the barrier is before), then
// read, and read and written, 4 times each.
static uint64_t stream(std::vector<uint32_t>& data) {
  uint32_t sum = 0;
  for (int pass = 0; pass < 4; ++pass) {
    for (uint32_t& value : data) sum += value;
    for (uint32_t& value : data) value += pass;
  }
  return sum;
}

static uint64_t fault(bool huge) {
  const size_t bytes = size_t(512) << 20;
  auto* p = static_cast<unsigned char*>(mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (huge) madvise(p, bytes, MADV_HUGEPAGE);
  for (size_t i = 0; i < bytes; i += 4096) p[i] = 1;
  uint64_t s = p[bytes / 2];
  munmap(p, bytes);
  return s;
}

// Every page of `gib` GiB written once on 16 threads and freed: the pages a fresh virtual machine's
// host has not yet backed are backed after this, as on a machine that has run for a while.
static void touchAll(size_t gib) {
  std::vector<std::thread> pool;
  for (int t = 0; t < 16; ++t)
    pool.emplace_back([gib] {
      const size_t bytes = (gib << 30) / 16;
      auto* p = static_cast<unsigned char*>(mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
      madvise(p, bytes, MADV_HUGEPAGE);
      for (size_t i = 0; i < bytes; i += 4096) p[i] = 1;
      munmap(p, bytes);
    });
  for (auto& t : pool) t.join();
}

// Keeps THREADS threads busy until killed: streaming over 128 MiB each (memory bandwidth) or in
// the ALU loop (no memory), beside another process whose slowdown they are to show.
static void hog(const std::string& kind, int threads) {
  std::vector<std::thread> pool;
  std::atomic<uint64_t> sink{0};
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      std::vector<uint32_t> data(kind == "hog-stream" ? size_t(32) << 20 : 0, 1u);
      for (;;) sink += kind == "hog-stream" ? stream(data) : alu();
    });
  for (auto& t : pool) t.join();
}

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]).rfind("hog-", 0) == 0) {
    hog(argv[1], std::atoi(argv[2]));
    return 0;
  }
  if (argc == 3 && std::string(argv[1]) == "touch") {
    const auto start = Clock::now();
    touchAll(std::strtoull(argv[2], nullptr, 10));
    std::printf("touched %s GiB in %.1f ms\n", argv[2], std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    return 0;
  }
  if (argc < 3) return 2;
  const std::string mode = argv[1];
  const int threads = std::atoi(argv[2]);
  std::atomic<int> ready{0};
  std::vector<double> ms(threads);
  std::vector<std::vector<uint32_t>> data(threads);
  if (mode == "stream")
    for (auto& d : data) d.assign(size_t(32) << 20, 1u);  // 128 MiB each, faulted in before timing
  const size_t chaseMib = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 0;
  if (mode == "chase")
    for (int t = 0; t < threads; ++t) makeChase(data[t], chaseMib, 7 + t);
  std::atomic<uint64_t> sink{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < threads) {}
      const auto start = Clock::now();
      uint64_t r = mode == "alu" ? alu() : mode == "alu4" ? alu4() : mode == "port" ? port() : mode == "chase" ? chase(data[t]) : mode == "stream" ? stream(data[t]) : fault(mode == "fault-huge");
      ms[t] = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
      sink += r;
    });
  for (auto& t : pool) t.join();
  std::sort(ms.begin(), ms.end());
  std::printf("%s%s threads=%d min=%.1f median=%.1f max=%.1f ms (sink %llu)\n", mode.c_str(), argc > 3 ? (std::string(" ") + argv[3] + " MiB").c_str() : "", threads, ms.front(),
              ms[threads / 2], ms.back(), (unsigned long long)(sink.load() & 1));
}
