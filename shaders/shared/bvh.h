// The software BVH as the GPU reads it (scalar block layout), shared by C++ and GLSL.
//
// Each layout is three arrays: nodes (the top level first, its root at node 0, then every
// mesh's bottom level), triangles (BvhTriangle, in the order the bottom-level leaves reference
// them) and instances (BvhInstance, in the order the top-level leaves reference them). A leaf
// reference is a range of triangles in a bottom level and a range of instances in the top
// level; every index is absolute, into its layout's arrays. The two layouts order triangles
// differently, so each has its own arrays.
#ifndef PTBENCH_BVH_H
#define PTBENCH_BVH_H
#include "shared.h"

#ifdef __cplusplus
namespace ptbench::gpu {
#endif

// A triangle of a leaf: its object-space vertices, as the watertight test reads them, and the
// numbers a hit reports (SurfaceHit's geometry and primitive). Three 16-byte loads.
struct BvhTriangle {
  vec3 v0;
  uint geometry;  // within the mesh, as the hardware BLAS numbers it
  vec3 v1;
  uint primitive;  // within the geometry
  vec3 v2;
  uint flags;  // BVH_TRIANGLE_*
};

// The geometry's material needs its candidates tested (materialNeedsCandidateTest): hits ask
// alphaTestPasses, and shadow rays shadowCandidateTransmittance, as the hardware backends' any-hit
// shaders do for geometry without VK_GEOMETRY_OPAQUE_BIT_KHR (core/scene/gpu_scene.cpp).
PTBENCH_CONST uint BVH_TRIANGLE_NON_OPAQUE = 1u;

// A top-level leaf's entry: how to enter the instance's bottom level.
struct BvhInstance {
  vec4 worldToObject[3];  // rows of the inverse of Instance::objectToWorld
  uint instance;          // the scene's instance index: SurfaceHit's instance
  uint rootNode;          // the bottom level's root, in this layout's node array
  uint pad0;
  uint pad1;
};

// Two-wide nodes after Aila & Laine 2009: both children's boxes sit in the parent, so one
// node fetch decides which children to visit.
PTBENCH_CONST uint BVH2_INNER_CHILD = 0xffffffffu;  // Bvh2Child::primitiveCount of an inner child
PTBENCH_CONST uint BVH2_MAX_LEAF_SIZE = 4;

struct Bvh2Child {
  vec3 boundsMin;
  uint index;  // an inner child: its node; a leaf: its first triangle (or instance)
  vec3 boundsMax;
  // BVH2_INNER_CHILD, or the leaf's triangle (or instance) count. An empty child (a tree of
  // one leaf has one) is a leaf of count 0 with an inverted box (+inf to -inf), which no ray
  // enters when the slab test picks each axis's near and far plane by the direction's sign.
  uint primitiveCount;
};

struct Bvh2Node {
  Bvh2Child children[2];
};

// Compressed 8-wide nodes after Ylitie, Karras & Laine 2017. Child i's box is quantised to
// 8 bits per bound on a grid of origin + q * 2^(e - 127) per axis, rounded outwards so that it
// contains the exact box; decoded in float as origin + float(q) * uintBitsToFloat(e << 23) it
// still does (q * 2^k is exact and rounding is monotonic). An empty slot has meta 0 and an
// inverted box (q min 0xff, q max 0). Bytes are packed little-endian into words: byte i of an
// 8-byte array is (words[i / 4] >> (8 * (i % 4))) & 0xff.
PTBENCH_CONST uint CWBVH_WIDTH = 8;
PTBENCH_CONST uint CWBVH_MAX_LEAF_SIZE = 3;  // the meta byte's three unary count bits
// meta byte: 0 for an empty slot; an inner child: 0b001 in the top bits and 24 + its slot in
// the low five; a leaf: its triangle count in unary in the top bits (0b001, 0b011, 0b111) and
// its first triangle's offset from primitiveBase (0..23) in the low five.
PTBENCH_CONST uint CWBVH_META_INNER = 0x20u;  // the top bits of an inner child's meta
PTBENCH_CONST uint CWBVH_META_INNER_SLOT_BASE = 24u;

struct CwbvhNode {
  vec3 origin;             // p: the node box's lower corner
  uint exponentsAndImask;  // bytes: e.x, e.y, e.z (biased float exponents), imask (bit i: slot i is inner)
  uint childBase;          // node index of the first inner child; inner children follow in slot order
  uint primitiveBase;      // first triangle (or instance) of the leaf children
  uint meta[2];            // 8 meta bytes, one per slot
  uint quantizedMin[6];    // 8 bytes per axis: x in words 0-1, y in 2-3, z in 4-5
  uint quantizedMax[6];
};

// Child slots are ordered by octant: slot s holds the child that lies farthest towards
// (s & 1 ? +x : -x, s & 2 ? +y : -y, s & 4 ? +z : -z) from the node's centre. A ray whose
// direction has sign bits o (bit k set when component k is negative) then meets the children
// roughly front to back by visiting slot (i ^ o) at step i.

// Which layout the software traversal reads: a specialisation constant of every tracing
// kernel on the software backend, its id above any kernel's own constants.
PTBENCH_CONST uint SPEC_SOFTWARE_BVH = 16;
PTBENCH_CONST uint SOFTWARE_BVH_CWBVH = 0;
PTBENCH_CONST uint SOFTWARE_BVH_BVH2 = 1;

// Entries of the traversal stack (a thread's local memory). BVH2 pushes at most one entry per
// node on the path from the root (the farther child), plus one for the instances left in a
// top-level leaf: top depth + 1 + bottom depth, which is what BvhLayoutStats::stackEntries
// counts; CWBVH pushes fewer (one group per node, two on top-level nodes above the last), so the
// same bound holds for it with room to spare. A layout that exceeds it fails its own runs before
// they start (GpuScene::softwareBvhError); the scene's other runs go on.
PTBENCH_CONST uint SOFTWARE_TRACE_STACK_SIZE = 64;

PTBENCH_END_NAMESPACE
#endif
