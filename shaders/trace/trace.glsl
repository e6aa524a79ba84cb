// The one tracing interface: traceClosest(origin, direction, out hit), traceAny(origin,
// direction, tMax) (occlusion: the raycast's shadow rays) and traceShadow(origin, direction, tMax)
// (next-event estimation's: the transmittance, through smooth thin walls), implemented by the
// backend the kernel is compiled for: its define (BACKEND_RAYQUERY, ...) includes its
// trace_<name>.glsl, through the #if chain the shader build generates from
// core/backends.def (shaders/CMakeLists.txt). Include common/bsdf.glsl first: every backend
// asks it about candidate hits (alphaTestPasses, shadowCandidateTransmittance).
#include "trace_backend.glsl"
