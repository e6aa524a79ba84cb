#include "core/experiment/config.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <regex>
#include <set>
#include <sstream>

#include "core/errors.h"
#include "core/experiment/image_output.h"
#include "core/experiment/sweep.h"
#include "core/input_file.h"
#include "core/integrators/options.h"
#include "core/integrators/registry.h"
#include "core/number_range.h"
#include "core/scene/builtin_scenes.h"

namespace ptbench {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// The ranges of the config's own numbers (exposureRange and the scene entry's in number_range.h).
constexpr NumberRange warmupSecondsRange{0, 600};
constexpr NumberRange maxNoiseRange{0, 1, true};
constexpr NumberRange runTimeoutRange{0, 86400, true};
constexpr NumberRange targetRelmseRange{0, 1, true};
constexpr NumberRange keyframeTimeRange{0, 1e9};
constexpr NumberRange pathFpsRange{0, 1000, true};

const std::set<std::string> topLevelKeys = {
    "$schema",     "schema_version", "name",      "description", "output",     "device",    "scenes",
    "integrators", "backends",       "width",     "height",      "spp",        "max_depth", "rr_depth",
    "seed",        "sampler",        "exposure",  "images",      "flip_every", "options",   "warmup",
    "repeats",     "min_samples",    "max_noise", "timeout",     "max_runs",   "counters",  "target_relmse",
    "resolution",  "warmup_seconds", "timing"};

// Collects every problem in a config before any is reported.
class Validator {
 public:
  explicit Validator(const fs::path& file) : file_(file) {}

  void error(const std::string& pointer, const std::string& message) {
    errors_.push_back(file_.string() + ": " + (pointer.empty() ? "/" : pointer) + ": " + message);
  }
  bool ok() const { return errors_.empty(); }
  [[noreturn]] void raise() const {
    std::string message = std::to_string(errors_.size()) + " problem(s) in the config:";
    for (const auto& e : errors_) message += "\n  " + e;
    throw UserError(message, exitConfigInvalid);
  }

  static std::string describe(const json& value) {
    std::string text = value.dump();
    return text.size() > 60 ? text.substr(0, 57) + "..." : text;
  }

  // An integer or a list of integers (a sweep axis), each within [lowest, highest].
  std::vector<uint32_t> integers(const json& config, const std::string& key, uint32_t lowest, uint32_t highest,
                                 uint32_t fallback) {
    if (!config.contains(key)) return {fallback};
    const json& value = config[key];
    const std::string pointer = "/" + key;
    auto one = [&](const json& v, const std::string& at) -> std::optional<uint32_t> {
      if (!v.is_number_integer() || v.get<int64_t>() < lowest || v.get<int64_t>() > highest) {
        error(at, "expected an integer from " + std::to_string(lowest) + " to " + std::to_string(highest) + ", got " +
                      describe(v));
        return std::nullopt;
      }
      return uint32_t(v.get<int64_t>());
    };
    std::vector<uint32_t> result;
    if (value.is_array()) {
      if (value.empty()) error(pointer, "expected a non-empty list");
      for (size_t i = 0; i < value.size(); ++i)
        if (auto v = one(value[i], pointer + "/" + std::to_string(i))) result.push_back(*v);
    } else if (auto v = one(value, pointer)) {
      result.push_back(*v);
    }
    return result;
  }

  // One integer within [lowest, highest]; not a list (the key is no sweep axis).
  uint32_t integer(const json& config, const std::string& key, uint32_t lowest, uint32_t highest, uint32_t fallback) {
    if (!config.contains(key)) return fallback;
    const json& value = config[key];
    if (!value.is_number_integer() || value.get<int64_t>() < lowest || value.get<int64_t>() > highest) {
      error("/" + key, "expected one integer from " + std::to_string(lowest) + " to " + std::to_string(highest) +
                           " (not a list: it is no sweep axis), got " + describe(value));
      return fallback;
    }
    return uint32_t(value.get<int64_t>());
  }

  // A string or list of strings, each one of `accepted` (or any, when accepted is empty).
  std::vector<std::string> strings(const json& config, const std::string& key, const std::vector<std::string>& accepted,
                                   std::vector<std::string> fallback) {
    if (!config.contains(key)) return fallback;
    const json& value = config[key];
    const std::string pointer = "/" + key;
    std::string acceptedText;
    for (const auto& a : accepted) acceptedText += (acceptedText.empty() ? "" : ", ") + a;
    std::vector<std::string> result;
    auto one = [&](const json& v, const std::string& at) {
      if (!v.is_string()) return error(at, "expected one of " + acceptedText + ", got " + describe(v));
      if (std::find(accepted.begin(), accepted.end(), v.get<std::string>()) == accepted.end())
        return error(at, "unknown value " + describe(v) + "; accepted: " + acceptedText);
      result.push_back(v.get<std::string>());
    };
    if (value.is_array()) {
      if (value.empty()) error(pointer, "expected a non-empty list");
      for (size_t i = 0; i < value.size(); ++i) one(value[i], pointer + "/" + std::to_string(i));
    } else {
      one(value, pointer);
    }
    return result;
  }

  // One number within `range`, `what` saying what it measures. JSON has no NaN or infinity,
  // but a double beyond a float's range would become one's infinity: ranges keep below that.
  std::optional<double> number(const json& value, const std::string& pointer, const NumberRange& range,
                               const std::string& what) {
    if (!value.is_number() || !range.contains(value.get<double>())) {
      error(pointer, "expected " + what + ", " + range.text() + ", got " + describe(value));
      return std::nullopt;
    }
    return value.get<double>();
  }

  // Three numbers a float holds (finite, within float range); with nonNegative, none below 0.
  std::optional<Vec3> vec3(const json& value, const std::string& pointer, bool nonNegative = false) {
    const double largest = std::numeric_limits<float>::max();
    const NumberRange range{nonNegative ? 0 : -largest, largest};
    auto fits = [&](const json& v) { return v.is_number() && range.contains(v.get<double>()); };
    if (!value.is_array() || value.size() != 3 || !std::all_of(value.begin(), value.end(), fits)) {
      error(pointer, std::string("expected three ") + (nonNegative ? "non-negative " : "") +
                         "numbers [x, y, z] within float range, got " + describe(value));
      return std::nullopt;
    }
    return Vec3{value[0].get<float>(), value[1].get<float>(), value[2].get<float>()};
  }

  void unknownKeys(const json& object, const std::set<std::string>& known, const std::string& pointer) {
    for (const auto& [key, value] : object.items())
      if (!known.count(key)) {
        std::string list;
        for (const auto& k : known)
          if (k[0] != '$') list += (list.empty() ? "" : ", ") + k;
        error(pointer + "/" + key, "unknown key; accepted here: " + list);
      }
  }

 private:
  fs::path file_;
  std::vector<std::string> errors_;
};

// A path relative to the config file's folder, else to the current folder. A path the file
// system cannot even look up (too long, say) is as missing as one it cannot find.
std::optional<fs::path> resolvePath(const fs::path& configFile, const std::string& path) {
  const auto exists = [](const fs::path& candidate) {
    std::error_code error;
    return fs::exists(candidate, error) && !error;
  };
  const fs::path candidate(path);
  if (candidate.is_absolute()) return exists(candidate) ? std::optional(candidate) : std::nullopt;
  const fs::path besideConfig = configFile.parent_path() / candidate;
  if (exists(besideConfig)) return besideConfig;
  if (exists(candidate)) return candidate;
  return std::nullopt;
}

void applyOverride(json& config, const std::string& assignment) {
  const size_t equals = assignment.find('=');
  if (equals == std::string::npos || equals == 0)
    throw UserError("--set " + assignment + ": expected key=value (value as JSON, or a bare string)",
                    exitConfigInvalid);
  const std::string key = assignment.substr(0, equals);
  const std::string text = assignment.substr(equals + 1);
  // The value as JSON (8, [1, 2], true), else as a bare string (pool); one that starts as JSON
  // would ([, {, ") but does not parse is a mistake, not a string.
  if (!json::accept(text) && !text.empty() && (text.front() == '[' || text.front() == '{' || text.front() == '"')) {
    std::string reason;
    try {
      const json ignored = json::parse(text);
    } catch (const json::exception& error) {
      reason = error.what();
    }
    throw UserError("--set " + assignment + ": the value starts as JSON but is not valid JSON (" + reason +
                        "); give JSON, such as " + key + "=[\"a\", \"b\"] or " + key +
                        "=\"text\" (quoted for the shell), or a "
                        "bare word",
                    exitConfigInvalid);
  }
  json value =
      json::accept(text) ? parseJsonRefusingDuplicateKeys(text, "--set " + key, exitConfigInvalid) : json(text);
  std::stringstream parts(key);
  std::string part;
  std::vector<std::string> path;
  while (std::getline(parts, part, '.')) path.push_back(part);
  const auto refuse = [&](const std::string& why) {
    throw UserError("--set " + assignment + ": " + why, exitConfigInvalid);
  };
  // The key, part by part: a number picks an element of a list that is there (scenes.0); a name
  // picks a member of an object, made where there is none (a member that holds something else,
  // such as the [1, 1, 1] of env under scenes.0.env.file, is replaced). An element is never
  // replaced: one that is not what the rest of the key needs is refused.
  json* target = &config;
  std::string reached;   // the dotted key of *target
  bool element = false;  // *target is a list's element
  for (size_t i = 0; i < path.size(); ++i) {
    const std::string& name = path[i];
    const std::string where = reached.empty() ? "the config" : reached;
    if (!name.empty() && std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      if (target->is_null()) refuse(where + " is not in the config: there is no list to index with " + name);
      if (!target->is_array())
        refuse(where + " is " + (target->is_object() ? "an object" : Validator::describe(*target)) +
               ", not a list to index with " + name);
      size_t index = 0;
      if (std::from_chars(name.data(), name.data() + name.size(), index).ec != std::errc() || index >= target->size())
        refuse(where + " has no element " + name +
               (target->empty() ? ": it is an empty list"
                                : ": its elements are 0 to " + std::to_string(target->size() - 1)));
      target = &(*target)[index];
      element = true;
    } else {
      if (!target->is_object()) {
        // A scene given as its path alone stands for {"path": ...}: scenes.0.env gives it an env.
        if (element && i == 2 && path[0] == "scenes" && target->is_string())
          *target = json{{"path", *target}};
        else if (element)
          refuse(where + " is " + Validator::describe(*target) + ", not an object to set " + name + " in");
        else
          *target = json::object();
      }
      target = &(*target)[name];
      element = false;
    }
    reached += (reached.empty() ? "" : ".") + name;
  }
  *target = value;
}

// One keyframe of a camera path; `previousTime`, the last valid keyframe's, for the order check.
std::optional<CameraPathSpec::Keyframe> readKeyframe(Validator& v, const json& key, const std::string& at,
                                                     std::optional<double> previousTime) {
  if (!key.is_object()) {
    v.error(at, "expected a keyframe: an object with time, position and target (or rotation), got " +
                    Validator::describe(key));
    return std::nullopt;
  }
  v.unknownKeys(key, {"time", "position", "target", "rotation", "up", "fov", "aperture", "focus_distance"}, at);
  CameraPathSpec::Keyframe keyframe;
  bool ok = true;
  if (!key.contains("time")) {
    v.error(at + "/time", "required: the keyframe's time in seconds (frame k of the path is at k / fps)");
    ok = false;
  } else if (const auto time = v.number(key["time"], at + "/time", keyframeTimeRange, "a time in seconds")) {
    keyframe.time = *time;
    if (previousTime && *time <= *previousTime) {
      v.error(at + "/time", "keyframe times must increase strictly: " + Validator::describe(key["time"]) + " follows " +
                                fmt::format("{:g}", *previousTime));
      ok = false;
    }
  } else {
    ok = false;
  }
  if (!key.contains("position")) {
    v.error(at + "/position", "required: where the camera is, [x, y, z]");
    ok = false;
  } else if (const auto position = v.vec3(key["position"], at + "/position")) {
    keyframe.position = *position;
  } else {
    ok = false;
  }
  if (key.contains("target") == key.contains("rotation")) {
    v.error(at,
            "expected either target (a point to look at) or rotation (a unit quaternion [x, y, z, w] turning "
            "glTF's camera, which looks down -Z, +Y up)");
    ok = false;
  }
  if (key.contains("target")) {
    keyframe.target = v.vec3(key["target"], at + "/target");
    if (!keyframe.target)
      ok = false;
    else if (key.contains("position") && *keyframe.target == keyframe.position) {
      v.error(at + "/target", "the keyframe's target equals its position: it would look nowhere");
      ok = false;
    }
  }
  if (key.contains("rotation")) {
    const json& rotation = key["rotation"];
    const auto finite = [](const json& x) { return x.is_number() && std::isfinite(x.get<double>()); };
    double norm = 0;
    if (rotation.is_array() && rotation.size() == 4 && std::all_of(rotation.begin(), rotation.end(), finite))
      for (const json& x : rotation) norm += x.get<double>() * x.get<double>();
    norm = std::sqrt(norm);
    if (!(norm > 1e-6 && std::isfinite(norm))) {
      v.error(at + "/rotation",
              "expected a quaternion [x, y, z, w] of finite numbers, not zero, got " + Validator::describe(rotation));
      ok = false;
    } else {
      keyframe.rotation = Quat{float(rotation[0].get<double>() / norm), float(rotation[1].get<double>() / norm),
                               float(rotation[2].get<double>() / norm), float(rotation[3].get<double>() / norm)};
    }
    if (key.contains("up")) {
      v.error(at + "/up", "up orients a view towards a target; a rotation gives the whole orientation");
      ok = false;
    }
  }
  if (key.contains("up")) {
    keyframe.up = v.vec3(key["up"], at + "/up");
    if (keyframe.up && length(*keyframe.up) == 0) {
      v.error(at + "/up", "the up vector is the zero vector");
      ok = false;
    }
  }
  if (key.contains("fov")) {
    if (const auto fov = v.number(key["fov"], at + "/fov", fovRange, "a vertical field of view in degrees"))
      keyframe.fovDegrees = float(*fov);
    else
      ok = false;
  }
  for (const auto& [name, field] :
       {std::pair{"aperture", &keyframe.aperture}, std::pair{"focus_distance", &keyframe.focusDistance}}) {
    if (!key.contains(name)) continue;
    if (const auto value = v.number(key[name], at + "/" + name, lensLengthRange, "a length in scene units"))
      *field = float(*value);
    else
      ok = false;
  }
  if (!ok) return std::nullopt;
  return keyframe;
}

// A scene entry's camera.path: an object, or the name of a JSON file holding one (resolved as
// the config's other files are).
std::optional<CameraPathSpec> readCameraPath(Validator& v, const json& path, const std::string& at,
                                             const fs::path& file) {
  if (path.is_string()) {
    const auto resolved = resolvePath(file, path.get<std::string>());
    if (!resolved) {
      v.error(at, "camera path file " + path.get<std::string>() +
                      " not found (relative paths resolve from the config's folder, then the current folder)");
      return std::nullopt;
    }
    json inner;
    try {
      inner = parseJsonRefusingDuplicateKeys(readInput(*resolved, "a camera path file", exitConfigMissing),
                                             resolved->string(), exitConfigInvalid);
    } catch (const UserError& error) {
      v.error(at, error.what());
      return std::nullopt;
    }
    if (inner.is_string()) {
      v.error(at, resolved->string() + " holds a file name; a camera path file holds the path's object");
      return std::nullopt;
    }
    return readCameraPath(v, inner, at + " in " + resolved->string(), file);
  }
  if (!path.is_object()) {
    v.error(at,
            "expected a camera path: an object with keyframes (or animation) and frames, or a JSON file "
            "holding one, got " +
                Validator::describe(path));
    return std::nullopt;
  }
  v.unknownKeys(path, {"keyframes", "animation", "interpolation", "fps", "frames"}, at);
  CameraPathSpec spec;
  const bool keyed = path.contains("keyframes"), animated = path.contains("animation");
  if (keyed == animated)
    v.error(at,
            "expected either keyframes (a list) or animation (a glTF animation of the scene's camera node, by "
            "index or name)");
  if (!path.contains("frames"))
    v.error(at + "/frames", "required: how many frames a run renders of the path (frame k at time k / fps)");
  else if (!path["frames"].is_number_integer() || path["frames"].get<int64_t>() < 1 ||
           path["frames"].get<int64_t>() > int64_t(maxPathFrames))
    v.error(at + "/frames", "expected an integer from 1 to " + std::to_string(maxPathFrames) + ", got " +
                                Validator::describe(path["frames"]));
  else
    spec.frames = uint32_t(path["frames"].get<int64_t>());
  if (path.contains("fps"))
    if (const auto fps = v.number(path["fps"], at + "/fps", pathFpsRange, "frames per second of path time"))
      spec.fps = *fps;
  if (path.contains("interpolation")) {
    if (animated)
      v.error(at + "/interpolation", "a glTF animation is interpolated as its samplers say (LINEAR); leave it out");
    else if (path["interpolation"] == "linear")
      spec.interpolation = PathInterpolation::Linear;
    else if (path["interpolation"] != "catmull-rom")
      v.error(at + "/interpolation",
              "expected catmull-rom (the default) or linear, got " + Validator::describe(path["interpolation"]));
  }
  if (animated) {
    // The loader samples a camera animation's LINEAR channels so: reports say what the frames had.
    spec.interpolation = PathInterpolation::Linear;
    const json& animation = path["animation"];
    if (animation.is_number_unsigned() && animation.get<uint64_t>() <= UINT32_MAX)
      spec.animationIndex = uint32_t(animation.get<uint64_t>());
    else if (animation.is_string() && !animation.get<std::string>().empty())
      spec.animationName = animation.get<std::string>();
    else
      v.error(at + "/animation", "expected a glTF animation's index or name, got " + Validator::describe(animation));
  }
  if (keyed) {
    const json& keys = path["keyframes"];
    if (!keys.is_array() || keys.size() < 2) {
      v.error(at + "/keyframes",
              "expected a list of at least two keyframes (a camera that stays put takes position and target "
              "instead of a path), got " +
                  Validator::describe(keys));
    } else {
      std::optional<double> previousTime;
      for (size_t i = 0; i < keys.size(); ++i) {
        const auto keyframe = readKeyframe(v, keys[i], at + "/keyframes/" + std::to_string(i), previousTime);
        if (keys[i].is_object() && keys[i].contains("time") && keys[i]["time"].is_number())
          previousTime = std::max(previousTime.value_or(-1), keys[i]["time"].get<double>());
        if (keyframe) spec.keyframes.push_back(*keyframe);
      }
    }
  }
  return spec;
}

void readScenes(Validator& v, const json& config, const fs::path& file, ExperimentConfig& out) {
  if (!config.contains("scenes")) return v.error("/scenes", "required: a list of scene paths or objects");
  json scenes = config["scenes"];
  if (!scenes.is_array()) scenes = json::array({scenes});
  if (scenes.empty()) v.error("/scenes", "expected at least one scene");
  for (size_t i = 0; i < scenes.size(); ++i) {
    const std::string pointer = "/scenes/" + std::to_string(i);
    const json& entry = scenes[i];
    SceneEntry scene;
    json path;
    if (entry.is_string()) {
      path = entry;
    } else if (entry.is_object()) {
      v.unknownKeys(entry, {"path", "camera", "env", "sun", "material_override", "reference"}, pointer);
      if (!entry.contains("path")) v.error(pointer + "/path", "required: the scene's path or builtin: name");
      path = entry.value("path", json());
      if (entry.contains("env")) {
        const json& env = entry["env"];
        const std::string at = pointer + "/env";
        if (env.is_object()) {
          v.unknownKeys(env, {"file", "intensity", "rotation_deg", "sampling"}, at);
          SceneEntry::EnvironmentFile map;
          if (!env.contains("file") || !env["file"].is_string()) {
            v.error(at + "/file", "required: the environment map, a Radiance .hdr file");
          } else if (const auto resolved = resolvePath(file, env["file"].get<std::string>())) {
            map.file = *resolved;
            // Read now (a bounded decode, a second or less), so that `validate` refuses a
            // truncated or corrupt map as `run` would, before any GPU work.
            try {
              (void)loadEnvironmentMap(map.file);
            } catch (const UserError& error) {
              v.error(at + "/file", error.what());
            }
          } else {
            v.error(at + "/file", "environment map " + env["file"].get<std::string>() +
                                      " not found (relative paths resolve from the config's folder, then the "
                                      "current folder)");
          }
          if (env.contains("intensity"))
            if (const auto intensity = v.number(env["intensity"], at + "/intensity", environmentIntensityRange,
                                                "a non-negative scale of the map's radiance"))
              map.intensity = float(*intensity);
          if (env.contains("rotation_deg"))
            if (const auto rotation =
                    v.number(env["rotation_deg"], at + "/rotation_deg", environmentRotationRange, "degrees about +Y"))
              map.rotationDegrees = float(*rotation);
          if (env.contains("sampling")) {
            if (env["sampling"] != "importance" && env["sampling"] != "uniform")
              v.error(at + "/sampling", "expected importance (by the map's luminance, the default) or uniform");
            else
              map.uniformSampling = env["sampling"] == "uniform";
          }
          scene.environmentMap = map;
        } else {
          scene.environment = v.vec3(env, at, true);
        }
      }
      if (entry.contains("material_override")) {
        const json& paint = entry["material_override"];
        const std::string at = pointer + "/material_override";
        if (!paint.is_object() || !paint.contains("match") ||
            !(paint["match"].is_string() || paint["match"].is_number_unsigned())) {
          v.error(at,
                  "expected an object with match (a material index, or a glob on material names) and cost "
                  "(the car paint's noise octaves, 0 to " +
                      std::to_string(gpu::CAR_PAINT_MAX_OCTAVES) + ")");
        } else {
          v.unknownKeys(paint, {"match", "model", "cost"}, at);
          SceneEntry::MaterialOverride materialOverride;
          materialOverride.match = paint["match"].is_string() ? paint["match"].get<std::string>()
                                                              : std::to_string(paint["match"].get<uint64_t>());
          if (paint.contains("model") && paint["model"] != "car_paint")
            v.error(at + "/model", "the one model materials can be made is car_paint");
          if (paint.contains("cost")) {
            if (!paint["cost"].is_number_unsigned() || paint["cost"].get<uint64_t>() > gpu::CAR_PAINT_MAX_OCTAVES)
              v.error(at + "/cost", "expected the car paint's noise octaves, an integer from 0 to " +
                                        std::to_string(gpu::CAR_PAINT_MAX_OCTAVES));
            else
              materialOverride.cost = paint["cost"].get<uint32_t>();
          }
          scene.materialOverride = materialOverride;
        }
      }
      if (entry.contains("sun")) {
        const json& sun = entry["sun"];
        const std::string at = pointer + "/sun";
        if (!sun.is_object() || !sun.contains("direction") || !sun.contains("irradiance")) {
          v.error(at, "expected an object with direction [x, y, z] (where the light travels) and irradiance [r, g, b]");
        } else {
          v.unknownKeys(sun, {"direction", "irradiance"}, at);
          scene.sunDirection = v.vec3(sun["direction"], at + "/direction");
          scene.sunIrradiance = v.vec3(sun["irradiance"], at + "/irradiance", true);
          if (scene.sunDirection) {
            // In double: float components may square to 0 or overflow to infinity.
            const double x = sun["direction"][0], y = sun["direction"][1], z = sun["direction"][2];
            const double norm = std::sqrt(x * x + y * y + z * z);
            if (norm == 0)
              v.error(at + "/direction", "the direction is the zero vector: it points nowhere");
            else
              scene.sunDirection = Vec3{float(x / norm), float(y / norm), float(z / norm)};
          }
        }
      }
      if (entry.contains("camera")) {
        const json& camera = entry["camera"];
        const std::string at = pointer + "/camera";
        if (!camera.is_object()) {
          v.error(at, "expected an object with position, target, up, fov");
        } else {
          v.unknownKeys(camera, {"position", "target", "up", "fov", "aperture", "focus_distance", "path"}, at);
          if (camera.contains("path")) {
            scene.cameraPath = readCameraPath(v, camera["path"], at + "/path", file);
            for (const char* key : {"position", "target"})
              if (camera.contains(key))
                v.error(at + "/" + key, std::string("a camera path's keyframes place the camera; ") + key +
                                            " beside path has no meaning (fov, aperture, focus_distance and up "
                                            "beside it are what keyframes leave out)");
            // A glTF animation moves the scene's own camera, whose lens the file gives.
            if (scene.cameraPath && (scene.cameraPath->animationIndex || scene.cameraPath->animationName))
              for (const char* key : {"up", "fov", "aperture", "focus_distance"})
                if (camera.contains(key))
                  v.error(at + "/" + key, std::string("a camera path from a glTF animation keeps the scene "
                                                      "camera's own lens and orientation; ") +
                                              key + " beside it would be ignored (give keyframes instead)");
          }
          for (const auto& [key, field] :
               {std::pair{"aperture", &scene.aperture}, std::pair{"focus_distance", &scene.focusDistance}}) {
            if (!camera.contains(key)) continue;
            if (const auto length =
                    v.number(camera[key], at + "/" + key, lensLengthRange,
                             std::string("a length in scene units") + (std::string(key) == "aperture"
                                                                           ? " (the lens's diameter; 0: a pinhole)"
                                                                           : " (0: the target's distance)")))
              *field = float(*length);
          }
          if (camera.contains("position")) scene.cameraPosition = v.vec3(camera["position"], at + "/position");
          if (camera.contains("target")) scene.cameraTarget = v.vec3(camera["target"], at + "/target");
          if (camera.contains("up")) scene.cameraUp = v.vec3(camera["up"], at + "/up");
          if (scene.cameraPosition && scene.cameraTarget && *scene.cameraPosition == *scene.cameraTarget)
            v.error(at + "/target", "the camera's target equals its position: it would look nowhere");
          if (camera.contains("fov"))
            if (const auto fov = v.number(camera["fov"], at + "/fov", fovRange, "a vertical field of view in degrees"))
              scene.fovDegrees = float(*fov);
        }
      }
      if (entry.contains("reference")) {
        const json& reference = entry["reference"];
        const std::string text = reference.is_string() ? reference.get<std::string>() : "";
        const std::string extension = fs::path(text).extension().string();
        const uint32_t frames = scene.cameraPath ? scene.cameraPath->frames : 0;
        if (extension != ".exr" && extension != ".pfm") {
          v.error(pointer + "/reference",
                  "expected a reference image, .exr or .pfm (ptbench reference renders one), got " +
                      Validator::describe(reference));
        } else if (frames == 0) {
          if (const auto resolved = resolvePath(file, text))
            scene.reference = *resolved;
          else
            v.error(pointer + "/reference", "reference image " + text +
                                                " not found (relative paths resolve from the config's folder, then "
                                                "the current folder)");
        } else if (const auto first = resolvePath(file, frameImagePath(text, 0).string())) {
          // A path's references: one a frame, found where its first is.
          scene.reference = first->parent_path() / fs::path(text).filename();
          std::vector<std::string> missing;
          for (uint32_t frame = 1; frame < frames; ++frame)
            if (std::error_code error; !fs::exists(frameImagePath(*scene.reference, frame), error))
              missing.push_back(frameImagePath(*scene.reference, frame).filename().string());
          if (!missing.empty())
            v.error(pointer + "/reference",
                    "the camera path's " + std::to_string(frames) + " frames need " + std::to_string(frames) +
                        " references; " + std::to_string(missing.size()) + " are missing, the first " +
                        missing.front() + " (ptbench reference --camera-path renders them all)");
        } else {
          v.error(pointer + "/reference",
                  "reference image " + frameImagePath(text, 0).string() +
                      " for the camera path's first frame not found (a path's frames " +
                      "each have a reference, named " + frameImagePath(fs::path(text).filename(), 0).string() +
                      ", ...; ptbench reference --camera-path renders them; relative paths resolve from the config's "
                      "folder, then the current folder)");
        }
      }
    } else {
      v.error(pointer, "expected a scene path, builtin: name or {\"path\": ...}, got " + Validator::describe(entry));
      continue;
    }
    if (!path.is_string()) {
      if (!path.is_null()) v.error(pointer + "/path", "expected a string");
      continue;
    }
    scene.spec = path.get<std::string>();
    if (isBuiltinScene(scene.spec)) {
      try {
        parseBuiltinScene(scene.spec);
        scene.load = scene.spec;
      } catch (const UserError& error) {
        v.error(pointer, error.what());
      }
    } else if (const auto resolved = resolvePath(file, scene.spec)) {
      scene.load = resolved->string();
    } else {
      v.error(pointer, "scene file " + scene.spec + " not found (looked beside the config and in the current folder)");
    }
    out.scenes.push_back(scene);
  }
}

}  // namespace

CameraPathSpec readCameraPathFile(const fs::path& file) {
  Validator v(file);
  const json path = parseJsonRefusingDuplicateKeys(readInput(file, "the camera path file", exitConfigMissing),
                                                   file.string(), exitConfigInvalid);
  if (path.is_string()) v.error("", "expected a camera path object; a file name is taken only in a config");
  std::optional<CameraPathSpec> spec = path.is_string() ? std::nullopt : readCameraPath(v, path, "", file);
  if (!v.ok() || !spec) v.raise();
  return *spec;
}

const std::set<std::string>& configKeys() {
  return topLevelKeys;
}

namespace {

// Where the parser is, as a JSON pointer: one entry per open array or object.
struct JsonPath {
  struct Level {
    bool array = false;
    long index = -1;  // of the array's element being read
    std::string key;  // of the object's member being read
  };
  std::vector<Level> levels;

  // A value (scalar, array or object) begins inside the innermost open container.
  void element() {
    if (!levels.empty() && levels.back().array) ++levels.back().index;
  }

  std::string pointer() const {
    std::string text;
    for (const Level& level : levels) {
      text += '/';
      if (level.array) {
        text += std::to_string(level.index);
        continue;
      }
      for (char c : level.key) text += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
    }
    return text;
  }
};

struct TooDeep {
  std::string pointer;
};

template <typename Input>
json parseRefusingDuplicateKeys(Input&& in, const std::string& source, int exitCode) {
  // nlohmann keeps the last of two equal keys; a config that says a thing twice is a mistake.
  std::vector<std::set<std::string>> keysByDepth;
  std::string duplicate;
  JsonPath path;
  const json::parser_callback_t callback = [&](int depth, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        path.element();
        // Refused while parsing (nlohmann's parser keeps its own stack), before anything recurses.
        if (depth >= maxJsonDepth) throw TooDeep{path.pointer()};
        path.levels.push_back({.array = event == json::parse_event_t::array_start});
        if (event == json::parse_event_t::object_start) {  // a fresh set for this object's keys
          keysByDepth.resize(size_t(depth) + 1);
          keysByDepth[size_t(depth)].clear();
        }
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        path.levels.pop_back();
        break;
      case json::parse_event_t::key:
        path.levels.back().key = parsed.get<std::string>();
        if (depth >= 1 && size_t(depth) <= keysByDepth.size() &&
            !keysByDepth[size_t(depth) - 1].insert(parsed.get<std::string>()).second && duplicate.empty())
          duplicate = parsed.get<std::string>();
        break;
      case json::parse_event_t::value:
        path.element();
        break;
    }
    return true;
  };
  try {
    json value = json::parse(std::forward<Input>(in), callback, true, /*ignore_comments=*/false);
    if (!duplicate.empty())
      throw UserError(source + ": the key \"" + duplicate + "\" appears twice in one object; keep one", exitCode);
    return value;
  } catch (const TooDeep& deep) {
    throw UserError(source + ": arrays and objects nested deeper than " + std::to_string(maxJsonDepth) + " levels at " +
                        deep.pointer.substr(0, 200) + (deep.pointer.size() > 200 ? "..." : "") +
                        "; ptbench reads at most " + std::to_string(maxJsonDepth),
                    exitCode);
  } catch (const json::exception& error) {  // syntax, and numbers no double holds (1e400)
    throw UserError(source + ": not valid JSON: " + error.what(), exitCode);
  }
}

}  // namespace

json parseJsonRefusingDuplicateKeys(std::istream& in, const std::string& source, int exitCode) {
  return parseRefusingDuplicateKeys(in, source, exitCode);
}

json parseJsonRefusingDuplicateKeys(const std::string& text, const std::string& source, int exitCode) {
  return parseRefusingDuplicateKeys(text, source, exitCode);
}

ExperimentConfig loadConfig(const fs::path& file, const std::vector<std::string>& overrides) {
  json config = parseJsonRefusingDuplicateKeys(readInput(file, "a config file", exitConfigMissing), file.string(),
                                               exitConfigInvalid);
  if (!config.is_object()) throw UserError(file.string() + ": expected a JSON object at the top", exitConfigInvalid);
  // In order: a key set twice takes its last value, so that a script's settings can be
  // overridden by the arguments it passes on.
  for (const auto& assignment : overrides) applyOverride(config, assignment);
  return configFromJson(config, file);
}

ExperimentConfig configFromJson(json config, const fs::path& file) {
  Validator v(file);
  ExperimentConfig out;
  out.file = file;
  v.unknownKeys(config, topLevelKeys, "");
  if (!config.contains("schema_version"))
    v.error("/schema_version", "required: 1");
  else if (config["schema_version"] != 1)
    v.error("/schema_version",
            "this ptbench reads schema version 1, got " + Validator::describe(config["schema_version"]));
  // One path component, never "." or "..": results go to OUTPUT/NAME/STAMP and nowhere else.
  if (!config.contains("name") || !config["name"].is_string() ||
      !std::regex_match(config["name"].get<std::string>(), std::regex("[A-Za-z0-9_.-]{1,64}")) ||
      config["name"] == "." || config["name"] == "..")
    v.error("/name",
            "required: 1 to 64 letters, digits, '_', '.' or '-', other than \".\" and \"..\" (it names the results "
            "folder inside the output folder)");
  else
    out.name = config["name"];
  out.output = "results";
  if (config.contains("output")) {
    if (!config["output"].is_string() || config["output"].get<std::string>().empty())
      v.error("/output", "expected a folder path");
    else
      out.output = config["output"].get<std::string>();
  }
  if (config.contains("device")) {
    if (config["device"].is_string())
      out.device = config["device"];
    else if (config["device"].is_number_unsigned())
      out.device = std::to_string(config["device"].get<uint32_t>());
    else
      v.error("/device", "expected a device index or part of its name");
  }
  readScenes(v, config, file, out);

  std::vector<std::string> integratorNames = {"all"};
  for (IntegratorKind kind : allIntegrators) integratorNames.emplace_back(integratorName(kind));
  for (const auto& name : v.strings(config, "integrators", integratorNames, {"megakernel"})) {
    // "all": every integrator, in their order; each once however often it is named.
    const std::vector<IntegratorKind> named =
        name == "all" ? std::vector<IntegratorKind>(allIntegrators.begin(), allIntegrators.end())
                      : std::vector<IntegratorKind>{*parseIntegrator(name)};
    out.integratorsAll |= name == "all";
    for (IntegratorKind kind : named)
      if (std::find(out.integrators.begin(), out.integrators.end(), kind) == out.integrators.end())
        out.integrators.push_back(kind);
  }
  std::vector<std::string> backendChoices = {"auto", "all"};
  for (Backend backend : allBackends) backendChoices.emplace_back(backendName(backend));
  out.backends = v.strings(config, "backends", backendChoices, {"auto"});
  if (config.contains("resolution")) {
    // "WxH" strings: sizes that are not a cross product of widths and heights (720p, 1080p, 4K).
    for (const char* key : {"width", "height"})
      if (config.contains(key)) v.error(std::string("/") + key, "give either resolution or width and height");
    const json& value = config["resolution"];
    const json list = value.is_array() ? value : json::array({value});
    if (list.empty()) v.error("/resolution", "expected a non-empty list");
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string at = "/resolution" + std::string(value.is_array() ? "/" + std::to_string(i) : "");
      std::smatch match;
      const std::string text = list[i].is_string() ? list[i].get<std::string>() : "";
      if (!std::regex_match(text, match, std::regex("([0-9]{1,5})x([0-9]{1,5})")) || std::stoul(match[1]) < 1 ||
          std::stoul(match[1]) > 16384 || std::stoul(match[2]) < 1 || std::stoul(match[2]) > 16384)
        v.error(at, "expected \"WIDTHxHEIGHT\" with each from 1 to 16384, such as \"1920x1080\", got " +
                        Validator::describe(list[i]));
      else
        out.resolutions.emplace_back(uint32_t(std::stoul(match[1])), uint32_t(std::stoul(match[2])));
    }
  } else {
    // Read once each, and their product bounded before it is built: two lists of 65,536 would
    // make 2^32 resolutions before max_runs could refuse the sweep.
    const std::vector<uint32_t> widths = v.integers(config, "width", 1, 16384, 640);
    const std::vector<uint32_t> heights = v.integers(config, "height", 1, 16384, 480);
    if (uint64_t(widths.size()) * heights.size() > maxMaxRuns)
      v.error("/width", std::to_string(widths.size()) + " widths and " + std::to_string(heights.size()) +
                            " heights make more resolutions than a sweep may have runs (" + std::to_string(maxMaxRuns) +
                            "); shrink a list");
    else
      for (uint32_t width : widths)
        for (uint32_t height : heights) out.resolutions.emplace_back(width, height);
  }
  out.spps = v.integers(config, "spp", 1, 1u << 20, 16);
  out.maxDepths = v.integers(config, "max_depth", 1, 1024, 8);
  out.rrDepths = v.integers(config, "rr_depth", 1, 1024, 3);
  out.seeds = v.integers(config, "seed", 0, 0xffffffffu, 0);
  for (const auto& name : v.strings(config, "sampler", {"halton", "pcg"}, {"halton"}))
    out.samplers.push_back(name == "pcg" ? SamplerKind::Pcg : SamplerKind::Halton);
  for (const auto& name : v.strings(config, "counters", {"off", "simt", "clocks"}, {"off"})) {
    const Counters counters =
        *std::find_if(allCounters.begin(), allCounters.end(), [&](Counters c) { return countersName(c) == name; });
    if (std::find(out.counters.begin(), out.counters.end(), counters) == out.counters.end())
      out.counters.push_back(counters);
  }
  for (const auto& name : v.strings(config, "timing", {"stages", "frame"}, {"stages"}))
    if (std::find(out.stageTimestamps.begin(), out.stageTimestamps.end(), name == "stages") ==
        out.stageTimestamps.end())
      out.stageTimestamps.push_back(name == "stages");
  if (config.contains("exposure"))
    if (const auto stops = v.number(config["exposure"], "/exposure", exposureRange, "the PNG exposure in stops"))
      out.exposure = float(*stops);
  if (config.contains("images")) {
    if (!config["images"].is_boolean())
      v.error("/images", "expected true or false");
    else
      out.images = config["images"];
  }
  if (config.contains("flip_every")) {
    const json& every = config["flip_every"];
    if (!every.is_number_integer() || every.get<int64_t>() < 0 || every.get<int64_t>() > 1'000'000)
      v.error("/flip_every", "expected an integer from 0 (no FLIP) to 1000000 (FLIP of every Nth camera-path frame)");
    else
      out.flipEvery = every.get<uint32_t>();
  }
  if (config.contains("options")) {
    const json& options = config["options"];
    if (!options.is_object()) {
      v.error("/options", "expected an object keyed by integrator or backend name");
    } else {
      for (const auto& [integrator, values] : options.items()) {
        const std::string pointer = "/options/" + integrator;
        const auto kind = parseIntegrator(integrator);
        const auto backend = parseBackend(integrator);
        if (!kind && !backend) {
          v.error(pointer, "not an integrator or a backend; options are keyed by integrator or backend name");
          continue;
        }
        if (!values.is_object()) {
          v.error(pointer, "expected an object of options");
          continue;
        }
        for (const auto& [key, value] : values.items()) {
          // A list is a sweep axis; every element must be a valid value.
          const bool list = value.is_array();
          if (list && value.empty()) v.error(pointer + "/" + key, "expected a value or a non-empty list of values");
          std::vector<json> axis = list ? value.get<std::vector<json>>() : std::vector<json>{value};
          for (size_t i = 0; i < axis.size(); ++i) {
            RenderSettings scratch;
            const std::string problem =
                kind ? applyOption(*kind, key, axis[i], scratch) : applyBackendOption(*backend, key, axis[i], scratch);
            if (!problem.empty())
              v.error(pointer + "/" + key + (list ? "/" + std::to_string(i) : ""),
                      problem + ", got " + Validator::describe(axis[i]));
          }
          if (kind)
            out.options[*kind].emplace_back(key, std::move(axis));
          else
            out.backendOptions[*backend].emplace_back(key, std::move(axis));
        }
      }
    }
  }
  out.warmup = v.integer(config, "warmup", 0, 1000, 1);
  if (config.contains("warmup_seconds"))
    if (const auto seconds =
            v.number(config["warmup_seconds"], "/warmup_seconds", warmupSecondsRange, "seconds of warm-up frames"))
      out.warmupSeconds = *seconds;
  if (config.contains("repeats")) {
    out.repetition.repeats = v.integer(config, "repeats", 1, 100000, 1);
    for (const char* key : {"min_samples", "max_noise", "timeout"})
      if (config.contains(key)) v.error(std::string("/") + key, "give either repeats or min_samples/max_noise/timeout");
  }
  if (config.contains("min_samples")) out.repetition.minSamples = v.integer(config, "min_samples", 1, 100000, 5);
  if (config.contains("max_noise"))
    if (const auto noise = v.number(config["max_noise"], "/max_noise", maxNoiseRange,
                                    "the largest acceptable coefficient of variation (0.02: 2%)"))
      out.repetition.maxNoise = *noise;
  if (config.contains("timeout"))
    if (const auto seconds = v.number(config["timeout"], "/timeout", runTimeoutRange, "seconds of measuring per run"))
      out.repetition.timeoutSeconds = *seconds;
  if (config.contains("target_relmse"))
    if (const auto relmse = v.number(config["target_relmse"], "/target_relmse", targetRelmseRange,
                                     "the relMSE a run's time to reach is projected for (0.01)"))
      out.targetRelmse = *relmse;
  out.maxRuns = v.integer(config, "max_runs", 1, maxMaxRuns, defaultMaxRuns);
  if (const uint64_t runs = v.ok() ? sweepSize(out) : 0; runs > out.maxRuns)
    v.error("/max_runs", "the sweep expands to " +
                             (runs == std::numeric_limits<uint64_t>::max() ? "at least 2^64 - 1" : std::to_string(runs)) +
                             " runs, more than max_runs (" + std::to_string(out.maxRuns) +
                             "); shrink a list or raise max_runs");
  if (!v.ok()) v.raise();

  // The resolved config: what was asked, with every default made explicit.
  out.resolved = config;
  auto fill = [&](const char* key, json value) {
    if (!out.resolved.contains(key)) out.resolved[key] = std::move(value);
  };
  fill("output", out.output.string());
  fill("integrators", json::array({"megakernel"}));
  fill("backends", json::array({"auto"}));
  if (!config.contains("resolution")) {
    fill("width", 640);
    fill("height", 480);
  }
  fill("spp", 16);
  fill("max_depth", 8);
  fill("rr_depth", 3);
  fill("seed", 0);
  fill("sampler", "halton");
  fill("counters", "off");
  fill("timing", "stages");
  fill("target_relmse", out.targetRelmse);
  fill("exposure", 0);
  fill("images", true);
  fill("flip_every", out.flipEvery);
  fill("warmup", 1);
  fill("warmup_seconds", out.warmupSeconds);
  fill("max_runs", out.maxRuns);
  if (!out.repetition.repeats) {
    fill("min_samples", out.repetition.minSamples);
    fill("max_noise", out.repetition.maxNoise);
    fill("timeout", out.repetition.timeoutSeconds);
  }
  return out;
}

}  // namespace ptbench
