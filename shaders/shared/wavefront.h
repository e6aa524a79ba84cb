// The wavefront's state in device memory (DESIGN.md, "Wavefront stages"): paths as structure
// of arrays, queues that hold their items' data by position (with compaction) or a membership
// bit per slot (without), indirect launch records written by the prepare kernel, and work
// counted per step.
#ifndef PTBENCH_WAVEFRONT_H
#define PTBENCH_WAVEFRONT_H
#include "path_state.h"
#include "render.h"

#ifdef __cplusplus
namespace ptbench::gpu {
#endif

// Queues. With compaction a queue is a count and its items' data at positions 0..count-1:
// a stage that keeps a path writes it to the next queue's position (pbrt-v4's work queues), so
// every stage reads its items contiguously however paths ended and started before. The
// extension queue is double-buffered, as is the path state it holds: shade fills the next one
// while the current one is read; an iteration's parity picks which is which. Without
// compaction, paths keep a slot each for their whole life and a queue is a membership bit.
PTBENCH_CONST uint QUEUE_EXTENSION_0 = 0;
PTBENCH_CONST uint QUEUE_EXTENSION_1 = 1;
PTBENCH_CONST uint QUEUE_SHADOW = 2;
PTBENCH_CONST uint QUEUE_FINISHED = 3;  // ended paths not yet in the film, for shadow or accumulate
PTBENCH_CONST uint QUEUE_MATERIAL_FIRST = 4;

// Material classes (scene.h): with material_queues, each has its own queue and shade kernel,
// so that a kernel's threads run the same code. Material queues hold positions in the current
// extension queue (they sort it, they do not copy it).
PTBENCH_CONST uint MATERIAL_CLASS_ALL = 0xffffffffu;  // the one shade kernel without material queues

PTBENCH_CONST uint QUEUE_COUNT = QUEUE_MATERIAL_FIRST + MATERIAL_CLASS_COUNT;
// Without compaction, a slot's membership of each queue is a bit of its own.
PTBENCH_CONST uint MEMBER_FREE = 0x80000000u;  // its sample in the film: generate may refill it

// A shadow ray's path: a position in the next extension queue, or with this bit, in the
// finished queue (the path ended at the vertex that sampled the light).
PTBENCH_CONST uint SHADOW_TARGET_FINISHED = 0x80000000u;

// Indirect launch records, one per launch a prepare kernel sizes. The prepare after shade sizes
// the next iteration's extension launch; it has a record per parity, like its queue, so that
// the last iteration's stays readable beside the next one's (WavefrontIntegrator::readLaunchRecords).
PTBENCH_CONST uint LAUNCH_GENERATE = 0;
PTBENCH_CONST uint LAUNCH_EXTEND_0 = 1;  // also classify, and shade without material queues
PTBENCH_CONST uint LAUNCH_EXTEND_1 = 2;
PTBENCH_CONST uint LAUNCH_SHADOW = 3;
PTBENCH_CONST uint LAUNCH_ACCUMULATE = 4;   // launched only where the pass does not own its pixels
PTBENCH_CONST uint LAUNCH_SHADE_FIRST = 5;  // one per material class
PTBENCH_CONST uint LAUNCH_COUNT = LAUNCH_SHADE_FIRST + MATERIAL_CLASS_COUNT;

// The prepare kernel's phases (WavefrontPush::phase).
PTBENCH_CONST uint PREPARE_GENERATE_FRESH = 0;   // a new pass: the pool is empty
PTBENCH_CONST uint PREPARE_GENERATE_REFILL = 1;  // fill the pool's room beside the paths that go on
PTBENCH_CONST uint PREPARE_SHADE = 2;            // material queues only
PTBENCH_CONST uint PREPARE_SHADOW = 3;           // after shade: shadow, accumulate and the next extension launch
// The pool schedule's: PREPARE_SHADOW, then the next iteration's PREPARE_GENERATE_REFILL, so that
// this iteration's shadow and accumulate run beside the next one's generate and extend.
PTBENCH_CONST uint PREPARE_SHADOW_AND_REFILL = 4;

struct WavefrontCounters {
  uint64_t jobsStarted;       // (pixel, sample) jobs handed out: job j is sample j / pixels of a pixel
  uint64_t jobsTotal;         // width x height x spp
  uint64_t generateFirstJob;  // the first job of this iteration's generate
  uint queueCount[QUEUE_COUNT];
  uint generateCount;  // paths this iteration's generate starts
  uint generateTaken;  // without compaction: free slots that have taken a job so far
  uint generateBase;   // with compaction: the extension queue's position of generate's first path
};

// The work of one step (bounce or iteration), counted by the prepare kernel from the queues.
struct StepCounters {
  uint64_t extensionRays;
  uint64_t shadowRays;
  uint64_t pathsStarted;
};

// The path state the stages hand each other, one array per field (structure of arrays), indexed
// by queue position (with compaction) or slot: PTBENCH_PATH_FIELDS (path_state.h), the one
// declaration of PathState, which PathArrays below, the allocation and stateBytes
// (wavefront_state.h), the traffic model and loadPath/storePath (wavefront/state.glsl) expand, as
// Cycles expands kernel/integrator/state_template.h.

// A light sample's shadow ray, shade to shadow, in the same form; target is the path it lights
// (SHADOW_TARGET_FINISHED or not).
#define PTBENCH_SHADOW_FIELDS(PTBENCH_SHADOW_FIELD) \
  PTBENCH_SHADOW_FIELD(vec3, origin)                \
  PTBENCH_SHADOW_FIELD(vec3, direction)             \
  PTBENCH_SHADOW_FIELD(float, tMax)                 \
  PTBENCH_SHADOW_FIELD(vec3, contribution)          \
  PTBENCH_SHADOW_FIELD(uint, target)

// The device address of each field's array.
#define PTBENCH_ARRAY_ADDRESS(type, name) uint64_t name;
struct PathArrays {
  PTBENCH_PATH_FIELDS(PTBENCH_ARRAY_ADDRESS)
};

struct ShadowArrays {
  PTBENCH_SHADOW_FIELDS(PTBENCH_ARRAY_ADDRESS)
};
#undef PTBENCH_ARRAY_ADDRESS

// A path that ended and is not in the film yet: what shadow (after its last light sample, where
// the pass owns its pixels) or accumulate needs to commit its sample. Without compaction these
// alias the path arrays.
struct FinishedArrays {
  uint64_t radiance;  // vec3
  uint64_t pixel;     // uint
};

// The device addresses of everything above; wavefrontStateLayout (wavefront_state.h) places the
// arrays for their allocation and for stateBytes.
struct WavefrontParams {
  PathArrays paths[2];  // by iteration parity with compaction; one set, twice, without
  uint64_t hits;        // HitRecord, by extension queue position (or slot)
  ShadowArrays shadow;
  FinishedArrays finished;
  uint64_t membership;  // uint: queue bits, without compaction
  uint64_t counters;    // WavefrontCounters
  uint64_t launches;    // LaunchRecord[LAUNCH_COUNT]
  uint64_t steps;       // StepCounters[stepCapacity]
  uint64_t queues;      // uint[MATERIAL_CLASS_COUNT][poolSize]: the material queues' positions
  uint poolSize;
  uint stepCapacity;
  // 1 where no two paths of a pixel are ever in flight together (the depth schedule with a pool
  // of at most the frame's pixels: a pass's jobs are distinct pixels, and passes do not overlap),
  // so that shade and shadow add to the film with plain loads and stores, and no accumulate runs.
  uint pixelsOwned;
  uint pad;
};

struct WavefrontPush {
  uint64_t params;     // FrameParams
  uint64_t wavefront;  // WavefrontParams
  uint iteration;      // its parity picks the current extension queue and path arrays
  uint step;           // index into the step counters
  uint phase;          // prepare only: PREPARE_*
  uint pad;
};

#ifdef __cplusplus
// The lists' bytes per item as the scalar layout stores them (GLSL reads them through
// loadPath and the shadow stage; the traffic model counts them).
#define PTBENCH_FIELD_BYTES(type, name) +uint(sizeof(type))
PTBENCH_CONST uint PATH_STATE_BYTES = 0 PTBENCH_PATH_FIELDS(PTBENCH_FIELD_BYTES);
PTBENCH_CONST uint SHADOW_RAY_BYTES = 0 PTBENCH_SHADOW_FIELDS(PTBENCH_FIELD_BYTES);
#undef PTBENCH_FIELD_BYTES

// Calls visit(address, bytes per item) for each field's array, in the list's order: the allocation's.
#define PTBENCH_VISIT_ARRAY(type, name) visit(arrays.name, uint(sizeof(type)));
template <typename Visit>
void forEachPathArray(PathArrays& arrays, Visit&& visit) {
  PTBENCH_PATH_FIELDS(PTBENCH_VISIT_ARRAY)
}
template <typename Visit>
void forEachShadowArray(ShadowArrays& arrays, Visit&& visit) {
  PTBENCH_SHADOW_FIELDS(PTBENCH_VISIT_ARRAY)
}
#undef PTBENCH_VISIT_ARRAY
#endif

// Specialisation constants of every wavefront kernel.
PTBENCH_CONST uint SPEC_COMPACTION = 0;  // launches cover their queue; else the whole pool
PTBENCH_CONST uint SPEC_MATERIAL_QUEUES = 1;
PTBENCH_CONST uint SPEC_MATERIAL_CLASS = 2;  // a shade kernel's class, or MATERIAL_CLASS_ALL
PTBENCH_CONST uint SPEC_COUNT = 3;

PTBENCH_END_NAMESPACE
#endif
