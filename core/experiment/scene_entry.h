// A config's scene entry: the scene, the camera (fixed or along a path) and the light and
// material changes the entry makes; how the runner applies them to the loaded scene. Parsed by
// config.cpp (docs/config.md, "Scenes").
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/scene/builtin_scenes.h"
#include "core/scene/camera.h"

namespace ptbench {

// A camera that moves (a scene entry's camera.path, docs/config.md): keyframes, or a glTF
// animation of the scene's camera node; a run renders `frames` frames of it, frame k at time k / fps.
struct CameraPathSpec {
  struct Keyframe {
    double time = 0;  // seconds
    Vec3 position;
    std::optional<Vec3> target, up;  // a view towards target, or
    std::optional<Quat> rotation;    // glTF's camera frame (looking down -Z) rotated
    // What a keyframe leaves out is the entry's fixed camera's (fov, aperture; the focus: the target's distance).
    std::optional<float> fovDegrees, aperture, focusDistance;
  };
  std::vector<Keyframe> keyframes;
  std::optional<uint32_t> animationIndex;  // or
  std::optional<std::string> animationName;
  PathInterpolation interpolation = PathInterpolation::CatmullRom;
  double fps = 30;
  uint32_t frames = 0;
};

// The most frames a camera path may have a run render.
constexpr uint32_t maxPathFrames = 100000;

struct SceneEntry {
  std::string spec;  // as written: a path or builtin:...
  std::string load;  // what loadScene takes: the resolved path, or the builtin spec
  std::optional<Vec3> cameraPosition, cameraTarget, cameraUp;
  std::optional<float> fovDegrees;
  std::optional<float> aperture, focusDistance;  // a thin lens (Camera::aperture)
  std::optional<Vec3> environment;
  // A directional light added to the scene: the direction its light travels, and the
  // irradiance it delivers head-on (glTF's directional light, lux).
  std::optional<Vec3> sunDirection, sunIrradiance;
  // An environment map (env as an object): the Radiance file, resolved, its scale and rotation.
  struct EnvironmentFile {
    std::filesystem::path file;
    float intensity = 1;
    float rotationDegrees = 0;
    bool uniformSampling = false;  // EnvironmentMap::uniformSampling
  };
  std::optional<EnvironmentFile> environmentMap;
  // Materials made car paint: an index or a glob on their names (applyCarPaintOverride), and
  // the paint's noise octaves.
  struct MaterialOverride {
    std::string match;
    uint32_t cost = defaultCarPaintCost;
  };
  std::optional<MaterialOverride> materialOverride;
  std::optional<CameraPathSpec> cameraPath;
  // A converged image of this scene (ptbench reference): its runs report their error against it.
  // With a camera path, the name its frames' references carry their index in
  // (frameReferencePath): each frame's error is against its own.
  std::optional<std::filesystem::path> reference;
};

// The scene's own (or framing) camera with the entry's overrides applied.
Camera cameraFor(const SceneEntry& entry, const SceneData& scene);

// The camera of each frame of the entry's path, frame k at time k / fps; none when its camera
// is fixed. A UserError names a glTF animation the scene lacks.
std::vector<Camera> cameraPathFrames(const SceneEntry& entry, const SceneData& scene);

// The entry's camera path in a few words, for reports, labels and run keys: the animation or the
// number of keyframes, the frames, fps and interpolation, and a short hash of the keyframes that
// tells two paths of the same counts apart ("3 keyframes 3f1a9c0e, 25 frames at 12 fps,
// catmull-rom"); empty for a fixed camera.
std::string cameraPathText(const SceneEntry& entry);

// What the entry changes in the scene: its sun, appended to the scene's punctual lights, its
// environment map, loaded (a UserError names a file that cannot be read), and its material
// override (a UserError when it matches no material).
void applySceneEntry(const SceneEntry& entry, SceneData& scene);

// Why the entry's scene, its entry applied, renders black: nothing in it emits light (no emissive
// material, no punctual or sun light, no environment); empty where something does. Many glTF
// files are made to be lit by their viewer and carry no light of their own.
std::string unlitSceneWarning(const SceneEntry& entry, const SceneData& scene);

}  // namespace ptbench
