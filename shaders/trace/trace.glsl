// The one tracing interface: traceClosest(origin, direction, out hit) and
// traceAny(origin, direction, tMax), implemented by the backend the kernel is compiled for.
#if defined(BACKEND_RAYQUERY)
#include "trace_rayquery.glsl"
#elif defined(BACKEND_PIPELINE)
#include "trace_pipeline.glsl"
#elif defined(BACKEND_SOFTWARE)
#include "trace_software.glsl"
#else
#error "compile with BACKEND_RAYQUERY, BACKEND_PIPELINE or BACKEND_SOFTWARE"
#endif
