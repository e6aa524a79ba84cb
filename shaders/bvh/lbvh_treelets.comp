#version 460
#extension GL_GOOGLE_include_directive : require
// A treelet round's restructuring at one height (Karras & Aila 2013, "Fast Parallel Construction
// of High-Quality Bounding Volume Hierarchies", sections 3-4; the schedule in bvh_build.h): each
// workgroup takes a node of that height, whose subtree the lower heights' dispatches left final,
// refits its cost and, if the subtree has at least minPrimitives, rebuilds the node's treelet: the
// node, grown to 7 leaves by opening the leaf of largest area, each time, into its children,
// rearranged as the dynamic programme over the leaves' subsets finds cheapest under BVH2's cost
// model (a subset of at most BVH2_MAX_LEAF_SIZE primitives may cost as a leaf, which the collapse
// may make it). The treelet's inner nodes are reused, so nothing outside it moves.
//
// As in the paper, a treelet's programme is shared by a workgroup's invocations: the subsets'
// areas side by side, then the subsets of 2 leaves, of 3, ..., of 7, each size side by side (a
// subset's parts are smaller, so they are done), with a barrier between sizes. One invocation
// per treelet, its table in shared memory (20 KiB for a workgroup of 32 treelets), made the
// rounds 1.35x slower on an H200 (0.49-0.60 s against 0.33-0.44 s for the 50M-triangle scene).
#include "bvh/build.glsl"

layout(push_constant, scalar) uniform Push { TreeletPush push; };
layout(local_size_x = TREELET_WORKGROUP_SIZE) in;

const uint SUBSETS = 1u << TREELET_LEAVES;
const uint ALL_LEAVES = SUBSETS - 1;

// The treelet: its leaves (tree nodes), its inner nodes (the root first) and the leaves' boxes,
// primitives and costs.
shared uint leaves[TREELET_LEAVES], inner[TREELET_LEAVES - 1];
shared BuildBounds leafBoxes[TREELET_LEAVES];
shared uint leafPrimitives[TREELET_LEAVES];
// Per subset of the leaves: its box's half area, its primitives, its least cost, and its
// cheapest split (the leaves of its right part).
shared float subsetArea[SUBSETS];
shared uint subsetPrimitives[SUBSETS];
shared float subsetCost[SUBSETS];
shared uint subsetSplit[SUBSETS];
shared bool treeletFound;

// The treelet at `root`, grown from its children by opening its largest leaf (the first of equal
// areas) while one is an inner node of the tree. A subtree of 7 primitives or more always grows
// to 7 leaves (minPrimitives is at least 7).
bool growTreelet(uint root) {
  const uint innerCount = push.count - 1;
  KarrasNodeArray tree = KarrasNodeArray(push.karrasNodes);
  BoundsArray boxes = BoundsArray(push.nodeBounds);
  uint grown[TREELET_LEAVES];
  grown[0] = tree.nodes[root].left;
  grown[1] = tree.nodes[root].right;
  inner[0] = root;
  uint leafCount = 2;
  while (leafCount < TREELET_LEAVES) {
    int largest = -1;
    float largestArea = -1;
    for (uint i = 0; i < leafCount; ++i) {
      if (grown[i] >= innerCount) continue;
      const float area = halfArea(boxes.bounds[grown[i]]);
      if (area > largestArea) {
        largestArea = area;
        largest = int(i);
      }
    }
    if (largest < 0) return false;
    const uint opened = grown[largest];
    inner[leafCount - 1] = opened;
    grown[largest] = tree.nodes[opened].left;
    grown[leafCount++] = tree.nodes[opened].right;
  }
  for (uint i = 0; i < TREELET_LEAVES; ++i) {
    leaves[i] = grown[i];
    leafBoxes[i] = boxes.bounds[grown[i]];
    leafPrimitives[i] = UintArray(push.primitiveCounts).values[grown[i]];
    subsetCost[1u << i] = FloatArray(push.costs).values[grown[i]];
  }
  return true;
}

BuildBounds subsetBox(uint subset) {
  const float infinity = uintBitsToFloat(0x7f800000u);
  BuildBounds box = BuildBounds(vec3(infinity), vec3(-infinity));
  for (uint i = 0; i < TREELET_LEAVES; ++i)
    if ((subset & (1u << i)) != 0) box = unite(box, leafBoxes[i]);
  return box;
}

// A subset of two leaves or more: its cheapest split into two parts, each as cheap as it can be
// (their costs known), over each non-empty subset of its leaves but the lowest as the right
// part, once (the paper's enumeration); then leaf or inner node, whichever costs less.
void solveSubset(uint subset) {
  const float infinity = uintBitsToFloat(0x7f800000u);
  const uint rest = (subset - 1) & subset;
  uint right = (0u - rest) & subset;
  float best = infinity;
  // The first split, should every cost compare false (a NaN box): the rebuild needs a split.
  uint bestRight = right;
  do {
    const precise float cost = subsetCost[right] + subsetCost[subset ^ right];
    if (cost < best) {
      best = cost;
      bestRight = right;
    }
    right = (right - rest) & subset;
  } while (right != 0);
  subsetCost[subset] =
      treeletCost(subsetArea[subset], subsetPrimitives[subset], best, push.nodeCost, push.primitiveCost);
  subsetSplit[subset] = bestRight;
}

// Rebuilt top down from the splits, on the treelet's own inner nodes, the root first.
void rebuildTreelet() {
  KarrasNodeArray tree = KarrasNodeArray(push.karrasNodes);
  uint pendingSubsets[TREELET_LEAVES - 1], pendingNodes[TREELET_LEAVES - 1];
  pendingSubsets[0] = ALL_LEAVES;
  pendingNodes[0] = inner[0];
  uint pending = 1, innerUsed = 1;
  while (pending > 0) {
    --pending;
    const uint subset = pendingSubsets[pending], node = pendingNodes[pending];
    const uint right = subsetSplit[subset];
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
      UintArray(push.parents).values[children[c]] = node;
    }
    tree.nodes[node].left = children[0];
    tree.nodes[node].right = children[1];
    BoundsArray(push.nodeBounds).bounds[node] = subsetBox(subset);
    UintArray(push.primitiveCounts).values[node] = subsetPrimitives[subset];
    FloatArray(push.costs).values[node] = subsetCost[subset];
  }
}

void main() {
  TreeletScheduleRef schedule = TreeletScheduleRef(push.schedule);
  const uint first = schedule.schedule.offsets[push.height];
  const uint lane = gl_LocalInvocationIndex;
  // Every invocation of the workgroup takes the same nodes, so the barriers below are reached by
  // all of them or none.
  for (uint element = gl_WorkGroupID.x; element < schedule.schedule.sizes[push.height];
       element += gl_NumWorkGroups.x) {
    const uint node = UintArray(push.nodesByHeight).values[first + element];
    const uint primitives = UintArray(push.primitiveCounts).values[node];
    if (lane == 0) {
      // The children's subtrees may have been restructured since the climb: the node's cost anew.
      const KarrasNode children = KarrasNodeArray(push.karrasNodes).nodes[node];
      FloatArray costs = FloatArray(push.costs);
      const precise float childrenCost = costs.values[children.left] + costs.values[children.right];
      costs.values[node] = treeletCost(halfArea(BoundsArray(push.nodeBounds).bounds[node]), primitives, childrenCost,
                                       push.nodeCost, push.primitiveCost);
      treeletFound = primitives >= push.minPrimitives && growTreelet(node);
    }
    barrier();
    const bool found = treeletFound;
    // Read by all before the next node's may overwrite it.
    barrier();
    if (!found) continue;
    for (uint subset = lane; subset < SUBSETS; subset += TREELET_WORKGROUP_SIZE) {
      subsetArea[subset] = halfArea(subsetBox(subset));
      uint count = 0;
      for (uint i = 0; i < TREELET_LEAVES; ++i)
        if ((subset & (1u << i)) != 0) count += leafPrimitives[i];
      subsetPrimitives[subset] = count;
    }
    barrier();
    for (int size = 2; size <= int(TREELET_LEAVES); ++size) {
      for (uint subset = lane; subset < SUBSETS; subset += TREELET_WORKGROUP_SIZE)
        if (bitCount(subset) == size) solveSubset(subset);
      barrier();
    }
    if (lane == 0 && subsetCost[ALL_LEAVES] < FloatArray(push.costs).values[node]) rebuildTreelet();
    // The next node's treelet overwrites the tables.
    barrier();
  }
}
