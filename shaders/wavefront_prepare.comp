#version 460
#extension GL_GOOGLE_include_directive : require
// prepare: one invocation turns queue counts into the indirect launch records of the stages
// that read them, resets the counts of the queues about to be filled, and counts the step's
// work. It is what keeps the CPU out of the frame.
#define WAVEFRONT
#include "wavefront/state.glsl"
#include "common/launch_record.glsl"

layout(local_size_x = 1) in;

void writeLaunch(uint launch, uint count) { LaunchRecords(WAVEFRONT_PARAMS.launches).r[launch] = launchRecord(count); }

void main() {
  StepCountersRef steps = StepCountersRef(WAVEFRONT_PARAMS.steps);
  uint step = push.step;
  switch (push.phase) {
    case PREPARE_GENERATE_FRESH:
    case PREPARE_GENERATE_REFILL: {
      uint64_t remaining = COUNTERS.jobsTotal - COUNTERS.jobsStarted;
      uint free = push.phase == PREPARE_GENERATE_FRESH ? WAVEFRONT_PARAMS.poolSize : COUNTERS.queueCount[QUEUE_FINISHED];
      uint started = uint(min(uint64_t(free), remaining));
      COUNTERS.generateFirstJob = COUNTERS.jobsStarted;
      COUNTERS.jobsStarted += uint64_t(started);
      COUNTERS.generateCount = started;
      COUNTERS.generateTaken = 0u;
      writeLaunch(LAUNCH_GENERATE, started);
      steps.s[step].pathsStarted += uint64_t(started);
      break;
    }
    case PREPARE_EXTEND: {
      uint rays = COUNTERS.queueCount[currentExtensionQueue()];
      writeLaunch(LAUNCH_EXTEND, rays);
      COUNTERS.queueCount[nextExtensionQueue()] = 0u;
      COUNTERS.queueCount[QUEUE_SHADOW] = 0u;
      COUNTERS.queueCount[QUEUE_FINISHED] = 0u;
      for (uint c = 0u; c < MATERIAL_CLASS_COUNT; ++c) COUNTERS.queueCount[QUEUE_MATERIAL_FIRST + c] = 0u;
      steps.s[step].extensionRays += uint64_t(rays);
      break;
    }
    case PREPARE_SHADE:
      for (uint c = 0u; c < MATERIAL_CLASS_COUNT; ++c)
        writeLaunch(LAUNCH_SHADE_FIRST + c, COUNTERS.queueCount[QUEUE_MATERIAL_FIRST + c]);
      break;
    case PREPARE_SHADOW: {
      uint rays = COUNTERS.queueCount[QUEUE_SHADOW];
      writeLaunch(LAUNCH_SHADOW, rays);
      writeLaunch(LAUNCH_ACCUMULATE, COUNTERS.queueCount[QUEUE_FINISHED]);
      steps.s[step].shadowRays += uint64_t(rays);
      break;
    }
  }
}
