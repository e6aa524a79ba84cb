// Nested fork-join for the BVH build: meshes in parallel, and subtrees within a mesh, never
// more threads at work at once than the build was given (but for the moments ThreadBudget::wait
// describes).
#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <future>
#include <thread>
#include <vector>

namespace ptbench {

// The threads --threads asks for: 0 is every hardware thread of this machine.
inline unsigned threadsToUse(unsigned requested) {
  return requested > 0 ? requested : std::max(1u, std::thread::hardware_concurrency());
}

// The threads a build may still start, shared by every level of the nesting: a mesh worker
// holds one while it runs, and a large subtree takes one only when another worker has
// finished, so the mesh loop and the subtree splits never oversubscribe the machine.
class ThreadBudget {
 public:
  explicit ThreadBudget(unsigned threads) : spare_(static_cast<int>(threads) - 1) {}
  bool tryAcquire() {
    int spare = spare_.load(std::memory_order_relaxed);
    while (spare > 0)
      if (spare_.compare_exchange_weak(spare, spare - 1)) return true;
    return false;
  }
  void release() { spare_.fetch_add(1); }
  // Whether a thread is spare now (it may not be by the time one asks for it).
  bool hasSpare() const { return spare_.load(std::memory_order_relaxed) > 0; }

  // Waits for a thread this one started. The waiting thread lends its own place meanwhile (it
  // takes no CPU time while it waits, and another part of the build may start a thread in it),
  // and takes it back when the wait ends, even where that leaves the budget overdrawn until the
  // thread started in its place ends. Without it, a thread whose own part ended first held its
  // place idle: the mesh loop's caller while a helper built the last large mesh, a fork's caller
  // while its other half ran.
  void wait(std::future<void>& done) {
    if (done.wait_for(std::chrono::seconds(0)) != std::future_status::ready) lendPlaceWhile([&] { done.wait(); });
    done.get();
  }
  // Runs `wait`, something that blocks without using the CPU, with this thread's place lent to
  // the rest of the build meanwhile, as wait() does.
  template <typename Wait>
  void lendPlaceWhile(Wait&& wait) {
    release();
    struct TakeBack {
      std::atomic<int>& spare;
      ~TakeBack() { spare.fetch_sub(1); }
    } takeBack{spare_};
    wait();
  }

 private:
  std::atomic<int> spare_;
};

namespace detail {
struct BudgetReturn {
  ThreadBudget& budget;
  ~BudgetReturn() { budget.release(); }
};
}  // namespace detail

// Runs both, `first` on a thread of its own when it is worth one and the budget has one spare.
template <typename First, typename Second>
void forkJoin(ThreadBudget& budget, bool worthAThread, First&& first, Second&& second) {
  if (worthAThread && budget.tryAcquire()) {
    auto done = std::async(std::launch::async, [&] {
      detail::BudgetReturn giveBack{budget};
      first();
    });
    second();
    budget.wait(done);
    return;
  }
  first();
  second();
}

// A range cut into chunks for parallelFor: one pass over a long array on several threads, each
// chunk's result kept apart when they are to be merged.
struct Chunks {
  uint32_t begin = 0, end = 0, size = 1;
  size_t count() const { return (end - begin + size - 1) / size; }
  uint32_t first(size_t chunk) const { return begin + static_cast<uint32_t>(chunk) * size; }
  uint32_t last(size_t chunk) const { return std::min(end, first(chunk) + size); }
};

// body(i) for every i < count, on this thread and on as many more as the budget spares. The
// places are taken before any helper starts: a helper's own parallelFor (a mesh's boxes) would
// otherwise take the spare places first, and the mesh loop ran on half the threads.
template <typename Body>
void parallelFor(ThreadBudget& budget, size_t count, Body&& body) {
  std::atomic<size_t> next{0};
  const auto work = [&] {
    for (size_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) body(i);
  };
  size_t places = 0;
  while (places + 1 < count && budget.tryAcquire()) ++places;
  std::vector<std::future<void>> helpers;
  try {
    helpers.reserve(places);
    for (; places > 0; --places)
      helpers.push_back(std::async(std::launch::async, [&] {
        detail::BudgetReturn giveBack{budget};
        work();
      }));
  } catch (...) {
    // The places no helper took go back; the helpers started are joined as their futures go.
    for (; places > 0; --places) budget.release();
    throw;
  }
  work();
  for (auto& helper : helpers) budget.wait(helper);
}

}  // namespace ptbench
