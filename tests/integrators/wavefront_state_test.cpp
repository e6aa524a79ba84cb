#include "core/integrators/wavefront_state.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/integrators/wavefront.h"

namespace ptbench::test {
namespace {

struct PlacedArray {
  std::string name;
  uint64_t address;
  uint64_t bytesPerSlot;
};

// The path arrays of one set as the field list declares them, in its order, with each field's
// size taken from the list's type: what the allocation is checked against.
std::vector<PlacedArray> listedPathArrays(const gpu::PathArrays& arrays) {
  using namespace gpu;  // the list's types: vec3, uint, float
  std::vector<PlacedArray> listed;
#define PTBENCH_LISTED(type, name) listed.push_back({#name, arrays.name, sizeof(type)});
  PTBENCH_PATH_FIELDS(PTBENCH_LISTED)
#undef PTBENCH_LISTED
  return listed;
}

WavefrontOptions wavefrontOptions(bool compaction, bool materialQueues) {
  WavefrontOptions options;
  options.compaction = compaction;
  options.materialQueues = materialQueues;
  return options;
}

// Every per-path field the list declares gets an array of its own type's size per slot, in the
// list's order, and the buffer the driver allocates holds exactly what stateBytes counts (a pool
// of a multiple of 16 slots needs no alignment padding) with no two arrays overlapping.
TEST(WavefrontState, AllocationHoldsEveryListedFieldOfEveryPath) {
  constexpr uint32_t pool = 1024;
  for (const bool compaction : {true, false}) {
    for (const bool materialQueues : {false, true}) {
      const WavefrontOptions options = wavefrontOptions(compaction, materialQueues);
      SCOPED_TRACE("compaction " + std::to_string(compaction) + ", material queues " + std::to_string(materialQueues));
      const WavefrontStateLayout layout = wavefrontStateLayout(pool, options);
      EXPECT_EQ(layout.arena.bytes(), WavefrontIntegrator::stateBytes(pool, options));

      std::vector<PlacedArray> arrays;
      for (uint32_t set = 0; set < (compaction ? 2u : 1u); ++set) {
        const std::vector<PlacedArray> listed = listedPathArrays(layout.params.paths[set]);
        uint64_t pathBytes = 0;
        for (size_t i = 0; i < listed.size(); ++i) {
          pathBytes += listed[i].bytesPerSlot;
          if (i + 1 < listed.size()) {
            EXPECT_EQ(listed[i + 1].address - listed[i].address, listed[i].bytesPerSlot * pool) << listed[i].name;
          }
        }
        EXPECT_EQ(pathBytes, gpu::PATH_STATE_BYTES);
        arrays.insert(arrays.end(), listed.begin(), listed.end());
      }
      if (!compaction) {
        EXPECT_EQ(layout.params.paths[1].origin, layout.params.paths[0].origin) << "a path keeps its slot";
      }
      // The other arrays, from their layouts; the finished arrays alias the path arrays without compaction.
      arrays.push_back({"hits", layout.params.hits, sizeof(gpu::HitRecord)});
      arrays.push_back({"shadow", layout.params.shadow.origin, gpu::SHADOW_RAY_BYTES});
      if (compaction) arrays.push_back({"finished", layout.params.finished.radiance, sizeof(gpu::vec3) + 4});
      if (!compaction) arrays.push_back({"membership", layout.params.membership, 4});
      if (compaction && materialQueues)
        arrays.push_back({"queues", layout.params.queues, gpu::MATERIAL_CLASS_COUNT * 4});
      std::sort(arrays.begin(), arrays.end(), [](const auto& a, const auto& b) { return a.address < b.address; });
      uint64_t end = 0, bytesPerSlot = 0;
      for (const PlacedArray& array : arrays) {
        EXPECT_GE(array.address, end) << array.name << " overlaps the array before it";
        end = array.address + array.bytesPerSlot * pool;
        bytesPerSlot += array.bytesPerSlot;
      }
      EXPECT_EQ(end, layout.arena.bytes());
      EXPECT_EQ(bytesPerSlot * pool, layout.arena.bytes());
    }
  }
}

// Any pool size: each array starts 16-byte aligned, and the buffer is stateBytes plus at most that padding.
TEST(WavefrontState, ArraysAreAlignedAndPaddingIsAllTheAllocationAdds) {
  const WavefrontOptions options = wavefrontOptions(true, true);
  const WavefrontStateLayout layout = wavefrontStateLayout(1001, options, 1 << 20);
  for (const PlacedArray& array : listedPathArrays(layout.params.paths[1])) EXPECT_EQ(array.address % 16, 0u);
  const uint64_t stateBytes = WavefrontIntegrator::stateBytes(1001, options);
  EXPECT_GE(layout.arena.bytes(), stateBytes);
  EXPECT_LT(layout.arena.bytes() - stateBytes, 16u * 32);
  EXPECT_EQ(layout.params.paths[0].origin, uint64_t{1} << 20) << "addresses start at the buffer's";
}

// The traffic model reads and writes the path state as loadPath and storePath do: every field of the list.
TEST(WavefrontState, TrafficModelMovesTheListedPathState) {
  uint32_t listedBytes = 0;
  {
    using namespace gpu;
#define PTBENCH_LISTED_BYTES(type, name) listedBytes += sizeof(type);
    PTBENCH_PATH_FIELDS(PTBENCH_LISTED_BYTES)
#undef PTBENCH_LISTED_BYTES
  }
  EXPECT_EQ(listedBytes, gpu::PATH_STATE_BYTES);
  for (const StageTraffic& traffic : wavefrontStageTraffic()) {
    if (traffic.stage == Stage::Generate) {
      EXPECT_EQ(traffic.bytesPerPathStarted, listedBytes) << "storePath";
    }
    if (traffic.stage == Stage::Shade) {
      EXPECT_EQ(traffic.bytesPerLivePath, 2 * listedBytes + sizeof(gpu::HitRecord)) << "loadPath, its hit, storePath";
      EXPECT_EQ(traffic.bytesPerShadowRay, gpu::SHADOW_RAY_BYTES);
    }
  }
}

}  // namespace
}  // namespace ptbench::test
