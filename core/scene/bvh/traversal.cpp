#include "core/scene/bvh/traversal.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <span>
#include <utility>

#include "core/scene/bvh/cwbvh.h"

namespace ptbench {
namespace {

// Ize 2013, "Robust BVH Ray Traversal": (bound - origin) * (1 / direction) is off by at most
// 2 gamma(3) relative, so a far distance grown by that much never culls a box the ray enters.
// The ray's own end (tMax, or the closest hit so far) grows too: a box entered exactly there may
// hold a triangle hit exactly there, which the closed interval counts.
constexpr float unitRoundoff = FLT_EPSILON / 2;
constexpr float gamma3 = 3 * unitRoundoff / (1 - 3 * unitRoundoff);
constexpr float farScale = 1 + 2 * gamma3;

struct BoxRay {
  explicit BoxRay(const Ray& ray) : origin(ray.origin), tMin(ray.tMin) {
    // A zero component would give 0 * inf = NaN on a slab's plane; the smallest normal float in
    // its place keeps every product finite and leaves the box test conservative.
    const auto inverse = [](float d) { return std::fabs(d) >= FLT_MIN ? 1 / d : std::copysign(1 / FLT_MIN, d); };
    inverseDirection = {inverse(ray.direction.x), inverse(ray.direction.y), inverse(ray.direction.z)};
  }

  // The entry distance when the ray meets the box between tMin and tFar. The near and far
  // planes are chosen by the direction's signs, so an inverted box (empty) is never entered.
  std::optional<float> enter(Vec3 lo, Vec3 hi, float tFar) const {
    float tNear = tMin;
    for (int axis = 0; axis < 3; ++axis) {
      const float inverse = inverseDirection[axis];
      const float nearPlane = inverse >= 0 ? lo[axis] : hi[axis];
      const float farPlane = inverse >= 0 ? hi[axis] : lo[axis];
      tNear = std::max(tNear, (nearPlane - origin[axis]) * inverse);
      tFar = std::min(tFar, (farPlane - origin[axis]) * inverse);
    }
    if (tNear <= tFar * farScale) return tNear;
    return std::nullopt;
  }

  Vec3 origin;
  Vec3 inverseDirection;
  float tMin;
};

constexpr uint32_t innerEntry = 0xffffffffu;

struct StackEntry {
  uint32_t index;
  uint32_t count;  // innerEntry: index is a node; otherwise a leaf's primitives from index
  float tNear;
};

// Pushes the children the ray enters, the nearest last so that it is popped first.
void pushInOrder(std::span<StackEntry> entered, std::vector<StackEntry>& stack) {
  std::sort(entered.begin(), entered.end(), [](const StackEntry& a, const StackEntry& b) { return a.tNear > b.tNear; });
  stack.insert(stack.end(), entered.begin(), entered.end());
}

void pushChildren(const gpu::Bvh2Node& node, const BoxRay& ray, float tFar, std::vector<StackEntry>& stack) {
  StackEntry entered[2];
  size_t count = 0;
  for (const gpu::Bvh2Child& child : node.children)
    if (const auto tNear = ray.enter(toVec3(child.boundsMin), toVec3(child.boundsMax), tFar))
      entered[count++] = {child.index,
                          child.primitiveCount == gpu::BVH2_INNER_CHILD ? innerEntry : child.primitiveCount, *tNear};
  pushInOrder({entered, count}, stack);
}

void pushChildren(const gpu::CwbvhNode& node, const BoxRay& ray, float tFar, std::vector<StackEntry>& stack) {
  StackEntry entered[gpu::CWBVH_WIDTH];
  size_t count = 0;
  for (uint32_t slot = 0; slot < gpu::CWBVH_WIDTH; ++slot) {
    const std::optional<CwbvhChild> child = cwbvhChild(node, slot);
    if (!child) continue;
    if (const auto tNear = ray.enter(child->bounds.min, child->bounds.max, tFar))
      entered[count++] = {child->index, child->inner ? innerEntry : child->primitiveCount, *tNear};
  }
  pushInOrder({entered, count}, stack);
}

// Depth first, nearest child first, skipping whatever lies beyond tFar (which the leaves may
// shorten). leaf(first, count) returns true to end the walk.
template <typename Node, typename Leaf>
bool walk(std::span<const Node> nodes, uint32_t root, const BoxRay& ray, const float& tFar,
          std::vector<StackEntry>& stack, Leaf&& leaf) {
  stack.assign(1, {root, innerEntry, ray.tMin});
  while (!stack.empty()) {
    const StackEntry entry = stack.back();
    stack.pop_back();
    if (entry.tNear > tFar * farScale) continue;
    if (entry.count == innerEntry)
      pushChildren(nodes[entry.index], ray, tFar, stack);
    else if (leaf(entry.index, entry.count))
      return true;
  }
  return false;
}

// Both levels: visit(hit) is called for every hit within [tMin, tFar] of a triangle and returns
// true to end the traversal; tFar may be shortened by it.
template <typename Node, typename Visit>
void traverse(const SoftwareBvhLayout<Node>& bvh, const Ray& ray, const float& tFar, Visit&& visit) {
  const std::span<const Node> nodes = bvh.nodes;
  std::vector<StackEntry> topStack, bottomStack;
  walk(nodes, 0, BoxRay(ray), tFar, topStack, [&](uint32_t firstInstance, uint32_t instanceCount) {
    for (uint32_t i = firstInstance; i < firstInstance + instanceCount; ++i) {
      const gpu::BvhInstance& instance = bvh.instances[i];
      const Ray objectRay =
          toObjectSpace({instance.worldToObject[0], instance.worldToObject[1], instance.worldToObject[2]}, ray);
      const WatertightRay watertight(objectRay.origin, objectRay.direction);
      const bool done =
          walk(nodes, instance.rootNode, BoxRay(objectRay), tFar, bottomStack, [&](uint32_t first, uint32_t count) {
            for (uint32_t t = first; t < first + count; ++t) {
              const gpu::BvhTriangle& triangle = bvh.triangles[t];
              const auto hit =
                  watertight.intersect(toVec3(triangle.v0), toVec3(triangle.v1), toVec3(triangle.v2), ray.tMin, tFar);
              if (hit && visit(SurfaceHit{.t = hit->t,
                                          .instance = instance.instance,
                                          .geometry = triangle.geometry,
                                          .primitive = triangle.primitive,
                                          .u = hit->u,
                                          .v = hit->v}))
                return true;
            }
            return false;
          });
      if (done) return true;
    }
    return false;
  });
}

}  // namespace

Ray toObjectSpace(const std::array<gpu::vec4, 3>& worldToObject, const Ray& ray) {
  const auto point = [&](const gpu::vec4& row) {
    return row.x * ray.origin.x + row.y * ray.origin.y + row.z * ray.origin.z + row.w;
  };
  const auto vector = [&](const gpu::vec4& row) {
    return row.x * ray.direction.x + row.y * ray.direction.y + row.z * ray.direction.z;
  };
  return {.origin = {point(worldToObject[0]), point(worldToObject[1]), point(worldToObject[2])},
          .direction = {vector(worldToObject[0]), vector(worldToObject[1]), vector(worldToObject[2])},
          .tMin = ray.tMin,
          .tMax = ray.tMax};
}

WatertightRay::WatertightRay(Vec3 origin, Vec3 direction) : origin_(origin) {
  const float ax = std::fabs(direction.x), ay = std::fabs(direction.y), az = std::fabs(direction.z);
  kz_ = ax >= ay && ax >= az ? 0 : ay >= az ? 1 : 2;
  kx_ = (kz_ + 1) % 3;
  ky_ = (kx_ + 1) % 3;
  // Swapping keeps the triangles' winding, so the edge functions' signs stay meaningful.
  if (direction[kz_] < 0) std::swap(kx_, ky_);
  sx_ = direction[kx_] / direction[kz_];
  sy_ = direction[ky_] / direction[kz_];
  sz_ = 1 / direction[kz_];
}

template <typename Node>
std::optional<SurfaceHit> traceClosest(const SoftwareBvhLayout<Node>& bvh, const Ray& ray,
                                       const CandidateFilter& filter) {
  std::optional<SurfaceHit> closest;
  float tFar = ray.tMax;
  traverse(bvh, ray, tFar, [&](const SurfaceHit& hit) {
    if (!filter || filter(hit)) {
      closest = hit;
      tFar = hit.t;
    }
    return false;
  });
  return closest;
}

template <typename Node>
bool traceAny(const SoftwareBvhLayout<Node>& bvh, const Ray& ray, const CandidateFilter& filter) {
  bool found = false;
  traverse(bvh, ray, ray.tMax, [&](const SurfaceHit& hit) {
    found = !filter || filter(hit);
    return found;
  });
  return found;
}

template std::optional<SurfaceHit> traceClosest(const SoftwareBvhLayout<gpu::Bvh2Node>&, const Ray&,
                                                const CandidateFilter&);
template std::optional<SurfaceHit> traceClosest(const SoftwareBvhLayout<gpu::CwbvhNode>&, const Ray&,
                                                const CandidateFilter&);
template bool traceAny(const SoftwareBvhLayout<gpu::Bvh2Node>&, const Ray&, const CandidateFilter&);
template bool traceAny(const SoftwareBvhLayout<gpu::CwbvhNode>&, const Ray&, const CandidateFilter&);

}  // namespace ptbench
