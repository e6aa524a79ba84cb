#version 460
#extension GL_GOOGLE_include_directive : require
// A treelet round (Karras & Aila 2013, "Fast Parallel Construction of High-Quality Bounding
// Volume Hierarchies", sections 3-4; bvh_build.h): one invocation per leaf climbs towards the root
// as the fit does (lbvh_fit.comp: at each inner node the first child's invocation to arrive stops
// and the second goes on), refitting each node it reaches (box, primitives, BVH2 cost). There the
// node's subtree is final, so a node of at least minPrimitives primitives has its treelet
// restructured before the climb goes on: the node, grown to 7 leaves by opening the leaf of
// largest area, each time, into its children, rearranged as the dynamic programme over the
// leaves' subsets finds cheapest under BVH2's cost model (a subset of at most BVH2_MAX_LEAF_SIZE
// primitives may cost as a leaf, which the collapse may make it). The treelet's inner nodes are
// reused, so nothing outside it moves, and no other invocation is below the node any more.
//
// As in the paper, a treelet's programme is shared by many invocations, here a workgroup's: they
// climb in step, a node each per step; those whose node roots a treelet grow theirs side by side;
// then the workgroup solves them one after another (the subsets' areas side by side, then the
// subsets of 2 leaves, of 3, ..., of 7, each size side by side, a barrier between sizes), and the
// invocation whose node it is rebuilds it. Only that invocation touches the tree's memory for its
// treelet, so its own memoryBarrierBuffer before its next arrival count releases the rebuild, as
// it releases the refit. A round after the first climbs from lbvh_treelet_starts.comp's nodes instead of the
// leaves. The rounds' earlier form (a climb for heights, then one dispatch per height) built the
// same trees in about the same time (docs/bvh.md, "Treelets").
#include "bvh/build.glsl"

layout(push_constant, scalar) uniform Push { TreeletPush push; };
layout(local_size_x = TREELET_WORKGROUP_SIZE) in;

const uint SUBSETS = 1u << TREELET_LEAVES;
const uint ALL_LEAVES = SUBSETS - 1;

// Each invocation's treelet, grown at its node this step: its leaves (tree nodes) and its inner
// nodes, the root first.
shared uint treeletLeaves[TREELET_WORKGROUP_SIZE][TREELET_LEAVES];
shared uint treeletInner[TREELET_WORKGROUP_SIZE][TREELET_LEAVES - 1];
// This step's invocations with a treelet, and how many invocations climb on.
shared uint rootCount;
shared uint rootLanes[TREELET_WORKGROUP_SIZE];
shared uint climbers;
// The treelet being solved: its leaves' boxes and primitives; per subset of them, its box's half
// area, its primitives, its least cost, and its cheapest split (the leaves of its right part).
shared BuildBounds leafBoxes[TREELET_LEAVES];
shared uint leafPrimitives[TREELET_LEAVES];
shared float subsetArea[SUBSETS];
shared uint subsetPrimitives[SUBSETS];
shared float subsetCost[SUBSETS];
shared uint subsetSplit[SUBSETS];
// The subsets of 2 leaves or more, by size, in increasing order within a size; and each member's
// cheapest split while a team solves a subset.
shared uint subsetsBySize[SUBSETS - 1 - TREELET_LEAVES];
shared float teamCost[TREELET_WORKGROUP_SIZE];
shared uint teamRight[TREELET_WORKGROUP_SIZE];
// How many subsets there are of each size (7 choose size), and of 2 leaves or more below it.
const uint subsetsOfSize[TREELET_LEAVES + 1] = uint[](1, 7, 21, 35, 35, 21, 7, 1);
const uint subsetsBelowSize[TREELET_LEAVES + 1] = uint[](0, 0, 0, 21, 56, 91, 112, 119);

// The treelet at `root`, grown from its children by opening its largest leaf (the first of equal
// areas) while one is an inner node of the tree, into this invocation's lists. A subtree of 7
// primitives or more always grows to 7 leaves (minPrimitives is at least 7).
bool growTreelet(uint root) {
  const uint innerCount = push.count - 1;
  const uint lane = gl_LocalInvocationIndex;
  CoherentKarrasNodeArray tree = CoherentKarrasNodeArray(push.karrasNodes);
  CoherentBoundsArray boxes = CoherentBoundsArray(push.nodeBounds);
  uint grown[TREELET_LEAVES];
  // A leaf's half area, or -1 for a leaf of the tree, which cannot be opened.
  float openable[TREELET_LEAVES];
  grown[0] = tree.nodes[root].left;
  grown[1] = tree.nodes[root].right;
  for (uint i = 0; i < 2; ++i) openable[i] = grown[i] < innerCount ? halfArea(boxes.bounds[grown[i]]) : -1;
  treeletInner[lane][0] = root;
  for (uint leafCount = 2; leafCount < TREELET_LEAVES; ++leafCount) {
    int largest = -1;
    float largestArea = -1;
    for (uint i = 0; i < leafCount; ++i) {
      if (openable[i] > largestArea) {
        largestArea = openable[i];
        largest = int(i);
      }
    }
    if (largest < 0) return false;
    const uint opened = grown[largest];
    treeletInner[lane][leafCount - 1] = opened;
    grown[largest] = tree.nodes[opened].left;
    grown[leafCount] = tree.nodes[opened].right;
    openable[largest] = grown[largest] < innerCount ? halfArea(boxes.bounds[grown[largest]]) : -1;
    openable[leafCount] = grown[leafCount] < innerCount ? halfArea(boxes.bounds[grown[leafCount]]) : -1;
  }
  for (uint i = 0; i < TREELET_LEAVES; ++i) treeletLeaves[lane][i] = grown[i];
  return true;
}

BuildBounds subsetBox(uint subset) {
  const float infinity = uintBitsToFloat(0x7f800000u);
  BuildBounds box = BuildBounds(vec3(infinity), vec3(-infinity));
  for (uint i = 0; i < TREELET_LEAVES; ++i)
    if ((subset & (1u << i)) != 0) box = unite(box, leafBoxes[i]);
  return box;
}

// A subset's splits into two parts, each as cheap as it can be (their costs known), are the
// non-empty subsets of its leaves but the lowest, as the right part (the paper's enumeration),
// numbered 1, 2, ... in increasing order: the k-th deposits k's bits in those leaves' places.
uint nthSplit(uint k, uint rest) {
  uint right = 0;
  for (uint bit = 1; rest != 0; bit <<= 1) {
    const uint lowest = rest & (0u - rest);
    if ((k & bit) != 0) right |= lowest;
    rest ^= lowest;
  }
  return right;
}

// The cheapest of `count` splits of `subset` from the `first`-th, the first of equal costs; the
// first of them, should every cost compare false (a NaN box): the rebuild needs a split.
void cheapestSplit(uint subset, uint first, uint count, out float best, out uint bestRight) {
  const uint rest = (subset - 1) & subset;
  uint right = nthSplit(first, rest);
  best = uintBitsToFloat(0x7f800000u);
  bestRight = right;
  for (uint i = 0; i < count; ++i) {
    const precise float cost = subsetCost[right] + subsetCost[subset ^ right];
    if (cost < best) {
      best = cost;
      bestRight = right;
    }
    right = (right - rest) & subset;
  }
}

// The subsets of one size, each solved from its cheapest split by a team of invocations, each
// member over a run of its splits, the runs merged in order: leaf or inner node, whichever costs
// less. Teams of one where there are many subsets; the 7 subsets of 6 leaves (31 splits each) by
// teams of 4, the 63 splits of all 7 by a team of 8, so that no invocation walks more than 16.
void solveSubsets(uint size) {
  const uint lane = gl_LocalInvocationIndex;
  const uint team = size == 7 ? 8 : size == 6 ? 4 : 1;
  const uint teams = TREELET_WORKGROUP_SIZE / team, member = lane % team;
  const uint splits = (1u << (size - 1)) - 1, run = (splits + team - 1) / team;
  const uint subsets = subsetsOfSize[size], firstSubset = subsetsBelowSize[size];
  for (uint firstItem = 0; firstItem < subsets; firstItem += teams) {
    const uint item = firstItem + lane / team;
    const bool mine = item < subsets;
    uint subset = 0;
    float best = uintBitsToFloat(0x7f800000u);
    uint bestRight = 0;
    if (mine) {
      subset = subsetsBySize[firstSubset + item];
      const uint first = member * run + 1;
      cheapestSplit(subset, first, first <= splits ? min(run, splits + 1 - first) : 0, best, bestRight);
    }
    if (team > 1) {
      teamCost[lane] = best;
      teamRight[lane] = bestRight;
      barrier();
      if (mine && member == 0)
        for (uint m = 1; m < team; ++m)
          if (teamCost[lane + m] < best) {
            best = teamCost[lane + m];
            bestRight = teamRight[lane + m];
          }
    }
    if (mine && member == 0) {
      subsetCost[subset] =
          treeletCost(subsetArea[subset], subsetPrimitives[subset], best, push.nodeCost, push.primitiveCost);
      subsetSplit[subset] = bestRight;
    }
    // The team's table is the next item's.
    if (team > 1) barrier();
  }
}

// Rebuilt top down from the splits, on the treelet's own inner nodes, the root first.
void rebuildTreelet() {
  const uint lane = gl_LocalInvocationIndex;
  CoherentKarrasNodeArray tree = CoherentKarrasNodeArray(push.karrasNodes);
  uint pendingSubsets[TREELET_LEAVES - 1], pendingNodes[TREELET_LEAVES - 1];
  pendingSubsets[0] = ALL_LEAVES;
  pendingNodes[0] = treeletInner[lane][0];
  uint pending = 1, innerUsed = 1;
  while (pending > 0) {
    --pending;
    const uint subset = pendingSubsets[pending], node = pendingNodes[pending];
    const uint right = subsetSplit[subset];
    const uint parts[2] = uint[2](subset ^ right, right);
    uint children[2];
    for (uint c = 0; c < 2; ++c) {
      if (bitCount(parts[c]) == 1) {
        children[c] = treeletLeaves[lane][findLSB(parts[c])];
      } else {
        children[c] = treeletInner[lane][innerUsed++];
        pendingSubsets[pending] = parts[c];
        pendingNodes[pending] = children[c];
        ++pending;
      }
      CoherentUintArray(push.parents).values[children[c]] = node;
    }
    tree.nodes[node].left = children[0];
    tree.nodes[node].right = children[1];
    CoherentBoundsArray(push.nodeBounds).bounds[node] = subsetBox(subset);
    CoherentUintArray(push.primitiveCounts).values[node] = subsetPrimitives[subset];
    CoherentFloatArray(push.costs).values[node] = subsetCost[subset];
  }
}

// The treelet of `owner`'s node, solved by the whole workgroup and rebuilt by its owner if that is
// strictly cheaper than its present form. Each invocation passes its own node, which only the
// owner's call reads.
void restructureTreelet(uint owner, uint node) {
  const uint lane = gl_LocalInvocationIndex;
  CoherentFloatArray costs = CoherentFloatArray(push.costs);
  if (lane == owner) {
    // The owner read its subtree's memory after its arrival count; the others read this.
    for (uint i = 0; i < TREELET_LEAVES; ++i) {
      const uint leaf = treeletLeaves[lane][i];
      leafBoxes[i] = CoherentBoundsArray(push.nodeBounds).bounds[leaf];
      leafPrimitives[i] = CoherentUintArray(push.primitiveCounts).values[leaf];
      subsetCost[1u << i] = costs.values[leaf];
    }
  }
  barrier();
  for (uint subset = lane; subset < SUBSETS; subset += TREELET_WORKGROUP_SIZE) {
    subsetArea[subset] = halfArea(subsetBox(subset));
    uint count = 0;
    for (uint i = 0; i < TREELET_LEAVES; ++i)
      if ((subset & (1u << i)) != 0) count += leafPrimitives[i];
    subsetPrimitives[subset] = count;
  }
  barrier();
  // A subset's parts are smaller, so they are done.
  for (uint size = 2; size <= TREELET_LEAVES; ++size) {
    solveSubsets(size);
    barrier();
  }
  if (lane == owner && subsetCost[ALL_LEAVES] < costs.values[node]) rebuildTreelet();
  // The next treelet overwrites the tables.
  barrier();
}

void main() {
  const uint innerCount = push.count - 1;
  const uint lane = gl_LocalInvocationIndex;
  CoherentKarrasNodeArray tree = CoherentKarrasNodeArray(push.karrasNodes);
  CoherentBoundsArray boxes = CoherentBoundsArray(push.nodeBounds);
  CoherentFloatArray costs = CoherentFloatArray(push.costs);
  CoherentUintArray primitiveCounts = CoherentUintArray(push.primitiveCounts);
  CoherentUintArray visits = CoherentUintArray(push.visits);
  if (lane == 0) {
    rootCount = 0;
    climbers = 0;
  }
  for (uint subset = lane; subset < SUBSETS; subset += TREELET_WORKGROUP_SIZE) {
    const int size = bitCount(subset);
    if (size < 2) continue;
    uint place = subsetsBelowSize[size];
    for (uint smaller = 0; smaller < subset; ++smaller)
      if (bitCount(smaller) == size) ++place;
    subsetsBySize[place] = subset;
  }
  barrier();
  // Each workgroup takes consecutive leaves (or nodes), the same number of times for all its
  // invocations, so that the barriers are reached by all of them or none.
  const uint candidates = push.firstRound != 0 ? push.count : innerCount + push.count;
  for (uint first = gl_WorkGroupID.x * TREELET_WORKGROUP_SIZE; first < candidates;
       first += gl_NumWorkGroups.x * TREELET_WORKGROUP_SIZE) {
    bool climbing;
    uint node;
    if (push.firstRound != 0) {
      const uint leaf = first + lane;
      climbing = leaf < push.count;
      node = innerCount + leaf;
      if (climbing) {
        const BuildBounds leafBox = BoundsArray(push.primitives).bounds[UintArray(push.order).values[leaf]];
        boxes.bounds[node] = leafBox;
        primitiveCounts.values[node] = 1;
        const float noChildren = uintBitsToFloat(0x7f800000u);
        costs.values[node] = treeletCost(halfArea(leafBox), 1, noChildren, push.nodeCost, push.primitiveCost);
      }
    } else {
      // The earlier rounds left every node's box, primitives and cost as a refit would find
      // them (a rebuild writes what the programme summed, as treeletCost sums it; but where
      // every split of a subset cost NaN, a NaN box, it writes the cost of an infinite one,
      // which a refit would not, so NaN boxes may restructure otherwise), so a later
      // round climbs only from the nodes too small to restructure whose parent is not
      // (lbvh_treelet_starts.comp): each of the parent's children arrives there once, from below
      // or from here. Such a node cannot move before it arrives: only a rebuild above it could
      // move it.
      node = first + lane;
      climbing = node < candidates && (UintArray(push.startFlags).values[node / 32] & (1u << (node % 32))) != 0;
    }
    while (true) {
      if (climbing) {
        const uint parent = CoherentUintArray(push.parents).values[node];
        climbing = parent != LBVH_NO_PARENT;
        if (climbing) {
          // Release this subtree's writes before the arrival count, acquire the sibling's after it.
          memoryBarrierBuffer();
          climbing = atomicAdd(visits.values[parent], 1) != 0;
        }
        if (climbing) {
          memoryBarrierBuffer();
          // The last arrival: the count is free for the next climb to start from zero.
          visits.values[parent] = 0;
          node = parent;
          const uint left = tree.nodes[node].left, right = tree.nodes[node].right;
          const BuildBounds box = unite(boxes.bounds[left], boxes.bounds[right]);
          const uint primitives = primitiveCounts.values[left] + primitiveCounts.values[right];
          boxes.bounds[node] = box;
          primitiveCounts.values[node] = primitives;
          const precise float children = costs.values[left] + costs.values[right];
          costs.values[node] = treeletCost(halfArea(box), primitives, children, push.nodeCost, push.primitiveCost);
          if (primitives >= push.minPrimitives && growTreelet(node)) rootLanes[atomicAdd(rootCount, 1)] = lane;
          atomicAdd(climbers, 1);
        }
      }
      barrier();
      const uint treelets = rootCount;
      const bool anyClimbing = climbers > 0;
      // The treelets' order within a step does not matter: their subtrees are disjoint.
      for (uint t = 0; t < treelets; ++t) restructureTreelet(rootLanes[t], node);
      // Read by all before they are reset, and reset before the next step counts.
      barrier();
      if (lane == 0) {
        rootCount = 0;
        climbers = 0;
      }
      barrier();
      if (!anyClimbing) break;
    }
  }
}
