#include "core/scene/bvh/cwbvh.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <span>

#include "core/scene/huge_pages.h"

namespace ptbench {
namespace {

constexpr uint32_t childrenPerNode = gpu::CWBVH_WIDTH;
constexpr uint32_t maxRoots = childrenPerNode - 1;  // a subtree shares a wide node with at least one sibling
constexpr float infinity = std::numeric_limits<float>::infinity();

uint8_t byteOf(const uint32_t* words, uint32_t i) {
  return static_cast<uint8_t>(words[i / 4] >> (8 * (i % 4)));
}
void setByte(uint32_t* words, uint32_t i, uint32_t value) {
  const uint32_t shift = 8 * (i % 4);
  words[i / 4] = (words[i / 4] & ~(0xffu << shift)) | ((value & 0xffu) << shift);
}

// The smallest power of two, as a biased float exponent, whose 255 steps cover the extent.
uint32_t quantisationExponent(double extent) {
  if (!(extent > 0)) return 1;
  int exponent = 0;
  const double mantissa = std::frexp(extent / 255.0, &exponent);  // extent / 255 = mantissa * 2^exponent
  if (mantissa == 0.5) --exponent;                                // already a power of two
  return static_cast<uint32_t>(std::clamp(exponent + 127, 1, 254));
}

class CwbvhCollapse {
 public:
  CwbvhCollapse(const BinaryBvh& binary, const SahCosts& costs, CollapseScratch& scratch)
      : binary_(binary), costs_(costs) {
    // solve() writes every entry of a node before its parent reads it (a leaf's splits too).
    resizeForOverwrite(scratch.split, binary.nodes.size() * childrenPerNode);
    resizeForOverwrite(scratch.makesLeaf, binary.nodes.size());
    // emit()'s two levels, written before they are read: a level holds at most n wide nodes.
    resizeForOverwrite(scratch.levels, 2 * binary.primitiveOrder.size());
    cost_ = scratch.cost.take<float>(binary.nodes.size() * maxRoots);
    split_ = scratch.split;
    makesLeaf_ = scratch.makesLeaf;
    levels_ = scratch.levels;
  }

  BvhTree<gpu::CwbvhNode> run(ThreadBudget& budget) {
    // A wide node holds at least two of the binary tree's n - 1 inner nodes' children: room that
    // the levels' nodes fill without moving.
    reserveInHugePages(tree_.nodes, binary_.primitiveOrder.size());
    visitBottomUp(binary_, budget, [&](uint32_t n) { solve(n); });
    const BinaryBvhNode& root = binary_.nodes[0];
    const float rootArea = root.bounds.halfArea();
    float rootCost = rootArea * (costs_.node + costs_.primitive);
    if (!BinaryBvh::isLeaf(root)) {
      const uint32_t k = split_[0 * childrenPerNode + 0];
      rootCost = rootArea * costs_.node + cost(BinaryBvh::leftChild(0), k) + cost(root.rightChild, childrenPerNode - k);
    }
    tree_.sahCost = rootArea > 0 ? rootCost / rootArea : 0;
    emit(budget);
    return std::move(tree_);
  }

 private:
  // C(n, i): the least cost of binary subtree n as at most i wide-tree roots, 1 <= i <= 7.
  float cost(uint32_t n, uint32_t i) const { return cost_[n * maxRoots + (i - 1)]; }
  float& cost(uint32_t n, uint32_t i) { return cost_[n * maxRoots + (i - 1)]; }
  // split(n, i) for 2 <= i <= 7: how many of the i roots go to the left child, or 0 when at
  // most i - 1 roots do as well; split(n, 0): the same for the 8 children of n as a wide node.
  uint8_t& split(uint32_t n, uint32_t i) { return split_[n * childrenPerNode + i]; }
  uint8_t split(uint32_t n, uint32_t i) const { return split_[n * childrenPerNode + i]; }

  void solve(uint32_t n) {
    const BinaryBvhNode& node = binary_.nodes[n];
    const float area = node.bounds.halfArea();
    const float leafCost = node.primitiveCount <= gpu::CWBVH_MAX_LEAF_SIZE
                               ? area * float(node.primitiveCount) * costs_.primitive
                               : infinity;
    if (BinaryBvh::isLeaf(node)) {
      makesLeaf_[n] = 1;
      for (uint32_t i = 1; i <= maxRoots; ++i) cost(n, i) = leafCost;
      // A leaf is one root however many it is offered (collectRoots reads its splits so).
      for (uint32_t i = 0; i < childrenPerNode; ++i) split(n, i) = 0;
      return;
    }
    const uint32_t left = BinaryBvh::leftChild(n), right = node.rightChild;
    // Distributing j roots between the two children, for j = 2..8. The first split is taken
    // whatever its cost, so that every split names one: costs that are all infinite or NaN (boxes
    // whose areas overflow) leave the tree a valid one, not a split of 0 roots.
    std::array<float, childrenPerNode + 1> distribute{};
    std::array<uint8_t, childrenPerNode + 1> distributeSplit{};
    for (uint32_t j = 2; j <= childrenPerNode; ++j) {
      for (uint32_t k = 1; k < j; ++k) {
        const float c = cost(left, k) + cost(right, j - k);
        if (k == 1 || c < distribute[j]) {
          distribute[j] = c;
          distributeSplit[j] = static_cast<uint8_t>(k);
        }
      }
    }
    const float innerCost = area * costs_.node + distribute[childrenPerNode];
    split(n, 0) = distributeSplit[childrenPerNode];
    // A leaf never holds more than a CWBVH leaf can, even where both costs are infinite.
    makesLeaf_[n] = node.primitiveCount <= gpu::CWBVH_MAX_LEAF_SIZE && leafCost <= innerCost;
    cost(n, 1) = std::min(leafCost, innerCost);
    for (uint32_t i = 2; i <= maxRoots; ++i) {
      const bool distributes = distribute[i] < cost(n, i - 1);
      cost(n, i) = distributes ? distribute[i] : cost(n, i - 1);
      split(n, i) = distributes ? distributeSplit[i] : 0;
    }
  }

  struct Root {
    uint32_t node;
    bool leaf;
  };

  void collectRoots(uint32_t n, uint32_t i, std::vector<Root>& roots) const {
    while (i > 1 && split(n, i) == 0) --i;
    if (i == 1) {
      roots.push_back({n, makesLeaf_[n] != 0});
      return;
    }
    const uint32_t k = split(n, i);
    collectRoots(BinaryBvh::leftChild(n), k, roots);
    collectRoots(binary_.nodes[n].rightChild, i - k, roots);
  }

  // slots[s]: the index into roots of the child in slot s, or -1.
  static std::array<int, childrenPerNode> assignSlots(const std::vector<Root>& roots, const std::vector<Bounds>& bounds,
                                                      Vec3 centre) {
    std::array<std::array<float, childrenPerNode>, childrenPerNode> score{};
    for (size_t c = 0; c < roots.size(); ++c) {
      const Vec3 offset = bounds[c].center() - centre;
      for (uint32_t s = 0; s < childrenPerNode; ++s)
        score[c][s] = dot(offset, {s & 1 ? 1.0f : -1.0f, s & 2 ? 1.0f : -1.0f, s & 4 ? 1.0f : -1.0f});
    }
    std::array<int, childrenPerNode> slots;
    slots.fill(-1);
    std::array<bool, childrenPerNode> placed{};
    for (size_t round = 0; round < roots.size(); ++round) {
      float best = -infinity;
      int bestChild = -1, bestSlot = -1;
      for (size_t c = 0; c < roots.size(); ++c) {
        if (placed[c]) continue;
        for (uint32_t s = 0; s < childrenPerNode; ++s)
          if (slots[s] < 0 && (bestChild < 0 || score[c][s] > best)) {
            best = score[c][s];
            bestChild = static_cast<int>(c);
            bestSlot = static_cast<int>(s);
          }
      }
      slots[bestSlot] = bestChild;
      placed[bestChild] = true;
    }
    return slots;
  }

  // Binary node n's wide node's children, each a leaf or an inner node.
  void childrenOf(uint32_t n, std::vector<Root>& roots) const {
    roots.clear();
    if (BinaryBvh::isLeaf(binary_.nodes[n])) {
      roots.push_back({n, true});
      return;
    }
    const uint32_t k = split(n, 0);
    collectRoots(BinaryBvh::leftChild(n), k, roots);
    collectRoots(binary_.nodes[n].rightChild, childrenPerNode - k, roots);
  }

  // Where the next wide node's children go in the order (the next level's inner children, the
  // tree's primitives), and the leaves before it; or, summed over a chunk of a level's nodes,
  // what they add to the order.
  struct Cursor {
    uint32_t inner = 0, primitive = 0;
    uint64_t leaves = 0;
  };

  // The wide node over binary node n, its children where `at` says, which it advances past them:
  // its inner children's binary nodes go to the next level and its leaves' primitives to the
  // tree's order, in slot order. `roots` and `bounds` are the caller's, reused from node to node.
  gpu::CwbvhNode wideNode(uint32_t n, uint32_t nextLevelFirst, std::span<uint32_t> nextLevel, Cursor& at,
                          std::vector<Root>& roots, std::vector<Bounds>& bounds) {
    childrenOf(n, roots);
    bounds.clear();
    for (const Root& root : roots) bounds.push_back(binary_.nodes[root.node].bounds);
    const Bounds& nodeBounds = binary_.nodes[n].bounds;
    const std::array<int, childrenPerNode> slots = assignSlots(roots, bounds, nodeBounds.center());

    gpu::CwbvhNode node{};
    node.origin = toGpu(nodeBounds.min);
    node.childBase = nextLevelFirst + at.inner;
    node.primitiveBase = at.primitive;
    std::array<double, 3> scale;
    for (int axis = 0; axis < 3; ++axis) {
      const uint32_t exponent = quantisationExponent(double(nodeBounds.max[axis]) - double(nodeBounds.min[axis]));
      setByte(&node.exponentsAndImask, axis, exponent);
      scale[axis] = std::ldexp(1.0, static_cast<int>(exponent) - 127);
    }
    uint32_t imask = 0;
    for (uint32_t s = 0; s < childrenPerNode; ++s) {
      if (slots[s] < 0) {
        for (int axis = 0; axis < 3; ++axis) {
          setByte(node.quantizedMin, 8 * axis + s, 0xff);  // inverted: no ray enters it
          setByte(node.quantizedMax, 8 * axis + s, 0);
        }
        continue;
      }
      const Root& root = roots[slots[s]];
      const BinaryBvhNode& child = binary_.nodes[root.node];
      for (int axis = 0; axis < 3; ++axis) {
        // In double the differences are exact, so floor and ceil round outwards exactly.
        const double low = std::floor((double(child.bounds.min[axis]) - double(nodeBounds.min[axis])) / scale[axis]);
        const double high = std::ceil((double(child.bounds.max[axis]) - double(nodeBounds.min[axis])) / scale[axis]);
        setByte(node.quantizedMin, 8 * axis + s, static_cast<uint32_t>(std::clamp(low, 0.0, 255.0)));
        setByte(node.quantizedMax, 8 * axis + s, static_cast<uint32_t>(std::clamp(high, 0.0, 255.0)));
      }
      if (root.leaf) {
        const uint32_t count = child.primitiveCount;
        setByte(node.meta, s, (((1u << count) - 1) << 5) | (at.primitive - node.primitiveBase));
        const auto first = binary_.primitiveOrder.begin() + child.firstPrimitive;
        std::copy(first, first + count, tree_.primitiveOrder.begin() + at.primitive);
        at.primitive += count;
        ++at.leaves;
      } else {
        setByte(node.meta, s, gpu::CWBVH_META_INNER | (gpu::CWBVH_META_INNER_SLOT_BASE + s));
        nextLevel[at.inner++] = root.node;
        imask |= 1u << s;
      }
    }
    setByte(&node.exponentsAndImask, 3, imask);
    return node;
  }

  // Breadth first, so that each node's inner children are contiguous, a level at a time. Where
  // threads are spare, a level's nodes go in chunks on them: first each chunk counts what its
  // nodes add to the order (their children alone, without their boxes), then the counts summed in
  // order give each chunk's first node its first child and first primitive as one pass through
  // the order would, and the chunks make their nodes. Otherwise one pass makes the level, as the
  // counting would cost a thread that has no help a second walk through the binary tree.
  void emit(ThreadBudget& budget) {
    constexpr uint32_t nodesPerChunk = 1024;
    // Every primitive is in exactly one leaf.
    reserveTouchedInHugePages(tree_.primitiveOrder, binary_.primitiveOrder.size(), budget);
    tree_.primitiveOrder.resize(binary_.primitiveOrder.size());
    // Binary nodes, in the order of their wide nodes.
    std::span<uint32_t> level = levels_.first(levels_.size() / 2), nextLevel = levels_.last(levels_.size() / 2);
    level[0] = 0;
    uint32_t levelSize = 1, levelFirst = 0;
    Cursor end;  // where the levels so far end
    std::vector<Cursor> chunkStarts;
    std::vector<Root> roots;
    std::vector<Bounds> bounds;
    while (levelSize > 0) {
      const uint32_t nextLevelFirst = levelFirst + levelSize;
      reserveTouchedInHugePages(tree_.nodes, nextLevelFirst, budget);
      tree_.nodes.resize(nextLevelFirst);
      const Chunks chunks{.begin = 0, .end = levelSize, .size = nodesPerChunk};
      Cursor at = {.inner = 0, .primitive = end.primitive, .leaves = end.leaves};
      if (chunks.count() == 1 || !budget.hasSpare()) {
        for (uint32_t i = 0; i < levelSize; ++i)
          tree_.nodes[levelFirst + i] = wideNode(level[i], nextLevelFirst, nextLevel, at, roots, bounds);
      } else {
        chunkStarts.assign(chunks.count(), {});
        // Each chunk counts in a cursor of its own: neighbours' entries share cache lines.
        parallelFor(budget, chunks.count(), [&](size_t c) {
          std::vector<Root> chunkRoots;
          Cursor added;
          for (uint32_t i = chunks.first(c); i < chunks.last(c); ++i) {
            childrenOf(level[i], chunkRoots);
            for (const Root& root : chunkRoots) {
              if (!root.leaf) {
                ++added.inner;
                continue;
              }
              added.primitive += binary_.nodes[root.node].primitiveCount;
              ++added.leaves;
            }
          }
          chunkStarts[c] = added;
        });
        for (Cursor& start : chunkStarts) {
          const Cursor added = start;
          start = at;
          at.inner += added.inner;
          at.primitive += added.primitive;
          at.leaves += added.leaves;
        }
        parallelFor(budget, chunks.count(), [&](size_t c) {
          std::vector<Root> chunkRoots;
          std::vector<Bounds> chunkBounds;
          Cursor chunkAt = chunkStarts[c];
          for (uint32_t i = chunks.first(c); i < chunks.last(c); ++i)
            tree_.nodes[levelFirst + i] =
                wideNode(level[i], nextLevelFirst, nextLevel, chunkAt, chunkRoots, chunkBounds);
        });
      }
      end = at;
      levelFirst = nextLevelFirst;
      levelSize = at.inner;
      std::swap(level, nextLevel);
    }
    tree_.leafCount = end.leaves;
  }

  const BinaryBvh& binary_;
  const SahCosts& costs_;
  std::span<float> cost_;
  std::span<uint8_t> split_;
  std::span<uint8_t> makesLeaf_;
  std::span<uint32_t> levels_;  // a level's binary nodes, then the next level's
  BvhTree<gpu::CwbvhNode> tree_;
};

}  // namespace

BvhTree<gpu::CwbvhNode> collapseToCwbvh(const BinaryBvh& binary, const SahCosts& costs, ThreadBudget& budget,
                                        CollapseScratch& scratch) {
  if (binary.nodes.empty()) return {};
  return CwbvhCollapse(binary, costs, scratch).run(budget);
}

BvhTree<gpu::CwbvhNode> collapseToCwbvh(const BinaryBvh& binary, const SahCosts& costs, ThreadBudget& budget) {
  CollapseScratch scratch;
  return collapseToCwbvh(binary, costs, budget, scratch);
}

std::optional<CwbvhChild> cwbvhChild(const gpu::CwbvhNode& node, uint32_t slot) {
  const uint32_t meta = byteOf(node.meta, slot);
  if (meta == 0) return std::nullopt;
  const uint32_t imask = byteOf(&node.exponentsAndImask, 3);
  CwbvhChild child;
  child.inner = (imask >> slot) & 1;
  if (child.inner) {
    child.index = node.childBase + static_cast<uint32_t>(std::popcount(imask & ((1u << slot) - 1)));
  } else {
    child.index = node.primitiveBase + (meta & 0x1f);
    child.primitiveCount = static_cast<uint32_t>(std::popcount(meta >> 5));
  }
  // q * 2^e is exact and p + q * 2^e rounds to the float nearest, which rounding's monotonicity
  // keeps on the outer side of the exact bound (itself a float).
  float lo[3], hi[3];
  const float origin[3] = {node.origin.x, node.origin.y, node.origin.z};
  for (int axis = 0; axis < 3; ++axis) {
    const float scale = std::bit_cast<float>(uint32_t(byteOf(&node.exponentsAndImask, axis)) << 23);
    lo[axis] = origin[axis] + float(byteOf(node.quantizedMin, 8 * axis + slot)) * scale;
    hi[axis] = origin[axis] + float(byteOf(node.quantizedMax, 8 * axis + slot)) * scale;
  }
  child.bounds = {.min = {lo[0], lo[1], lo[2]}, .max = {hi[0], hi[1], hi[2]}};
  return child;
}

}  // namespace ptbench
