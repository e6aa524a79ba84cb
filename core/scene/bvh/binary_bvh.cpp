#include "core/scene/bvh/binary_bvh.h"

#include <algorithm>
#include <array>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "core/scene/huge_pages.h"

namespace ptbench {
namespace {

constexpr uint32_t maxBinCount = 32;

struct PrimitiveRef {
  Bounds bounds;
  Vec3 centroid;
  uint32_t index = 0;
};

struct Bin {
  Bounds bounds;
  uint32_t count = 0;
};

// Which bin a centroid coordinate falls in; NaN coordinates land in bin 0.
struct Binning {
  float origin = 0;
  float scale = 0;  // bins per unit length
  uint32_t binCount = 0;
  uint32_t binOf(float centroid) const {
    const float position = (centroid - origin) * scale;
    return position > 0 ? std::min(binCount - 1, static_cast<uint32_t>(position)) : 0;
  }
};

struct Split {
  int axis = -1;     // -1: no binned split separates the primitives
  uint32_t bin = 0;  // the right side starts at this bin
  Binning binning;
  bool goesLeft(const PrimitiveRef& ref) const { return binning.binOf(ref.centroid[axis]) < bin; }
};

using AxisBins = std::array<std::array<Bin, maxBinCount>, 3>;

// A shared node's chunks' partial results are merged in chunk order. Box unions and counts are
// exact, so merged bins and bounds equal one pass's.
struct RangeBounds {
  Bounds bounds, centroids;
  void extend(const RangeBounds& other) {
    bounds.extend(other.bounds);
    centroids.extend(other.centroids);
  }
};

class Builder {
 public:
  // `scratch` as large as `refs` when a node may be shared (parallelNodeThreshold), else empty.
  Builder(std::span<PrimitiveRef> refs, std::span<PrimitiveRef> scratch, std::vector<BinaryBvhNode>& nodes,
          const BinaryBvhOptions& options, ThreadBudget& budget)
      : refs_(refs), scratch_(scratch), nodes_(nodes), options_(options), budget_(budget) {}

  void build(uint32_t node, uint32_t begin, uint32_t end) {
    const uint32_t count = end - begin;
    const bool shared = count >= options_.parallelNodeThreshold;
    const Chunks chunks{.begin = begin, .end = end, .size = std::max(1u, options_.parallelNodeThreshold / 4)};
    RangeBounds range;
    if (shared) {
      std::vector<RangeBounds> partial(chunks.count());
      parallelFor(budget_, chunks.count(), [&](size_t c) { partial[c] = boundsOf(chunks.first(c), chunks.last(c)); });
      for (const RangeBounds& p : partial) range.extend(p);
    } else {
      range = boundsOf(begin, end);
    }
    nodes_[node] = {.bounds = range.bounds, .firstPrimitive = begin, .primitiveCount = count};
    if (count == 1) return;

    // Two primitives have one split; the sweep would find it.
    const Split split = count > 2 ? findSplit(begin, end, range.centroids, shared ? &chunks : nullptr) : Split{};
    uint32_t middle = begin + count / 2;
    if (split.axis >= 0 && shared) {
      middle = partitionStably(chunks, split);
    } else if (split.axis >= 0) {
      const auto right = std::partition(refs_.begin() + begin, refs_.begin() + end,
                                        [&](const PrimitiveRef& ref) { return split.goesLeft(ref); });
      middle = static_cast<uint32_t>(right - refs_.begin());
    }
    // A subtree over m primitives takes 2m - 1 nodes, so the right child's place is known now.
    const uint32_t rightChild = node + 2 * (middle - begin);
    nodes_[node].rightChild = rightChild;
    forkJoin(
        budget_, count >= options_.parallelThreshold, [&] { build(BinaryBvh::leftChild(node), begin, middle); },
        [&] { build(rightChild, middle, end); });
  }

 private:
  RangeBounds boundsOf(uint32_t begin, uint32_t end) const {
    RangeBounds range;
    for (uint32_t i = begin; i < end; ++i) {
      range.bounds.extend(refs_[i].bounds);
      range.centroids.extend(refs_[i].centroid);
    }
    return range;
  }

  void addToBins(uint32_t begin, uint32_t end, const std::array<Binning, 3>& binnings, AxisBins& bins) const {
    for (uint32_t i = begin; i < end; ++i) {
      const PrimitiveRef& ref = refs_[i];
      for (int axis = 0; axis < 3; ++axis) {
        if (binnings[axis].binCount == 0) continue;
        Bin& bin = bins[axis][binnings[axis].binOf(ref.centroid[axis])];
        bin.bounds.extend(ref.bounds);
        ++bin.count;
      }
    }
  }

  // Left primitives first, then right ones, each in their order: through the scratch range, each
  // chunk writing where the chunks before it end.
  uint32_t partitionStably(const Chunks& chunks, const Split& split) {
    std::vector<uint32_t> lefts(chunks.count());
    parallelFor(budget_, chunks.count(), [&](size_t c) {
      lefts[c] = static_cast<uint32_t>(std::count_if(refs_.begin() + chunks.first(c), refs_.begin() + chunks.last(c),
                                                     [&](const PrimitiveRef& ref) { return split.goesLeft(ref); }));
    });
    std::vector<uint32_t> leftAt(chunks.count()), rightAt(chunks.count());
    const uint32_t middle = chunks.begin + std::accumulate(lefts.begin(), lefts.end(), 0u);
    for (uint32_t c = 0, left = chunks.begin, right = middle; c < chunks.count(); ++c) {
      leftAt[c] = left;
      rightAt[c] = right;
      left += lefts[c];
      right += chunks.last(c) - chunks.first(c) - lefts[c];
    }
    parallelFor(budget_, chunks.count(), [&](size_t c) {
      for (uint32_t i = chunks.first(c); i < chunks.last(c); ++i)
        scratch_[split.goesLeft(refs_[i]) ? leftAt[c]++ : rightAt[c]++] = refs_[i];
    });
    parallelFor(budget_, chunks.count(), [&](size_t c) {
      std::copy(scratch_.begin() + chunks.first(c), scratch_.begin() + chunks.last(c), refs_.begin() + chunks.first(c));
    });
    return middle;
  }

  // The binned split of least SAH cost (area x count summed over both sides), over every axis;
  // binned chunk by chunk on the budget's spare threads when `chunks` are given.
  Split findSplit(uint32_t begin, uint32_t end, const Bounds& centroids, const Chunks* chunks) const {
    const uint32_t count = end - begin;
    const uint32_t binCount = std::min(options_.binCount, count);  // more would stay empty
    std::array<Binning, 3> binnings;
    for (int axis = 0; axis < 3; ++axis) {
      const float extent = centroids.max[axis] - centroids.min[axis];
      if (extent > 0)
        binnings[axis] = {.origin = centroids.min[axis], .scale = float(binCount) / extent, .binCount = binCount};
    }
    AxisBins bins{};
    if (chunks) {
      std::vector<AxisBins> partial(chunks->count());
      parallelFor(budget_, chunks->count(),
                  [&](size_t c) { addToBins(chunks->first(c), chunks->last(c), binnings, partial[c]); });
      for (const AxisBins& p : partial)
        for (int axis = 0; axis < 3; ++axis)
          for (uint32_t b = 0; b < binCount; ++b) {
            bins[axis][b].bounds.extend(p[axis][b].bounds);
            bins[axis][b].count += p[axis][b].count;
          }
    } else {
      addToBins(begin, end, binnings, bins);
    }

    Split best;
    float bestCost = std::numeric_limits<float>::infinity();
    std::array<float, maxBinCount> rightCost{};
    for (int axis = 0; axis < 3; ++axis) {
      if (binnings[axis].binCount == 0) continue;
      const auto& axisBins = bins[axis];
      Bounds right;
      uint32_t rightCount = 0;
      for (uint32_t b = binCount - 1; b > 0; --b) {
        right.extend(axisBins[b].bounds);
        rightCount += axisBins[b].count;
        rightCost[b] = right.halfArea() * float(rightCount);
      }
      Bounds left;
      uint32_t leftCount = 0;
      for (uint32_t b = 1; b < binCount; ++b) {
        left.extend(axisBins[b - 1].bounds);
        leftCount += axisBins[b - 1].count;
        if (leftCount == 0 || leftCount == count) continue;
        const float cost = left.halfArea() * float(leftCount) + rightCost[b];
        if (cost < bestCost) {
          bestCost = cost;
          best = {.axis = axis, .bin = b, .binning = binnings[axis]};
        }
      }
    }
    return best;
  }

  std::span<PrimitiveRef> refs_;
  std::span<PrimitiveRef> scratch_;
  std::vector<BinaryBvhNode>& nodes_;
  const BinaryBvhOptions& options_;
  ThreadBudget& budget_;
};

}  // namespace

BinaryBvh buildBinaryBvh(std::span<const Bounds> primitives, const BinaryBvhOptions& options, ThreadBudget& budget) {
  if (options.binCount < 2 || options.binCount > maxBinCount)
    throw std::logic_error("BVH bin count " + std::to_string(options.binCount) + " outside 2.." +
                           std::to_string(maxBinCount));
  BinaryBvh bvh;
  if (primitives.empty()) return bvh;
  const auto count = static_cast<uint32_t>(primitives.size());
  const Chunks chunks{.begin = 0, .end = count, .size = std::max(1u, options.parallelNodeThreshold / 4)};
  std::vector<PrimitiveRef> refs;
  resizeInHugePages(refs, count);
  parallelFor(budget, chunks.count(), [&](size_t c) {
    for (uint32_t i = chunks.first(c); i < chunks.last(c); ++i)
      refs[i] = {.bounds = primitives[i], .centroid = primitives[i].center(), .index = i};
  });
  std::vector<PrimitiveRef> scratch;
  resizeInHugePages(scratch, count >= options.parallelNodeThreshold ? count : 0);
  resizeInHugePages(bvh.nodes, 2 * size_t(count) - 1);
  Builder(refs, scratch, bvh.nodes, options, budget).build(0, 0, count);
  resizeInHugePages(bvh.primitiveOrder, count);
  parallelFor(budget, chunks.count(), [&](size_t c) {
    for (uint32_t i = chunks.first(c); i < chunks.last(c); ++i) bvh.primitiveOrder[i] = refs[i].index;
  });
  return bvh;
}

}  // namespace ptbench
