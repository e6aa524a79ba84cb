// The wavefront's path state in device memory, as the field lists of shared/wavefront.h imply:
// where its buffer keeps each array (for the driver's allocation and stateBytes), and what each
// stage moves per item (for the report's traffic model). Neither needs a device.
#pragma once
#include <cstdint>
#include <vector>

#include "core/integrators/frame.h"
#include "core/integrators/integrator.h"
#include "core/stage.h"
#include "shared/wavefront.h"

namespace ptbench {

// The arrays of a pool in one arena (frame.h), one after another, each aligned to 16 bytes. Without compaction a path
// keeps its slot: one set of path arrays (both parities name it), the finished arrays alias it
// and the membership words are needed; with compaction two sets (by iteration parity), no
// membership.
struct WavefrontStateLayout {
  gpu::WavefrontParams params{};  // the arrays' addresses; the rest is left to the driver
  DeviceArena arena;              // per slot: arena.bytesPerElement(); the buffer: arena.bytes()
};
// With `base`, the addresses are those of a buffer at that device address; without, offsets.
WavefrontStateLayout wavefrontStateLayout(uint32_t poolSize, const WavefrontOptions& options, uint64_t base = 0);

// What a wavefront stage must move per item, from the layout of the arrays it reads and writes
// (shared/wavefront.h): path state (PATH_STATE_BYTES), rays, hits, shadow rays (SHADOW_RAY_BYTES,
// with their target), finished paths, the film's atomics. Scene data (geometry, materials,
// textures, acceleration structures) is not counted: its traffic depends on what the rays hit.
// Nor, without compaction, the membership word each launch reads per pool slot; nor, where a
// depth pass owns its pixels and shade and shadow write the film (no accumulate runs), those
// writes. Items: the frame's live paths (extend, classify, shade; shade's write of a continuing
// path counted for every one), shadow rays (shade writes them, shadow reads them) and paths
// started (generate, accumulate).
struct StageTraffic {
  Stage stage;
  uint32_t bytesPerLivePath = 0;
  uint32_t bytesPerShadowRay = 0;
  uint32_t bytesPerPathStarted = 0;
};
const std::vector<StageTraffic>& wavefrontStageTraffic();

}  // namespace ptbench
