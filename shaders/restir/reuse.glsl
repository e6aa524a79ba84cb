// What ReSTIR's passes share (temporal.glsl, spatial.glsl, shade.glsl): each is one kernel,
// one invocation a pixel, the same for every architecture, compiled per trace backend since it
// traces shadow rays (visibility-checked reuse). The algorithm is common/restir.glsl's.
#ifndef PTBENCH_RESTIR_REUSE_GLSL
#define PTBENCH_RESTIR_REUSE_GLSL
#include "common/frame.glsl"
layout(push_constant, scalar) uniform PushBlock { FramePush push; };
#include "common/sampling.glsl"
#include "common/camera.glsl"
#include "common/surface.glsl"
#include "common/bsdf.glsl"
#include "trace/trace.glsl"
#include "common/lights.glsl"
#include "common/path.glsl"

// The target of `light` at `vertex` with what its shadow ray lets through (the target every
// reuse pass resamples by), and `contribution`, the light it sends towards the camera.
float shadowedTarget(RestirVertex vertex, LightRef ref, out vec3 contribution, inout uint shadowRays) {
  contribution = vec3(0.0);
  LightSample light;
  float toMeasure;
  if (!evaluateLightRef(ref, vertex.sp.position, light, toMeasure)) return 0.0;
  vec3 unshadowed = unshadowedContribution(vertex.sp, vertex.bsdf, light, toMeasure);
  if (!(maxComponent(unshadowed) > 0.0)) return 0.0;
  shadowRays += 1u;
  contribution = unshadowed * traceShadow(offsetRayOrigin(vertex.sp.position, vertex.sp.geometricNormal),
                                          light.direction, shadowRayEnd(light));
  return luminance(contribution);
}

float shadowedTarget(RestirVertex vertex, LightRef ref, inout uint shadowRays) {
  vec3 unused;
  return shadowedTarget(vertex, ref, unused, shadowRays);
}

// GI: the light the sample `gi` sends through the vertex's BSDF towards the camera, with its
// radiance as the path measured it leaving the point (RESTIR_GI_MIN_ROUGHNESS), in area measure
// at the point: times |cos phi| / d^2, the factor that turns the point's area into the vertex's
// solid angle. Between two vertices the ratio of these factors is the reconnection's Jacobian,
// which the weights W (in area measure) so carry. Zero where the vertex sees the point's other
// side, where a light sample would not go (under the geometric surface), and where anything
// blocks the segment between them (visibility-checked reuse; binary, since a thin wall on the way
// would have been the path's own sample point).
float giTarget(RestirVertex vertex, GiSample gi, out vec3 contribution, inout uint shadowRays) {
  contribution = vec3(0.0);
  vec3 toPoint = gi.position - vertex.sp.position;
  float distanceSquared = dot(toPoint, toPoint);
  if (!(distanceSquared > 0.0)) return 0.0;
  vec3 direction = toPoint * inversesqrt(distanceSquared);
  float cosPoint = -dot(gi.normal, direction);
  if (!(cosPoint > 0.0) || dot(direction, vertex.sp.geometricNormal) <= 0.0) return 0.0;
  vec3 unshadowed = bsdfValue(vertex.sp, vertex.bsdf, direction).fCos * gi.radiance * (cosPoint / distanceSquared);
  if (!(maxComponent(unshadowed) > 0.0)) return 0.0;
  shadowRays += 1u;
  vec3 origin = offsetRayOrigin(vertex.sp.position, vertex.sp.geometricNormal);
  vec3 segment = offsetRayOrigin(gi.position, gi.normal) - origin;
  float reach = sqrt(dot(segment, segment));
  if (!(reach > 0.0) || traceAny(origin, segment / reach, reach * (1.0 - 1e-4))) return 0.0;
  contribution = unshadowed;
  return luminance(contribution);
}

float giTarget(RestirVertex vertex, GiSample gi, inout uint shadowRays) {
  vec3 unused;
  return giTarget(vertex, gi, unused, shadowRays);
}

// The factor that turns a solid-angle density at `from` into an area density at the sample's
// point: |cos phi| / d^2.
float giAreaFactor(vec3 from, GiSample gi) {
  vec3 toPoint = gi.position - from;
  float distanceSquared = dot(toPoint, toPoint);
  return distanceSquared > 0.0 ? abs(dot(gi.normal, toPoint)) * inversesqrt(distanceSquared) / distanceSquared
                               : 0.0;
}

GiReservoir emptyGiReservoir(float count) {
  return GiReservoir(GiSample(vec3(0.0), vec3(0.0), vec3(0.0)), 0.0, count);
}

// Streaming resampling of GI reservoirs, as ReservoirStream's.
struct GiStream {
  GiSample kept;
  float weightSum;
  float count;
  float target;
};

GiStream giStream() { return GiStream(GiSample(vec3(0.0), vec3(0.0), vec3(0.0)), 0.0, 0.0, 0.0); }

bool giStreamAdd(inout GiStream s, GiSample gi, float weight, float target, float count, float u) {
  if (!streamTakes(s.weightSum, s.count, weight, count, u)) return false;
  s.kept = gi;
  s.target = target;
  return true;
}

GiReservoir giStreamReservoir(GiStream s, float normalisation) {
  return GiReservoir(s.kept, unbiasedWeight(s.weightSum, normalisation, s.target), s.count);
}

// Whether `other` is the same surface as `surface`, seen from `eye` (RESTIR_NORMAL_COSINE,
// RESTIR_DEPTH_TOLERANCE): reuse across a depth or normal edge, or from disoccluded history,
// would bring light the pixel does not see.
bool sameSurface(RestirSurface surface, RestirSurface other, vec3 eye) {
  if (other.t < 0.0) return false;
  float depth = distance(surface.position, eye);
  return dot(surface.normal, other.normal) >= RESTIR_NORMAL_COSINE &&
         abs(distance(other.position, eye) - depth) <= RESTIR_DEPTH_TOLERANCE * depth;
}

// The pixel through which `camera` sees `position` (its pinhole: the lens is not modelled),
// the inverse of cameraRay.
bool projectToPixel(CameraParams camera, vec3 position, out uvec2 pixel) {
  vec3 d = position - camera.position;
  float z = dot(d, camera.forward);
  if (!(z > 0.0)) return false;
  vec2 ndc = vec2(dot(d, camera.right) / (z * camera.aspect * camera.tanHalfFovY),
                  -dot(d, camera.up) / (z * camera.tanHalfFovY));
  vec2 film = (ndc * 0.5 + 0.5) * vec2(FRAME.width, FRAME.height);
  if (!(film.x >= 0.0 && film.y >= 0.0 && film.x < float(FRAME.width) && film.y < float(FRAME.height))) return false;
  pixel = uvec2(film);
  return true;
}

// The pass's shadow rays in the pixel's work counts (one invocation a pixel, after the path
// tracer's kernel wrote them).
void countShadowRays(uint pixel, uint shadowRays) {
  if (FRAME.counters != 0ul && shadowRays > 0u) CounterArray(FRAME.counters).c[pixel].shadowRays += shadowRays;
}

#ifdef RAY_GENERATION
#define RESTIR_PASS_MAIN(pass) \
  void main() { pass(gl_LaunchIDEXT.xy); }
#else
#define RESTIR_PASS_MAIN(pass)                                               \
  layout(local_size_x = MEGAKERNEL_TILE, local_size_y = MEGAKERNEL_TILE) in; \
  void main() { pass(gl_GlobalInvocationID.xy); }
#endif

#endif
