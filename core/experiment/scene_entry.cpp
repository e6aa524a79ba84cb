#include "core/experiment/scene_entry.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/errors.h"
#include "core/scene/environment_map.h"

namespace ptbench {

std::string unlitSceneWarning(const SceneEntry& entry, const SceneData& scene) {
  const bool environment =
      scene.environmentMap || (entry.environment && (entry.environment->x > 0 || entry.environment->y > 0 ||
                                                     entry.environment->z > 0));
  if (!scene.emissiveTriangles.empty() || !scene.punctualLights.empty() || environment) return "";
  return entry.spec +
         ": nothing in it emits light (no emissive material, no punctual or sun light, no environment), so its "
         "images are black; light it with an environment (a scene entry's \"env\": [1, 1, 1], or render --env "
         "1,1,1) or a sun";
}

std::string cameraPathText(const SceneEntry& entry) {
  if (!entry.cameraPath) return "";
  const CameraPathSpec& path = *entry.cameraPath;
  std::string what;
  if (path.animationName)
    what = "animation " + *path.animationName;
  else if (path.animationIndex)
    what = "animation " + std::to_string(*path.animationIndex);
  else {
    // FNV-1a over the keyframes' numbers as written: equal paths hash alike in every report.
    uint32_t hash = 2166136261u;
    auto mix = [&](double value) {
      const std::string text = fmt::format("{}", value);
      for (char c : text) hash = (hash ^ uint8_t(c)) * 16777619u;
      hash = (hash ^ uint8_t(',')) * 16777619u;
    };
    for (const CameraPathSpec::Keyframe& key : path.keyframes) {
      mix(key.time);
      for (float v : {key.position.x, key.position.y, key.position.z}) mix(v);
      if (key.target) for (float v : {key.target->x, key.target->y, key.target->z}) mix(v);
      if (key.up) for (float v : {key.up->x, key.up->y, key.up->z}) mix(v);
      if (key.rotation) for (float v : {key.rotation->x, key.rotation->y, key.rotation->z, key.rotation->w}) mix(v);
      for (const auto& optional : {key.fovDegrees, key.aperture, key.focusDistance}) mix(optional ? *optional : -1.0);
    }
    what = fmt::format("{} keyframes {:08x}", path.keyframes.size(), hash);
  }
  return fmt::format("{}, {} frames at {:g} fps, {}", what, path.frames, path.fps,
                     path.interpolation == PathInterpolation::Linear ? "linear" : "catmull-rom");
}

void applySceneEntry(const SceneEntry& entry, SceneData& scene) {
  if (const auto& map = entry.environmentMap) {
    scene.environmentMap = loadEnvironmentMap(map->file, map->intensity, map->rotationDegrees);
    scene.environmentMap->uniformSampling = map->uniformSampling;
  }
  if (const auto& paint = entry.materialOverride) applyCarPaintOverride(scene, paint->match, paint->cost);
  if (!entry.sunDirection || !entry.sunIrradiance) return;
  gpu::PunctualLight sun{};
  sun.type = gpu::LIGHT_DIRECTIONAL;
  sun.direction = toGpu(normalize(*entry.sunDirection));
  sun.intensity = toGpu(*entry.sunIrradiance);
  scene.punctualLights.push_back(sun);
}

Camera cameraFor(const SceneEntry& entry, const SceneData& scene) {
  Camera camera = scene.defaultCamera();
  if (entry.cameraPosition) camera.position = *entry.cameraPosition;
  if (entry.cameraTarget) camera.target = *entry.cameraTarget;
  if (entry.cameraUp) camera.up = *entry.cameraUp;
  if (entry.fovDegrees) camera.yfovDegrees = *entry.fovDegrees;
  if (entry.aperture) camera.aperture = *entry.aperture;
  if (entry.focusDistance) camera.focusDistance = *entry.focusDistance;
  // Overrides can meet the scene's camera halfway: checked once they are combined.
  if (camera.position == camera.target)
    throw UserError(entry.spec + ": the camera's target equals its position (" + std::to_string(camera.position.x) +
                    ", " + std::to_string(camera.position.y) + ", " + std::to_string(camera.position.z) +
                    "): it would look nowhere; move one of them");
  return camera;
}

std::vector<Camera> cameraPathFrames(const SceneEntry& entry, const SceneData& scene) {
  if (!entry.cameraPath) return {};
  const CameraPathSpec& spec = *entry.cameraPath;
  if (spec.animationIndex || spec.animationName) {
    const auto found = std::find_if(scene.cameraAnimations.begin(), scene.cameraAnimations.end(), [&](const auto& a) {
      return spec.animationIndex ? a.index == *spec.animationIndex : a.name == *spec.animationName;
    });
    if (found != scene.cameraAnimations.end() && !found->unfollowed.empty())
      throw UserError(entry.spec + ": camera.path.animation: " + found->unfollowed);
    if (found != scene.cameraAnimations.end()) return pathCameras(found->path, spec.frames, spec.fps);
    std::string have;
    for (const CameraAnimation& animation : scene.cameraAnimations)
      have += (have.empty() ? "" : ", ") + std::to_string(animation.index) +
              (animation.name.empty() ? "" : " (" + animation.name + ")");
    throw UserError(entry.spec + ": camera.path.animation " +
                    (spec.animationIndex ? std::to_string(*spec.animationIndex) : "\"" + *spec.animationName + "\"") +
                    ": " +
                    (have.empty() ? std::string("the scene has no animation that moves its camera's node")
                                  : "the animations that move the scene's camera are " + have));
  }
  // What keyframes leave out is the fixed camera's: the scene's, with the entry's fov, lens and up.
  const Camera fixed = cameraFor(entry, scene);
  CameraPath path{.interpolation = spec.interpolation};
  for (const CameraPathSpec::Keyframe& key : spec.keyframes) {
    CameraKeyframe keyframe{.time = key.time,
                            .position = key.position,
                            .yfovDegrees = key.fovDegrees.value_or(fixed.yfovDegrees),
                            .aperture = key.aperture.value_or(fixed.aperture)};
    const float fixedFocus = entry.focusDistance.value_or(0);
    if (key.target) {
      const Vec3 view = *key.target - key.position;
      keyframe.orientation = lookRotation(view, key.up.value_or(fixed.up));
      keyframe.focusDistance = key.focusDistance.value_or(fixedFocus > 0 ? fixedFocus : length(view));
    } else {
      keyframe.orientation = *key.rotation;
      keyframe.focusDistance = key.focusDistance.value_or(fixedFocus > 0 ? fixedFocus : 1.0f);
    }
    path.keyframes.push_back(keyframe);
  }
  return pathCameras(path, spec.frames, spec.fps);
}

}  // namespace ptbench
