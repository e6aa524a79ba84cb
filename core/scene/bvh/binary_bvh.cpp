#include "core/scene/bvh/binary_bvh.h"

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>

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
};

class Builder {
 public:
  Builder(std::span<PrimitiveRef> refs, std::vector<BinaryBvhNode>& nodes, const BinaryBvhOptions& options,
          ThreadBudget& budget)
      : refs_(refs), nodes_(nodes), options_(options), budget_(budget) {}

  void build(uint32_t node, uint32_t begin, uint32_t end) {
    Bounds bounds, centroids;
    for (uint32_t i = begin; i < end; ++i) {
      bounds.extend(refs_[i].bounds);
      centroids.extend(refs_[i].centroid);
    }
    const uint32_t count = end - begin;
    nodes_[node] = {.bounds = bounds, .firstPrimitive = begin, .primitiveCount = count};
    if (count == 1) return;

    // Two primitives have one split; the sweep would find it.
    const Split split = count > 2 ? findSplit(begin, end, centroids) : Split{};
    uint32_t middle = begin + count / 2;
    if (split.axis >= 0) {
      const auto right = std::partition(refs_.begin() + begin, refs_.begin() + end, [&](const PrimitiveRef& ref) {
        return split.binning.binOf(ref.centroid[split.axis]) < split.bin;
      });
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
  // The binned split of least SAH cost (area x count summed over both sides), over every axis.
  Split findSplit(uint32_t begin, uint32_t end, const Bounds& centroids) const {
    const uint32_t count = end - begin;
    const uint32_t binCount = std::min(options_.binCount, count);  // more would stay empty
    std::array<Binning, 3> binnings;
    Bin bins[3][maxBinCount];
    for (int axis = 0; axis < 3; ++axis) {
      const float extent = centroids.max[axis] - centroids.min[axis];
      if (extent > 0)
        binnings[axis] = {.origin = centroids.min[axis], .scale = float(binCount) / extent, .binCount = binCount};
    }
    for (uint32_t i = begin; i < end; ++i) {
      const PrimitiveRef& ref = refs_[i];
      for (int axis = 0; axis < 3; ++axis) {
        if (binnings[axis].binCount == 0) continue;
        Bin& bin = bins[axis][binnings[axis].binOf(ref.centroid[axis])];
        bin.bounds.extend(ref.bounds);
        ++bin.count;
      }
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
  std::vector<PrimitiveRef> refs(primitives.size());
  for (uint32_t i = 0; i < primitives.size(); ++i)
    refs[i] = {.bounds = primitives[i], .centroid = primitives[i].center(), .index = i};
  bvh.nodes.resize(2 * primitives.size() - 1);
  Builder(refs, bvh.nodes, options, budget).build(0, 0, static_cast<uint32_t>(refs.size()));
  bvh.primitiveOrder.resize(refs.size());
  for (size_t i = 0; i < refs.size(); ++i) bvh.primitiveOrder[i] = refs[i].index;
  return bvh;
}

}  // namespace ptbench
