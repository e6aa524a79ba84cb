// traceClosest, traceAny and traceShadow through ptbench's own BVH (core/scene/bvh/,
// shared/bvh.h), traversed in the kernel itself: no ray-tracing extension, so any Vulkan 1.3
// device runs it. The conventions are those of the C++ reference traversal
// (core/scene/bvh/traversal.cpp) and of the hardware backends: a closed ray interval [0, tMax],
// t along the world ray (object rays keep the world direction's length), every non-opaque
// candidate asked alphaTestPasses, or on a shadow ray shadowCandidateTransmittance.
#ifndef PTBENCH_TRACE_GLSL
#define PTBENCH_TRACE_GLSL
#include "shared/bvh.h"

layout(constant_id = SPEC_SOFTWARE_BVH) const uint SOFTWARE_BVH = SOFTWARE_BVH_CWBVH;

// Nodes, triangles and instances are read as 16-byte words: one load per word, whatever the
// compiler makes of scalar-layout structs with vec3 members.
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer BvhWords { uvec4 w[]; };

PTBENCH_CONST uint CWBVH_NODE_WORDS = 5;
PTBENCH_CONST uint BVH2_NODE_WORDS = 4;
PTBENCH_CONST uint BVH_TRIANGLE_WORDS = 3;
PTBENCH_CONST uint BVH_INSTANCE_WORDS = 4;
PTBENCH_CONST uint TOP_LEVEL = 0xffffffffu;  // bottomLevelBase while the traversal is in the top level

// A box's far distance grows by this before it is compared: (plane - origin) * (1 / direction)
// may be a few ulps off (Ize 2013; the C++ reference allows 2 gamma(3), and a GPU's reciprocal
// may be up to 2.5 ulps off), and a box the ray enters must never be culled.
PTBENCH_CONST float BOX_FAR_SCALE = 1.0000009;

// The ray as the level being traversed sees it, with what the box and triangle tests need.
struct SoftwareRay {
  vec3 origin;
  vec3 direction;
  vec3 inverseDirection;
  uint octantInverse;  // CWBVH: 7 minus the direction's sign bits (bit k: component k < 0)
  // Woop, Benthin & Wald 2013: the axes permuted so that z is the dominant one, and the shear.
  uint kx, ky, kz;
  vec3 shear;  // (dx / dz, dy / dz, 1 / dz) in the permuted axes
};

SoftwareRay softwareRay(vec3 origin, vec3 direction) {
  SoftwareRay ray;
  ray.origin = origin;
  ray.direction = direction;
  // A zero component would give 0 * inf = NaN on a slab's plane; the smallest normal float in
  // its place keeps every product finite and the box test conservative.
  bvec3 tiny = lessThan(abs(direction), vec3(1.17549435e-38));
  vec3 safe = mix(direction, mix(vec3(-1.17549435e-38), vec3(1.17549435e-38), greaterThanEqual(direction, vec3(0.0))),
                  tiny);
  ray.inverseDirection = 1.0 / safe;
  ray.octantInverse = 7u ^ ((direction.x < 0.0 ? 1u : 0u) | (direction.y < 0.0 ? 2u : 0u) | (direction.z < 0.0 ? 4u : 0u));
  vec3 a = abs(direction);
  ray.kz = a.x >= a.y && a.x >= a.z ? 0u : (a.y >= a.z ? 1u : 2u);
  ray.kx = (ray.kz + 1u) % 3u;
  ray.ky = (ray.kx + 1u) % 3u;
  // Swapping keeps the triangles' winding, so the edge functions' signs stay meaningful.
  if (direction[ray.kz] < 0.0) {
    uint swap = ray.kx;
    ray.kx = ray.ky;
    ray.ky = swap;
  }
  ray.shear = vec3(direction[ray.kx] / direction[ray.kz], direction[ray.ky] / direction[ray.kz], 1.0 / direction[ray.kz]);
  return ray;
}

// The watertight test. Each edge function is computed from its edge's two projected vertices
// alone, and `precise` forbids fusing multiplies into adds (which a compiler may do in one place
// and not another), so each vertex projects identically in every triangle it belongs to, two
// triangles sharing an edge compute exactly opposite values for it, and no ray passes between
// them. (The paper recomputes exact
// zeros in double; here a zero counts as inside for both triangles, which is as watertight.)
bool intersectTriangle(SoftwareRay ray, vec3 v0, vec3 v1, vec3 v2, float tMax, out float t, out vec2 barycentrics) {
  vec3 a = v0 - ray.origin;
  vec3 b = v1 - ray.origin;
  vec3 c = v2 - ray.origin;
  precise float ax = a[ray.kx] - ray.shear.x * a[ray.kz], ay = a[ray.ky] - ray.shear.y * a[ray.kz];
  precise float bx = b[ray.kx] - ray.shear.x * b[ray.kz], by = b[ray.ky] - ray.shear.y * b[ray.kz];
  precise float cx = c[ray.kx] - ray.shear.x * c[ray.kz], cy = c[ray.ky] - ray.shear.y * c[ray.kz];
  precise float e0 = cx * by - cy * bx;
  precise float e1 = ax * cy - ay * cx;
  precise float e2 = bx * ay - by * ax;
  if ((e0 < 0.0 || e1 < 0.0 || e2 < 0.0) && (e0 > 0.0 || e1 > 0.0 || e2 > 0.0)) return false;
  float determinant = e0 + e1 + e2;
  if (determinant == 0.0) return false;
  float scaledT = e0 * (ray.shear.z * a[ray.kz]) + e1 * (ray.shear.z * b[ray.kz]) + e2 * (ray.shear.z * c[ray.kz]);
  t = scaledT / determinant;
  barycentrics = vec2(e1, e2) / determinant;
  return t >= 0.0 && t <= tMax;
}

// The slab test of one box against [0, tFar]; tNear is where the ray enters it. Near and far
// planes are chosen by the direction's signs, so an inverted (empty) box is never entered.
bool enterBox(SoftwareRay ray, vec3 lo, vec3 hi, float tFar, out float tNear) {
  bvec3 negative = lessThan(ray.inverseDirection, vec3(0.0));
  vec3 nearPlanes = mix(lo, hi, negative);
  vec3 farPlanes = mix(hi, lo, negative);
  vec3 t0 = (nearPlanes - ray.origin) * ray.inverseDirection;
  vec3 t1 = (farPlanes - ray.origin) * ray.inverseDirection;
  tNear = max(max(t0.x, t0.y), max(t0.z, 0.0));
  float exit = min(min(t1.x, t1.y), min(t1.z, tFar));
  return tNear <= exit * BOX_FAR_SCALE;
}

// The instance a top-level leaf entry names: its object-space ray and bottom-level root.
uint enterInstance(BvhWords instances, uint entry, vec3 worldOrigin, vec3 worldDirection, out SoftwareRay ray,
                   out uint instanceIndex) {
  uvec4 row0 = instances.w[entry * BVH_INSTANCE_WORDS];
  uvec4 row1 = instances.w[entry * BVH_INSTANCE_WORDS + 1u];
  uvec4 row2 = instances.w[entry * BVH_INSTANCE_WORDS + 2u];
  uvec4 tail = instances.w[entry * BVH_INSTANCE_WORDS + 3u];
  mat3x4 worldToObject = mat3x4(uintBitsToFloat(row0), uintBitsToFloat(row1), uintBitsToFloat(row2));
  vec4 origin = vec4(worldOrigin, 1.0), direction = vec4(worldDirection, 0.0);
  ray = softwareRay(vec3(dot(worldToObject[0], origin), dot(worldToObject[1], origin), dot(worldToObject[2], origin)),
                    vec3(dot(worldToObject[0], direction), dot(worldToObject[1], direction),
                         dot(worldToObject[2], direction)));
  instanceIndex = tail.x;
  return tail.y;
}

// A triangle of a bottom-level leaf against the ray; on a hit that counts, `tMax` and `hit`
// become it. A shadow ray crosses smooth thin walls, multiplying `transmittance` by what each
// lets through: they do not count.
bool testTriangle(BvhWords triangles, uint index, SoftwareRay ray, uint instanceIndex, vec3 worldOrigin,
                  vec3 worldDirection, bool shadow, inout float tMax, inout SurfaceHit hit, inout vec3 transmittance) {
  uvec4 w0 = triangles.w[index * BVH_TRIANGLE_WORDS];
  uvec4 w1 = triangles.w[index * BVH_TRIANGLE_WORDS + 1u];
  uvec4 w2 = triangles.w[index * BVH_TRIANGLE_WORDS + 2u];
  float t;
  vec2 barycentrics;
  if (!intersectTriangle(ray, uintBitsToFloat(w0.xyz), uintBitsToFloat(w1.xyz), uintBitsToFloat(w2.xyz), tMax, t,
                         barycentrics))
    return false;
  if ((w2.w & BVH_TRIANGLE_NON_OPAQUE) != 0u) {
    if (shadow) {
      vec3 passed = shadowCandidateTransmittance(instanceIndex, w0.w, w1.w, barycentrics, worldOrigin, worldDirection);
      if (maxComponent(passed) > 0.0) {
        transmittance *= passed;
        return false;
      }
    } else if (!alphaTestPasses(instanceIndex, w0.w, w1.w, barycentrics, worldOrigin, worldDirection)) {
      return false;
    }
  }
  tMax = t;
  hit = SurfaceHit(t, instanceIndex, w0.w, w1.w, barycentrics);
  return true;
}

// Ylitie, Karras & Laine 2017: the stack holds groups, a node's inner children that the ray
// entered (base node, hit bits 24-31 in octant order, imask in bits 0-7) or a leaf range of
// triangles or instances (base, hit bits 0-23). Children are tested in slot order and their
// hit bits placed so that the highest set bit is the nearest octant, which orders the visit
// front to back without sorting.
bool traverseCwbvh(vec3 worldOrigin, vec3 worldDirection, float tMax, bool anyHit, bool shadow, inout SurfaceHit hit,
                   inout vec3 transmittance) {
  BvhWords nodes = BvhWords(SCENE.bvhNodes);
  BvhWords triangles = BvhWords(SCENE.bvhTriangles);
  BvhWords instances = BvhWords(SCENE.bvhInstances);
  SoftwareRay ray = softwareRay(worldOrigin, worldDirection);
  uvec2 stack[SOFTWARE_TRACE_STACK_SIZE];
  uint stackSize = 0u;
  uint bottomLevelBase = TOP_LEVEL;  // the stack size when the bottom level was entered
  uint instanceIndex = 0u;
  bool found = false;
  // The root, as a group of one inner child in slot 0.
  uvec2 nodeGroup = uvec2(0u, 1u << (24u + ray.octantInverse));
  uvec2 leafGroup = uvec2(0u);
  while (true) {
    if (nodeGroup.y > 0x00ffffffu) {
      uint bit = findMSB(nodeGroup.y);
      nodeGroup.y &= ~(1u << bit);
      uint slot = (bit - 24u) ^ ray.octantInverse;
      uint node = nodeGroup.x + bitCount(nodeGroup.y & 0xffu & ((1u << slot) - 1u));
      if (nodeGroup.y > 0x00ffffffu) stack[stackSize++] = nodeGroup;

      uvec4 n0 = nodes.w[node * CWBVH_NODE_WORDS];
      uvec4 n1 = nodes.w[node * CWBVH_NODE_WORDS + 1u];
      uvec4 n2 = nodes.w[node * CWBVH_NODE_WORDS + 2u];
      uvec4 n3 = nodes.w[node * CWBVH_NODE_WORDS + 3u];
      uvec4 n4 = nodes.w[node * CWBVH_NODE_WORDS + 4u];
      vec3 origin = uintBitsToFloat(n0.xyz);
      vec3 scale = uintBitsToFloat(uvec3(n0.w & 0xffu, (n0.w >> 8) & 0xffu, (n0.w >> 16) & 0xffu) << 23);
      uint imask = n0.w >> 24;
      // Quantised bounds: per axis, the words of slots 0-3 and 4-7 of the near and far planes.
      bvec3 negative = lessThan(ray.inverseDirection, vec3(0.0));
      uvec2 loX = n2.xy, loY = n2.zw, loZ = n3.xy, hiX = n3.zw, hiY = n4.xy, hiZ = n4.zw;
      uvec2 nearX = negative.x ? hiX : loX, farX = negative.x ? loX : hiX;
      uvec2 nearY = negative.y ? hiY : loY, farY = negative.y ? loY : hiY;
      uvec2 nearZ = negative.z ? hiZ : loZ, farZ = negative.z ? loZ : hiZ;
      uint hits = 0u;
      for (uint half_ = 0u; half_ < 2u; ++half_) {
        uint meta = half_ == 0u ? n1.z : n1.w;
        for (uint byte_ = 0u; byte_ < 4u; ++byte_) {
          uint shift = 8u * byte_;
          uint childMeta = (meta >> shift) & 0xffu;
          vec3 qNear = vec3((uvec3(nearX[half_], nearY[half_], nearZ[half_]) >> shift) & 0xffu);
          vec3 qFar = vec3((uvec3(farX[half_], farY[half_], farZ[half_]) >> shift) & 0xffu);
          vec3 t0 = (fma(qNear, scale, origin) - ray.origin) * ray.inverseDirection;
          vec3 t1 = (fma(qFar, scale, origin) - ray.origin) * ray.inverseDirection;
          float tNear = max(max(t0.x, t0.y), max(t0.z, 0.0));
          float tFar = min(min(t1.x, t1.y), min(t1.z, tMax));
          if (tNear <= tFar * BOX_FAR_SCALE) {
            uint offset = childMeta & 0x1fu;
            // Inner children (offset 24 + slot) go to their octant-ordered bit; leaves set their
            // triangle count's unary bits from their first triangle's offset.
            uint bitIndex = offset >= CWBVH_META_INNER_SLOT_BASE ? offset ^ ray.octantInverse : offset;
            hits |= (childMeta >> 5) << bitIndex;
          }
        }
      }
      nodeGroup = uvec2(n1.x, (hits & 0xff000000u) | imask);
      leafGroup = uvec2(n1.y, hits & 0x00ffffffu);
    } else {
      leafGroup = nodeGroup;
      nodeGroup = uvec2(0u);
    }

    while (leafGroup.y != 0u) {
      uint bit = findLSB(leafGroup.y);
      leafGroup.y &= ~(1u << bit);
      if (bottomLevelBase == TOP_LEVEL) {
        // An instance: keep what is left of this level, then descend into its bottom level.
        if (nodeGroup.y > 0x00ffffffu) stack[stackSize++] = nodeGroup;
        if (leafGroup.y != 0u) stack[stackSize++] = leafGroup;
        bottomLevelBase = stackSize;
        uint root = enterInstance(instances, leafGroup.x + bit, worldOrigin, worldDirection, ray, instanceIndex);
        nodeGroup = uvec2(root, 1u << (24u + ray.octantInverse));
        leafGroup = uvec2(0u);
        break;
      }
      if (testTriangle(triangles, leafGroup.x + bit, ray, instanceIndex, worldOrigin, worldDirection, shadow, tMax, hit,
                       transmittance)) {
        found = true;
        if (anyHit) return true;
      }
    }

    if (nodeGroup.y <= 0x00ffffffu) {
      if (stackSize == bottomLevelBase) {
        bottomLevelBase = TOP_LEVEL;
        ray = softwareRay(worldOrigin, worldDirection);
      }
      if (stackSize == 0u) break;
      nodeGroup = stack[--stackSize];
    }
  }
  return found;
}

// Aila & Laine 2009: both children's boxes in the parent; visit the nearer child the ray enters
// and push the farther. A stack entry is (index, count): a node (count BVH2_INNER_CHILD) or a
// leaf's range of triangles or instances.
bool traverseBvh2(vec3 worldOrigin, vec3 worldDirection, float tMax, bool anyHit, bool shadow, inout SurfaceHit hit,
                  inout vec3 transmittance) {
  BvhWords nodes = BvhWords(SCENE.bvhNodes);
  BvhWords triangles = BvhWords(SCENE.bvhTriangles);
  BvhWords instances = BvhWords(SCENE.bvhInstances);
  SoftwareRay ray = softwareRay(worldOrigin, worldDirection);
  uvec2 stack[SOFTWARE_TRACE_STACK_SIZE];
  uint stackSize = 0u;
  uint bottomLevelBase = TOP_LEVEL;
  uint instanceIndex = 0u;
  bool found = false;
  uvec2 entry = uvec2(0u, BVH2_INNER_CHILD);
  bool haveEntry = true;
  while (true) {
    if (haveEntry && entry.y == BVH2_INNER_CHILD) {
      uvec4 a0 = nodes.w[entry.x * BVH2_NODE_WORDS];
      uvec4 a1 = nodes.w[entry.x * BVH2_NODE_WORDS + 1u];
      uvec4 b0 = nodes.w[entry.x * BVH2_NODE_WORDS + 2u];
      uvec4 b1 = nodes.w[entry.x * BVH2_NODE_WORDS + 3u];
      float tA, tB;
      bool hitA = enterBox(ray, uintBitsToFloat(a0.xyz), uintBitsToFloat(a1.xyz), tMax, tA);
      bool hitB = enterBox(ray, uintBitsToFloat(b0.xyz), uintBitsToFloat(b1.xyz), tMax, tB);
      uvec2 childA = uvec2(a0.w, a1.w), childB = uvec2(b0.w, b1.w);
      if (hitA && hitB) {
        stack[stackSize++] = tA <= tB ? childB : childA;
        entry = tA <= tB ? childA : childB;
      } else if (hitA || hitB) {
        entry = hitA ? childA : childB;
      } else {
        haveEntry = false;
      }
    } else if (haveEntry && entry.y == 0u) {
      haveEntry = false;  // the empty child of a one-leaf tree, entered only by a NaN ray
    } else if (haveEntry) {
      if (bottomLevelBase == TOP_LEVEL) {
        if (entry.y > 1u) stack[stackSize++] = uvec2(entry.x + 1u, entry.y - 1u);
        bottomLevelBase = stackSize;
        entry = uvec2(enterInstance(instances, entry.x, worldOrigin, worldDirection, ray, instanceIndex),
                      BVH2_INNER_CHILD);
        continue;
      }
      for (uint t = entry.x; t < entry.x + entry.y; ++t) {
        if (testTriangle(triangles, t, ray, instanceIndex, worldOrigin, worldDirection, shadow, tMax, hit,
                         transmittance)) {
          found = true;
          if (anyHit) return true;
        }
      }
      haveEntry = false;
    }
    if (!haveEntry) {
      if (stackSize == bottomLevelBase) {
        bottomLevelBase = TOP_LEVEL;
        ray = softwareRay(worldOrigin, worldDirection);
      }
      if (stackSize == 0u) break;
      entry = stack[--stackSize];
      haveEntry = true;
    }
  }
  return found;
}

// anyHit: the first hit that counts ends the traversal; shadow: thin walls do not count
// (testTriangle).
bool traceSoftware(vec3 origin, vec3 direction, float tMax, bool anyHit, bool shadow, inout SurfaceHit hit,
                   inout vec3 transmittance) {
  // A NaN or zero direction meets nothing; min and max of NaN are undefined in SPIR-V, and on
  // some GPUs such a ray would enter every box.
  if (any(isnan(direction)) || any(isnan(origin)) || all(equal(direction, vec3(0.0)))) return false;
  if (SOFTWARE_BVH == SOFTWARE_BVH_BVH2)
    return traverseBvh2(origin, direction, tMax, anyHit, shadow, hit, transmittance);
  return traverseCwbvh(origin, direction, tMax, anyHit, shadow, hit, transmittance);
}

bool traceClosest(vec3 origin, vec3 direction, out SurfaceHit hit) {
  hit = SurfaceHit(0.0, 0u, 0u, 0u, vec2(0.0));
  vec3 ignored = vec3(1.0);
  return traceSoftware(origin, direction, RAY_T_MAX, false, false, hit, ignored);
}

// Whether anything blocks the segment from origin to origin + tMax * direction.
bool traceAny(vec3 origin, vec3 direction, float tMax) {
  SurfaceHit ignored = SurfaceHit(0.0, 0u, 0u, 0u, vec2(0.0));
  vec3 unused = vec3(1.0);
  return traceSoftware(origin, direction, tMax, true, false, ignored, unused);
}

// What reaches origin + tMax * direction from origin: 0 where something blocks the segment, else
// the product of what each smooth thin wall on it lets through.
vec3 traceShadow(vec3 origin, vec3 direction, float tMax) {
  SurfaceHit ignored = SurfaceHit(0.0, 0u, 0u, 0u, vec2(0.0));
  vec3 transmittance = vec3(1.0);
  return traceSoftware(origin, direction, tMax, true, true, ignored, transmittance) ? vec3(0.0) : transmittance;
}

#endif
