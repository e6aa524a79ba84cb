#version 460
#extension GL_GOOGLE_include_directive : require
// A treelet round's restructuring at one height (Karras & Aila 2013, "Fast Parallel Construction
// of High-Quality Bounding Volume Hierarchies", sections 3-4; the schedule in bvh_build.h): each
// invocation takes a node of that height, whose subtree the lower heights' dispatches left final,
// refits its cost and, if the subtree has at least minPrimitives, rebuilds the node's treelet: the
// node, grown to 7 leaves by opening the leaf of largest area, each time, into its children,
// rearranged as the dynamic programme over the leaves' subsets finds cheapest under BVH2's cost
// model (a subset of at most BVH2_MAX_LEAF_SIZE primitives may cost as a leaf, which the collapse
// may make it). The treelet's inner nodes are reused, so nothing outside it moves. One invocation
// per treelet, its cost table in shared memory: simpler than the paper's warp-wide programme, and
// as converged, since every invocation of a dispatch has a treelet of the same 7 leaves.
#include "bvh/build.glsl"

layout(push_constant, scalar) uniform Push { TreeletPush push; };
layout(local_size_x = TREELET_WORKGROUP_SIZE) in;

const uint SUBSETS = 1u << TREELET_LEAVES;
// Subset s of invocation i at s * TREELET_WORKGROUP_SIZE + i: invocations side by side, so that
// the same subset of each falls in a different bank.
shared float subsetCost[SUBSETS * TREELET_WORKGROUP_SIZE];
// Each subset's cheapest split: the leaves of its right part, a byte; four subsets a word.
shared uint subsetSplit[SUBSETS / 4 * TREELET_WORKGROUP_SIZE];

float costOf(uint subset) {
  return subsetCost[subset * TREELET_WORKGROUP_SIZE + gl_LocalInvocationIndex];
}
uint splitOf(uint subset) {
  return (subsetSplit[subset / 4 * TREELET_WORKGROUP_SIZE + gl_LocalInvocationIndex] >> (8 * (subset % 4))) & 0xffu;
}
void setSplit(uint subset, uint right) {
  const uint word = subset / 4 * TREELET_WORKGROUP_SIZE + gl_LocalInvocationIndex, shift = 8 * (subset % 4);
  subsetSplit[word] = (subsetSplit[word] & ~(0xffu << shift)) | (right << shift);
}

void restructure(uint root) {
  const uint innerCount = push.count - 1;
  KarrasNodeArray tree = KarrasNodeArray(push.karrasNodes);
  BoundsArray boxes = BoundsArray(push.nodeBounds);
  FloatArray costs = FloatArray(push.costs);
  UintArray primitiveCounts = UintArray(push.primitiveCounts);
  UintArray parents = UintArray(push.parents);

  // The treelet: grown from the root's children by opening its largest leaf (the first of
  // equal areas), as long as one is an inner node of the tree.
  uint leaves[TREELET_LEAVES], inner[TREELET_LEAVES - 1];
  leaves[0] = tree.nodes[root].left;
  leaves[1] = tree.nodes[root].right;
  inner[0] = root;
  uint leafCount = 2;
  while (leafCount < TREELET_LEAVES) {
    int largest = -1;
    float largestArea = -1;
    for (uint i = 0; i < leafCount; ++i) {
      if (leaves[i] >= innerCount) continue;
      const float area = halfArea(boxes.bounds[leaves[i]]);
      if (area > largestArea) {
        largestArea = area;
        largest = int(i);
      }
    }
    if (largest < 0) break;
    const uint opened = leaves[largest];
    inner[leafCount - 1] = opened;
    leaves[largest] = tree.nodes[opened].left;
    leaves[leafCount++] = tree.nodes[opened].right;
  }

  // A subtree of 7 primitives or more always grows to 7 leaves (minPrimitives is at least 7); the
  // loops below then have constant bounds, and the leaves' boxes stay in registers.
  if (leafCount < TREELET_LEAVES) return;
  BuildBounds leafBoxes[TREELET_LEAVES];
  uint leafPrimitives[TREELET_LEAVES];
  for (uint i = 0; i < TREELET_LEAVES; ++i) {
    leafBoxes[i] = boxes.bounds[leaves[i]];
    leafPrimitives[i] = primitiveCounts.values[leaves[i]];
    subsetCost[(1u << i) * TREELET_WORKGROUP_SIZE + gl_LocalInvocationIndex] = costs.values[leaves[i]];
  }

  // Every subset of two leaves or more, in increasing order, so that its parts (smaller numbers)
  // come first: its cheapest split into two parts, each as cheap as it can be.
  const float infinity = uintBitsToFloat(0x7f800000u);
  const uint all = SUBSETS - 1;
  for (uint subset = 3; subset <= all; ++subset) {
    if (bitCount(subset) < 2) continue;
    BuildBounds box = BuildBounds(vec3(infinity), vec3(-infinity));
    uint primitives = 0;
    for (uint i = 0; i < TREELET_LEAVES; ++i)
      if ((subset & (1u << i)) != 0) {
        box = unite(box, leafBoxes[i]);
        primitives += leafPrimitives[i];
      }
    // The parts: each non-empty subset of the leaves but the lowest as the right part, once (the
    // paper's enumeration).
    const uint rest = (subset - 1) & subset;
    float best = infinity;
    uint bestRight = 0;
    uint right = (0u - rest) & subset;
    do {
      const precise float cost = costOf(right) + costOf(subset ^ right);
      if (cost < best) {
        best = cost;
        bestRight = right;
      }
      right = (right - rest) & subset;
    } while (right != 0);
    const precise float area = halfArea(box);
    const precise float innerCost = area * push.nodeCost + best;
    const precise float leafCost =
        primitives <= BVH2_MAX_LEAF_SIZE ? area * float(primitives) * push.primitiveCost : infinity;
    subsetCost[subset * TREELET_WORKGROUP_SIZE + gl_LocalInvocationIndex] = min(leafCost, innerCost);
    setSplit(subset, bestRight);
  }
  if (!(costOf(all) < costs.values[root])) return;

  // Rebuilt top down from the splits, on the treelet's own inner nodes, the root first.
  uint pendingSubsets[TREELET_LEAVES - 1], pendingNodes[TREELET_LEAVES - 1];
  pendingSubsets[0] = all;
  pendingNodes[0] = root;
  uint pending = 1, innerUsed = 1;
  while (pending > 0) {
    --pending;
    const uint subset = pendingSubsets[pending], node = pendingNodes[pending];
    const uint right = splitOf(subset);
    const uint parts[2] = uint[2](subset ^ right, right);
    uint children[2];
    for (uint c = 0; c < 2; ++c) {
      if (bitCount(parts[c]) == 1) {
        children[c] = leaves[findLSB(parts[c])];
      } else {
        children[c] = inner[innerUsed++];
        pendingSubsets[pending] = parts[c];
        pendingNodes[pending] = children[c];
        ++pending;
      }
      parents.values[children[c]] = node;
    }
    tree.nodes[node].left = children[0];
    tree.nodes[node].right = children[1];
    BuildBounds box = BuildBounds(vec3(infinity), vec3(-infinity));
    uint primitives = 0;
    for (uint i = 0; i < TREELET_LEAVES; ++i)
      if ((subset & (1u << i)) != 0) {
        box = unite(box, leafBoxes[i]);
        primitives += leafPrimitives[i];
      }
    boxes.bounds[node] = box;
    primitiveCounts.values[node] = primitives;
    costs.values[node] = costOf(subset);
  }
}

void main() {
  TreeletScheduleRef schedule = TreeletScheduleRef(push.schedule);
  const uint first = schedule.schedule.offsets[push.height];
  FOR_EACH_ELEMENT(element, schedule.schedule.sizes[push.height]) {
    const uint node = UintArray(push.nodesByHeight).values[first + element];
    // The children's subtrees may have been restructured since the climb: the node's cost anew.
    const KarrasNode inner = KarrasNodeArray(push.karrasNodes).nodes[node];
    FloatArray costs = FloatArray(push.costs);
    const uint primitives = UintArray(push.primitiveCounts).values[node];
    costs.values[node] = chooseBvh2Leaf(BoundsArray(push.nodeBounds).bounds[node], primitives, true,
                                        costs.values[inner.left], costs.values[inner.right], push.nodeCost,
                                        push.primitiveCost)
                             .cost;
    if (primitives >= push.minPrimitives) restructure(node);
  }
}
