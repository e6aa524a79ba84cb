#include "core/scene/camera.h"

#include <algorithm>
#include <cmath>

namespace ptbench {
namespace {

float dot(Quat a, Quat b) {
  return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}

Quat unitQuat(Quat q) {
  const float norm = std::sqrt(dot(q, q));
  return norm > 0 ? Quat{q.x / norm, q.y / norm, q.z / norm, q.w / norm} : Quat{};
}

// From an orthonormal basis given as its columns (Shepperd's method: the largest diagonal term
// divides, so no branch loses precision).
Quat fromBasis(Vec3 x, Vec3 y, Vec3 z) {
  const float trace = x.x + y.y + z.z;
  Quat q;
  if (trace > 0) {
    const float s = 2 * std::sqrt(1 + trace);
    q = {(y.z - z.y) / s, (z.x - x.z) / s, (x.y - y.x) / s, s / 4};
  } else if (x.x > y.y && x.x > z.z) {
    const float s = 2 * std::sqrt(1 + x.x - y.y - z.z);
    q = {s / 4, (y.x + x.y) / s, (z.x + x.z) / s, (y.z - z.y) / s};
  } else if (y.y > z.z) {
    const float s = 2 * std::sqrt(1 + y.y - x.x - z.z);
    q = {(y.x + x.y) / s, s / 4, (z.y + y.z) / s, (z.x - x.z) / s};
  } else {
    const float s = 2 * std::sqrt(1 + z.z - x.x - y.y);
    q = {(z.x + x.z) / s, (z.y + y.z) / s, s / 4, (x.y - y.x) / s};
  }
  return unitQuat(q);
}

// The cubic Hermite curve from p0 (tangent m0) to p1 (tangent m1) over an interval of `span`
// seconds, at s in [0, 1]: p0 at 0 and p1 at 1 exactly.
Vec3 hermite(Vec3 p0, Vec3 m0, Vec3 p1, Vec3 m1, float span, float s) {
  const float s2 = s * s, s3 = s2 * s;
  return p0 * (2 * s3 - 3 * s2 + 1) + m0 * ((s3 - 2 * s2 + s) * span) + p1 * (-2 * s3 + 3 * s2) +
         m1 * ((s3 - s2) * span);
}

// Keyframe i's tangent: the chord between its neighbours over their time (one-sided at the ends).
Vec3 tangent(const std::vector<CameraKeyframe>& keys, size_t i) {
  const size_t before = i > 0 ? i - 1 : i, after = std::min(i + 1, keys.size() - 1);
  return (keys[after].position - keys[before].position) * float(1.0 / (keys[after].time - keys[before].time));
}

Camera cameraOf(Vec3 position, Quat orientation, float yfovDegrees, float aperture, float focusDistance) {
  Camera camera;
  camera.position = position;
  camera.target = position + rotate(orientation, {0, 0, -1}) * focusDistance;
  camera.up = rotate(orientation, {0, 1, 0});
  camera.yfovDegrees = yfovDegrees;
  camera.aperture = aperture;
  camera.focusDistance = focusDistance;
  return camera;
}

}  // namespace

Vec3 rotate(Quat q, Vec3 v) {
  // v + 2w (u x v) + 2 u x (u x v), u the quaternion's vector part.
  const Vec3 u{q.x, q.y, q.z};
  const Vec3 t = cross(u, v) * 2.0f;
  return v + t * q.w + cross(u, t);
}

Quat lookRotation(Vec3 forward, Vec3 up) {
  const Vec3 back = normalize(forward) * -1.0f;
  Vec3 right = cross(up, back);
  if (length(right) < 1e-6f) right = cross(std::fabs(back.y) < 0.9f ? Vec3{0, 1, 0} : Vec3{1, 0, 0}, back);
  right = normalize(right);
  return fromBasis(right, cross(back, right), back);
}

Quat slerp(Quat a, Quat b, float t) {
  float cosine = dot(a, b);
  if (cosine < 0) {  // q and -q are one rotation: take the shorter way
    b = {-b.x, -b.y, -b.z, -b.w};
    cosine = -cosine;
  }
  float wa = 1 - t, wb = t;
  // Nearly equal: the sine below vanishes, and the straight line is as good.
  if (cosine < 0.9995f) {
    const float angle = std::acos(cosine);
    const float sine = std::sin(angle);
    wa = std::sin((1 - t) * angle) / sine;
    wb = std::sin(t * angle) / sine;
  }
  return unitQuat({wa * a.x + wb * b.x, wa * a.y + wb * b.y, wa * a.z + wb * b.z, wa * a.w + wb * b.w});
}

Camera cameraAt(const CameraPath& path, double time) {
  const auto& keys = path.keyframes;
  const auto of = [](const CameraKeyframe& k) {
    return cameraOf(k.position, k.orientation, k.yfovDegrees, k.aperture, k.focusDistance);
  };
  if (keys.empty()) return {};
  if (time <= keys.front().time) return of(keys.front());
  if (time >= keys.back().time) return of(keys.back());
  // The segment [i, i + 1] that holds `time`.
  const size_t i = size_t(std::upper_bound(keys.begin(), keys.end(), time,
                                           [](double t, const CameraKeyframe& k) { return t < k.time; }) -
                          keys.begin()) -
                   1;
  const CameraKeyframe &a = keys[i], &b = keys[i + 1];
  // Exactly at a keyframe, its own values (no rounding through the blend).
  if (time == a.time) return of(a);
  const double span = b.time - a.time;
  const float s = float((time - a.time) / span);
  const auto mix = [s](float x, float y) { return x + (y - x) * s; };
  const Vec3 position = path.interpolation == PathInterpolation::Linear
                            ? a.position + (b.position - a.position) * s
                            : hermite(a.position, tangent(keys, i), b.position, tangent(keys, i + 1), float(span), s);
  return cameraOf(position, slerp(a.orientation, b.orientation, s), mix(a.yfovDegrees, b.yfovDegrees),
                  mix(a.aperture, b.aperture), mix(a.focusDistance, b.focusDistance));
}

std::vector<Camera> pathCameras(const CameraPath& path, uint32_t frames, double fps) {
  std::vector<Camera> cameras;
  cameras.reserve(frames);
  for (uint32_t k = 0; k < frames; ++k) cameras.push_back(cameraAt(path, k / fps));
  return cameras;
}

}  // namespace ptbench
