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
// side, where a light sample would not go (under the geometric surface). Unshadowed: giTarget
// adds the segment's visibility.
vec3 giUnshadowedContribution(RestirVertex vertex, GiSample gi) {
  vec3 toPoint = gi.position - vertex.sp.position;
  float distanceSquared = dot(toPoint, toPoint);
  if (!(distanceSquared > 0.0)) return vec3(0.0);
  vec3 direction = toPoint * inversesqrt(distanceSquared);
  float cosPoint = -dot(gi.normal, direction);
  if (!(cosPoint > 0.0) || dot(direction, vertex.sp.geometricNormal) <= 0.0) return vec3(0.0);
  return bsdfValue(vertex.sp, vertex.bsdf, direction).fCos * gi.radiance * (cosPoint / distanceSquared);
}

// GI's target: giUnshadowedContribution's luminance, zero where anything blocks the segment
// between the vertex and the point (visibility-checked reuse; binary, since a thin wall on the way
// would have been the path's own sample point). A reservoir's target at its own pixel so says
// whether its sample is visible there.
float giTarget(RestirVertex vertex, GiSample gi, out vec3 contribution, inout uint shadowRays) {
  contribution = vec3(0.0);
  vec3 unshadowed = giUnshadowedContribution(vertex, gi);
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
  return GiReservoir(GiSample(vec3(0.0), vec3(0.0), vec3(0.0)), 0.0, count, 0.0);
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

// The kept sample with its unbiased contribution weight W = weightSum / target (generalized
// RIS, as DI's streamReservoir).
GiReservoir giStreamReservoir(GiStream s) {
  return GiReservoir(s.kept, unbiasedWeight(s.weightSum, 1.0, s.target), s.count, s.target);
}

// The reconnection's Jacobian from `from` to `to` for a sample point: the ratio of the area
// factors, |cos phi_to| / d_to^2 over |cos phi_from| / d_from^2 (0 where either is 0).
float giJacobian(vec3 from, vec3 to, GiSample gi) {
  float there = giAreaFactor(from, gi);
  return there > 0.0 ? giAreaFactor(to, gi) / there : 0.0;
}

// GI's bias-trading knob (RestirFrame::giJacobianLimit, 0 for off): whether a sample that was
// resampled at `from` may be reused at `to`. A Jacobian far from 1 is where reuse brings a
// sample whose density at `to` is far from the one it was weighed for; pairwise MIS weighs it
// unbiasedly, rejecting it trades that for a darker estimate and less variance.
bool giJacobianAccepted(vec3 from, vec3 to, GiSample gi) {
  float limit = RESTIR_FRAME.giJacobianLimit;
  if (!(limit > 0.0)) return true;
  float jacobian = giJacobian(from, to, gi);
  return jacobian <= limit && jacobian * limit >= 1.0;
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

// The pass's visibility rays in the pixel's work counts, as shadow rays and as the pass's own
// (RESTIR_PASS_TEMPORAL, _SPATIAL, _SHADE; one invocation a pixel, after the path tracer's kernel
// wrote them).
const uint RESTIR_PASS_TEMPORAL = 0u;
const uint RESTIR_PASS_SPATIAL = 1u;
const uint RESTIR_PASS_SHADE = 2u;
void countVisibilityRays(uint pixel, uint pass, uint rays) {
  if (FRAME.counters == 0ul || rays == 0u) return;
  CounterArray(FRAME.counters).c[pixel].path.shadowRays += rays;
  CounterArray(FRAME.counters).c[pixel].restirRays[pass] += rays;
}

// Spatial reuse's neighbour k of `pixel` (RestirFrame's `neighbours` of them, uniformly in a disk
// of its `radius`), drawn from the dimensions from `firstDimension` on (three each): its pixel
// index, and whether it sees the same surface. Neighbours are chosen by geometry alone, so
// drawing one again gives the same pixel.
bool spatialNeighbour(uvec2 pixel, RestirSurface surface, RestirSurfaces surfaces, SampleStream stream,
                      uint firstDimension, uint k, out uint index) {
  index = 0u;
  vec2 offset = concentricDisk(sample2D(stream, firstDimension + 3u * k)) * RESTIR_FRAME.radius;
  ivec2 other = ivec2(pixel) + ivec2(round(offset));
  if (any(lessThan(other, ivec2(0))) || other.x >= int(FRAME.width) || other.y >= int(FRAME.height) ||
      all(equal(other, ivec2(pixel))))
    return false;
  index = uint(other.y) * FRAME.width + uint(other.x);
  return sameSurface(surface, surfaces.s[index], FRAME.camera.position);
}

// How many of the pixel's neighbours see its surface: each pair of pairwise MIS counts for
// 1/that of the pixel's own confidence.
uint spatialNeighboursTaken(uvec2 pixel, RestirSurface surface, RestirSurfaces surfaces, SampleStream stream,
                            uint firstDimension) {
  uint taken = 0u;
  uint unused;
  for (uint k = 0u; k < RESTIR_FRAME.neighbours; ++k)
    taken += spatialNeighbour(pixel, surface, surfaces, stream, firstDimension, k, unused) ? 1u : 0u;
  return taken;
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
