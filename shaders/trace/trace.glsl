// The one tracing interface: traceClosest(origin, direction, out hit) and
// traceAny(origin, direction, tMax), implemented by the backend the kernel is compiled for: its
// define (BACKEND_RAYQUERY, ...) includes its trace_<name>.glsl, through the #if chain the shader
// build generates from core/trace/backends.def (shaders/CMakeLists.txt).
#include "trace_backend.glsl"
