// A C++ reference traversal of both software layouts: what the GPU traversal must find, with
// the hardware backends' conventions (shaders/trace/trace_rayquery.glsl, surface.glsl).
#pragma once
#include <functional>
#include <optional>

#include "core/scene/bvh/software_bvh.h"
#include "shared/render.h"

namespace ptbench {

// Hits count for tMin <= t <= tMax, inclusive at both ends as the hardware's ray interval is.
struct Ray {
  Vec3 origin;
  Vec3 direction;  // need not be unit length: t is in units of it
  float tMin = 0;
  float tMax = gpu::RAY_T_MAX;
};

// As shaders/common/surface.glsl's SurfaceHit: t along the world ray, the instance, the geometry
// within its mesh, the primitive within the geometry, and (u, v) the weights of vertices 1 and 2.
struct SurfaceHit {
  float t = 0;
  uint32_t instance = 0;
  uint32_t geometry = 0;
  uint32_t primitive = 0;
  float u = 0, v = 0;
};

// The alpha test's place: asked about every candidate hit, which counts only when it answers
// true (alphaTestPasses in surface.glsl needs textures, so it lives on the GPU). Empty: every
// candidate counts.
using CandidateFilter = std::function<bool(const SurfaceHit& candidate)>;

template <typename Node>
std::optional<SurfaceHit> traceClosest(const SoftwareBvhLayout<Node>& bvh, const Ray& ray,
                                       const CandidateFilter& filter = {});

// Whether anything counts between tMin and tMax; stops at the first such hit.
template <typename Node>
bool traceAny(const SoftwareBvhLayout<Node>& bvh, const Ray& ray, const CandidateFilter& filter = {});

// The ray in an instance's object space: the same t reaches the same point, so hits keep world t.
Ray toObjectSpace(const std::array<gpu::vec4, 3>& worldToObject, const Ray& ray);

// Woop, Benthin & Wald 2013, "Watertight Ray/Triangle Intersection": the ray's dominant axis
// becomes z and a shear makes it the z axis itself, so a triangle is hit when the 2D edge
// functions of its projected vertices about the origin share a sign. Each edge function is
// computed from the edge's two vertices alone, identically for both triangles sharing it, so no
// ray passes between them; exact zeros are recomputed in double, as the paper does.
class WatertightRay {
 public:
  WatertightRay(Vec3 origin, Vec3 direction);

  struct Hit {
    float t, u, v;  // (u, v): the weights of v1 and v2
  };
  // Inline: the brute-force oracle of the tests calls it for every triangle of a scene.
  std::optional<Hit> intersect(Vec3 v0, Vec3 v1, Vec3 v2, float tMin, float tMax) const;

 private:
  Vec3 origin_;
  int kx_, ky_, kz_;
  float sx_, sy_, sz_;
};

inline std::optional<WatertightRay::Hit> WatertightRay::intersect(Vec3 v0, Vec3 v1, Vec3 v2, float tMin,
                                                                  float tMax) const {
  const float a[3] = {v0.x - origin_.x, v0.y - origin_.y, v0.z - origin_.z};
  const float b[3] = {v1.x - origin_.x, v1.y - origin_.y, v1.z - origin_.z};
  const float c[3] = {v2.x - origin_.x, v2.y - origin_.y, v2.z - origin_.z};
  const float ax = a[kx_] - sx_ * a[kz_], ay = a[ky_] - sy_ * a[kz_];
  const float bx = b[kx_] - sx_ * b[kz_], by = b[ky_] - sy_ * b[kz_];
  const float cx = c[kx_] - sx_ * c[kz_], cy = c[ky_] - sy_ * c[kz_];
  // Twice the signed areas of the projected triangles (origin, edge): the weights of v0, v1, v2.
  float e0 = cx * by - cy * bx;
  float e1 = ax * cy - ay * cx;
  float e2 = bx * ay - by * ax;
  if (e0 == 0 || e1 == 0 || e2 == 0) {
    e0 = static_cast<float>(double(cx) * double(by) - double(cy) * double(bx));
    e1 = static_cast<float>(double(ax) * double(cy) - double(ay) * double(cx));
    e2 = static_cast<float>(double(bx) * double(ay) - double(by) * double(ax));
  }
  if ((e0 < 0 || e1 < 0 || e2 < 0) && (e0 > 0 || e1 > 0 || e2 > 0)) return std::nullopt;
  const float determinant = e0 + e1 + e2;
  if (determinant == 0) return std::nullopt;
  const float scaledT = e0 * (sz_ * a[kz_]) + e1 * (sz_ * b[kz_]) + e2 * (sz_ * c[kz_]);
  const float t = scaledT / determinant;
  if (!(t >= tMin && t <= tMax)) return std::nullopt;
  return Hit{.t = t, .u = e1 / determinant, .v = e2 / determinant};
}

}  // namespace ptbench
