// Where a kernel's time goes (counters: clocks; shared/render.h, ClockBin): each invocation reads
// the subgroup clock (GL_ARB_shader_clock, VK_KHR_shader_clock's shaderSubgroupClock) wherever it
// changes phase, adds the cycles since the last change to the phase it leaves, and, where a bin
// ends (a megakernel's segment, a wavefront stage's item), its subgroup sums those cycles and adds
// them to the bin. Compiled only into the kernels built with CLOCK_COUNTERS: the clock reads and
// atomics perturb the timing, so runs without the clocks carry none of this code, and
// CLOCK_PHASE, CLOCKS_START and CLOCKS_COMMIT compile to nothing.
#ifndef PTBENCH_PHASE_CLOCKS_GLSL
#define PTBENCH_PHASE_CLOCKS_GLSL
#ifdef CLOCK_COUNTERS
#extension GL_ARB_shader_clock : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require

layout(buffer_reference, scalar) buffer ClockCountersRef { ClockBin bins[]; };

// Four scalars rather than an array indexed by the current phase, which a compiler may place in
// local memory: the phase to charge is a select.
uint clockPhaseCurrent = CLOCK_PHASE_REST;
uint clockPhaseSince = 0u;
uint64_t clockCyclesTraversal = 0ul, clockCyclesMaterial = 0ul, clockCyclesLight = 0ul, clockCyclesRest = 0ul;

// The clock's low word alone: an interval is the low words' difference, exact modulo 2^32 cycles
// (2.2 s at 2 GHz, far beyond any one phase of a path). Intervals taken from both words were
// wrong on an H100: its software wavefront's shadow stage summed up to 10 times the lane-cycles
// its SMs can hold in the stage's time, and its lanes' sums wrapped 2^64 (the high word read
// apart from the low one, or out of order with it, is our guess; the measurement is
// results/published/2026-11-26-clocks-h100).
uint clockNow() { return clock2x32ARB().x; }

// The kernel's first clock read: what precedes it is outside every phase.
void clocksStart() {
  clockPhaseCurrent = CLOCK_PHASE_REST;
  clockPhaseSince = clockNow();
}

void clockPhase(uint phase) {
  uint now = clockNow();
  uint64_t elapsed = uint64_t(now - clockPhaseSince);
  clockCyclesTraversal += clockPhaseCurrent == CLOCK_PHASE_TRAVERSAL ? elapsed : 0ul;
  clockCyclesMaterial += clockPhaseCurrent == CLOCK_PHASE_MATERIAL ? elapsed : 0ul;
  clockCyclesLight += clockPhaseCurrent == CLOCK_PHASE_LIGHT ? elapsed : 0ul;
  clockCyclesRest += clockPhaseCurrent == CLOCK_PHASE_REST ? elapsed : 0ul;
  clockPhaseCurrent = phase;
  clockPhaseSince = now;
}

// The sum of a value over the active lanes, exact without 64-bit subgroup arithmetic (a feature
// of its own, shaderSubgroupExtendedTypes): in two 32-bit halves, 16 bits apart, exact while a
// lane holds fewer than 2^41 cycles (about 20 minutes at 2 GHz) and a subgroup 128 lanes or fewer.
uint64_t subgroupSum(uint64_t value) {
  uint high = subgroupAdd(uint(value >> 16));
  uint low = subgroupAdd(uint(value & 0xFFFFul));
  return (uint64_t(high) << 16) + uint64_t(low);
}

// Adds the lanes' cycles since the last commit to their bins, the current phase closed as rest.
// One pass per distinct bin among the active lanes (one, except where a subgroup holds paths of
// several depths). The commit's own sums and atomics are measurement, not the kernel's work: the
// clock restarts after them, in rest, so that they fall in no phase.
void clocksCommit(uint bin) {
  clockPhase(CLOCK_PHASE_REST);
  ClockCountersRef counters = ClockCountersRef(FRAME.clockCounters);
  bin = min(bin, CLOCK_MAX_BINS - 1u);
  while (true) {
    uint first = subgroupBroadcastFirst(bin);
    if (bin == first) {
      uint64_t traversal = subgroupSum(clockCyclesTraversal);
      uint64_t material = subgroupSum(clockCyclesMaterial);
      uint64_t light = subgroupSum(clockCyclesLight);
      uint64_t rest = subgroupSum(clockCyclesRest);
      if (subgroupElect()) {
        atomicAdd(counters.bins[bin].cycles[CLOCK_PHASE_TRAVERSAL], traversal);
        atomicAdd(counters.bins[bin].cycles[CLOCK_PHASE_MATERIAL], material);
        atomicAdd(counters.bins[bin].cycles[CLOCK_PHASE_LIGHT], light);
        atomicAdd(counters.bins[bin].cycles[CLOCK_PHASE_REST], rest);
      }
      break;
    }
  }
  clockCyclesTraversal = 0ul;
  clockCyclesMaterial = 0ul;
  clockCyclesLight = 0ul;
  clockCyclesRest = 0ul;
  clocksStart();
}

#define CLOCK_PHASE(phase) clockPhase(phase)
#define CLOCKS_START() clocksStart()
#define CLOCKS_COMMIT(bin) clocksCommit(bin)
#else
#define CLOCK_PHASE(phase)
#define CLOCKS_START()
#define CLOCKS_COMMIT(bin)
#endif
#endif
