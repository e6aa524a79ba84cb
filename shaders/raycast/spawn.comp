#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_ballot : require
// spawn: from each camera ray's hit, the ray the trace stage measures. Diffuse: a
// cosine-distributed direction about the geometric normal (facing the camera ray), from the
// BSDF's sample dimensions. Shadow: to a point sampled on the lights, with the origin, direction
// and tMax next-event estimation gives it (common/path.glsl), where a light sample exists
// above the surface. The rays are appended compactly; a miss spawns none.
#include "raycast/state.glsl"

layout(local_size_x = WORKGROUP_SIZE_1D) in;

// A place in the spawned set: one atomicAdd per subgroup, so that neighbouring camera rays'
// spawned rays stay neighbours (the wavefront's queueReserve, for one queue).
uint reserveRay() {
  uvec4 ballot = subgroupBallot(true);
  uint base = 0u;
  if (subgroupElect()) base = atomicAdd(RAYCAST_COUNTERS.rayCount[RAY_SET_SPAWNED], subgroupBallotBitCount(ballot));
  return subgroupBroadcastFirst(base) + subgroupBallotExclusiveBitCount(ballot);
}

void main() {
  uint ray = kernelIndex();
  if (ray >= rayCount(RAY_SET_CAMERA)) return;
  RaySet camera = RAYCAST_PARAMS.rays[RAY_SET_CAMERA];
  uint slot = UintBuffer(camera.slot).u[ray];
  uint pixel = slotPixel(slot);
  HitRecord record = HitBuffer(RAYCAST_PARAMS.hits).h[ray];
  bool spawns = false;
  vec3 origin, direction;
  float tMax = RAY_T_MAX;
  if (record.t >= 0.0) {
    SurfaceHit hit = SurfaceHit(record.t, record.instance, record.geometry, record.primitive, record.barycentrics);
    ShadingPoint sp = shadingPoint(hit, Vec3Buffer(camera.direction).v[ray]);
    SampleStream stream = sampleStream(pixel, slotSample(slot));
    origin = offsetRayOrigin(sp.position, sp.geometricNormal);
    if (push.rays == RAYS_DIFFUSE) {
      vec3 t, b;
      basis(sp.geometricNormal, t, b);
      vec3 local = cosineHemisphere(sample2D(stream, bounceDimension(0u, DIMENSION_BSDF)));
      direction = normalize(t * local.x + b * local.y + sp.geometricNormal * local.z);
      spawns = true;
    } else {
      LightSample light;
      spawns = sampleLight(sp.position, sample1D(stream, bounceDimension(0u, DIMENSION_LIGHT_CHOICE)),
                           sampleBits(stream, bounceDimension(0u, DIMENSION_LIGHT_INDEX)),
                           sample2D(stream, bounceDimension(0u, DIMENSION_LIGHT_POINT)), light) &&
               dot(light.direction, sp.geometricNormal) > 0.0;
      direction = light.direction;
      // As pathHit stops short of the emitter, so that it does not occlude itself.
      tMax = light.delta && light.distance >= RAY_T_MAX ? RAY_T_MAX : light.distance * (1.0 - 1e-4);
    }
  }
  uint spawned = NO_RAY;
  if (spawns) {
    spawned = reserveRay();
    storeRay(RAY_SET_SPAWNED, spawned, origin, direction, tMax, slot);
  }
  UintBuffer(RAYCAST_PARAMS.rayOfSlot).u[slot] = spawned;
}
