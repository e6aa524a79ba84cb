// The wavefront's state in device memory (DESIGN.md, "Wavefront stages"): paths as structure
// of arrays, queues of slot indices with their counts, indirect launch records written by the
// prepare kernel, and work counted per step.
#ifndef PTBENCH_WAVEFRONT_H
#define PTBENCH_WAVEFRONT_H
#include "render.h"

#ifdef __cplusplus
namespace ptbench::gpu {
#endif

// Queues. The extension queue is double-buffered: shade fills the next one while the current
// one is read; an iteration's parity picks which is which.
PTBENCH_CONST uint QUEUE_EXTENSION_0 = 0;
PTBENCH_CONST uint QUEUE_EXTENSION_1 = 1;
PTBENCH_CONST uint QUEUE_SHADOW = 2;
PTBENCH_CONST uint QUEUE_FINISHED = 3;  // accumulated this iteration; the free slots of the next generate
PTBENCH_CONST uint QUEUE_MATERIAL_FIRST = 4;

// Material classes (scene.h): with material_queues, each has its own queue and shade kernel,
// so that a kernel's threads run the same code.
PTBENCH_CONST uint MATERIAL_CLASS_ALL = 0xffffffffu;  // the one shade kernel without material queues

PTBENCH_CONST uint QUEUE_COUNT = QUEUE_MATERIAL_FIRST + MATERIAL_CLASS_COUNT;
// Without compaction, a slot's membership of each queue is a bit of its own.
PTBENCH_CONST uint MEMBER_FREE = 0x80000000u;  // finished and accumulated: generate may refill it

// Indirect launch records, one per launch the prepare kernel sizes.
PTBENCH_CONST uint LAUNCH_GENERATE = 0;
PTBENCH_CONST uint LAUNCH_EXTEND = 1;  // also classify, and shade without material queues
PTBENCH_CONST uint LAUNCH_SHADOW = 2;
PTBENCH_CONST uint LAUNCH_ACCUMULATE = 3;
PTBENCH_CONST uint LAUNCH_SHADE_FIRST = 4;  // one per material class
PTBENCH_CONST uint LAUNCH_COUNT = LAUNCH_SHADE_FIRST + MATERIAL_CLASS_COUNT;

// The prepare kernel's phases (WavefrontPush::phase).
PTBENCH_CONST uint PREPARE_GENERATE_FRESH = 0;   // a new pass: every slot is free
PTBENCH_CONST uint PREPARE_GENERATE_REFILL = 1;  // the slots accumulated last iteration are free
PTBENCH_CONST uint PREPARE_EXTEND = 2;
PTBENCH_CONST uint PREPARE_SHADE = 3;  // material queues only
PTBENCH_CONST uint PREPARE_SHADOW = 4;

// A launch as compute and as ray generation would take it, and the exact item count, which
// kernels check their index against (the launch may round up).
struct LaunchRecord {
  uint groupsX;  // VkDispatchIndirectCommand
  uint groupsY;
  uint groupsZ;
  uint width;  // VkTraceRaysIndirectCommandKHR
  uint height;
  uint depth;
  uint count;
  uint pad;
};

struct WavefrontCounters {
  uint64_t jobsStarted;       // (pixel, sample) jobs handed out: job j is sample j / pixels of a pixel
  uint64_t jobsTotal;         // width x height x spp
  uint64_t generateFirstJob;  // the first job of this iteration's generate
  uint queueCount[QUEUE_COUNT];
  uint generateCount;  // paths this iteration's generate starts
  uint generateTaken;  // without compaction: free slots that have taken a job so far
  uint pad;
};

// The work of one step (bounce or iteration), counted by the prepare kernel from the queues.
struct StepCounters {
  uint64_t extensionRays;
  uint64_t shadowRays;
  uint64_t pathsStarted;
};

struct HitRecord {
  float t;  // negative: the ray escaped
  uint instance;
  uint geometry;
  uint primitive;
  vec2 barycentrics;
};

// Device addresses of the path state, an array per field indexed by slot. Rays live apart
// from the rest, so that extend and shadow read nothing else.
struct PathArrays {
  uint64_t rayOrigin;           // vec3
  uint64_t rayDirection;        // vec3
  uint64_t throughput;          // vec3
  uint64_t radiance;            // vec3
  uint64_t pixel;               // uint
  uint64_t sampleIndex;         // uint
  uint64_t depth;               // uint
  uint64_t bsdfPdf;             // float
  uint64_t hit;                 // HitRecord
  uint64_t shadowOrigin;        // vec3
  uint64_t shadowDirection;     // vec3
  uint64_t shadowTMax;          // float
  uint64_t shadowContribution;  // vec3
  uint64_t membership;          // uint: queue bits, without compaction
};

struct WavefrontParams {
  PathArrays paths;
  uint64_t counters;  // WavefrontCounters
  uint64_t launches;  // LaunchRecord[LAUNCH_COUNT]
  uint64_t steps;     // StepCounters[stepCapacity]
  uint64_t queues;    // uint[QUEUE_COUNT][poolSize]
  uint poolSize;
  uint stepCapacity;
};

struct WavefrontPush {
  uint64_t params;     // FrameParams
  uint64_t wavefront;  // WavefrontParams
  uint iteration;      // its parity picks the current extension queue
  uint step;           // index into the step counters
  uint phase;          // prepare only: PREPARE_*
  uint pad;
};

// Specialisation constants of every wavefront kernel.
PTBENCH_CONST uint SPEC_COMPACTION = 0;  // launches cover their queue; else the whole pool
PTBENCH_CONST uint SPEC_MATERIAL_QUEUES = 1;
PTBENCH_CONST uint SPEC_MATERIAL_CLASS = 2;  // a shade kernel's class, or MATERIAL_CLASS_ALL
PTBENCH_CONST uint SPEC_COUNT = 3;

PTBENCH_END_NAMESPACE
#endif
