// The GPU BVH builder's kernels (shaders/bvh/, core/scene/bvh/gpu_binary_bvh.cpp): a linear BVH
// after Karras 2012, "Maximizing Parallelism in the Construction of BVHs, Octrees, and k-d
// Trees", over Morton codes sorted by an LSD radix sort.
#ifndef PTBENCH_BVH_BUILD_H
#define PTBENCH_BVH_BUILD_H
#include "shared.h"

#ifdef __cplusplus
namespace ptbench::gpu {
#endif

// The radix sort's digit: 8 bits, so four passes over a 32-bit key.
PTBENCH_CONST uint RADIX_SORT_BITS = 8;
PTBENCH_CONST uint RADIX_SORT_DIGITS = 256;
// A workgroup ranks one key per invocation at a time (a chunk); it histograms and scatters a
// block of RADIX_SORT_CHUNKS chunks, so the scan over every block's histogram stays short.
PTBENCH_CONST uint RADIX_SORT_WORKGROUP_SIZE = 256;
PTBENCH_CONST uint RADIX_SORT_CHUNKS = 16;
PTBENCH_CONST uint RADIX_SORT_BLOCK = RADIX_SORT_WORKGROUP_SIZE * RADIX_SORT_CHUNKS;
// The scan's single workgroup: each invocation sums this many consecutive entries first.
PTBENCH_CONST uint RADIX_SCAN_ITEMS = 16;
// The per-element kernels loop over their elements with this many workgroups at most, under
// every device's maxComputeWorkGroupCount (at least 65535).
PTBENCH_CONST uint BVH_BUILD_MAX_WORKGROUPS = 65535;
// A Karras node without a parent: the root.
PTBENCH_CONST uint LBVH_NO_PARENT = 0xffffffffu;

// One pass of the sort: keys and values from *In to *Out by the digit at `shift`.
// blockHistograms holds RADIX_SORT_DIGITS entries per block, digit-major (digit * blocks +
// block), so that its exclusive scan is every block's first place for each digit.
struct RadixSortPush {
  uint64_t keysIn;
  uint64_t valuesIn;
  uint64_t keysOut;
  uint64_t valuesOut;
  uint64_t blockHistograms;
  uint count;
  uint shift;
};

// An exclusive prefix sum of `count` uints, in place.
struct RadixScanPush {
  uint64_t values;
  uint count;
};

// The same over many workgroups: `blockSums` holds one uint per RADIX_SORT_WORKGROUP_SIZE *
// RADIX_SCAN_ITEMS values.
struct BlockScanPush {
  uint64_t values;
  uint64_t blockSums;
  uint count;
};

// A primitive's box as the builder reads it and a node's as it writes it: Bounds' layout.
struct BuildBounds {
  vec3 min;
  vec3 max;
};

// A node of the binary tree in depth-first order, as core/scene/bvh/binary_bvh.h's
// BinaryBvhNode: the left child follows its parent.
struct BuildNode {
  BuildBounds bounds;
  uint firstPrimitive;
  uint primitiveCount;
  uint rightChild;
};

// The Karras tree's scratch: n - 1 inner nodes (0 is the root), then n leaves, each leaf the
// sorted primitive of its index.
struct KarrasNode {
  uint left;  // children, in the same numbering
  uint right;
  uint first;  // the sorted primitives the node covers
  uint last;
};

struct LbvhPush {
  uint64_t primitives;   // BuildBounds[count], in the caller's order
  uint64_t keys;         // Morton codes: by primitive, then sorted
  uint64_t order;        // primitive indices: 0..count-1, then in sorted order
  uint64_t karrasNodes;  // KarrasNode[count - 1]
  uint64_t parents;      // uint[2 count - 1]
  uint64_t nodeBounds;   // BuildBounds[2 count - 1], Karras numbering
  uint64_t visits;       // uint[count - 1], zeroed: the bottom-up fit's arrivals
  uint64_t nodes;        // BuildNode[2 count - 1], depth-first
  vec3 centroidMin;      // the Morton grid: the centroids' box
  uint count;
  vec3 centroidScale;  // 1024 / the centroid box's extent (0 on a flat axis)
  // The SAH cost model (binary_bvh.h's SahCosts), which the fit applies bottom up as it goes.
  float nodeCost;
  float primitiveCost;
  uint pad0;
  uint64_t costs;         // float[2 count - 1], Karras numbering: the subtree's least BVH2 cost, area-weighted
  uint64_t places;        // uint[2 count - 1], Karras numbering: the node's depth-first place (nodes' index)
  uint64_t cwbvhChoices;  // CwbvhChoice[2 count - 1], Karras numbering; 0: CWBVH not asked for
};

// Treelet restructuring (Karras & Aila 2013) of the Karras tree the hierarchy built, in rounds:
// a round is one climb of the tree (lbvh_treelets.comp) that refits each node it reaches and
// restructures the node's treelet there, its subtree being final. A round after the first climbs
// only from the nodes below its size whose parent is not (lbvh_treelet_starts.comp). After the rounds the leaves
// are renumbered in the new depth-first order (lbvh_leaf_order.comp, lbvh_renumber.comp), so that
// every node covers a range of them again, as the fit, the emit and the collapses expect.
PTBENCH_CONST uint TREELET_LEAVES = 7;
// The invocations that climb in step and share each treelet's dynamic programme.
PTBENCH_CONST uint TREELET_WORKGROUP_SIZE = 32;

struct TreeletPush {
  uint64_t primitives;       // as LbvhPush's
  uint64_t order;            // as LbvhPush's; the renumbered order is copied over it after
  uint64_t karrasNodes;      // left and right restructured; first and last renumbered
  uint64_t parents;          // uint[2 count - 1]
  uint64_t nodeBounds;       // BuildBounds[2 count - 1]
  uint64_t visits;           // uint[count - 1], zeroed, and zero again after each climb
  uint64_t costs;            // float[2 count - 1]: the subtree's least BVH2 cost, area-weighted
  uint64_t primitiveCounts;  // uint[2 count - 1]: the subtree's primitives
  uint64_t firstLeaves;      // uint[count - 1]: each inner node's first leaf in depth-first order
  uint64_t renumberedOrder;  // uint[count]: the primitives in that order
  uint64_t startFlags;       // uint[(2 count + 30) / 32]: a later round's starts (lbvh_treelet_starts.comp)
  uint count;
  float nodeCost;
  float primitiveCost;
  uint minPrimitives;  // a round restructures the subtrees of at least this many primitives
  // 1: the first round, which climbs from the leaves and refits every node; 0: a later round,
  // which climbs from startFlags' nodes.
  uint firstRound;
};

// The CWBVH collapse's dynamic programme at one binary node (core/scene/bvh/cwbvh.cpp's solve):
// the least cost of its subtree as at most i wide-tree roots (cost[i - 1], i = 1..7,
// area-weighted), and 4 bits per entry of `splits`: nibble 0 how many of a wide node's 8 roots
// go left, nibble 1 whether the node makes a leaf, nibble i (2..7) how many of i roots go left
// (0: i - 1 roots do as well).
struct CwbvhChoice {
  float cost[7];
  uint splits;
};

// The CWBVH collapse on the GPU (cwbvh_*.comp): wide nodes level by level, breadth first, as
// cwbvh.cpp emits them.
struct CwbvhCollapsePush {
  uint64_t karrasNodes;  // KarrasNode[count - 1]
  uint64_t nodeBounds;   // BuildBounds[2 count - 1]
  uint64_t choices;      // CwbvhChoice[2 count - 1]
  uint64_t sortedOrder;  // uint[count]: primitives in the binary tree's leaf order
  uint64_t wideRoots;    // uint[]: each wide node's binary node (Karras numbering)
  uint64_t wideSlots;  // uint[8 per wide node]: the slot's binary node, CWBVH_SLOT_LEAF if a leaf; or CWBVH_SLOT_EMPTY
  uint64_t innerCounts;     // uint[]: inner children, scanned per level, then the node's childBase
  uint64_t leafCounts;      // uint[]: leaf primitives, scanned into each node's primitiveBase
  uint64_t wideNodes;       // CwbvhNode[]
  uint64_t primitiveOrder;  // uint[count]: primitives in the wide leaves' order
  uint64_t summary;         // CwbvhCollapseSummary
  uint count;
  uint levelBegin;  // the wide nodes of this level
  uint levelEnd;
  float nodeCost;
};

PTBENCH_CONST uint CWBVH_SLOT_LEAF = 0x80000000u;
PTBENCH_CONST uint CWBVH_SLOT_EMPTY = 0xffffffffu;

struct CwbvhCollapseSummary {
  uint nextLevelEnd;  // where the next level's wide nodes end
  float rootCost;     // area-weighted
  float rootArea;
};

// The BVH2 collapse on the GPU (bvh2_*.comp): the Karras tree's arrays as the fit and the emit
// left them, and its own.
struct Bvh2CollapsePush {
  uint64_t karrasNodes;  // KarrasNode[count - 1]
  uint64_t parents;      // uint[2 count - 1]
  uint64_t nodeBounds;   // BuildBounds[2 count - 1]
  uint64_t costs;        // float[2 count - 1]
  uint64_t places;       // uint[2 count - 1]
  // uint[2 count - 1], depth-first: 1 where the binary node becomes a Bvh2Node, then scanned in
  // place into each such node's index.
  uint64_t nodeIndices;
  uint64_t bvh2Nodes;  // Bvh2Node[count - 1] at most
  uint64_t summary;    // Bvh2CollapseSummary
  uint count;
  float nodeCost;
  float primitiveCost;
};

// What the host reads back besides the nodes: how many there are, and the SAH cost's terms,
// divided on the host as the CPU's collapse divides them.
struct Bvh2CollapseSummary {
  uint nodeCount;
  float rootCost;  // area-weighted
  float rootArea;  // half the root box's surface
};

PTBENCH_END_NAMESPACE
#endif
