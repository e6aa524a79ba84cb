// The camera, fixed or moving: a path of keyframes interpolated in time (a config's
// `camera.path`, or a glTF animation of the camera's node), sampled once a frame.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/scene/math.h"

namespace ptbench {

struct Camera {
  Vec3 position;
  Vec3 target;
  Vec3 up{0, 1, 0};
  float yfovDegrees = 45;
  // A thin lens: its diameter (0: a pinhole) and the distance along the view direction of the
  // plane in focus (0: the target's).
  float aperture = 0;
  float focusDistance = 0;
};

// A unit quaternion (x, y, z, w), as glTF stores rotations.
struct Quat {
  float x = 0, y = 0, z = 0, w = 1;
};
Vec3 rotate(Quat q, Vec3 v);
// The rotation that turns glTF's camera frame (looking down -Z, +Y up) to look along `forward`
// with `up` as near its +Y as `forward` allows (a `up` parallel to `forward` is replaced).
Quat lookRotation(Vec3 forward, Vec3 up);
// The shorter arc from `a` to `b`, at `t` in [0, 1]; normalised, whatever rounding did.
Quat slerp(Quat a, Quat b, float t);

enum class PathInterpolation {
  // Positions on a Catmull-Rom spline (a cubic Hermite curve whose tangent at a keyframe is the
  // chord of its neighbours over their time; one-sided at the ends): smooth through every keyframe.
  CatmullRom,
  Linear,  // positions straight from keyframe to keyframe, as glTF's LINEAR samplers
};

struct CameraKeyframe {
  double time = 0;  // seconds
  Vec3 position;
  Quat orientation;  // from glTF's camera frame
  float yfovDegrees = 45;
  float aperture = 0;
  float focusDistance = 1;  // along the view: the plane in focus (a keyframe's target's distance unless told)
};

// Keyframes of strictly increasing time. Orientations are slerped and fov, aperture and focus
// distance interpolated linearly whatever `interpolation` says; before the first keyframe and
// after the last the camera holds still.
struct CameraPath {
  std::vector<CameraKeyframe> keyframes;
  PathInterpolation interpolation = PathInterpolation::CatmullRom;
};

// The camera at `time` (seconds); its target lies at the focus distance along its view.
Camera cameraAt(const CameraPath& path, double time);
// Frame k's camera at time k / fps, for k from 0 to frames - 1.
std::vector<Camera> pathCameras(const CameraPath& path, uint32_t frames, double fps);

// A glTF animation of the scene camera's node (translation and rotation channels), as world-space
// keyframes at the union of its channels' times (linear: exactly what glTF's LINEAR samplers give).
struct CameraAnimation {
  uint32_t index = 0;  // in the glTF's animations
  std::string name;    // "" where the glTF gives none
  CameraPath path;
  std::string unfollowed;  // why no camera path can follow it (a STEP or CUBICSPLINE sampler); "" when one can
};

}  // namespace ptbench
