#include "core/scene/camera.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

namespace ptbench::test {
namespace {

Vec3 viewOf(const Camera& camera) {
  return normalize(camera.target - camera.position);
}

void expectNear(Vec3 actual, Vec3 expected, double tolerance, const std::string& what) {
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(actual[i], expected[i], tolerance) << what << " component " << i;
}

// Three keyframes at uneven times, each with its own view, fov and lens.
CameraPath threeKeyframes(PathInterpolation interpolation) {
  CameraPath path{.interpolation = interpolation};
  path.keyframes = {
      {.time = 0,
       .position = {0, 0, 0},
       .orientation = lookRotation({0, 0, -1}, {0, 1, 0}),
       .yfovDegrees = 40,
       .aperture = 0,
       .focusDistance = 2},
      {.time = 0.5,
       .position = {1, 0, -1},
       .orientation = lookRotation({1, 0, -1}, {0, 1, 0}),
       .yfovDegrees = 50,
       .aperture = 0.1f,
       .focusDistance = 3},
      {.time = 2,
       .position = {2, 1, -4},
       .orientation = lookRotation({0, -1, -1}, {0, 1, 0}),
       .yfovDegrees = 30,
       .aperture = 0,
       .focusDistance = 1},
  };
  return path;
}

TEST(CameraPath, KeyframesAreHitExactlyAtTheirTimes) {
  for (PathInterpolation interpolation : {PathInterpolation::CatmullRom, PathInterpolation::Linear}) {
    const CameraPath path = threeKeyframes(interpolation);
    for (const CameraKeyframe& key : path.keyframes) {
      const Camera camera = cameraAt(path, key.time);
      const std::string at = "t=" + std::to_string(key.time);
      EXPECT_EQ(camera.position, key.position) << at;
      expectNear(viewOf(camera), rotate(key.orientation, {0, 0, -1}), 1e-6, at + " view");
      expectNear(camera.up, rotate(key.orientation, {0, 1, 0}), 1e-6, at + " up");
      EXPECT_EQ(camera.yfovDegrees, key.yfovDegrees) << at;
      EXPECT_EQ(camera.aperture, key.aperture) << at;
      EXPECT_NEAR(camera.focusDistance, key.focusDistance, 1e-6) << at;
      EXPECT_NEAR(length(camera.target - camera.position), key.focusDistance, 1e-5) << at;
    }
    // Before the first keyframe and after the last the camera holds still.
    EXPECT_EQ(cameraAt(path, -1).position, path.keyframes.front().position);
    EXPECT_EQ(cameraAt(path, 10).position, path.keyframes.back().position);
  }
}

TEST(CameraPath, LinearIsStraightAndCatmullRomCurves) {
  const Camera linear = cameraAt(threeKeyframes(PathInterpolation::Linear), 0.25);
  expectNear(linear.position, {0.5f, 0, -0.5f}, 1e-6, "linear halfway");
  EXPECT_NEAR(linear.yfovDegrees, 45, 1e-5);
  EXPECT_NEAR(linear.aperture, 0.05, 1e-6);
  // The spline's tangent at the middle keyframe is the chord from the first to the last over
  // their time, so it leaves the straight line between the keyframes.
  const Camera curved = cameraAt(threeKeyframes(PathInterpolation::CatmullRom), 0.25);
  EXPECT_GT(length(curved.position - linear.position), 1e-3);
  // And it is continuous across a keyframe: just before and after the middle one agree.
  const CameraPath path = threeKeyframes(PathInterpolation::CatmullRom);
  expectNear(cameraAt(path, 0.5 - 1e-4).position, cameraAt(path, 0.5 + 1e-4).position, 1e-3, "across t=0.5");
}

TEST(CameraPath, SlerpStaysNormalisedAndTakesTheShorterArc) {
  std::mt19937 random(7);
  std::normal_distribution<float> normal;
  const auto randomRotation = [&] {
    Quat q{normal(random), normal(random), normal(random), normal(random)};
    const float norm = std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    return Quat{q.x / norm, q.y / norm, q.z / norm, q.w / norm};
  };
  for (int i = 0; i < 1000; ++i) {
    const Quat a = randomRotation(), b = randomRotation();
    for (float t : {0.0f, 0.1f, 0.5f, 0.9f, 1.0f}) {
      const Quat q = slerp(a, b, t);
      EXPECT_NEAR(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w, 1.0, 1e-5) << i << " t=" << t;
    }
  }
  // A quarter turn about +Y, and the same rotation written as its negative: halfway is an eighth
  // turn either way, not the long way round.
  const float s = std::sqrt(0.5f);
  for (float sign : {1.0f, -1.0f}) {
    const Quat half = slerp({0, 0, 0, 1}, {0, sign * s, 0, sign * s}, 0.5f);
    expectNear(rotate(half, {0, 0, -1}), {-std::sin(0.25f * 3.14159265f), 0, -std::cos(0.25f * 3.14159265f)}, 1e-5,
               "eighth turn");
  }
  // Nearly equal rotations (the straight-line branch) stay normalised too.
  const Quat q = slerp({0, 0, 0, 1}, {0, 1e-4f, 0, 1}, 0.5f);
  EXPECT_NEAR(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w, 1.0, 1e-6);
}

TEST(CameraPath, LookRotationTurnsGltfsCameraToTheView) {
  for (Vec3 forward : {Vec3{0, 0, -1}, Vec3{0, 0, 1}, Vec3{1, 2, 3}, Vec3{-1, 0, 0}, Vec3{0, -1, 0}}) {
    const Quat q = lookRotation(forward, {0, 1, 0});
    expectNear(rotate(q, {0, 0, -1}), normalize(forward), 1e-5, "view");
    const Vec3 up = rotate(q, {0, 1, 0});
    EXPECT_NEAR(dot(up, normalize(forward)), 0, 1e-5);
    EXPECT_GE(up.y, -1e-6) << "up leans towards +Y";
  }
}

TEST(CameraPath, FrameKIsAtTimeKOverFps) {
  const CameraPath path = threeKeyframes(PathInterpolation::Linear);
  const std::vector<Camera> cameras = pathCameras(path, 5, 2);  // times 0, 0.5, 1, 1.5, 2
  ASSERT_EQ(cameras.size(), 5u);
  EXPECT_EQ(cameras[0].position, path.keyframes[0].position);
  EXPECT_EQ(cameras[1].position, path.keyframes[1].position);
  EXPECT_EQ(cameras[4].position, path.keyframes[2].position);
  expectNear(cameras[2].position, cameraAt(path, 1).position, 0, "frame 2");
}

}  // namespace
}  // namespace ptbench::test
