#version 460
#extension GL_GOOGLE_include_directive : require
// prepare: one invocation turns queue counts into the indirect launch records of the stages
// that read them, resets the counts of the queues about to be filled, and counts the step's
// work. It is what keeps the CPU out of the frame. Two per iteration at most: before generate
// (where an iteration starts paths) and after shade, or one after shade that also starts the
// next iteration's paths (the pool schedule's overlap); with material queues one more after
// classify.
#include "wavefront/state.glsl"
#include "common/launch_record.glsl"

layout(local_size_x = 1) in;

void writeLaunch(uint launch, uint count) {
  LaunchRecords(WAVEFRONT_PARAMS.launches).r[launch] = launchRecord(count);
}

// New paths join those the last iteration's shade kept in `queue`, up to the pool's size; they
// and the kept ones make `extendLaunch`, the extension launch of the iteration counted at `step`.
void refill(bool fresh, uint queue, uint extendLaunch, uint step) {
  uint continuing = fresh ? 0u : COUNTERS.queueCount[queue];
  uint64_t remaining = COUNTERS.jobsTotal - COUNTERS.jobsStarted;
  uint started = uint(min(uint64_t(WAVEFRONT_PARAMS.poolSize - continuing), remaining));
  COUNTERS.generateFirstJob = COUNTERS.jobsStarted;
  COUNTERS.jobsStarted += uint64_t(started);
  COUNTERS.generateCount = started;
  COUNTERS.generateTaken = 0u;
  COUNTERS.generateBase = continuing;
  COUNTERS.queueCount[queue] = continuing + started;
  writeLaunch(LAUNCH_GENERATE, started);
  writeLaunch(extendLaunch, continuing + started);
  StepCountersRef(WAVEFRONT_PARAMS.steps).s[step].pathsStarted += uint64_t(started);
}

void main() {
  StepCountersRef steps = StepCountersRef(WAVEFRONT_PARAMS.steps);
  uint step = push.step;
  switch (push.phase) {
    case PREPARE_GENERATE_FRESH:
    case PREPARE_GENERATE_REFILL:
      refill(push.phase == PREPARE_GENERATE_FRESH, currentExtensionQueue(), currentExtendLaunch(), step);
      break;
    case PREPARE_SHADE:
      for (uint c = 0u; c < MATERIAL_CLASS_COUNT; ++c) {
        writeLaunch(LAUNCH_SHADE_FIRST + c, COUNTERS.queueCount[QUEUE_MATERIAL_FIRST + c]);
        COUNTERS.queueCount[QUEUE_MATERIAL_FIRST + c] = 0u;
      }
      break;
    case PREPARE_SHADOW:
    case PREPARE_SHADOW_AND_REFILL: {
      uint rays = COUNTERS.queueCount[QUEUE_SHADOW];
      writeLaunch(LAUNCH_SHADOW, rays);
      writeLaunch(LAUNCH_ACCUMULATE, COUNTERS.queueCount[QUEUE_FINISHED]);
      writeLaunch(nextExtendLaunch(), COUNTERS.queueCount[nextExtensionQueue()]);
      steps.s[step].extensionRays += uint64_t(COUNTERS.queueCount[currentExtensionQueue()]);
      steps.s[step].shadowRays += uint64_t(rays);
      // Read through the records from here on; the current extension queue is the one the next
      // iteration fills.
      COUNTERS.queueCount[QUEUE_SHADOW] = 0u;
      COUNTERS.queueCount[QUEUE_FINISHED] = 0u;
      COUNTERS.queueCount[currentExtensionQueue()] = 0u;
      // The pool's steps end in one that holds every later iteration (stepCapacity).
      if (push.phase == PREPARE_SHADOW_AND_REFILL)
        refill(false, nextExtensionQueue(), nextExtendLaunch(), min(step + 1u, WAVEFRONT_PARAMS.stepCapacity - 1u));
      break;
    }
  }
}
