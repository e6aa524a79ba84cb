#include "core/experiment/config.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "core/errors.h"
#include "core/experiment/image_output.h"
#include "core/experiment/sweep.h"
#include "core/scene/builtin_scenes.h"

namespace ptbench::test {
namespace {

namespace fs = std::filesystem;

class ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("ptbench-config-" + std::to_string(::getpid()) + "-" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir / "scenes");
    std::ofstream(dir / "scenes" / "box.glb") << "not read by validation";
  }
  void TearDown() override { fs::remove_all(dir); }

  fs::path write(const std::string& text) {
    const fs::path path = dir / "experiment.json";
    std::ofstream(path) << text;
    return path;
  }

  // The UserError a config raises: its message and exit code.
  std::pair<std::string, int> failure(const std::string& text, const std::vector<std::string>& overrides = {}) {
    try {
      loadConfig(write(text), overrides);
    } catch (const UserError& error) {
      return {error.what(), error.exitCode()};
    }
    ADD_FAILURE() << "config was accepted: " << text;
    return {"", 0};
  }

  static std::string minimal(const std::string& extra = "") {
    return R"({"schema_version": 1, "name": "t", "scenes": ["builtin:cornell"])" + extra + "}";
  }

  fs::path dir;
};

// flip_every: every frame's FLIP by default, every Nth or none as the config says.
TEST_F(ConfigTest, FlipEveryDefaultsToEveryFrame) {
  EXPECT_EQ(loadConfig(write(minimal())).flipEvery, 1u);
  EXPECT_EQ(loadConfig(write(minimal(R"(, "flip_every": 5)"))).flipEvery, 5u);
  EXPECT_EQ(loadConfig(write(minimal(R"(, "flip_every": 0)"))).flipEvery, 0u);
}

TEST_F(ConfigTest, TheIssueExampleExpandsToEightRuns) {
  const auto config = loadConfig(write(R"({"schema_version": 1, "name": "cornell-quick",
     "scenes": ["scenes/box.glb", {"path": "builtin:furnace", "env": [1, 1, 1]}],
     "integrators": ["megakernel", "megakernel-regen"], "backends": ["auto"],
     "width": 128, "height": 128, "spp": [4, 16], "max_depth": 8, "seed": 1,
     "warmup": 1, "repeats": 3})"));
  const auto runs = expandSweep(config);
  ASSERT_EQ(runs.size(), 8u);
  EXPECT_EQ(config.scenes[0].load, (dir / "scenes/box.glb").string()) << "resolved beside the config";
  EXPECT_EQ(runs[0].scene, 0u);
  EXPECT_EQ(runs[0].settings.samplesPerPixel, 4u);
  EXPECT_EQ(runs[1].settings.samplesPerPixel, 16u);
  EXPECT_EQ(runs[2].integrator, IntegratorKind::MegakernelRegen);
  EXPECT_EQ(runs[4].scene, 1u);
  EXPECT_EQ(*config.repetition.repeats, 3u);
  ASSERT_TRUE(config.scenes[1].environment.has_value());
  EXPECT_EQ(config.scenes[1].environment->x, 1.0f);
  EXPECT_EQ(config.resolved["sampler"], "halton") << "defaults are made explicit in the resolved config";
}

TEST_F(ConfigTest, SweepIsTheCartesianProductOfEveryList) {
  const auto config = loadConfig(write(minimal(R"(, "width": [64, 128], "height": 32, "spp": [1, 2, 3],
      "max_depth": [2, 4], "seed": [0, 1], "sampler": ["halton", "pcg"])")));
  EXPECT_EQ(expandSweep(config).size(), 2u * 3 * 2 * 2 * 2);
}

// Four lists of 65,536 make 2^64 runs: multiplied in 64 bits they wrapped to 0, passed max_runs,
// and expanding the sweep then allocated until it failed. The count stays at the most instead,
// and backend options are counted without being expanded.
TEST_F(ConfigTest, ASweepBeyondSixtyFourBitsIsRefusedByMaxRuns) {
  const auto list = [](const std::string& value, size_t count) {
    std::string text = "[" + value;
    for (size_t i = 1; i < count; ++i) text += ", " + value;
    return text + "]";
  };
  const std::string lists = R"(, "seed": )" + list("0", 65536) + R"(, "spp": )" + list("1", 65536) +
                            R"(, "max_depth": )" + list("2", 65536);
  for (const std::string& fourth : {R"(, "sampler": )" + list("\"pcg\"", 65536),
                                    R"(, "backends": ["software"], "options": {"software": {"software_bvh": )" +
                                        list("\"bvh2\"", 65536) + "}}",
                                    R"(, "sampler": )" + list("\"pcg\"", 65535) + R"(, "rr_depth": [1, 2])"}) {
    const auto [message, exitCode] = failure(minimal(lists + fourth));
    EXPECT_NE(message.find("experiment.json: /max_runs: the sweep expands to at least 2^64 - 1 runs, more than "
                           "max_runs"),
              std::string::npos)
        << message.substr(0, 300);
    EXPECT_EQ(exitCode, 65);
  }
}

// Width and height lists of 65,536 each: their 2^32 resolutions were built, each height list read
// again per width, before max_runs could refuse them (a hang, or bad_alloc: exit 70).
TEST_F(ConfigTest, WidthAndHeightListsAreBoundedBeforeTheirResolutionsAreBuilt) {
  std::string widths = "[1", heights = "[1";
  for (int i = 1; i < 65536; ++i) widths += ", 1", heights += ", 1";
  const auto start = std::chrono::steady_clock::now();
  const auto [message, exitCode] = failure(minimal(R"(, "width": )" + widths + "], \"height\": " + heights + "]"));
  EXPECT_NE(message.find("/width: 65536 widths and 65536 heights make more resolutions than a sweep may have runs"),
            std::string::npos)
      << message.substr(0, 300);
  EXPECT_EQ(exitCode, 65);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 30.0);
}

// --set applies in order: a key set twice takes its last value (a script's settings, then the
// arguments it passes on), as docs/config.md says.
TEST_F(ConfigTest, AKeySetTwiceTakesItsLastValue) {
  const fs::path file = dir / "twice.json";
  std::ofstream(file) << R"({"schema_version": 1, "name": "t", "scenes": ["builtin:cornell"]})";
  EXPECT_EQ(loadConfig(file, {"spp=2", "spp=4"}).spps, std::vector<uint32_t>{4});
}

// resolution lists sizes that are no cross product; it excludes width and height.
TEST_F(ConfigTest, ResolutionListsSizesWithoutCrossingThem) {
  const auto config =
      loadConfig(write(minimal(R"(, "resolution": ["1280x720", "3840x2160"], "spp": [1, 2], "counters": ["off", "simt"],
      "integrators": ["megakernel", "raycast"])")));
  const auto runs = expandSweep(config);
  ASSERT_EQ(runs.size(), 2u * 2 * 2 + 2u * 2) << "the raycast runs once, without counters";
  EXPECT_EQ(sweepSize(config), runs.size());
  EXPECT_EQ(runs[0].settings.width, 1280u);
  EXPECT_EQ(runs[0].settings.height, 720u);
  EXPECT_EQ(runs[0].settings.counters, Counters::Off);
  EXPECT_EQ(runs[1].settings.counters, Counters::Simt);
  const auto clocked = expandSweep(loadConfig(write(minimal(R"(, "counters": ["clocks", "off", "clocks"],
      "integrators": ["wavefront", "raycast"])"))));
  ASSERT_EQ(clocked.size(), 3u) << "a value listed twice is one run; the raycast runs once, without";
  EXPECT_EQ(clocked[0].settings.counters, Counters::Clocks);
  EXPECT_EQ(clocked[1].settings.counters, Counters::Off);
  EXPECT_EQ(clocked[2].settings.counters, Counters::Off);
  EXPECT_EQ(clocked[2].integrator, IntegratorKind::Raycast);
  // One run counts simt or clocks: a value naming both is no value.
  const auto [both, bothCode] = failure(minimal(R"(, "counters": "simt+clocks")"));
  EXPECT_EQ(bothCode, exitConfigInvalid);
  EXPECT_NE(both.find("/counters"), std::string::npos) << both;
  EXPECT_EQ(runs[4].settings.width, 3840u);
  EXPECT_EQ(runs[4].settings.height, 2160u);
  EXPECT_FALSE(config.resolved.contains("width")) << "no default width beside a resolution";
  const auto [message, code] = failure(minimal(R"(, "resolution": ["1920x1080", "4k"], "width": 64)"));
  EXPECT_EQ(code, exitConfigInvalid);
  EXPECT_NE(message.find("/resolution/1: expected \"WIDTHxHEIGHT\""), std::string::npos) << message;
  EXPECT_NE(message.find("/width: give either resolution or width and height"), std::string::npos) << message;
}

// integrators: ["all"] names each integrator once, in order, whatever else the list names.
TEST_F(ConfigTest, AllIntegratorsAreEachIntegratorOnce) {
  const auto config = loadConfig(write(minimal(R"(, "integrators": ["wavefront", "all"])")));
  EXPECT_TRUE(config.integratorsAll);
  ASSERT_EQ(config.integrators.size(), allIntegrators.size());
  EXPECT_EQ(config.integrators[0], IntegratorKind::Wavefront);
  EXPECT_EQ(config.integrators[1], IntegratorKind::Megakernel);
}

// Option lists are sweep axes of their integrator only: the megakernel runs once, the
// wavefront once per schedule x compaction.
TEST_F(ConfigTest, IntegratorOptionListsAreSweepAxesOfThatIntegrator) {
  const auto config = loadConfig(write(minimal(R"(, "integrators": ["megakernel", "wavefront"],
      "options": {"wavefront": {"schedule": ["depth", "pool"], "compaction": [true, false], "pool_size": 1000,
                                "material_queues": true}})")));
  const auto runs = expandSweep(config);
  ASSERT_EQ(runs.size(), 1u + 2 * 2);
  EXPECT_EQ(runs[0].integrator, IntegratorKind::Megakernel);
  EXPECT_EQ(runs[0].settings.wavefront.poolSize, 0u) << "the megakernel's settings are untouched";
  std::set<std::pair<WavefrontSchedule, bool>> seen;
  for (size_t i = 1; i < runs.size(); ++i) {
    EXPECT_EQ(runs[i].integrator, IntegratorKind::Wavefront);
    EXPECT_EQ(runs[i].settings.wavefront.poolSize, 1000u);
    EXPECT_TRUE(runs[i].settings.wavefront.materialQueues);
    seen.insert({runs[i].settings.wavefront.schedule, runs[i].settings.wavefront.compaction});
  }
  EXPECT_EQ(seen.size(), 4u) << "every combination once";
}

// A backend's options multiply that backend's runs only; "all" takes them when the runner
// resolves it (withBackendOptions), and the sweep size counts them.
TEST_F(ConfigTest, BackendOptionListsAreSweepAxesOfThatBackend) {
  const auto config = loadConfig(write(minimal(R"(, "integrators": ["megakernel", "wavefront"],
      "backends": ["pipeline", "software"], "options": {"software": {"software_bvh": ["cwbvh", "bvh2"]}})")));
  const auto runs = expandSweep(config);
  ASSERT_EQ(runs.size(), 2u * (1 + 2));
  std::multiset<std::string> seen;
  for (const RunSpec& run : runs)
    seen.insert(run.backend + (run.backend == "software" ? " " + std::string(bvhLayoutName(run.settings.softwareBvh))
                                                         : std::string()));
  EXPECT_EQ(seen, (std::multiset<std::string>{"pipeline", "pipeline", "software cwbvh", "software cwbvh",
                                              "software bvh2", "software bvh2"}));
  EXPECT_EQ(sweepSize(config), runs.size());
  const auto all = loadConfig(write(minimal(R"(, "backends": "all",
      "options": {"software": {"software_bvh": ["cwbvh", "bvh2"]}})")));
  EXPECT_EQ(expandSweep(all).size(), 1u) << "resolved by the runner";
  EXPECT_EQ(withBackendOptions(all, Backend::Software, expandSweep(all)[0].settings).size(), 2u);
  EXPECT_EQ(sweepSize(all), 4u) << "rayquery, pipeline and software twice, at most";
}

TEST_F(ConfigTest, ASunIsADirectionalLightAddedToTheScene) {
  const auto config = loadConfig(write(R"({"schema_version": 1, "name": "t", "scenes": [
      {"path": "builtin:furnace", "sun": {"direction": [0, -2, 0], "irradiance": [3, 2, 1]}}]})"));
  SceneData scene = loadScene("builtin:furnace");
  const size_t before = scene.punctualLights.size();
  applySceneEntry(config.scenes[0], scene);
  ASSERT_EQ(scene.punctualLights.size(), before + 1);
  const gpu::PunctualLight& sun = scene.punctualLights.back();
  EXPECT_EQ(sun.type, gpu::LIGHT_DIRECTIONAL);
  EXPECT_FLOAT_EQ(sun.direction.y, -1.0f) << "normalised";
  EXPECT_FLOAT_EQ(sun.intensity.x, 3.0f);
  EXPECT_FLOAT_EQ(sun.intensity.z, 1.0f);
}

TEST_F(ConfigTest, AMaterialOverrideMakesCarPaintOfTheMatchedMaterials) {
  const auto config = loadConfig(write(R"({"schema_version": 1, "name": "t", "scenes": [
      {"path": "builtin:cornell", "material_override": {"match": 0, "model": "car_paint", "cost": 12}}]})"));
  SceneData scene = loadScene("builtin:cornell");
  applySceneEntry(config.scenes[0], scene);
  EXPECT_EQ(scene.materials[0].model, gpu::MATERIAL_MODEL_CAR_PAINT);
  EXPECT_EQ(scene.materials[0].noiseOctaves, 12u);
  EXPECT_EQ(scene.materials[1].model, gpu::MATERIAL_MODEL_GLTF);
}

TEST_F(ConfigTest, SetOverridesKeysBeforeValidation) {
  const auto config = loadConfig(write(minimal()), {"spp=[1,2]", "name=renamed", "integrators=megakernel-regen"});
  EXPECT_EQ(config.spps, (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(config.name, "renamed");
  EXPECT_EQ(config.integrators, std::vector<IntegratorKind>{IntegratorKind::MegakernelRegen});
  const auto [message, code] = failure(minimal(), {"spp"});
  EXPECT_EQ(code, exitConfigInvalid);
  EXPECT_NE(message.find("--set spp: expected key=value"), std::string::npos) << message;
}

struct BadCase {
  const char* what;
  std::string config;
  std::string pointer;
  std::string expected;
};

TEST_F(ConfigTest, EveryBadValueNamesFilePointerAndWhatIsAccepted) {
  const std::vector<BadCase> cases = {
      {"unknown key", minimal(R"(, "sppp": 4)"), "/sppp", "unknown key"},
      {"wrong type", minimal(R"(, "width": "wide")"), "/width", "expected an integer from 1 to 16384"},
      {"out of range", minimal(R"(, "spp": [4, 0])"), "/spp/1", "expected an integer from 1"},
      {"negative", minimal(R"(, "max_depth": -2)"), "/max_depth", "expected an integer"},
      {"unknown integrator", minimal(R"(, "integrators": ["megakernal"])"), "/integrators/0",
       "accepted: all, megakernel, megakernel-regen, megakernel-ser"},
      {"unknown backend", minimal(R"(, "backends": "optix")"), "/backends",
       "accepted: auto, all, rayquery, pipeline, software"},
      {"scene path too long to look up",
       R"({"schema_version": 1, "name": "t", "scenes": [")" + std::string(5000, 'x') + R"(.glb"]})", "/scenes/0",
       "not found"},
      {"missing scene file", R"({"schema_version": 1, "name": "t", "scenes": ["nowhere.glb"]})", "/scenes/0",
       "scene file nowhere.glb not found"},
      {"bad builtin", R"({"schema_version": 1, "name": "t", "scenes": ["builtin:teapot"]})", "/scenes/0",
       "unknown built-in scene"},
      {"unknown scene key",
       R"({"schema_version": 1, "name": "t", "scenes": [{"path": "builtin:cornell", "lights": 2}]})",
       "/scenes/0/lights", "unknown key"},
      {"bad env", R"({"schema_version": 1, "name": "t", "scenes": [{"path": "builtin:cornell", "env": [1, 1]}]})",
       "/scenes/0/env", "expected three non-negative numbers"},
      {"schema version", R"({"schema_version": 2, "name": "t", "scenes": ["builtin:cornell"]})", "/schema_version",
       "schema version 1"},
      {"missing name", R"({"schema_version": 1, "scenes": ["builtin:cornell"]})", "/name", "required"},
      {"missing scenes", R"({"schema_version": 1, "name": "t"})", "/scenes", "required"},
      {"noise out of range", minimal(R"(, "max_noise": 5)"), "/max_noise", "coefficient of variation"},
      {"repeats and noise", minimal(R"(, "repeats": 3, "max_noise": 0.1)"), "/max_noise", "either repeats or"},
      {"options of a non-integrator", minimal(R"(, "options": {"pathtracer": {}})"), "/options/pathtracer",
       "not an integrator"},
      {"options an integrator lacks", minimal(R"(, "options": {"megakernel": {"tile": 16}})"),
       "/options/megakernel/tile",
       "unknown option of megakernel; it has ms_compensation, restir, restir_candidates, restir_neighbours, "
       "restir_history_cap, restir_gi_jacobian, restir_bsdf_candidate"},
      {"restir candidates of zero", minimal(R"(, "options": {"megakernel": {"restir_candidates": 0}})"),
       "/options/megakernel/restir_candidates", "expected an integer from 1 to 512"},
      {"restir neighbours past the most", minimal(R"(, "options": {"wavefront": {"restir_neighbours": 65}})"),
       "/options/wavefront/restir_neighbours", "expected an integer from 0 to 64"},
      {"restir neighbours not whole", minimal(R"(, "options": {"megakernel": {"restir_neighbours": 2.5}})"),
       "/options/megakernel/restir_neighbours", "expected an integer from 0 to 64"},
      {"negative restir history", minimal(R"(, "options": {"megakernel": {"restir_history_cap": -1}})"),
       "/options/megakernel/restir_history_cap", "expected a number from 0 to 1000"},
      {"restir jacobian limit below one", minimal(R"(, "options": {"megakernel": {"restir_gi_jacobian": 0.5}})"),
       "/options/megakernel/restir_gi_jacobian", "expected 0, or a number from 1 to 1000"},
      {"restir on megakernel-regen", minimal(R"(, "options": {"megakernel-regen": {"restir": "di"}})"),
       "/options/megakernel-regen/restir", "unknown option of megakernel-regen; it has ms_compensation"},
      {"negative flip_every", minimal(R"(, "flip_every": -1)"), "/flip_every", "expected an integer from 0 (no FLIP)"},
      {"flip_every not whole", minimal(R"(, "flip_every": 1.5)"), "/flip_every",
       "expected an integer from 0 (no FLIP)"},
      {"unknown restir value", minimal(R"(, "options": {"megakernel": {"restir": "pt"}})"),
       "/options/megakernel/restir", "expected off, di, gi or di+gi"},
      {"unknown software backend option", minimal(R"(, "options": {"software": {"layout": "bvh4"}})"),
       "/options/software/layout", "unknown option of the software backend; it has software_bvh, software_builder"},
      {"unknown wavefront option", minimal(R"(, "options": {"wavefront": {"queues": 2}})"), "/options/wavefront/queues",
       "it has schedule, pool_size, compaction, material_queues, shadow_overlap, ms_compensation, restir, "
       "restir_candidates"},
      {"bad schedule in a sweep", minimal(R"(, "options": {"wavefront": {"schedule": ["depth", "breadth"]}})"),
       "/options/wavefront/schedule/1", "expected depth or pool"},
      {"pool too large", minimal(R"(, "options": {"wavefront": {"pool_size": 100000000}})"),
       "/options/wavefront/pool_size", "expected an integer from 1 to 67108864"},
      {"unknown kind of raycast rays", minimal(R"(, "options": {"raycast": {"rays": ["diffuse", "glossy"]}})"),
       "/options/raycast/rays/1", "expected primary, diffuse or shadow"},
      {"raycast rays not a string", minimal(R"(, "options": {"raycast": {"rays": 2}})"), "/options/raycast/rays",
       "expected primary, diffuse or shadow"},
      {"compaction not a boolean", minimal(R"(, "options": {"wavefront": {"compaction": "yes"}})"),
       "/options/wavefront/compaction", "expected true or false"},
      {"unknown software bvh", minimal(R"(, "options": {"software": {"software_bvh": ["cwbvh", "bvh4"]}})"),
       "/options/software/software_bvh/1", "expected cwbvh or bvh2"},
      {"options a backend lacks", minimal(R"(, "options": {"rayquery": {"software_bvh": "cwbvh"}})"),
       "/options/rayquery/software_bvh", "rayquery has no options"},
      {"environment map not found",
       R"({"schema_version": 1, "name": "t", "scenes": [{"path": "builtin:cornell", "env": {"file": "sky.hdr"}}]})",
       "/scenes/0/env/file", "environment map sky.hdr not found"},
      {"environment map without a file",
       R"({"schema_version": 1, "name": "t", "scenes": [{"path": "builtin:cornell", "env": {"intensity": 2}}]})",
       "/scenes/0/env/file", "required: the environment map"},
      {"negative environment intensity",
       R"({"schema_version": 1, "name": "t", "scenes": [{"path": "builtin:cornell",
           "env": {"file": "scenes/box.glb", "intensity": -1}}]})",
       "/scenes/0/env/intensity", "non-negative scale"},
      {"unknown environment key",
       R"({"schema_version": 1, "name": "t", "scenes": [{"path": "builtin:cornell",
           "env": {"file": "scenes/box.glb", "exposure": 2}}]})",
       "/scenes/0/env/exposure", "unknown key"},
      {"material override without match",
       R"({"schema_version": 1, "name": "t", "scenes": [{"path": "builtin:cornell", "material_override": {"cost": 3}}]})",
       "/scenes/0/material_override", "expected an object with match"},
      {"material override too costly",
       R"({"schema_version": 1, "name": "t", "scenes": [{"path": "builtin:cornell",
           "material_override": {"match": "*", "cost": 99}}]})",
       "/scenes/0/material_override/cost", "noise octaves"},
      {"material override of an unknown model",
       R"({"schema_version": 1, "name": "t", "scenes": [{"path": "builtin:cornell",
           "material_override": {"match": 0, "model": "velvet"}}]})",
       "/scenes/0/material_override/model", "car_paint"},
      {"unknown environment sampling",
       R"({"schema_version": 1, "name": "t", "scenes": [{"path": "builtin:cornell",
           "env": {"file": "scenes/box.glb", "sampling": "cosine"}}]})",
       "/scenes/0/env/sampling", "importance"},
      {"sun without irradiance",
       R"({"schema_version": 1, "name": "t", "scenes": [{"path": "builtin:cornell", "sun": {"direction": [0, -1, 0]}}]})",
       "/scenes/0/sun", "expected an object with direction"},
      {"sun pointing nowhere",
       R"({"schema_version": 1, "name": "t", "scenes": [{"path": "builtin:cornell",
           "sun": {"direction": [0, 0, 0], "irradiance": [1, 1, 1]}}]})",
       "/scenes/0/sun/direction", "points nowhere"},
      {"negative sun",
       R"({"schema_version": 1, "name": "t", "scenes": [{"path": "builtin:cornell",
           "sun": {"direction": [0, -1, 0], "irradiance": [1, -1, 1]}}]})",
       "/scenes/0/sun/irradiance", "non-negative"},
  };
  for (const auto& c : cases) {
    const auto [message, code] = failure(c.config);
    EXPECT_EQ(code, exitConfigInvalid) << c.what;
    EXPECT_NE(message.find((dir / "experiment.json").string() + ": " + c.pointer + ": "), std::string::npos)
        << c.what << ": " << message;
    EXPECT_NE(message.find(c.expected), std::string::npos) << c.what << ": " << message;
  }
}

// Issues 27 and 31: every number a config holds refuses NaN and the infinities (as --set gives
// them: strings; JSON has neither) and the values outside its documented range, negative, zero
// and overflowing ones among them ("exposure": 1e300 was a float's infinity and a black image).
TEST_F(ConfigTest, EveryNumberRefusesNaNInfinitiesAndValuesOutsideItsRange) {
  struct NumericKey {
    std::string key;  // for --set, dotted
    std::string pointer;
    std::vector<std::string> outOfRange;  // beside nan, inf, -inf, 1e300 and -1e300, which every key refuses
  };
  const std::vector<NumericKey> keys = {
      {"width", "/width", {"0", "-1", "16385"}},
      {"height", "/height", {"0", "16385"}},
      {"spp", "/spp", {"0", "1048577"}},
      {"max_depth", "/max_depth", {"0", "1025"}},
      {"rr_depth", "/rr_depth", {"0", "1025"}},
      {"seed", "/seed", {"-1", "4294967296", "0.5"}},
      {"exposure", "/exposure", {"33", "-33", "128", "-128"}},
      {"warmup", "/warmup", {"-1", "1001"}},
      {"warmup_seconds", "/warmup_seconds", {"-1", "601"}},
      {"repeats", "/repeats", {"0", "-1"}},
      {"min_samples", "/min_samples", {"0", "-1"}},
      {"max_noise", "/max_noise", {"0", "-0.5", "1.5"}},
      {"timeout", "/timeout", {"0", "-1", "86401"}},
      {"target_relmse", "/target_relmse", {"0", "-1", "2"}},
      {"max_runs", "/max_runs", {"0", "-1"}},
      {"options.wavefront.pool_size", "/options/wavefront/pool_size", {"-1", "67108865"}},
      {"options.megakernel-ser.reorder_from", "/options/megakernel-ser/reorder_from", {"0", "1025"}},
  };
  const auto expectRefused = [&](const std::string& what, const std::string& config,
                                 const std::vector<std::string>& overrides, const std::string& pointer) {
    const auto [message, code] = failure(config, overrides);
    EXPECT_EQ(code, exitConfigInvalid) << what;
    EXPECT_NE(message.find((dir / "experiment.json").string() + ": " + pointer + ": expected"), std::string::npos)
        << what << ": " << message;
  };
  for (const NumericKey& k : keys) {
    std::vector<std::string> values = {"nan", "inf", "-inf", "1e300", "-1e300"};
    values.insert(values.end(), k.outOfRange.begin(), k.outOfRange.end());
    for (const std::string& value : values)
      expectRefused(k.key + "=" + value, minimal(), {k.key + "=" + value}, k.pointer);
  }

  // A scene entry's numbers, {value} in its JSON ("nan" as the string --set would make).
  struct SceneNumber {
    std::string entry;
    std::string pointer;
    std::vector<std::string> outOfRange;  // beside "nan", 1e300 and -1e300
  };
  const std::vector<SceneNumber> sceneNumbers = {
      {R"("camera": {"fov": {value}})", "/scenes/0/camera/fov", {"0", "-1", "180"}},
      {R"("camera": {"aperture": {value}})", "/scenes/0/camera/aperture", {"-1", "1e31"}},
      {R"("camera": {"focus_distance": {value}})", "/scenes/0/camera/focus_distance", {"-1", "1e31"}},
      {R"("camera": {"position": [0, {value}, 0]})", "/scenes/0/camera/position", {"1e39"}},
      {R"("env": [{value}, 1, 1])", "/scenes/0/env", {"-1", "1e39"}},
      {R"("env": {"file": "scenes/box.glb", "intensity": {value}})", "/scenes/0/env/intensity", {"-1", "1e31"}},
      {R"("env": {"file": "scenes/box.glb", "rotation_deg": {value}})",
       "/scenes/0/env/rotation_deg",
       {"3601", "-3601"}},
      {R"("sun": {"direction": [0, -1, 0], "irradiance": [1, {value}, 1]})",
       "/scenes/0/sun/irradiance",
       {"-1", "1e39"}},
      {R"("material_override": {"match": "*", "cost": {value}})", "/scenes/0/material_override/cost", {"-1", "33"}},
  };
  for (const SceneNumber& n : sceneNumbers) {
    std::vector<std::string> values = {R"("nan")", "1e300", "-1e300"};
    values.insert(values.end(), n.outOfRange.begin(), n.outOfRange.end());
    for (const std::string& value : values) {
      std::string entry = n.entry;
      entry.replace(entry.find("{value}"), 7, value);
      expectRefused(entry,
                    R"({"schema_version": 1, "name": "t", "scenes": [{"path": "builtin:cornell", )" + entry + "}]}", {},
                    n.pointer);
    }
  }
}

TEST_F(ConfigTest, TheEndsOfEveryRangeAreAccepted) {
  const auto config = loadConfig(write(R"({"schema_version": 1, "name": "t", "exposure": -32, "warmup_seconds": 600,
      "max_noise": 1, "timeout": 86400, "target_relmse": 1, "scenes": [{"path": "builtin:cornell",
      "camera": {"fov": 179, "aperture": 0, "focus_distance": 1e30},
      "env": {"file": ")" + (fs::path(PTBENCH_SOURCE_DIR) / "scenes/env/studio_small_03_1k.hdr").string() +
                                       R"(", "intensity": 1e30, "rotation_deg": -3600}}]})"));
  EXPECT_EQ(config.exposure, -32);
  EXPECT_EQ(config.repetition.timeoutSeconds, 86400);
  EXPECT_EQ(config.scenes[0].fovDegrees, 179.0f);
  EXPECT_EQ(loadConfig(write(minimal()),
                       {"exposure=32", "scenes=[{\"path\": \"builtin:cornell\", \"camera\": {\"fov\": 0.1}}]"})
                .exposure,
            32);
}

TEST_F(ConfigTest, AllErrorsAreReportedInOnePass) {
  const auto [message, code] = failure(R"({"schema_version": 1, "name": "t", "scenes": ["gone.gltf"], "spp": 0,
      "integrators": ["x"], "colour": true})");
  EXPECT_EQ(code, exitConfigInvalid);
  EXPECT_NE(message.find("4 problem(s)"), std::string::npos) << message;
  for (const char* pointer : {"/scenes/0", "/spp", "/integrators/0", "/colour"})
    EXPECT_NE(message.find(pointer), std::string::npos) << pointer << " in " << message;
}

TEST_F(ConfigTest, MalformedJsonAndMissingFile) {
  const auto [message, code] = failure(R"({"schema_version": 1, "name": )");
  EXPECT_EQ(code, exitConfigInvalid);
  EXPECT_NE(message.find("not valid JSON"), std::string::npos) << message;
  try {
    loadConfig(dir / "absent.json");
    FAIL();
  } catch (const UserError& error) {
    EXPECT_EQ(error.exitCode(), exitConfigMissing);
    EXPECT_NE(std::string(error.what()).find("absent.json"), std::string::npos);
  }
}

// A scene entry's camera.path, as docs/config.md gives it.
std::string pathScene(const std::string& path, const std::string& cameraExtra = "",
                      const std::string& sceneExtra = "") {
  return R"(, "scenes": [{"path": "builtin:cornell", "camera": {"path": )" + path + cameraExtra + "}" + sceneExtra +
         "}]";
}

constexpr const char* threeKeyframes = R"({"keyframes": [
    {"time": 0, "position": [0.278, 0.273, -0.8], "target": [0.278, 0.273, 0]},
    {"time": 1, "position": [0.2, 0.3, -0.6], "target": [0.3, 0.25, 0.2], "fov": 30},
    {"time": 2, "position": [0.4, 0.25, -0.5], "rotation": [0, 0.2, 0, 1], "focus_distance": 0.7}],
  "interpolation": "linear", "fps": 1, "frames": 3})";

TEST_F(ConfigTest, ACameraPathGivesACameraPerFrame) {
  // The path's keys replace the minimal config's scenes.
  const auto config = loadConfig(write(R"({"schema_version": 1, "name": "t")" + pathScene(threeKeyframes) + "}"));
  ASSERT_TRUE(config.scenes[0].cameraPath.has_value());
  const CameraPathSpec& spec = *config.scenes[0].cameraPath;
  EXPECT_EQ(spec.frames, 3u);
  EXPECT_EQ(spec.interpolation, PathInterpolation::Linear);
  ASSERT_EQ(spec.keyframes.size(), 3u);
  ASSERT_TRUE(spec.keyframes[2].rotation.has_value());
  EXPECT_NEAR(spec.keyframes[2].rotation->w, 1 / std::sqrt(1.04), 1e-6) << "normalised";

  const SceneData cornell = loadScene("builtin:cornell");
  const std::vector<Camera> cameras = cameraPathFrames(config.scenes[0], cornell);
  ASSERT_EQ(cameras.size(), 3u);
  // Frame k at time k / fps: each a keyframe here, what it leaves out the scene camera's.
  EXPECT_EQ(cameras[0].position, (Vec3{0.278f, 0.273f, -0.8f}));
  EXPECT_NEAR(cameras[0].yfovDegrees, cornell.defaultCamera().yfovDegrees, 1e-5);
  EXPECT_NEAR(cameras[0].focusDistance, 0.8, 1e-5) << "a target's distance is the focus";
  EXPECT_EQ(cameras[1].yfovDegrees, 30);
  EXPECT_NEAR(cameras[2].focusDistance, 0.7, 1e-6);
  // A fixed camera has no path.
  EXPECT_TRUE(cameraPathFrames(loadConfig(write(minimal())).scenes[0], cornell).empty());
}

TEST_F(ConfigTest, CameraPathFromAFileBesideTheConfig) {
  std::ofstream(dir / "orbit.json") << threeKeyframes;
  const auto config = loadConfig(write(R"({"schema_version": 1, "name": "t")" + pathScene("\"orbit.json\"") + "}"));
  ASSERT_TRUE(config.scenes[0].cameraPath.has_value());
  EXPECT_EQ(config.scenes[0].cameraPath->keyframes.size(), 3u);
  EXPECT_EQ(readCameraPathFile(dir / "orbit.json").frames, 3u);
  const auto [message, code] = failure(R"({"schema_version": 1, "name": "t")" + pathScene("\"absent.json\"") + "}");
  EXPECT_NE(message.find("/scenes/0/camera/path: camera path file absent.json not found"), std::string::npos)
      << message;
}

TEST_F(ConfigTest, BadCameraPathsAreRefusedWithTheirPlace) {
  const auto keyframe = [](const std::string& time, const std::string& more = "") {
    return R"({"time": )" + time + R"(, "position": [0, 0, 1], "target": [0, 0, 0])" + more + "}";
  };
  const auto keyframes = [&](const std::string& list, const std::string& more = R"(, "frames": 2)") {
    return R"({"keyframes": [)" + list + "]" + more + "}";
  };
  const std::string two = keyframe("0") + ", " + keyframe("1");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {keyframes(keyframe("0")), "/scenes/0/camera/path/keyframes: expected a list of at least two keyframes"},
      {keyframes(keyframe("1") + ", " + keyframe("1")),
       "/scenes/0/camera/path/keyframes/1/time: keyframe times must "
       "increase strictly: 1 follows 1"},
      {keyframes(keyframe("2") + ", " + keyframe("1")), "keyframe times must increase strictly: 1 follows 2"},
      {keyframes(keyframe(R"("NaN")") + ", " + keyframe("1")),
       "/scenes/0/camera/path/keyframes/0/time: expected a time in seconds"},
      {keyframes(R"({"time": 0, "position": [0, 1e39, 1], "target": [0, 0, 0]}, )" + keyframe("1")),
       "/scenes/0/camera/path/keyframes/0/position: expected three numbers [x, y, z] within float range"},
      {keyframes(keyframe("-1") + ", " + keyframe("1")), "/scenes/0/camera/path/keyframes/0/time: expected a time"},
      {keyframes(two + R"(, {"time": 2, "position": [0, 0, 1]})"),
       "/scenes/0/camera/path/keyframes/2: expected either target"},
      {keyframes(two + ", " + keyframe("2", R"(, "rotation": [0, 0, 0, 1])")),
       "/scenes/0/camera/path/keyframes/2: expected either target"},
      {keyframes(R"({"time": 0, "position": [0, 0, 1], "rotation": [0, 0, 0, 0]}, )" + keyframe("1")),
       "/scenes/0/camera/path/keyframes/0/rotation: expected a quaternion"},
      {keyframes(R"({"time": 0, "position": [0, 0, 0], "target": [0, 0, 0]}, )" + keyframe("1")),
       "/scenes/0/camera/path/keyframes/0/target: the keyframe's target equals its position"},
      {keyframes(keyframe("0", R"(, "zoom": 2)") + ", " + keyframe("1")),
       "/scenes/0/camera/path/keyframes/0/zoom: unknown key"},
      {keyframes(keyframe("0", R"(, "fov": 180)") + ", " + keyframe("1")),
       "/scenes/0/camera/path/keyframes/0/fov: expected a vertical field of view"},
      {keyframes(two, ""), "/scenes/0/camera/path/frames: required"},
      {keyframes(two, R"(, "frames": 0)"), "/scenes/0/camera/path/frames: expected an integer from 1 to 100000"},
      {keyframes(two, R"(, "frames": 2, "fps": 0)"), "/scenes/0/camera/path/fps"},
      {keyframes(two, R"(, "frames": 2, "interpolation": "cubic")"),
       "/scenes/0/camera/path/interpolation: expected catmull-rom (the default) or linear"},
      {keyframes(two, R"(, "frames": 2, "speed": 1)"), "/scenes/0/camera/path/speed: unknown key"},
      {keyframes(two, R"(, "frames": 2, "animation": 0)"), "/scenes/0/camera/path: expected either keyframes"},
      {R"({"frames": 2})", "/scenes/0/camera/path: expected either keyframes"},
      {R"({"animation": -1, "frames": 2})", "/scenes/0/camera/path/animation: expected a glTF animation's index"},
      {R"({"animation": 0, "frames": 2, "interpolation": "linear"})",
       "/scenes/0/camera/path/interpolation: a glTF animation is interpolated as its samplers say"},
      {"[1, 2]", "/scenes/0/camera/path: expected a camera path"},
  };
  for (const auto& [path, expected] : cases) {
    const auto [message, code] = failure(R"({"schema_version": 1, "name": "t")" + pathScene(path) + "}");
    EXPECT_NE(message.find(expected), std::string::npos) << path << "\n" << message;
    EXPECT_EQ(code, exitConfigInvalid) << path;
  }
  // Position and target beside a path would contradict its keyframes.
  const auto [message, code] =
      failure(R"({"schema_version": 1, "name": "t")" + pathScene(keyframes(two), R"(, "position": [0, 0, 2])") + "}");
  EXPECT_NE(message.find("/scenes/0/camera/position: a camera path's keyframes place the camera"), std::string::npos)
      << message;
  // A glTF animation is sampled linearly, and its runs' reports say so (they said catmull-rom).
  const auto animation =
      loadConfig(write(R"({"schema_version": 1, "name": "t")" + pathScene(R"({"animation": 0, "frames": 2})") + "}"));
  EXPECT_EQ(cameraPathText(animation.scenes[0]), "animation 0, 2 frames at 30 fps, linear");
  // A glTF animation keeps the scene camera's lens: a fov beside it would be silently ignored.
  const std::string animated = failure(R"({"schema_version": 1, "name": "t")" +
                                       pathScene(R"({"animation": 0, "frames": 2})", R"(, "fov": 30)") + "}")
                                   .first;
  EXPECT_NE(animated.find("/scenes/0/camera/fov: a camera path from a glTF animation keeps the scene camera's own "
                          "lens and orientation"),
            std::string::npos)
      << animated;
}

// A path's references are one a frame, named with the frame's index; all must be there.
TEST_F(ConfigTest, ACameraPathTakesAReferenceAFrame) {
  const std::string path = R"({"keyframes": [{"time": 0, "position": [0, 0, 1], "target": [0, 0, 0]},
      {"time": 1, "position": [0, 1, 1], "target": [0, 0, 0]}], "fps": 1, "frames": 2})";
  const std::string config =
      R"({"schema_version": 1, "name": "t")" + pathScene(path, "", R"(, "reference": "refs/cornell.exr")") + "}";
  fs::create_directories(dir / "refs");
  EXPECT_NE(failure(config).first.find("refs/cornell-frame000.exr for the camera path's first frame not found"),
            std::string::npos)
      << failure(config).first;
  std::ofstream(dir / "refs" / "cornell-frame000.exr") << "not read by validation";
  const std::string missing = failure(config).first;
  EXPECT_NE(missing.find("1 are missing, the first cornell-frame001.exr"), std::string::npos) << missing;
  std::ofstream(dir / "refs" / "cornell-frame001.exr") << "not read by validation";
  const auto loaded = loadConfig(write(config));
  ASSERT_TRUE(loaded.scenes[0].reference.has_value());
  EXPECT_EQ(frameImagePath(*loaded.scenes[0].reference, 1), dir / "refs" / "cornell-frame001.exr");
}

// A number in a --set key picks an element of a list that is there; a scene given as its path
// alone takes keys as the {"path": ...} it stands for. An element the list lacks, or one that
// holds no keys, is refused naming the flag.
TEST_F(ConfigTest, SetReachesIntoTheElementsOfLists) {
  const std::string config = R"({"schema_version": 1, "name": "t", "spp": [1, 2])" + pathScene(threeKeyframes) + "}";
  const auto set = loadConfig(write(config),
                              {"scenes.0.camera.path.frames=8", "scenes.0.camera.path.keyframes.1.fov=40", "spp.1=16"});
  ASSERT_TRUE(set.scenes[0].cameraPath.has_value());
  EXPECT_EQ(set.scenes[0].cameraPath->frames, 8u);
  EXPECT_EQ(set.scenes[0].cameraPath->keyframes.at(1).fovDegrees, 40.0f);
  EXPECT_EQ(set.scenes[0].cameraPath->keyframes.size(), 3u) << "the other keyframes are kept";
  EXPECT_EQ(set.spps, (std::vector<uint32_t>{1, 16}));

  const auto bare = loadConfig(write(minimal()), {"scenes.0.env=[1,1,1]"});
  EXPECT_EQ(bare.scenes.at(0).spec, "builtin:cornell");
  ASSERT_TRUE(bare.scenes[0].environment.has_value());
  EXPECT_EQ(*bare.scenes[0].environment, (Vec3{1, 1, 1}));
  EXPECT_EQ(loadConfig(write(minimal()), {"scenes.0=builtin:furnace"}).scenes.at(0).spec, "builtin:furnace");

  for (const auto& [assignment, expected] : std::vector<std::pair<std::string, std::string>>{
           {"scenes.1.env=[1,1,1]", "--set scenes.1.env=[1,1,1]: scenes has no element 1: its elements are 0 to 0"},
           {"scenes.99999999999999999999.env=[1,1,1]", "scenes has no element 99999999999999999999"},
           {"spp.0.x=1", "--set spp.0.x=1: spp.0 is 1, not an object to set x in"},
           {"name.0=x", "--set name.0=x: name is \"t\", not a list to index with 0"},
           {"width.0=8", "--set width.0=8: width is not in the config: there is no list to index with 0"},
           {"0=8", "--set 0=8: the config is an object, not a list to index with 0"},
       }) {
    const auto [message, code] =
        failure(R"({"schema_version": 1, "name": "t", "spp": [1, 2], "scenes": ["x.glb"]})", {assignment});
    EXPECT_EQ(code, exitConfigInvalid) << assignment;
    EXPECT_NE(message.find(expected), std::string::npos) << message;
  }
}

TEST(ShippedConfigs, AllValidate) {
  for (const auto& entry : fs::directory_iterator(fs::path(PTBENCH_SOURCE_DIR) / "configs")) {
    if (entry.path().extension() != ".json" || entry.path().filename() == "schema.json") continue;
    // Paths in shipped configs resolve beside the config or from the repository root.
    const auto cwd = fs::current_path();
    fs::current_path(PTBENCH_SOURCE_DIR);
    EXPECT_NO_THROW(loadConfig(entry.path())) << entry.path();
    fs::current_path(cwd);
  }
}

TEST(ShippedConfigs, SchemaListsExactlyTheKeysTheValidatorTakes) {
  std::ifstream in(fs::path(PTBENCH_SOURCE_DIR) / "configs" / "schema.json");
  const auto schema = nlohmann::json::parse(in);
  std::set<std::string> schemaKeys;
  for (const auto& [key, value] : schema["properties"].items()) schemaKeys.insert(key);
  EXPECT_EQ(schemaKeys, configKeys());
  std::set<std::string> required(schema["required"].begin(), schema["required"].end());
  EXPECT_EQ(required, (std::set<std::string>{"schema_version", "name", "scenes"}));
}

}  // namespace
}  // namespace ptbench::test
