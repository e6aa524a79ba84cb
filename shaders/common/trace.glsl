// The one tracing interface: traceClosest(origin, direction, out hit) and
// traceAny(origin, direction, tMax), implemented by the backend the kernel is compiled for.
#if defined(BACKEND_RAYQUERY)
#include "trace_rayquery.glsl"
#elif defined(BACKEND_PIPELINE)
#include "trace_pipeline.glsl"
#else
#error "compile with BACKEND_RAYQUERY or BACKEND_PIPELINE"
#endif
