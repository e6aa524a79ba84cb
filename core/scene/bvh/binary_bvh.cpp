#include "core/scene/bvh/binary_bvh.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "core/scene/huge_pages.h"

namespace ptbench {
namespace {

constexpr uint32_t maxBinCount = 32;
// The deepest node that splits by SAH; below it the build halves (Builder::build). Deeper than a
// real scene's SAH tree goes (its depth grows with the log of its triangles), and it keeps the
// recursion within maxSahDepth + 32 levels for any input.
constexpr uint32_t maxSahDepth = 128;

// Four floats that GCC and Clang operate on at once (SSE on x86-64, NEON on AArch64): a box's
// corner in the first three, so that growing a box takes two instructions rather than six.
// Binning is most of the build's time: with these boxes and refs of 32 bytes rather than 40, a
// 2M-triangle mesh's binary tree builds in 0.96-1.07 s rather than 1.46-1.77 s on one thread of
// the H100 host's Xeon (the same tree).
using Float4 = float __attribute__((vector_size(16)));

// As Bounds::extend: `grown` starts empty and only ever takes numbers, and a NaN loses.
Float4 lowerOf(Float4 grown, Float4 value) {
  return value < grown ? value : grown;
}
Float4 upperOf(Float4 grown, Float4 value) {
  return value > grown ? value : grown;
}

constexpr Float4 emptyLower = {INFINITY, INFINITY, INFINITY, INFINITY};
constexpr Float4 emptyUpper = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};

// Left unset when declared, so that the bins a node does not use cost nothing (AxisBins): a box
// that is to grow starts as empty().
struct Box4 {
  Float4 lower, upper;
  static Box4 empty() { return {.lower = emptyLower, .upper = emptyUpper}; }
  void extend(Float4 pointLower, Float4 pointUpper) {
    lower = lowerOf(lower, pointLower);
    upper = upperOf(upper, pointUpper);
  }
  void extend(const Box4& other) { extend(other.lower, other.upper); }
  Bounds bounds() const { return {.min = {lower[0], lower[1], lower[2]}, .max = {upper[0], upper[1], upper[2]}}; }
};

// A primitive's box, 32 bytes: its index rides in the corners' unused lanes, 16 bits in each,
// as the mantissas of numbers in [1, 2). Those lanes go through the same arithmetic as the
// others, and a denormal there (the index's bits as they are) costs Intel CPUs a microcode
// assist per operation: it made the build 3.3 times slower.
struct PrimitiveRef {
  Float4 lower, upper;
  static constexpr uint32_t one = 0x3f800000u;  // 1.0f
  static PrimitiveRef of(const Bounds& box, uint32_t index) {
    return {.lower = Float4{box.min.x, box.min.y, box.min.z, std::bit_cast<float>(one | (index & 0xffffu))},
            .upper = Float4{box.max.x, box.max.y, box.max.z, std::bit_cast<float>(one | (index >> 16))}};
  }
  uint32_t index() const {
    return (std::bit_cast<uint32_t>(lower[3]) & 0xffffu) | (std::bit_cast<uint32_t>(upper[3]) & 0xffffu) << 16;
  }
  // As Bounds::center.
  Float4 centroid() const { return (lower + upper) * 0.5f; }
};

// Which bin a centroid coordinate falls in; NaN coordinates land in bin 0.
struct Binning {
  float origin = 0;
  float scale = 0;  // bins per unit length
  uint32_t binCount = 0;
  uint32_t binOf(float centroid) const {
    const float position = (centroid - origin) * scale;
    // Clamped before the conversion: centroids a denormal apart make `scale` infinite, and an
    // infinite position has no integer.
    return position > 0 ? static_cast<uint32_t>(std::min(position, float(binCount - 1))) : 0;
  }
};

struct Split {
  int axis = -1;     // -1: no binned split separates the primitives
  uint32_t bin = 0;  // the right side starts at this bin
  Binning binning;
  // The centroid's coordinate as PrimitiveRef::centroid gives it, read lane by lane.
  bool goesLeft(const PrimitiveRef& ref) const {
    return binning.binOf((ref.lower[axis] + ref.upper[axis]) * 0.5f) < bin;
  }
};

// Only the bins a node uses (binCount of each axis's 32) are emptied: emptying all of them cost a
// node of a few primitives more than binning them, and most nodes are such nodes.
struct AxisBins {
  explicit AxisBins(uint32_t binCount) {
    for (int axis = 0; axis < 3; ++axis) {
      std::fill_n(boxes[axis], binCount, Box4::empty());
      std::fill_n(counts[axis], binCount, 0u);
    }
  }
  // Bins of the same node (the same binCount) gathered elsewhere, bin by bin.
  void extend(const AxisBins& other, uint32_t binCount) {
    for (int axis = 0; axis < 3; ++axis)
      for (uint32_t b = 0; b < binCount; ++b) {
        boxes[axis][b].extend(other.boxes[axis][b]);
        counts[axis][b] += other.counts[axis][b];
      }
  }
  Box4 boxes[3][maxBinCount];
  uint32_t counts[3][maxBinCount];
};

// A shared node's chunks' partial results are merged in chunk order. Box unions and counts are
// exact, and a union keeps the first of equal values, so merged bounds equal one pass's, a
// zero's sign included; merged bins equal one pass's but for a zero's sign (addToBins' odd and
// even bins merge out of order).
struct RangeBounds {
  Box4 bounds = Box4::empty(), centroids = Box4::empty();
  void add(const PrimitiveRef& ref) {
    bounds.extend(ref.lower, ref.upper);
    const Float4 centroid = ref.centroid();
    centroids.extend(centroid, centroid);
  }
  void extend(const RangeBounds& other) {
    bounds.extend(other.bounds);
    centroids.extend(other.centroids);
  }
};

class Builder {
 public:
  // Each leaf writes its primitive's index to `order`.
  Builder(std::span<BinaryBvhNode> nodes, std::span<uint32_t> order, const BinaryBvhOptions& options,
          ThreadBudget& budget)
      : nodes_(nodes), order_(order), options_(options), budget_(budget) {}

  // The tree over all of `refs`, whose bounds are `range`; `spare` as large as `refs` when a node
  // may be shared (parallelNodeThreshold), else empty.
  void build(std::span<PrimitiveRef> refs, std::span<PrimitiveRef> spare, const RangeBounds& range) {
    build(0, 0, static_cast<uint32_t>(refs.size()), refs, spare, &range, 0);
  }

 private:
  // The range's refs are in `refs`. A shared node's partition moves them to `spare`, where its
  // children then build (`refs` their spare): copying them back cost two of a shared node's seven
  // passes over memory. An unshared node partitions in place. `known` is the range's bounds where
  // the parent's partition (or, for the root, the writing of the refs) gathered them, else null.
  void build(uint32_t node, uint32_t begin, uint32_t end, std::span<PrimitiveRef> refs, std::span<PrimitiveRef> spare,
             const RangeBounds* known, uint32_t depth) {
    const uint32_t count = end - begin;
    const bool shared = count >= options_.parallelNodeThreshold;
    const Chunks chunks{.begin = begin, .end = end, .size = std::max(1u, options_.parallelNodeThreshold / 4)};
    RangeBounds range;
    if (known) {
      range = *known;
    } else if (shared) {
      std::vector<RangeBounds> partial(chunks.count());
      parallelFor(budget_, chunks.count(),
                  [&](size_t c) { partial[c] = boundsOf(refs, chunks.first(c), chunks.last(c)); });
      for (const RangeBounds& p : partial) range.extend(p);
    } else {
      range = boundsOf(refs, begin, end);
    }
    nodes_[node] = {.bounds = range.bounds.bounds(), .firstPrimitive = begin, .primitiveCount = count};
    if (count == 1) {
      order_[begin] = refs[begin].index();
      return;
    }

    // Two primitives have one split; the sweep would find it. Below maxSahDepth the tree halves
    // its primitives instead, so that no input (centroids spread so that each SAH split peels off
    // one primitive) recurses deeper than maxSahDepth + 32.
    std::vector<uint32_t> chunkLefts;
    const bool sah = count > 2 && depth < maxSahDepth;
    const Split split =
        sah ? findSplit(refs, begin, end, range.centroids.bounds(), shared ? &chunks : nullptr, chunkLefts) : Split{};
    uint32_t middle = begin + count / 2;
    const bool moves = split.axis >= 0 && shared;
    RangeBounds sides[2];
    if (moves) {
      middle = partitionStably(chunks, split, chunkLefts, refs, spare, sides);
    } else if (split.axis >= 0) {
      const auto right = std::partition(refs.begin() + begin, refs.begin() + end,
                                        [&](const PrimitiveRef& ref) { return split.goesLeft(ref); });
      middle = static_cast<uint32_t>(right - refs.begin());
      // goesLeft bins as the bins did, so both sides have primitives; should they not, the
      // halves by index keep the children from being empty.
      if (middle == begin || middle == end) middle = begin + count / 2;
    } else if (count > 2 && !sah) {
      // The median along the centroids' longest axis.
      const Bounds centroids = range.centroids.bounds();
      const Vec3 extent = centroids.max - centroids.min;
      const int axis = extent.x >= extent.y && extent.x >= extent.z ? 0 : extent.y >= extent.z ? 1 : 2;
      std::nth_element(
          refs.begin() + begin, refs.begin() + middle, refs.begin() + end,
          [&](const PrimitiveRef& a, const PrimitiveRef& b) { return a.centroid()[axis] < b.centroid()[axis]; });
    }
    // A subtree over m primitives takes 2m - 1 nodes, so the right child's place is known now.
    const uint32_t rightChild = node + 2 * (middle - begin);
    nodes_[node].rightChild = rightChild;
    const std::span<PrimitiveRef> childRefs = moves ? spare : refs, childSpare = moves ? refs : spare;
    forkJoin(
        budget_, count >= options_.parallelThreshold,
        [&] {
          build(BinaryBvh::leftChild(node), begin, middle, childRefs, childSpare, moves ? &sides[0] : nullptr,
                depth + 1);
        },
        [&] { build(rightChild, middle, end, childRefs, childSpare, moves ? &sides[1] : nullptr, depth + 1); });
  }

  static RangeBounds boundsOf(std::span<const PrimitiveRef> refs, uint32_t begin, uint32_t end) {
    RangeBounds range;
    for (uint32_t i = begin; i < end; ++i) range.add(refs[i]);
    return range;
  }

  // Consecutive primitives of a mesh tend to fall in the same bins, and each bin's update waits
  // for the one before it; a large range alternates between two sets of bins, merged after.
  static void addToBins(std::span<const PrimitiveRef> refs, uint32_t begin, uint32_t end,
                        const std::array<Binning, 3>& binnings, AxisBins& bins) {
    const auto add = [&](const PrimitiveRef& ref, AxisBins& to) {
      const Float4 centroid = ref.centroid();
      for (int axis = 0; axis < 3; ++axis) {
        if (binnings[axis].binCount == 0) continue;
        const uint32_t bin = binnings[axis].binOf(centroid[axis]);
        to.boxes[axis][bin].extend(ref.lower, ref.upper);
        ++to.counts[axis][bin];
      }
    };
    const uint32_t binCount = std::max({binnings[0].binCount, binnings[1].binCount, binnings[2].binCount});
    if (binCount == 0) return;  // every axis flat: nothing to bin
    if (end - begin < 16 * binCount) {
      for (uint32_t i = begin; i < end; ++i) add(refs[i], bins);
      return;
    }
    AxisBins odd(binCount);
    uint32_t i = begin;
    for (; i + 1 < end; i += 2) {
      add(refs[i], bins);
      add(refs[i + 1], odd);
    }
    if (i < end) add(refs[i], bins);
    bins.extend(odd, binCount);
  }

  // Left primitives first, then right ones, each in their order: from `from` to `to`, each chunk
  // writing where the chunks before it end. Each side's bounds are gathered on the way, the
  // chunks' merged in chunk order: the order in which a pass over the side meets its primitives,
  // so the bounds it would find (a zero's sign too), and the children need no pass of their own.
  uint32_t partitionStably(const Chunks& chunks, const Split& split, std::span<const uint32_t> chunkLefts,
                           std::span<const PrimitiveRef> from, std::span<PrimitiveRef> to, RangeBounds (&sides)[2]) {
    std::vector<uint32_t> leftAt(chunks.count()), rightAt(chunks.count());
    const uint32_t middle = chunks.begin + std::accumulate(chunkLefts.begin(), chunkLefts.end(), 0u);
    for (uint32_t c = 0, left = chunks.begin, right = middle; c < chunks.count(); ++c) {
      leftAt[c] = left;
      rightAt[c] = right;
      left += chunkLefts[c];
      right += chunks.last(c) - chunks.first(c) - chunkLefts[c];
    }
    std::vector<std::array<RangeBounds, 2>> partial(chunks.count());
    parallelFor(budget_, chunks.count(), [&](size_t c) {
      RangeBounds left, right;
      for (uint32_t i = chunks.first(c); i < chunks.last(c); ++i) {
        if (split.goesLeft(from[i])) {
          left.add(from[i]);
          to[leftAt[c]++] = from[i];
        } else {
          right.add(from[i]);
          to[rightAt[c]++] = from[i];
        }
      }
      partial[c] = {left, right};
    });
    for (const std::array<RangeBounds, 2>& p : partial) {
      sides[0].extend(p[0]);
      sides[1].extend(p[1]);
    }
    // The bins counted what goesLeft decides: had they disagreed, chunks would have written into
    // each other's ranges.
    for (uint32_t c = 0, left = chunks.begin; c < chunks.count(); ++c) {
      left += chunkLefts[c];
      if (leftAt[c] != left)
        throw std::logic_error("BVH partition: chunk " + std::to_string(c) + " sent " +
                               std::to_string(leftAt[c] - (left - chunkLefts[c])) + " primitives left, its bins " +
                               std::to_string(chunkLefts[c]));
    }
    return middle;
  }

  // The binned split of least SAH cost (area x count summed over both sides), over every axis;
  // binned chunk by chunk on the budget's spare threads when `chunks` are given, and then
  // `chunkLefts` holds how many of each chunk's primitives go left: the chunk's own bins count
  // them (goesLeft bins as addToBins does), so the partition need not.
  Split findSplit(std::span<const PrimitiveRef> refs, uint32_t begin, uint32_t end, const Bounds& centroids,
                  const Chunks* chunks, std::vector<uint32_t>& chunkLefts) const {
    const uint32_t count = end - begin;
    const uint32_t binCount = std::min(options_.binCount, count);  // more would stay empty
    std::array<Binning, 3> binnings;
    for (int axis = 0; axis < 3; ++axis) {
      const float extent = centroids.max[axis] - centroids.min[axis];
      if (extent > 0)
        binnings[axis] = {.origin = centroids.min[axis], .scale = float(binCount) / extent, .binCount = binCount};
    }
    AxisBins bins(binCount);
    std::vector<AxisBins> partial;  // a shared node's, chunk by chunk
    if (chunks) {
      // Each constructed in place: a copy would read the bins beyond binCount, never written.
      partial.reserve(chunks->count());
      for (size_t c = 0; c < chunks->count(); ++c) partial.emplace_back(binCount);
      parallelFor(budget_, chunks->count(),
                  [&](size_t c) { addToBins(refs, chunks->first(c), chunks->last(c), binnings, partial[c]); });
      for (const AxisBins& p : partial) bins.extend(p, binCount);
    } else {
      addToBins(refs, begin, end, binnings, bins);
    }

    Split best;
    float bestCost = std::numeric_limits<float>::infinity();
    std::array<float, maxBinCount> rightCost{};
    for (int axis = 0; axis < 3; ++axis) {
      if (binnings[axis].binCount == 0) continue;
      const Box4* boxes = bins.boxes[axis];
      const uint32_t* counts = bins.counts[axis];
      Box4 right = Box4::empty();
      uint32_t rightCount = 0;
      for (uint32_t b = binCount - 1; b > 0; --b) {
        right.extend(boxes[b]);
        rightCount += counts[b];
        rightCost[b] = right.bounds().halfArea() * float(rightCount);
      }
      Box4 left = Box4::empty();
      uint32_t leftCount = 0;
      for (uint32_t b = 1; b < binCount; ++b) {
        left.extend(boxes[b - 1]);
        leftCount += counts[b - 1];
        if (leftCount == 0 || leftCount == count) continue;
        const float cost = left.bounds().halfArea() * float(leftCount) + rightCost[b];
        if (cost < bestCost) {
          bestCost = cost;
          best = {.axis = axis, .bin = b, .binning = binnings[axis]};
        }
      }
    }
    if (best.axis >= 0 && chunks) {
      chunkLefts.resize(partial.size());
      for (size_t c = 0; c < partial.size(); ++c) {
        const uint32_t* counts = partial[c].counts[best.axis];
        chunkLefts[c] = std::accumulate(counts, counts + best.bin, 0u);
      }
    }
    return best;
  }

  std::span<BinaryBvhNode> nodes_;
  std::span<uint32_t> order_;
  const BinaryBvhOptions& options_;
  ThreadBudget& budget_;
};

}  // namespace

void buildBinaryBvh(std::span<const Bounds> primitives, const BinaryBvhOptions& options, ThreadBudget& budget,
                    BinaryBvh& bvh, ScratchMemory& scratch) {
  if (options.binCount < 2 || options.binCount > maxBinCount)
    throw std::logic_error("BVH bin count " + std::to_string(options.binCount) + " outside 2.." +
                           std::to_string(maxBinCount));
  const auto count = static_cast<uint32_t>(primitives.size());
  if (count == 0) {
    bvh.nodes.clear();
    bvh.primitiveOrder.clear();
    return;
  }
  const Chunks chunks{.begin = 0, .end = count, .size = std::max(1u, options.parallelNodeThreshold / 4)};
  // Every ref is written before it is read, and the partition's second array before its children
  // read it: what the memory held before does not matter.
  const size_t partitionCount = count >= options.parallelNodeThreshold ? count : 0;
  const std::span<PrimitiveRef> arrays = scratch.take<PrimitiveRef>(count + partitionCount);
  const std::span<PrimitiveRef> refs = arrays.first(count);
  // The root's bounds are gathered as the refs are written, in the chunks a shared root would use
  // and merged in their order: what a pass of the root's own would find.
  std::vector<RangeBounds> partial(chunks.count());
  parallelFor(budget, chunks.count(), [&](size_t c) {
    for (uint32_t i = chunks.first(c); i < chunks.last(c); ++i) {
      const Bounds& box = primitives[i];
      refs[i] = PrimitiveRef::of(box, i);
      partial[c].add(refs[i]);
    }
  });
  RangeBounds range;
  for (const RangeBounds& p : partial) range.extend(p);
  // The build assigns every node in full, and each leaf its primitive's place in the order.
  resizeForOverwrite(bvh.nodes, 2 * size_t(count) - 1);
  resizeForOverwrite(bvh.primitiveOrder, count);
  Builder(bvh.nodes, bvh.primitiveOrder, options, budget).build(refs, arrays.subspan(count), range);
}

BinaryBvh buildBinaryBvh(std::span<const Bounds> primitives, const BinaryBvhOptions& options, ThreadBudget& budget) {
  BinaryBvh bvh;
  ScratchMemory scratch;
  buildBinaryBvh(primitives, options, budget, bvh, scratch);
  return bvh;
}

}  // namespace ptbench
