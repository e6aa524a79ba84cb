// The software backend's acceleration structure (docs/bvh.md): a bottom level per
// mesh over its triangles in object space and a top level over the instances' world-space
// boxes, each built as a binary SAH tree and collapsed into both GPU layouts of shared/bvh.h.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <vector>

#include "core/backend.h"
#include "core/scene/bvh/binary_bvh.h"
#include "core/scene/bvh/bvh_tree.h"
#include "core/scene/bvh/thread_budget.h"
#include "core/scene/huge_pages.h"
#include "core/scene/scene_data.h"
#include "core/stage.h"
#include "shared/bvh.h"

namespace ptbench {

// A level built by another builder than the CPU's (the GPU builder, gpu_binary_bvh.h): the
// layouts it collapsed itself, and its binary tree, which the CPU collapses into any layout
// asked for that the builder did not give (empty when none is left).
struct PrebuiltLevel {
  BinaryBvh binary;
  std::optional<BvhTree<gpu::Bvh2Node>> bvh2;
  std::optional<BvhTree<gpu::CwbvhNode>> cwbvh;
  Bounds bounds;  // the level's box: the root's
  // The builder's time for this level, levels being built together: its own host work and its
  // share, by primitives, of its batch's wall clock.
  double buildMs = 0;
};

// Builds levels in place of buildBinaryBvh and the collapses it does itself (the GPU builder,
// gpu_binary_bvh.h): given several levels' boxes at once (every mesh's, then the top level's
// alone) and the layouts asked for, it calls `built(level, trees)` once for each level, from any
// of the threads `budget` spares, and returns when every level is built.
using LevelsBuilder =
    std::function<void(std::span<const std::span<const Bounds>> levels, std::span<const BvhLayout> layouts,
                       ThreadBudget& budget, const std::function<void(size_t, PrebuiltLevel)>& built)>;

struct BvhBuildOptions {
  unsigned threads = 0;  // 0: every hardware thread
  // The layouts collapsed from the binary trees; the others stay empty (BvhLayoutStats::built).
  std::vector<BvhLayout> layouts{allBvhLayouts.begin(), allBvhLayouts.end()};
  BinaryBvhOptions binary;
  SahCosts costs;
  // The builder of every level, given the meshes' boxes all at once so that it can batch them;
  // empty: the CPU's binned SAH build and collapses, a mesh at a time.
  LevelsBuilder levelsBuilder;
};

struct BvhStats {
  double buildMs = 0;  // the binary tree's and this layout's collapse's wall-clock times
  uint32_t depth = 0;  // nodes on the longest root-to-leaf path (bottomLevels: the deepest mesh's)
  uint64_t nodes = 0;
  uint64_t leaves = 0;
  uint64_t primitives = 0;  // triangles, or instances at the top level
  double sahCost = 0;       // SahCosts units per ray entering the root, with the exact boxes
  uint64_t bytes = 0;       // nodes and the triangles or instance entries the leaves reference
};

struct BvhLayoutStats {
  bool built = false;  // false: not asked for; its arrays are empty and every figure 0
  BvhStats topLevel;
  std::vector<BvhStats> meshes;  // in SceneData::meshes order; a mesh without triangles has none
  BvhStats bottomLevels;         // the meshes' sums; sahCost is their mean weighted by triangles
  uint64_t bytes = 0;            // everything the layout uploads
  uint32_t stackEntries = 0;     // the most a traversal pushes (shared/bvh.h, SOFTWARE_TRACE_STACK_SIZE)
};

// The GPU builder's times (gpu_binary_bvh.h), summed over every tree it has built (levels build
// on several threads at once, so the sums may exceed the wall clock).
struct GpuBvhBuildTimes {
  double gpuMs = 0;                    // the kernels, from each submission's first timestamp to its last
  std::map<Stage, double> stageGpuMs;  // gpuMs's stages (timestamps around each, so less the gaps)
  double transferMs = 0;               // wall clock: the primitives' boxes up, the tree read back and converted
  uint32_t trees = 0;
  uint32_t batches = 0;  // the levels are built in this many batches, each one pass on the queue
  // transferMs's parts: the centroids' box and the boxes staged, the host buffers allocated
  // (per level, on its caller's thread); the batches' device arrays and readback allocated, and
  // their copies on the queue (the submissions' wall clock beyond the kernels'); the trees
  // copied out of the readback (per level). And apart from it, the time levels waited for their
  // batch to start.
  double prepareMs = 0;
  double allocateMs = 0;
  double copyMs = 0;
  double convertMs = 0;
  double batchWaitMs = 0;
};

struct SoftwareBvhStats {
  BvhBuilder builder = BvhBuilder::Cpu;
  double buildMs = 0;        // wall clock: every level, the layouts built
  double binaryBuildMs = 0;  // the binary trees alone, each level's wall-clock time summed
  // The GPU builder's part of binaryBuildMs, as it measured it; zero for the CPU builder.
  GpuBvhBuildTimes gpuBuild;
  // Wall clock of the layouts' assembly into the scene's arrays, the build's last part (not in
  // reports; scene-info and the build-speed tests print it).
  double assembleMs = 0;
  // The process's CPU time while buildMs ran, summed over its threads, and the kernel's part of it
  // (page faults, thread starts): next to buildMs x threads, how busy the threads were.
  double cpuMs = 0;
  double systemCpuMs = 0;
  unsigned threads = 0;
  uint32_t binCount = 0;
  SahCosts costs;
  BvhLayoutStats bvh2;
  BvhLayoutStats cwbvh;
};

// One layout's arrays, as they are uploaded (shared/bvh.h says how they refer to each other). The
// nodes and triangles, gigabytes for the largest scenes, are sized before the build's threads
// write them (in parallel, each element once), so their resizes write nothing.
template <typename Node>
struct SoftwareBvhLayout {
  UninitialisedArray<Node> nodes;  // the top level from node 0, then each mesh's bottom level
  UninitialisedArray<gpu::BvhTriangle> triangles;
  std::vector<gpu::BvhInstance> instances;
  std::vector<uint32_t> meshRoots;  // each mesh's bottom-level root, NO_BVH_ROOT for a mesh without triangles
};

constexpr uint32_t NO_BVH_ROOT = 0xffffffffu;

struct SoftwareBvh {
  SoftwareBvhLayout<gpu::Bvh2Node> bvh2;
  SoftwareBvhLayout<gpu::CwbvhNode> cwbvh;
  SoftwareBvhStats stats;
};

// Deterministic: the arrays are the same for every thread count, and a layout's are the same
// whether or not the other layout is built.
SoftwareBvh buildSoftwareBvh(const SceneData& scene, const BvhBuildOptions& options = {});

// The rows of the inverse of an instance's objectToWorld, as BvhInstance stores them.
std::array<gpu::vec4, 3> worldToObjectRows(const gpu::Instance& instance);

}  // namespace ptbench
