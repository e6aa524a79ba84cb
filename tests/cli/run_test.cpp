#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "baseline_report.h"
#include "core/experiment/convergence.h"
#include "core/experiment/html_report.h"
#include "core/experiment/image_output.h"
#include "csv_fields.h"
#include "gpu_test.h"
namespace ptbench::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path freshFolder(const std::string& name) {
  const fs::path folder = fs::temp_directory_path() / ("ptbench-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(folder);
  fs::create_directories(folder);
  return folder;
}

// The only results folder under root/name.
fs::path resultsFolder(const fs::path& root, const std::string& name) {
  std::vector<fs::path> folders;
  for (const auto& entry : fs::directory_iterator(root / name)) folders.push_back(entry.path());
  EXPECT_EQ(folders.size(), 1u);
  return folders.empty() ? fs::path() : folders.front();
}

json readJson(const fs::path& path) {
  std::ifstream in(path);
  return json::parse(in);
}

// The CI config, in full, with the validation layers on: every run succeeds, the report and
// every image exist, and the layers said nothing.
TEST(RunCommand, CiConfigRunsCleanWithValidation) {
  const fs::path out = freshFolder("ci-run");
  const auto result =
      runPtbench("--validate run " + std::string(PTBENCH_SOURCE_DIR) + "/configs/ci.json --out " + out.string());
  ASSERT_EQ(result.exitCode, 0) << result.all();
  EXPECT_EQ(result.err.find("validation:"), std::string::npos) << result.err;
  const fs::path folder = resultsFolder(out, "ci");
  const json report = readJson(folder / "report.json");
  EXPECT_EQ(report["validation"], true);
  EXPECT_EQ(report["validation_messages"], 0);
  EXPECT_EQ(report["device"]["backends"]["rayquery"], true);
  // 3 scenes x (2 megakernels + the wavefront in 2 schedules x 2 material-queue settings) x
  // 3 backends (all: rayquery, pipeline, software) x 2 spp values.
  ASSERT_EQ(report["runs"].size(), 3u * 6u * 3u * 2u);
  for (const auto& run : report["runs"]) {
    EXPECT_EQ(run["status"], "ok") << run.dump();
    EXPECT_EQ(run["frames"], 2);
    EXPECT_EQ(run["warmup_frames"], 1);
    EXPECT_GT(run["frame_gpu_ms"]["median"].get<double>(), 0.0);
    EXPECT_GT(run["throughput"]["rays_per_s"].get<double>(), 0.0);
    for (const char* format : {"png", "exr"})
      EXPECT_TRUE(fs::exists(folder / run["images"][format].get<std::string>()));
  }
  EXPECT_TRUE(fs::exists(folder / "report.csv"));
  EXPECT_TRUE(fs::exists(folder / "config.json"));
  EXPECT_NE(result.out.find("relative to the megakernel"), std::string::npos) << result.out;

  // scripts/plot.py draws every figure this report supports (no raycast, no reference, no
  // counters, no swept size or depth here), as PNG and SVG, whether run as a script or by python3.
  const std::string plot = std::string(PTBENCH_SOURCE_DIR) + "/scripts/plot.py " + (folder / "report.json").string();
  EXPECT_EQ(std::system((plot + " --out " + (out / "plots").string() + " > /dev/null").c_str()), 0);
  EXPECT_EQ(std::system(("/usr/bin/python3 " + plot + " --out " + (out / "plots2").string() + " > /dev/null").c_str()),
            0);
  for (const char* figure : {"frame_gpu_ms", "stage_breakdown", "relative_time", "bounces"})
    for (const char* format : {".png", ".svg"})
      EXPECT_GT(fs::file_size(out / "plots" / (std::string(figure) + format)), 1000u) << figure << format;
  for (const char* absent : {"roofline.png", "convergence.png", "simt.png", "sweep_pixels.png"})
    EXPECT_FALSE(fs::exists(out / "plots" / absent)) << absent;
  // A report with no successful run: a clear message and exit 2 (plot.py's bad input), no figures.
  json failed = report;
  for (auto& run : failed["runs"]) run["status"] = "error";
  std::ofstream(out / "failed.json") << failed.dump();
  const auto refused = runCommand(plot.substr(0, plot.find(' ')) + " " + (out / "failed.json").string() + " --out " +
                                  (out / "none").string());
  EXPECT_EQ(refused.exitCode, 2) << refused.all();
  EXPECT_NE(refused.err.find("failed.json: no successful run to plot"), std::string::npos) << refused.err;
  EXPECT_FALSE(fs::exists(out / "none" / "frame_gpu_ms.png"));

  fs::remove_all(out);
}

// The shipped configs (configs/*.json but the schema), by file name.
std::vector<std::string> shippedConfigs() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(fs::path(PTBENCH_SOURCE_DIR) / "configs"))
    if (entry.path().extension() == ".json" && entry.path().filename() != "schema.json")
      names.push_back(entry.path().filename().string());
  std::ranges::sort(names);
  return names;
}

TEST(RunCommand, ShippedConfigsAreFoundForTheirTests) {
  const std::vector<std::string> names = shippedConfigs();
  for (const char* name : {"ci.json", "default.json", "pool.json"})
    EXPECT_NE(std::ranges::find(names, name), names.end()) << name;
}

// One test per shipped config, so that CTest spreads them over its jobs: the config, shrunk to a
// few pixels, runs clean with the validation layers on. Each run creates its pipelines anew,
// seconds apiece on lavapipe, whatever the scene; so every variant of the sweep (integrator,
// backend, options, the other axes) runs on the config's first scene, each further scene with
// the megakernel on each backend (its loading, its materials and lights, its own settings), and
// every variant again on the last scene on the first backend (which alone covers the further
// scenes' part where the last is the only one and the backend too).
class ShippedConfig : public ::testing::TestWithParam<std::string> {};

TEST_P(ShippedConfig, RunsWithValidation) {
  if (GetParam() == "ci.json") GTEST_SKIP() << "CiConfigRunsCleanWithValidation runs it in full";
  const fs::path path = fs::path(PTBENCH_SOURCE_DIR) / "configs" / GetParam();
  const fs::path out = freshFolder("shipped-" + path.stem().string());
  const json config = readJson(path);
  // One measured frame, whichever repetition policy the config uses.
  const std::string oneFrame =
      config.contains("repeats") ? " --set repeats=1" : " --set min_samples=1 --set max_noise=1";
  std::string shrunk = config.contains("resolution") ? " --set resolution=8x8" : " --set width=8 --set height=8";
  // A sweep of pool sizes runs its default and one small pool: every size takes the same code.
  if (config.contains("options") && config["options"].contains("wavefront") &&
      config["options"]["wavefront"].contains("pool_size") && config["options"]["wavefront"]["pool_size"].is_array())
    shrunk += " --set 'options.wavefront.pool_size=[0, 16]'";
  shrunk += " --set spp=1 --set warmup=0 --set warmup_seconds=0" + oneFrame;

  // Runs the config with `overrides` into out/part; returns its report.
  const auto runPart = [&](const std::string& part, const std::string& overrides) {
    const auto result = runPtbench(
        "--validate run " + path.string() + " --quiet" + shrunk + overrides + " --out " + (out / part).string(), "",
        PTBENCH_SOURCE_DIR);
    // Error rows for what lavapipe lacks, and only those: megakernel-ser's runs (no SER) and
    // clocked runs on the pipeline backend (no subgroup operations in ray generation). Every other
    // run succeeds.
    const fs::path report = resultsFolder(out / part, config["name"]) / "report.json";
    const json runs = readJson(report)["runs"];
    bool refusedAny = false;
    for (const auto& run : runs) {
      const std::string error = run.value("error", "");
      const bool serRefused = run["parameters"]["integrator"] == "megakernel-ser" &&
                              error.find("VK_NV_ray_tracing_invocation_reorder") != std::string::npos;
      const bool clocksRefused = run["parameters"]["counters"] == "clocks" &&
                                 run["parameters"]["backend"] == "pipeline" &&
                                 error.find("in ray-generation shaders") != std::string::npos;
      const bool refused = run["status"] == "error" && (serRefused || clocksRefused);
      refusedAny |= refused;
      EXPECT_TRUE(run["status"] == "ok" || refused) << part << "\n" << run.dump();
    }
    EXPECT_EQ(result.exitCode, refusedAny ? 1 : 0) << part << "\n" << result.all();
    EXPECT_EQ(result.err.find("validation:"), std::string::npos) << part << "\n" << result.err;
    return report;
  };
  const json& scenes = config["scenes"];
  ASSERT_TRUE(scenes.is_array() && !scenes.empty()) << config.dump();
  const fs::path report = runPart("variants", " --set 'scenes=[" + scenes[0].dump() + "]'");
  if (scenes.size() > 1) {
    const json& backends = config["backends"];
    const bool oneBackend = backends.is_array() && backends.size() == 1 && backends[0] != "all";
    // With one further scene and one backend, the last scene's part below runs these runs too.
    const json furtherScenes(scenes.begin() + 1, scenes.end());
    if (furtherScenes.size() > 1 || !oneBackend)
      runPart("scenes", " --set 'scenes=" + furtherScenes.dump() + "' --set 'integrators=[\"megakernel\"]'");
    // The last scene is where configs put what the first lacks (an environment map, a sun, a
    // camera path): every integrator and option there too, on the first backend.
    const std::string firstBackend =
        backends.is_array() && backends.size() > 1 ? " --set 'backends=[" + backends[0].dump() + "]'" : "";
    runPart("last-scene", " --set 'scenes=[" + scenes.back().dump() + "]'" + firstBackend);
  }

  // The default config's report is one scripts/plot.py can draw.
  if (GetParam() == "default.json") {
    const std::string plot = "/usr/bin/python3 " + std::string(PTBENCH_SOURCE_DIR) + "/scripts/plot.py " +
                             report.string() + " -o " + (out / "plots").string() + " > /dev/null";
    EXPECT_EQ(std::system(plot.c_str()), 0);
    for (const char* image : {"frame_gpu_ms.png", "stage_breakdown.png"})
      EXPECT_GT(fs::file_size(out / "plots" / image), 1000u) << image;
  }
  fs::remove_all(out);
}

// "cornell-1024.json" as "cornell_1024" (test names take letters, digits and underscores).
std::string configTestName(const ::testing::TestParamInfo<std::string>& config) {
  std::string name = fs::path(config.param).stem().string();
  std::ranges::replace(name, '-', '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(RunCommand, ShippedConfig, ::testing::ValuesIn(shippedConfigs()), configTestName);

// A sweep with the diffuse raycast beside the path tracers: the raycast reports its trace
// stage's rate, each path tracer its fraction of it, in report.json, the CSV and the summary.
TEST(RunCommand, PathTracersAreReadAgainstTheDiffuseRaycastRoofline) {
  const fs::path out = freshFolder("roofline");
  const auto result = runPtbench("--validate run " + std::string(PTBENCH_SOURCE_DIR) +
                                 "/configs/roofline.json --set width=12 --set height=8 --set spp=1 --set repeats=1 "
                                 "--set 'scenes=[\"builtin:cornell\"]' --set 'backends=[\"rayquery\"]' "
                                 "--set 'options.raycast.rays=[\"diffuse\", \"shadow\"]' --json - --out " +
                                 out.string());
  ASSERT_EQ(result.exitCode, 0) << result.all();
  const json report = json::parse(result.out);
  EXPECT_EQ(report["schema_version"], 3);
  ASSERT_EQ(report["runs"].size(), 4u);  // raycast diffuse and shadow, megakernel, wavefront
  const json& diffuse = report["runs"][0];
  EXPECT_EQ(diffuse["parameters"]["options"]["rays"], "diffuse");
  EXPECT_GT(diffuse["raycast"]["rays_traced"].get<uint64_t>(), 0u);
  const double ceiling = diffuse["raycast"]["rays_per_s"];
  EXPECT_GT(ceiling, 0);
  EXPECT_EQ(report["runs"][1]["raycast"]["rays"], "shadow");
  for (size_t i : {2u, 3u}) {
    const json& run = report["runs"][i];
    EXPECT_EQ(run["roofline_run"], diffuse["id"]) << run["parameters"]["integrator"];
    EXPECT_NEAR(run["roofline_fraction"].get<double>(), run["throughput"]["rays_per_s"].get<double>() / ceiling,
                1e-9 * run["roofline_fraction"].get<double>());
  }
  EXPECT_NE(result.err.find("roofline"), std::string::npos) << "the summary's column\n" << result.err;
  EXPECT_NE(result.err.find("raycast diffuse"), std::string::npos) << result.err;
  std::ifstream csv(resultsFolder(out, "roofline") / "report.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_NE(header.find("raycast_rays_per_s,roofline_fraction"), std::string::npos) << header;
  fs::remove_all(out);
}

TEST(RunCommand, RelativeScenePathsResolveFromTheCurrentFolderAndJsonGoesToStdout) {
  const fs::path out = freshFolder("quick-run");
  const auto result = runPtbench(
      "run configs/cornell-quick.json --quiet --set width=16 --set height=16 --set repeats=1 "
      "--set spp=[1,2] --json - --out " +
          out.string(),
      "", PTBENCH_SOURCE_DIR);
  ASSERT_EQ(result.exitCode, 0) << result.all();
  const json report = json::parse(result.out);
  ASSERT_EQ(report["runs"].size(), 8u);
  EXPECT_EQ(report["config"]["width"], 16);
  EXPECT_EQ(report["runs"][0]["parameters"]["scene"], "scenes/CornellBox_bevy/CornellBox.glb");
  // A second run never reuses the first one's folder.
  const auto again = runPtbench(
      "run configs/cornell-quick.json --quiet --set width=8 --set height=8 --set repeats=1 "
      "--set spp=1 --out " +
          out.string(),
      "", PTBENCH_SOURCE_DIR);
  ASSERT_EQ(again.exitCode, 0) << again.all();
  size_t folders = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(out / "cornell-quick")) ++folders;
  EXPECT_EQ(folders, 2u);
  fs::remove_all(out);
}

// The software backend in a sweep: its option is a sweep axis of its runs only, every run
// succeeds, and its reports carry the layout, the BVH's build figures and its bytes.
TEST(RunCommand, SoftwareBackendRunsEachBvhLayoutItsConfigAsksFor) {
  const fs::path out = freshFolder("software-run");
  const auto result =
      runPtbench("run " + std::string(PTBENCH_SOURCE_DIR) +
                 "/configs/ci.json --quiet --set 'backends=[\"pipeline\",\"software\"]' --set spp=1 "
                 "--set 'integrators=[\"megakernel\",\"wavefront\"]' --set 'options={\"software\": {\"software_bvh\": "
                 "[\"cwbvh\", \"bvh2\"]}}' --set 'scenes=[\"builtin:cornell\"]' --set repeats=1 --out " +
                 out.string());
  EXPECT_EQ(result.exitCode, 0) << result.all();
  const json report = readJson(resultsFolder(out, "ci") / "report.json");
  ASSERT_EQ(report["runs"].size(), 2u * 3u) << "2 integrators x (pipeline, software cwbvh, software bvh2)";
  std::set<std::string> layouts;
  for (const auto& run : report["runs"]) {
    EXPECT_EQ(run["status"], "ok") << run.dump();
    const json& options = run["parameters"]["options"];
    if (run["parameters"]["backend"] != "software") {
      EXPECT_FALSE(options.contains("software_bvh")) << run.dump();
      // The scene's build, part of every run's scene_load_ms: both layouts, for the software runs.
      EXPECT_TRUE(run["software_bvh"]["cwbvh"].is_object()) << run.dump();
      EXPECT_TRUE(run["software_bvh"]["bvh2"].is_object()) << run.dump();
      continue;
    }
    const std::string layout = options.at("software_bvh");
    layouts.insert(layout);
    const json& bvh = run.at("software_bvh");
    EXPECT_GT(bvh["build_ms"].get<double>(), 0.0);
    EXPECT_EQ(run["memory_bytes"]["acceleration_structures"], bvh[layout]["bytes"]);
    EXPECT_GT(bvh[layout]["bottom_levels"]["nodes"].get<uint64_t>(), 0u);
    EXPECT_GT(bvh[layout]["bottom_levels"]["sah_cost"].get<double>(), 0.0);
  }
  EXPECT_EQ(layouts, (std::set<std::string>{"cwbvh", "bvh2"}));
  EXPECT_NE(result.out.find("software bvh2"), std::string::npos) << result.out;
  fs::remove_all(out);
}

// Issue 24: a sweep on hardware backends alone builds no software BVH, and a software run
// builds only its layout, on --threads threads; the report says what was not built.
TEST(RunCommand, SoftwareBvhIsBuiltOnlyForTheLayoutsRunsTraverse) {
  const fs::path out = freshFolder("bvh-when-needed");
  const auto result = runPtbench("run " + std::string(PTBENCH_SOURCE_DIR) +
                                 "/configs/ci.json --quiet --set 'backends=[\"rayquery\"]' --set spp=1 "
                                 "--set 'integrators=[\"megakernel\"]' --set 'scenes=[\"builtin:cornell\"]' "
                                 "--set repeats=1 --set options={} --out " +
                                 out.string());
  ASSERT_EQ(result.exitCode, 0) << result.all();
  const json hardware = readJson(resultsFolder(out, "ci") / "report.json");
  ASSERT_EQ(hardware["runs"].size(), 1u);
  EXPECT_EQ(hardware["runs"][0]["status"], "ok");
  EXPECT_EQ(hardware["runs"][0]["software_bvh"], "not built");
  fs::remove_all(out);

  const auto software = runPtbench("--threads 3 run " + std::string(PTBENCH_SOURCE_DIR) +
                                   "/configs/ci.json --quiet --set 'backends=[\"software\"]' --set spp=1 "
                                   "--set 'integrators=[\"megakernel\"]' --set 'scenes=[\"builtin:cornell\"]' "
                                   "--set repeats=1 --set 'options={\"software\": {\"software_bvh\": \"bvh2\"}}' "
                                   "--out " +
                                   out.string());
  ASSERT_EQ(software.exitCode, 0) << software.all();
  const json run = readJson(resultsFolder(out, "ci") / "report.json")["runs"][0];
  EXPECT_EQ(run["status"], "ok");
  EXPECT_GT(run["software_bvh"]["bvh2"]["bottom_levels"]["nodes"].get<uint64_t>(), 0u);
  EXPECT_EQ(run["software_bvh"]["cwbvh"], "not built");
  EXPECT_EQ(run["software_bvh"]["threads"], 3) << "--threads";
  fs::remove_all(out);
}

// Issue 24: runs on the GPU builder's tree and on the CPU's, side by side in one sweep; each
// run's report gives its builder's figures, and only the GPU one names the option.
TEST(RunCommand, SoftwareBuilderOptionPicksTheTreeAndReportsIt) {
  const fs::path out = freshFolder("software-builder");
  const auto result = runPtbench(
      "run " + std::string(PTBENCH_SOURCE_DIR) +
      "/configs/ci.json --quiet --set 'backends=[\"software\"]' --set spp=1 --set 'integrators=[\"megakernel\"]' "
      "--set 'scenes=[\"builtin:cornell\"]' --set repeats=1 "
      "--set 'options={\"software\": {\"software_builder\": [\"cpu\", \"gpu\"]}}' --out " +
      out.string());
  ASSERT_EQ(result.exitCode, 0) << result.all();
  const json runs = readJson(resultsFolder(out, "ci") / "report.json")["runs"];
  ASSERT_EQ(runs.size(), 2u) << runs.dump();
  std::set<std::string> builders;
  for (const json& run : runs) {
    EXPECT_EQ(run["status"], "ok") << run.dump();
    const json& bvh = run["software_bvh"];
    const std::string builder = bvh["builder"];
    builders.insert(builder);
    EXPECT_EQ(run["parameters"]["options"].contains("software_builder"), builder == "gpu") << run.dump();
    EXPECT_GT(bvh["cwbvh"]["bottom_levels"]["sah_cost"].get<double>(), 0.0);
    EXPECT_EQ(bvh.contains("gpu_build_ms"), builder == "gpu");
    EXPECT_EQ(bvh.contains("gpu_queue_wait_ms"), builder == "gpu");
    if (builder == "gpu") {
      EXPECT_GT(bvh["gpu_build_ms"].get<double>(), 0.0);
      EXPECT_GE(bvh["gpu_queue_wait_ms"].get<double>(), 0.0);
      EXPECT_GE(bvh["gpu_batches"].get<int>(), 1);
      double parts = 0;
      for (const char* part : {"prepare", "allocate", "copy", "convert"})
        parts += bvh["gpu_transfer_parts_ms"][part].get<double>();
      EXPECT_NEAR(parts, bvh["gpu_transfer_ms"].get<double>(), 1e-6 * parts + 1e-9);
      // Where the kernels' time goes: every stage the builder runs, within the kernels' span.
      double stages = 0;
      for (const char* stage : {"bvh_morton_codes", "bvh_sort", "bvh_hierarchy", "bvh_treelets", "bvh_renumber",
                                "bvh_fit", "bvh_emit", "bvh_collapse"}) {
        ASSERT_TRUE(bvh["gpu_stage_ms"].contains(stage)) << stage << ": " << bvh.dump();
        EXPECT_GT(bvh["gpu_stage_ms"][stage].get<double>(), 0.0) << stage;
        stages += bvh["gpu_stage_ms"][stage].get<double>();
      }
      EXPECT_EQ(bvh["gpu_stage_ms"].size(), 8u) << bvh.dump();
      EXPECT_LE(stages, bvh["gpu_build_ms"].get<double>() * (1 + 1e-9));
    }
  }
  EXPECT_EQ(builders, (std::set<std::string>{"cpu", "gpu"}));
  fs::remove_all(out);
}

// A backend named beside `all` runs once: `all` stands for the backends the list does not name.
TEST(RunCommand, AllBesideANamedBackendRunsItOnce) {
  const fs::path out = freshFolder("all-and-software");
  const auto result = runPtbench("run " + std::string(PTBENCH_SOURCE_DIR) +
                                 "/configs/ci.json --quiet --set 'backends=[\"all\",\"software\"]' --set spp=1 "
                                 "--set 'integrators=[\"megakernel\"]' --set 'scenes=[\"builtin:cornell\"]' "
                                 "--set repeats=1 --set options={} --out " +
                                 out.string());
  EXPECT_EQ(result.exitCode, 0) << result.all();
  const json report = readJson(resultsFolder(out, "ci") / "report.json");
  std::multiset<std::string> backends;
  for (const auto& run : report["runs"]) backends.insert(run["parameters"]["backend"].get<std::string>());
  EXPECT_EQ(backends, (std::multiset<std::string>{"rayquery", "pipeline", "software"}));
  fs::remove_all(out);
}

// run --dry-run prints the plan (every run's backend resolved on this device, the default pool
// and why) and touches nothing: no results folder. A run that cannot run (megakernel-ser
// without SER on lavapipe) is named with its reason, and the exit code says so.
TEST(RunCommand, DryRunPrintsThePlanWithoutRunningAnything) {
  const fs::path out = freshFolder("dry-run");
  const std::string config = std::string(PTBENCH_SOURCE_DIR) + "/configs/ci.json";
  const auto planned =
      runPtbench("run " + config +
                 " --dry-run --set 'backends=[\"all\"]' --set 'integrators=[\"megakernel\",\"wavefront\"]' "
                 "--set 'scenes=[\"builtin:cornell\"]' --set options={} --set spp=1 --out " +
                 out.string());
  EXPECT_EQ(planned.exitCode, 0) << planned.all();
  for (const char* expected :
       {"6 run(s)", "r000 builtin:cornell | megakernel | rayquery", "| megakernel | pipeline", "| software",
        "| wavefront |", "pool: ", "nothing run", "no estimate of its time: no earlier report"})
    EXPECT_NE(planned.out.find(expected), std::string::npos) << expected << "\n" << planned.out;
  EXPECT_TRUE(fs::is_empty(out)) << "a dry run made a results folder";

  const auto refused = runPtbench("run " + config +
                                  " --dry-run --set 'backends=[\"pipeline\"]' --set 'integrators=[\"megakernel-ser\"]' "
                                  "--set 'scenes=[\"builtin:cornell\"]' --set options={} --set spp=1 --out " +
                                  out.string());
  EXPECT_EQ(refused.exitCode, 1) << refused.all();
  EXPECT_NE(refused.out.find("CANNOT RUN: "), std::string::npos) << refused.out;
  EXPECT_NE(refused.out.find("VK_NV_ray_tracing_invocation_reorder"), std::string::npos) << refused.out;
  EXPECT_TRUE(fs::is_empty(out));
  fs::remove_all(out);
}

// A tiny sweep for the tests below: one scene, two integrators, the software backend, 5 frames.
std::string tinySweep(const fs::path& out, const std::string& more = "") {
  return "run " + std::string(PTBENCH_SOURCE_DIR) +
         "/configs/ci.json --quiet --set 'scenes=[\"builtin:cornell\"]' --set 'integrators=[\"megakernel\",\"wavefront\"]'"
         " --set 'backends=[\"software\"]' --set options={} --set spp=1 --set repeats=5 --set images=false --out " +
         out.string() + " " + more;
}

// Two runs of one config by one build, back to back on lavapipe, were once called a regression
// (3.3% apart at a cv of 0.55%): a CPU implementation's times move with the host's load. Compared,
// they are undecided and say why, never a regression, however often they are run.
TEST(RunCommand, TwoRunsOfOneBuildOnACpuDeviceAreNeverARegression) {
  const fs::path out = freshFolder("back-to-back");
  for (int pair = 0; pair < 3; ++pair) {
    std::vector<fs::path> reports;
    for (int side = 0; side < 2; ++side) {
      const fs::path folder = out / (std::to_string(pair) + "-" + std::to_string(side));
      const auto result = runPtbench(tinySweep(folder));
      ASSERT_EQ(result.exitCode, 0) << result.all();
      reports.push_back(resultsFolder(folder, "ci") / "report.json");
    }
    const auto compared = runPtbench("compare " + reports[0].string() + " " + reports[1].string());
    EXPECT_EQ(compared.exitCode, 2) << compared.all();
    EXPECT_EQ(compared.out.find("REGRESSED"), std::string::npos) << compared.out;
    EXPECT_NE(compared.out.find("CPU implementation"), std::string::npos) << compared.out;
    const json report = readJson(reports[0]);
    bool noted = false;
    for (const auto& note : report["notes"]) noted |= note.get<std::string>().find("CPU implementation") != std::string::npos;
    EXPECT_TRUE(noted) << report["notes"].dump();
  }
  fs::remove_all(out);
}

// The dry-run estimates a sweep's time from the newest earlier report of its config, run for run.
TEST(RunCommand, DryRunEstimatesTheTimeFromAnEarlierReport) {
  const fs::path out = freshFolder("estimate");
  const auto before = runPtbench(tinySweep(out, "--dry-run"));
  EXPECT_EQ(before.exitCode, 0) << before.all();
  EXPECT_NE(before.out.find("no estimate of its time: no earlier report under " + (out / "ci").string()),
            std::string::npos)
      << before.out;
  ASSERT_EQ(runPtbench(tinySweep(out)).exitCode, 0);
  const json report = readJson(resultsFolder(out, "ci") / "report.json");
  for (const auto& run : report["runs"]) EXPECT_GT(run["wall_ms"].get<double>(), 0) << run.dump();
  const auto after = runPtbench(tinySweep(out, "--dry-run"));
  EXPECT_EQ(after.exitCode, 0) << after.all();
  EXPECT_NE(after.out.find("estimated time: about "), std::string::npos) << after.out;
  EXPECT_NE(after.out.find("as its runs took in " + (resultsFolder(out, "ci") / "report.json").string()),
            std::string::npos)
      << after.out;
  // A sweep of which the report holds only some runs says for how many the estimate stands.
  const auto more = runPtbench(tinySweep(out, "--dry-run --set 'spp=[1,2]'"));
  EXPECT_NE(more.out.find("for the 2 of 4 runs found there"), std::string::npos) << more.out;
  fs::remove_all(out);
}

// On a CPU implementation auto is the software backend (fastest there on every scene that
// matters: results/published/2026-12-01-cpu-backends-lavapipe), and the plan says so.
TEST(RunCommand, AutoIsTheSoftwareBackendOnACpuImplementation) {
  const fs::path out = freshFolder("auto-cpu");
  const auto planned = runPtbench(tinySweep(out, "--dry-run --set 'backends=[\"auto\"]'"));
  EXPECT_EQ(planned.exitCode, 0) << planned.all();
  EXPECT_NE(planned.out.find("r000 builtin:cornell | megakernel | software"), std::string::npos) << planned.out;
  EXPECT_NE(planned.out.find("note: backend auto is software on a CPU implementation"), std::string::npos)
      << planned.out;
  const auto rendered = runPtbench("render --scene builtin:cornell --width 8 --height 8 --spp 1");
  EXPECT_EQ(rendered.exitCode, 0) << rendered.all();
  EXPECT_NE(rendered.all().find("software"), std::string::npos) << rendered.all();
  fs::remove_all(out);
}

// A scene with nothing that emits light (many downloaded glTFs: their viewer lights them) used
// to render black without a word: it warns, and its runs carry the note into the report and the
// summary. With an environment it is lit, and nothing is said.
TEST(RunCommand, AnUnlitSceneWarnsAndItsRunsSayWhy) {
  const fs::path out = freshFolder("unlit");
  const auto result = runPtbench(tinySweep(out, "--set 'scenes=[\"builtin:furnace\"]'"));
  EXPECT_EQ(result.exitCode, 0) << result.all();
  EXPECT_NE(result.err.find("builtin:furnace: nothing in it emits light"), std::string::npos) << result.err;
  EXPECT_NE(result.out.find("warning: runs r000, r001: builtin:furnace: nothing in it emits light"),
            std::string::npos)
      << result.out;
  const json report = readJson(resultsFolder(out, "ci") / "report.json");
  ASSERT_EQ(report["runs"][0]["notes"].size(), 1u) << report["runs"][0].dump();
  const auto lit = runPtbench(tinySweep(out / "lit", "--set 'scenes=[{\"path\": \"builtin:furnace\", \"env\": [1, 1, 1]}]'"));
  EXPECT_EQ(lit.exitCode, 0) << lit.all();
  EXPECT_EQ(lit.all().find("emits light"), std::string::npos) << lit.all();
  const auto rendered = runPtbench("render --scene builtin:furnace --width 8 --height 8 --spp 1");
  EXPECT_NE(rendered.err.find("nothing in it emits light"), std::string::npos) << rendered.err;
  const auto renderedLit = runPtbench("render --scene builtin:furnace --env 1,1,1 --width 8 --height 8 --spp 1");
  EXPECT_EQ(renderedLit.err.find("emits light"), std::string::npos) << renderedLit.err;
  fs::remove_all(out);
}

// counters: ["off", "clocks"]: the clocked runs carry their phase shares per bounce or stage and
// the summary says them with their cost against the unclocked twin; a value naming both counters
// is refused.
TEST(RunCommand, ClockedRunsCarryTheirPhasesBesideUnclockedTwins) {
  const fs::path dir = freshFolder("clocks");
  std::ofstream(dir / "config.json") << R"({"schema_version": 1, "name": "clocks", "scenes": ["builtin:cornell"],
      "integrators": ["megakernel", "wavefront"], "backends": ["rayquery"], "counters": ["off", "clocks"],
      "width": 8, "height": 8, "spp": 1, "warmup": 0, "repeats": 1})";
  const auto result =
      runPtbench("--validate run " + (dir / "config.json").string() + " --out " + (dir / "out").string());
  EXPECT_EQ(result.exitCode, 0) << result.all();
  const json report = readJson(resultsFolder(dir / "out", "clocks") / "report.json");
  ASSERT_EQ(report["runs"].size(), 4u);
  for (const auto& run : report["runs"]) {
    const auto& p = run["parameters"];
    EXPECT_EQ(run.contains("clocks"), p["counters"] == "clocks") << run.dump();
    if (!run.contains("clocks")) continue;
    EXPECT_EQ(run["clocks"].contains("per_stage"), p["integrator"] == "wavefront");
    EXPECT_GT(run["clocks"]["phases"]["traversal"].get<double>(), 0.0);
    EXPECT_NE(result.out.find("phases of run " + run["id"].get<std::string>() + ": traversal "), std::string::npos)
        << result.out;
  }
  EXPECT_NE(result.out.find("x the frame time without clocks"), std::string::npos) << result.out;
  const auto planned =
      runPtbench("run " + (dir / "config.json").string() + " --dry-run --out " + (dir / "plan").string());
  // The counters differ between the runs: every label says which.
  EXPECT_NE(planned.out.find("r001 builtin:cornell | megakernel | rayquery | counters=clocks\n"), std::string::npos)
      << planned.out;
  EXPECT_NE(planned.out.find("r000 builtin:cornell | megakernel | rayquery | counters=off\n"), std::string::npos)
      << planned.out;
  std::ofstream(dir / "both.json") << R"({"schema_version": 1, "name": "both", "scenes": ["builtin:cornell"],
      "counters": "simt+clocks"})";
  const auto both = runPtbench("validate " + (dir / "both.json").string());
  EXPECT_NE(both.exitCode, 0);
  EXPECT_NE(both.all().find("/counters"), std::string::npos) << both.all();
  fs::remove_all(dir);
}

// counters: ["off", "simt"] doubles the path tracers' runs (not the raycast's, which has no
// shading point): the counted ones carry utilisation and coherence per bounce, in the JSON and
// the CSV, and a run key of their own; the others carry none. integrators: ["all"] skips
// megakernel-ser on lavapipe with a note; named, it is an error row naming the extension.
TEST(RunCommand, CountersAreFlaggedAndSerIsSkippedOrRefusedWhereTheDeviceLacksIt) {
  const fs::path dir = freshFolder("counters");
  std::ofstream(dir / "config.json")
      << R"({"schema_version": 1, "name": "counters", "scenes": ["builtin:cornell"], "integrators": ["all"],
      "backends": ["rayquery"], "counters": ["off", "simt"], "width": 8, "height": 8, "spp": 1, "warmup": 0,
      "repeats": 1})";
  const auto result =
      runPtbench("--validate run " + (dir / "config.json").string() + " --quiet --out " + (dir / "out").string());
  EXPECT_EQ(result.exitCode, 0) << result.all();
  const fs::path folder = resultsFolder(dir / "out", "counters");
  const json report = readJson(folder / "report.json");
  // The skip's note, beside the one that says the device is a CPU implementation.
  ASSERT_EQ(report["notes"].size(), 2u) << report["notes"].dump();
  EXPECT_NE(report["notes"].dump().find("megakernel-ser skipped"), std::string::npos) << report["notes"].dump();
  std::multiset<std::string> counted, uncounted;
  for (const auto& run : report["runs"]) {
    EXPECT_EQ(run["status"], "ok") << run.dump();
    const auto& p = run["parameters"];
    EXPECT_NE(p["integrator"], "megakernel-ser");
    (p["counters"] == "simt" ? counted : uncounted).insert(p["integrator"].get<std::string>());
    EXPECT_EQ(run.contains("simt"), p["counters"] == "simt") << run.dump();
    if (!run.contains("simt")) continue;
    EXPECT_EQ(run["simt"]["subgroup_size"], 8);
    EXPECT_GT(run["simt"]["utilisation"].get<double>(), 0.0);
    EXPECT_LE(run["simt"]["utilisation"].get<double>(), 1.0);
    EXPECT_GE(run["simt"]["coherence"].get<double>(), 1.0);
    EXPECT_EQ(run["simt"]["per_bounce"][0]["bounce"], 1);
    EXPECT_EQ(run["simt"]["stage"], p["integrator"] == "wavefront" ? "shade" : "trace_shade");
  }
  EXPECT_EQ(counted, (std::multiset<std::string>{"megakernel", "megakernel-regen", "wavefront"}));
  EXPECT_EQ(uncounted, (std::multiset<std::string>{"megakernel", "megakernel-regen", "wavefront", "raycast"}));
  std::ifstream csv(folder / "report.csv");
  std::string header, line;
  std::getline(csv, header);
  EXPECT_NE(header.find(",counters,"), std::string::npos);
  EXPECT_NE(header.find(",simt_utilisation,simt_coherence,relmse,flip,"), std::string::npos) << header;
  size_t bounceRows = 0;
  while (std::getline(csv, line)) {
    EXPECT_EQ(csvFieldCount(line), csvFieldCount(header)) << line;
    bounceRows +=
        line.find(",simt_trace_shade,") != std::string::npos || line.find(",simt_shade,") != std::string::npos;
  }
  EXPECT_GT(bounceRows, 3u);

  std::ofstream(dir / "ser.json") << R"({"schema_version": 1, "name": "ser", "scenes": ["builtin:cornell"],
      "integrators": ["megakernel-ser"], "width": 8, "height": 8, "spp": 1, "warmup": 0, "repeats": 1})";
  const auto ser = runPtbench("run " + (dir / "ser.json").string() + " --quiet --out " + (dir / "out").string());
  EXPECT_EQ(ser.exitCode, 1) << ser.all();
  const json serReport = readJson(resultsFolder(dir / "out", "ser") / "report.json");
  ASSERT_EQ(serReport["runs"].size(), 1u);
  EXPECT_EQ(serReport["runs"][0]["status"], "error");
  EXPECT_EQ(serReport["runs"][0]["parameters"]["backend"], "pipeline");
  EXPECT_NE(serReport["runs"][0]["error"].get<std::string>().find("VK_NV_ray_tracing_invocation_reorder"),
            std::string::npos);
  fs::remove_all(dir);
}

// A camera path on builtin:cornell: `reference --camera-path` renders one reference a frame,
// and a run along the same path (given by the same file) renders its three frames once, in
// order, each a different image with its own error against its own frame's reference.
TEST(RunCommand, ACameraPathRendersItsFramesAgainstTheirReferences) {
  const fs::path dir = freshFolder("camera-path");
  std::ofstream(dir / "path.json") << R"({"keyframes": [
      {"time": 0, "position": [0.278, 0.273, -0.8], "target": [0.278, 0.273, 0]},
      {"time": 1, "position": [0.15, 0.3, -0.7], "target": [0.35, 0.25, 0.2]},
      {"time": 2, "position": [0.4, 0.2, -0.6], "target": [0.2, 0.3, 0.3]}], "fps": 1, "frames": 3})";
  const auto reference = runPtbench("reference builtin:cornell --camera-path " + (dir / "path.json").string() +
                                    " --width 16 --height 16 --spp 256 --out " + (dir / "cornell.exr").string());
  ASSERT_EQ(reference.exitCode, 0) << reference.all();
  EXPECT_NE(reference.out.find("reference: 3 path frames, each 256 spp"), std::string::npos) << reference.out;
  std::vector<LinearImage> references;
  for (uint32_t k = 0; k < 3; ++k)
    references.push_back(readLinearImage(dir / ("cornell-frame00" + std::to_string(k) + ".exr")));

  std::ofstream(dir / "config.json") << R"({"schema_version": 1, "name": "path",
      "scenes": [{"path": "builtin:cornell", "camera": {"path": "path.json"}, "reference": "cornell.exr"}],
      "integrators": ["megakernel", "wavefront"], "options": {"megakernel": {"restir": ["off", "di"]}},
      "backends": "rayquery", "width": 16, "height": 16, "spp": 64, "warmup": 1, "repeats": 5})";
  const auto result =
      runPtbench("--validate run " + (dir / "config.json").string() + " --quiet --out " + (dir / "out").string());
  ASSERT_EQ(result.exitCode, 0) << result.all();
  EXPECT_EQ(result.err.find("validation:"), std::string::npos) << result.err;
  const fs::path folder = resultsFolder(dir / "out", "path");
  const json report = readJson(folder / "report.json");
  ASSERT_EQ(report["runs"].size(), 3u);
  for (const auto& run : report["runs"]) {
    ASSERT_EQ(run["status"], "ok") << run.dump();
    EXPECT_EQ(run["frames"], 3) << "a path times each frame once, whatever repeats says";
    EXPECT_EQ(run["warmup_frames"], 1);
    const json& frames = run["camera_path"]["frames"];
    ASSERT_EQ(frames.size(), 3u);
    std::vector<LinearImage> images;
    for (uint32_t k = 0; k < 3; ++k) {
      EXPECT_EQ(frames[k]["frame"], k);
      EXPECT_EQ(frames[k]["gpu_ms"], run["frame_gpu_ms_samples"][k]);
      const std::string exr = frames[k]["images"]["exr"];
      EXPECT_NE(exr.find("-frame00" + std::to_string(k) + ".exr"), std::string::npos) << exr;
      images.push_back(readLinearImage(folder / exr));
      // Its error is against its own frame's reference: another frame's is much further.
      const double relmse = frames[k]["relmse"];
      EXPECT_GT(relmse, 0.0);
      const auto own = convergenceMetrics(images[k], references[k]);
      ASSERT_TRUE(own.has_value());
      EXPECT_NEAR(own->relmse, relmse, 1e-6 * relmse) << k;
      // FLIP beside it, of the same image against the same reference.
      const double flip = frames[k]["flip"];
      EXPECT_GT(flip, 0.0);
      EXPECT_LT(flip, 1.0);
      EXPECT_NEAR(own->flip.value(), flip, 1e-6) << k;
      const auto other = convergenceMetrics(images[k], references[(k + 1) % 3]);
      EXPECT_GT(other->relmse, 2 * relmse) << "frame " << k << " against the next frame's reference";
    }
    const json& path = run["camera_path"];
    EXPECT_GT(path["relmse_mean"].get<double>(), 0.0);
    auto median = [&](const char* key) {
      std::vector<double> values;
      for (const auto& frame : frames) values.push_back(frame[key]);
      std::sort(values.begin(), values.end());
      return values[1];
    };
    EXPECT_DOUBLE_EQ(path["relmse_median"].get<double>(), median("relmse"));
    EXPECT_DOUBLE_EQ(path["flip_median"].get<double>(), median("flip"));
    EXPECT_NEAR(
        path["flip_mean"].get<double>(),
        (frames[0]["flip"].get<double>() + frames[1]["flip"].get<double>() + frames[2]["flip"].get<double>()) / 3,
        1e-12);
    const auto& times = run["frame_gpu_ms_samples"];
    EXPECT_NEAR(path["gpu_ms_mean"].get<double>(),
                (times[0].get<double>() + times[1].get<double>() + times[2].get<double>()) / 3, 1e-9);
    EXPECT_NEAR(path["efficiency"].get<double>(),
                1 / (path["relmse_mean"].get<double>() * path["gpu_ms_mean"].get<double>() * 1e-3),
                1e-9 * path["efficiency"].get<double>());
    EXPECT_EQ(run["images"]["exr"], frames[2]["images"]["exr"]) << "the run's image is its last frame's";
    // The camera moved: no two frames' images are alike.
    for (uint32_t k = 0; k < 3; ++k)
      EXPECT_GT(convergenceMetrics(images[k], images[(k + 1) % 3])->relmse, 5 * frames[k]["relmse"].get<double>()) << k;
  }
  // The summary sets ReSTIR's error per millisecond against its twin's without it, at equal time.
  const auto summary = runPtbench("summary " + (folder / "report.json").string());
  ASSERT_EQ(summary.exitCode, 0) << summary.all();
  EXPECT_NE(summary.out.find("camera path of run r000 (megakernel"), std::string::npos) << summary.out;
  EXPECT_NE(
      summary.out.find(fmt::format("mean FLIP {:.4f}", report["runs"][0]["camera_path"]["flip_mean"].get<double>())),
      std::string::npos)
      << summary.out;
  const double ratio = report["runs"][1]["camera_path"]["efficiency"].get<double>() /
                       report["runs"][0]["camera_path"]["efficiency"].get<double>();
  EXPECT_NE(summary.out.find(fmt::format("{:.2f}x plain path tracing's (run r000)", ratio)), std::string::npos)
      << summary.out;
  // scripts/plot.py draws error and time along the path.
  const std::string plot = "/usr/bin/python3 " + std::string(PTBENCH_SOURCE_DIR) + "/scripts/plot.py " +
                           (folder / "report.json").string() + " -o " + (dir / "plots").string() + " > /dev/null";
  EXPECT_EQ(std::system(plot.c_str()), 0);
  EXPECT_GT(fs::file_size(dir / "plots" / "camera_path.png"), 1000u);
  fs::remove_all(dir);
}

// ptbench reference renders a converged image; a scene naming it gives each run its RMSE and
// relMSE (falling with samples), the projected seconds to target_relmse and the efficiency; a
// run of another size says why it has none. On lavapipe there is no NVML: the clock fields are
// null and nothing warns. `summary` prints the saved report as Markdown.
TEST(RunCommand, ConvergenceAgainstAReferenceAndNoClocksWithoutNvml) {
  const fs::path dir = freshFolder("convergence");
  const auto reference = runPtbench("reference builtin:cornell --width 16 --height 16 --spp 512 --out " +
                                    (dir / "cornell.exr").string() + " " + (dir / "cornell.png").string());
  ASSERT_EQ(reference.exitCode, 0) << reference.all();
  EXPECT_NE(reference.out.find("512 spp in 8 frames"), std::string::npos) << reference.out;
  EXPECT_GT(fs::file_size(dir / "cornell.png"), 100u);
  std::ofstream(dir / "config.json")
      << R"({"schema_version": 1, "name": "convergence", "scenes": [{"path": "builtin:cornell", "reference": "cornell.exr"}],
      "integrators": ["megakernel", "wavefront"], "backends": "rayquery", "width": [16, 8], "height": 16,
      "spp": [1, 16], "target_relmse": 0.001, "warmup": 0, "warmup_seconds": 0.05, "repeats": 1, "images": false})";
  const auto result = runPtbench("run " + (dir / "config.json").string() + " --quiet --out " + (dir / "out").string() +
                                 " --md " + (dir / "summary.md").string());
  EXPECT_EQ(result.exitCode, 0) << result.all();
  EXPECT_EQ(result.err.find("NVML"), std::string::npos) << result.err;
  const fs::path folder = resultsFolder(dir / "out", "convergence");
  const json report = readJson(folder / "report.json");
  EXPECT_TRUE(report["device"]["sm_count"].is_null());
  EXPECT_TRUE(report["device"]["memory_bus_width_bits"].is_null());
  std::map<std::pair<std::string, int>, double> relmse;  // (integrator, spp) at 16x16
  for (const auto& run : report["runs"]) {
    ASSERT_EQ(run["status"], "ok") << run.dump();
    EXPECT_TRUE(run["gpu_context"]["sm_clock_mhz_mean"].is_null());
    EXPECT_GE(run["warmup_frames"].get<int>(), 1) << "warmup_seconds asks frames of warmup 0";
    const json& convergence = run["convergence"];
    EXPECT_EQ(convergence["target_relmse"], 0.001);
    if (run["parameters"]["width"] == 8) {
      EXPECT_NE(convergence["error"].get<std::string>().find("render a reference of the run's size"),
                std::string::npos);
      continue;
    }
    EXPECT_GT(convergence["rmse"].get<double>(), 0.0);
    EXPECT_GT(convergence["seconds_to_target"].get<double>(), 0.0);
    EXPECT_GT(convergence["efficiency"].get<double>(), 0.0);
    relmse[{run["parameters"]["integrator"], run["parameters"]["spp"]}] = convergence["relmse"];
  }
  for (const std::string integrator : {"megakernel", "wavefront"}) {
    const double few = relmse[std::pair(integrator, 1)], many = relmse[std::pair(integrator, 16)];
    EXPECT_LT(4 * many, few) << integrator << ": 16x the samples";
  }
  std::ifstream markdown(dir / "summary.md");
  std::string device, blank, header;
  std::getline(markdown, device);
  std::getline(markdown, blank);
  std::getline(markdown, header);
  EXPECT_EQ(device.rfind("device: llvmpipe", 0), 0u) << device;
  EXPECT_EQ(header.rfind("| run | scene | integrator |", 0), 0u) << header;
  const auto summary = runPtbench("summary " + (folder / "report.json").string() + " --format md");
  EXPECT_EQ(summary.exitCode, 0) << summary.all();
  EXPECT_EQ(summary.out.find("\n" + header + "\n"), summary.out.find('\n') + 1) << summary.out;
  const auto missing = runPtbench("summary " + (dir / "none.json").string());
  EXPECT_EQ(missing.exitCode, 1);
  EXPECT_NE(missing.err.find("none.json: cannot read the report"), std::string::npos) << missing.err;
  std::ofstream(dir / "bad.json")
      << R"({"schema_version": 1, "name": "bad", "scenes": [{"path": "builtin:cornell", "reference": "gone.exr"}]})";
  const auto bad = runPtbench("validate " + (dir / "bad.json").string());
  EXPECT_EQ(bad.exitCode, 65);
  EXPECT_NE(bad.err.find("/scenes/0/reference: reference image gone.exr not found"), std::string::npos) << bad.err;
  fs::remove_all(dir);
}

// --resume once kept a failed run as it was (a full disk at its image, a GPU timeout the user
// has since raised, as the message tells them to), so the report stayed an error and said
// complete; it ran a second time beside a resume already running it; and after the report's
// config was edited it dropped the finished runs the config no longer made, their images then
// overwritten by the runs taking their ids.
TEST(RunCommand, AResumeRetriesFailedRunsRefusesAFolderInUseAndLosesNoFinishedRun) {
  const fs::path out = freshFolder("resume-retries");
  std::ofstream(out / "sweep.json") << R"({"schema_version": 1, "name": "r", "scenes": ["builtin:cornell"],
      "backends": ["software"], "width": 8, "height": 8, "spp": [1, 2], "max_depth": 2, "warmup": 0, "repeats": 1})";
  ASSERT_EQ(runPtbench("run " + (out / "sweep.json").string() + " --quiet --out " + out.string()).exitCode, 0);
  const fs::path folder = resultsFolder(out, "r");
  json report = readJson(folder / "report.json");
  ASSERT_EQ(report["runs"].size(), 2u);
  const json kept = report["runs"][0];
  json& failed = report["runs"][1];
  fs::remove(folder / failed["images"]["png"].get<std::string>());
  failed = {{"id", failed["id"]},
            {"sweep_index", failed["sweep_index"]},
            {"variant", failed["variant"]},
            {"status", "error"},
            {"error", "cannot write r001.png: No space left on device"},
            {"parameters", failed["parameters"]}};
  report["complete"] = true;
  std::ofstream(folder / "report.json") << report.dump(2);

  {  // Another process's lock on the folder, as a resume in progress holds it.
    const int held = open(folder.c_str(), O_RDONLY | O_DIRECTORY);
    ASSERT_GE(held, 0);
    ASSERT_EQ(flock(held, LOCK_EX | LOCK_NB), 0);
    const auto busy = runPtbench("run --resume " + folder.string(), "", PTBENCH_SOURCE_DIR);
    close(held);
    EXPECT_EQ(busy.exitCode, 1) << busy.all();
    EXPECT_NE(busy.err.find(folder.string() + ": another ptbench is running or resuming"), std::string::npos)
        << busy.err;
    EXPECT_EQ(readJson(folder / "report.json")["runs"][1]["status"], "error") << "nothing ran";
  }

  const auto resumed = runPtbench("run --resume " + folder.string(), "", PTBENCH_SOURCE_DIR);
  EXPECT_EQ(resumed.exitCode, 0) << resumed.all();
  EXPECT_NE(resumed.err.find("1 finished run(s) kept, 1 that failed run again"), std::string::npos) << resumed.err;
  report = readJson(folder / "report.json");
  EXPECT_EQ(report["runs"][0]["frame_gpu_ms_samples"], kept["frame_gpu_ms_samples"]) << "kept as it was";
  EXPECT_EQ(report["runs"][1]["status"], "ok");
  EXPECT_TRUE(fs::exists(folder / report["runs"][1]["images"]["png"].get<std::string>()));

  // The report's config edited: its finished runs are no runs of that sweep.
  const std::string before = report.dump();
  report["config"]["spp"] = json::array({4});
  std::ofstream(folder / "report.json") << report.dump(2);
  const auto edited = runPtbench("run --resume " + folder.string(), "", PTBENCH_SOURCE_DIR);
  EXPECT_EQ(edited.exitCode, 65) << edited.all();
  EXPECT_NE(edited.err.find("its finished run r000 (scene=builtin:cornell"), std::string::npos) << edited.err;
  EXPECT_NE(edited.err.find("2 finished run(s) would be lost"), std::string::npos) << edited.err;
  EXPECT_EQ(readJson(folder / "report.json")["runs"].size(), 2u) << "the report left as it was";
  fs::remove_all(out);
}

// A sweep killed with SIGKILL keeps in its report every run finished before the one in flight
// (the report is rewritten after each run); --resume keeps those as they are, runs the rest and
// completes the report. Then the same sweep in three shards, merged: the same runs, in the same
// order, as one process made.
TEST(RunCommand, AKilledSweepResumesAndShardsMergeIntoTheSameReport) {
  const fs::path out = freshFolder("resume");
  // Scenes, integrators, wavefront schedules and two spp values: 24 runs on one backend.
  const std::string sweep =
      std::string(PTBENCH_SOURCE_DIR) +
      "/configs/ci.json --quiet --set spp=[1,2] --set backends=rayquery --set repeats=1 "
      "--set warmup=0 --set width=16 --set height=16 --set options.wavefront.material_queues=false";
  json complete;
  // SIGKILL leaves the last checkpoint; SIGINT the report the handler writes after the frame.
  for (const std::string signal : {"KILL", "INT"}) {
    const fs::path results = out / ("results-" + signal);
    const std::string report = (results / "ci" / "*" / "report.json").string();
    const std::string script = "cd " + out.string() + " && env PTBENCH_DEVICE=" + std::string(testDevice) + " " +
                               PTBENCH_EXECUTABLE + " run " + sweep + " --out " + results.string() +
                               " >/dev/null 2>&1 & pid=$!; until grep -q \"\\\"ok\\\"\" " + report +
                               " 2>/dev/null; do sleep 0.05; done; kill -" + signal + " $pid; wait $pid";
    EXPECT_NE(std::system(("sh -c '" + script + "'").c_str()), 0) << signal;
    const fs::path folder = resultsFolder(results, "ci");
    const json stopped = readJson(folder / "report.json");
    EXPECT_EQ(stopped["complete"], false) << signal;
    std::map<std::string, json> finished;
    for (const auto& run : stopped["runs"]) {
      EXPECT_TRUE(run["status"] == "ok" || run["status"] == "interrupted") << run.dump();
      if (run["status"] == "ok") finished[run["id"]] = run["frame_gpu_ms_samples"];
    }
    ASSERT_FALSE(finished.empty()) << signal;
    ASSERT_LT(finished.size(), stopped["runs"].size()) << signal << ": stopped before its end";

    const auto resumed = runPtbench("run --resume " + folder.string() + " --quiet", "", PTBENCH_SOURCE_DIR);
    EXPECT_EQ(resumed.exitCode, 0) << signal << "\n" << resumed.all();
    complete = readJson(folder / "report.json");
    EXPECT_EQ(complete["complete"], true) << signal;
    ASSERT_EQ(complete["runs"].size(), stopped["runs"].size()) << signal;
    for (const auto& run : complete["runs"]) {
      EXPECT_EQ(run["status"], "ok") << run.dump();
      if (finished.count(run["id"])) {
        EXPECT_EQ(run["frame_gpu_ms_samples"], finished[run["id"]]) << signal << ": kept as it was";
      }
      EXPECT_TRUE(fs::exists(folder / run["images"]["png"].get<std::string>())) << run["id"];
    }
    const auto again = runPtbench("run " + sweep + " --resume " + folder.string());
    EXPECT_EQ(again.exitCode, 1);
    EXPECT_NE(again.err.find("give no config"), std::string::npos) << again.err;
  }
  // A report of another device is not continued here.
  const fs::path moved = out / "moved";
  fs::copy(resultsFolder(out / "results-INT", "ci"), moved);
  json elsewhere = readJson(moved / "report.json");
  elsewhere["device"]["name"] = "Some Other GPU";
  std::ofstream(moved / "report.json") << elsewhere.dump();
  const auto refused = runPtbench("run --resume " + moved.string(), "", PTBENCH_SOURCE_DIR);
  EXPECT_EQ(refused.exitCode, 1);
  EXPECT_NE(refused.err.find("its runs ran on Some Other GPU"), std::string::npos) << refused.err;

  // Three shards of the same sweep, and their merge, against the resumed single run.
  std::vector<std::string> shardReports;
  for (int k = 1; k <= 3; ++k) {
    const fs::path shardOut = out / ("shard" + std::to_string(k));
    const auto shard = runPtbench("run " + sweep + " --shard " + std::to_string(k) + "/3 --out " + shardOut.string());
    EXPECT_EQ(shard.exitCode, 0) << shard.all();
    const fs::path shardFolder = resultsFolder(shardOut, "ci");
    EXPECT_EQ(readJson(shardFolder / "report.json")["sweep"]["shard"]["count"], 3);
    shardReports.push_back((shardFolder / "report.json").string());
  }
  const auto merged = runPtbench("merge " + shardReports[0] + " " + shardReports[1] + " " + shardReports[2] +
                                 " --out " + (out / "merged").string());
  EXPECT_EQ(merged.exitCode, 0) << merged.all();
  const json mergedReport = readJson(out / "merged" / "report.json");
  EXPECT_EQ(mergedReport["complete"], true);
  EXPECT_EQ(mergedReport["config_hash"], complete["config_hash"]);
  ASSERT_EQ(mergedReport["runs"].size(), complete["runs"].size());
  for (size_t i = 0; i < complete["runs"].size(); ++i) {
    const json& one = complete["runs"][i];
    const json& part = mergedReport["runs"][i];
    EXPECT_EQ(part["id"], one["id"]);
    EXPECT_EQ(part["parameters"], one["parameters"]);
    EXPECT_EQ(part["status"], "ok");
    EXPECT_EQ(part["work_per_frame"], one["work_per_frame"]) << "the same paths traced";
    EXPECT_EQ(part["images"], one["images"]) << "named as one process names them";
    EXPECT_TRUE(fs::exists(out / "merged" / part["images"]["png"].get<std::string>())) << part["id"];
  }
  EXPECT_TRUE(fs::exists(out / "merged" / "report.csv"));
  const auto partial = runPtbench("merge " + shardReports[0] + " --out " + (out / "partial").string());
  EXPECT_EQ(partial.exitCode, 1);
  EXPECT_NE(partial.err.find("are in no shard"), std::string::npos) << partial.err;
  EXPECT_EQ(readJson(out / "partial" / "report.json")["complete"], false);
  fs::remove_all(out);
}

// The two shards of a sweep of two tiny runs, made once for the merge tests, which doctor copies.
class MergeCommand : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir = freshFolder("merge");
    std::ofstream(dir / "sweep.json") << R"({"schema_version": 1, "name": "m", "scenes": ["builtin:cornell"],
        "backends": ["software"], "width": 8, "height": 8, "spp": [1, 2], "max_depth": 2, "warmup": 0,
        "repeats": 1})";
    for (const char* k : {"1", "2"}) {
      const fs::path out = dir / (std::string("shard") + k);
      const auto shard =
          runPtbench("run " + (dir / "sweep.json").string() + " --quiet --shard " + k + "/2 --out " + out.string());
      EXPECT_EQ(shard.exitCode, 0) << shard.all();
      shardFolders.push_back(resultsFolder(out, "m"));
    }
  }
  static void TearDownTestSuite() { fs::remove_all(dir); }

  // A copy of shard k's folder (0 or 1) under `name`, its report.json to change.
  static fs::path copyOfShard(size_t k, const std::string& name) {
    const fs::path copy = dir / name;
    fs::remove_all(copy);
    fs::copy(shardFolders.at(k), copy, fs::copy_options::recursive);
    return copy;
  }

  static inline fs::path dir;
  static inline std::vector<fs::path> shardFolders;
};

// Issue 27: `merge A.json B.json --out DIR`, DIR being A's folder, replaced A's report.
TEST_F(MergeCommand, RefusesAnOutputFolderThatHoldsAnInput) {
  const fs::path a = copyOfShard(0, "a"), b = copyOfShard(1, "b");
  const std::string before = readJson(a / "report.json").dump();
  const auto result =
      runPtbench("merge " + (a / "report.json").string() + " " + (b / "report.json").string() + " --out " + a.string());
  EXPECT_EQ(result.exitCode, 1) << result.all();
  EXPECT_NE(result.err.find("--out " + a.string() + ": holds the input " + (a / "report.json").string()),
            std::string::npos)
      << result.err;
  EXPECT_EQ(readJson(a / "report.json").dump(), before) << "the input is left as it was";
  // The same folder by another name (relative, with a trailing slash), and the second input's.
  const auto relative = runPtbench("merge a/report.json b/report.json --out ./b/", "", dir.string());
  EXPECT_EQ(relative.exitCode, 1) << relative.all();
  EXPECT_NE(relative.err.find("holds the input b/report.json"), std::string::npos) << relative.err;
  // Beside them, the merge is written.
  const auto beside = runPtbench("merge a/report.json b/report.json --out merged", "", dir.string());
  EXPECT_EQ(beside.exitCode, 0) << beside.all();
  EXPECT_EQ(readJson(dir / "merged" / "report.json")["runs"].size(), 2u);
}

// merge replaces a folder's report and writes its images over those of the same names: into a
// folder that holds another command's results (a run's, which is no input here) it is refused,
// and the folder left as it was; over an earlier merge, or into an empty folder, it is written.
TEST_F(MergeCommand, RefusesAnOutputFolderOfOtherResults) {
  const fs::path a = copyOfShard(0, "a2"), b = copyOfShard(1, "b2"), results = copyOfShard(0, "results");
  const std::string before = readJson(results / "report.json").dump();
  const std::string inputs = (a / "report.json").string() + " " + (b / "report.json").string();
  for (const fs::path& out : {results, dir / "notes-folder"}) {
    if (out == dir / "notes-folder") {
      fs::create_directories(out);
      std::ofstream(out / "notes.txt") << "mine";
    }
    const auto result = runPtbench("merge " + inputs + " --out " + out.string());
    EXPECT_EQ(result.exitCode, 1) << result.all();
    EXPECT_NE(result.err.find("--out " + out.string() + ": holds files, and no report that merge wrote"),
              std::string::npos)
        << result.err;
  }
  EXPECT_EQ(readJson(results / "report.json").dump(), before) << "the results are left as they were";
  EXPECT_FALSE(fs::exists(dir / "notes-folder" / "report.json"));
  fs::create_directories(dir / "empty");
  for (int time = 0; time < 2; ++time) {
    const auto merged = runPtbench("merge " + inputs + " --out " + (dir / "empty").string());
    EXPECT_EQ(merged.exitCode, 0) << "merge " << time << ": " << merged.all();
  }
}

// A merge over an earlier merge's folder once left that merge's images of runs it no longer has
// beside the new report; and a shard's image that is a link was followed, copying whatever file
// it pointed to into the merged folder.
TEST_F(MergeCommand, AnEarlierMergesOwnImagesLeaveAndLinkedImagesAreRefused) {
  const fs::path a = copyOfShard(0, "images-a"), b = copyOfShard(1, "images-b"), out = dir / "images-merged";
  const std::string both = (a / "report.json").string() + " " + (b / "report.json").string();
  ASSERT_EQ(runPtbench("merge " + both + " --out " + out.string()).exitCode, 0);
  const auto filesIn = [](const fs::path& folder) {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(folder)) names.insert(entry.path().filename().string());
    return names;
  };
  const auto imagesOf = [](const json& report) {
    std::set<std::string> names;
    for (const json& run : report["runs"])
      for (const char* format : {"png", "exr"}) names.insert(run["images"][format].get<std::string>());
    return names;
  };
  EXPECT_EQ(imagesOf(readJson(out / "report.json")).size(), 4u);
  const auto partial = runPtbench("merge " + (a / "report.json").string() + " --out " + out.string());
  EXPECT_EQ(partial.exitCode, 1) << "a run is missing: " << partial.all();
  std::set<std::string> expected = imagesOf(readJson(out / "report.json"));
  EXPECT_EQ(expected.size(), 2u);
  expected.insert({"report.json", "report.csv", "config.json", "report.html"});
  EXPECT_EQ(filesIn(out), expected) << "only the new merge's files";

  const std::string png = readJson(b / "report.json")["runs"][0]["images"]["png"];
  std::ofstream(dir / "elsewhere.png") << "not the shard's";
  fs::remove(b / png);
  fs::create_symlink(dir / "elsewhere.png", b / png);
  const auto linked = runPtbench("merge " + both + " --out " + (dir / "linked-merged").string());
  EXPECT_EQ(linked.exitCode, 1) << linked.all();
  EXPECT_NE(linked.err.find((b / png).string() + ": not a regular file"), std::string::npos) << linked.err;
  EXPECT_FALSE(fs::exists(dir / "linked-merged")) << "refused before anything is written";
}

// docs/cli.md says a merge exits 1 when runs are missing: interrupted runs and sweep entries no
// shard ran are named, exit 1.
TEST_F(MergeCommand, InterruptedAndMissingRunsAreNamedAndExit1) {
  const fs::path a = copyOfShard(0, "interrupted-a"), b = copyOfShard(1, "interrupted-b");
  json report = readJson(b / "report.json");
  ASSERT_EQ(report["runs"].size(), 1u);
  json& run = report["runs"][0];
  run = {{"id", run["id"]},
         {"sweep_index", run["sweep_index"]},
         {"variant", run["variant"]},
         {"status", "interrupted"},
         {"parameters", run["parameters"]}};
  report["complete"] = false;
  std::ofstream(b / "report.json") << report.dump(2);
  const auto merged = runPtbench("merge " + (a / "report.json").string() + " " + (b / "report.json").string() +
                                 " --out " + (dir / "interrupted-merged").string());
  EXPECT_EQ(merged.exitCode, 1) << merged.all();
  const json out = readJson(dir / "interrupted-merged" / "report.json");
  EXPECT_EQ(out["complete"], false);
  std::string id;
  for (const auto& r : out["runs"])
    if (r["status"] == "interrupted") id = r["id"];
  ASSERT_FALSE(id.empty()) << out.dump(2);
  EXPECT_NE(merged.err.find("1 run(s) were interrupted before they ran: " + id + " (scene=builtin:cornell"),
            std::string::npos)
      << merged.err;
  EXPECT_NE(merged.err.find("run --resume"), std::string::npos) << merged.err;

  // The sweep entry of the shard left out is named.
  const size_t entry = readJson(shardFolders[1] / "report.json")["sweep"]["specs"][0];
  const auto partial = runPtbench("merge " + (a / "report.json").string() + " --out " + (dir / "partial").string());
  EXPECT_EQ(partial.exitCode, 1) << partial.all();
  EXPECT_NE(partial.err.find("1 of the sweep's 2 runs (before backends are resolved) are in no shard (sweep entries " +
                             std::to_string(entry) + ")"),
            std::string::npos)
      << partial.err;
}

// Issue 31: a report with malformed runs gave "internal error" (exit 70, the JSON library's
// words) from summary, merge and run --resume; it is exit 65 naming the file and the field.
TEST_F(MergeCommand, AMalformedReportIsExit65NamingTheFileAndTheField) {
  const std::vector<std::tuple<std::string, std::function<void(json&)>, std::string>> cases = {
      {"a median that is a word", [](json& r) { r["runs"][0]["frame_gpu_ms"]["median"] = "fast"; },
       "/runs/0/frame_gpu_ms/median: expected a number, got \"fast\""},
      {"a run without parameters", [](json& r) { r["runs"][0].erase("parameters"); },
       "/runs/0/parameters: expected an object, and found none"},
      {"a width that is a list", [](json& r) { r["runs"][0]["parameters"]["width"] = json::array(); },
       "/runs/0/parameters/width: expected a non-negative integer, got []"},
      {"a run that is a number", [](json& r) { r["runs"][0] = 5; }, "/runs/0: expected a run, an object"},
      {"an unknown status", [](json& r) { r["runs"][0]["status"] = "done"; },
       "/runs/0/status: expected ok, error or interrupted"},
      {"a stage without a name", [](json& r) { r["runs"][0]["stages"][0].erase("name"); },
       "/runs/0/stages/0/name: expected a string"},
      {"shard entries that are words", [](json& r) { r["sweep"]["specs"] = json::array({"one"}); },
       "/sweep/specs/0: expected a non-negative integer"},
      // These passed (exit 0) and merge wrote them into its report.
      {"a wall time that is a word", [](json& r) { r["runs"][0]["wall_ms"] = "x"; },
       "/runs/0/wall_ms: expected a number"},
      {"frame times that are words",
       [](json& r) {
         r["runs"][0]["frame_gpu_ms_samples"] = json::array({"1", nullptr});
       },
       "/runs/0/frame_gpu_ms_samples/0: expected a number"},
      {"a negative frame count", [](json& r) { r["runs"][0]["frame_gpu_ms"]["count"] = -3; },
       "/runs/0/frame_gpu_ms/count: expected a non-negative integer"},
      {"memory that is a word", [](json& r) { r["runs"][0]["memory_bytes"] = "x"; },
       "/runs/0/memory_bytes: expected an object"},
      {"a schema version that is a word", [](json& r) { r["schema_version"] = "3"; },
       "/schema_version: expected a non-negative integer"},
      // Exit 65 before, but in the JSON library's words, naming no field.
      {"kernels that are a word", [](json& r) { r["runs"][0]["kernels"] = "x"; }, "/runs/0/kernels: expected"},
      {"a date that is a number", [](json& r) { r["date"] = 5; }, "/date: expected a string"},
  };
  const fs::path b = shardFolders[1] / "report.json";
  for (const auto& [what, doctor, field] : cases) {
    const fs::path folder = copyOfShard(0, "malformed");
    json report = readJson(folder / "report.json");
    doctor(report);
    std::ofstream(folder / "report.json") << report.dump(2);
    const std::string file = (folder / "report.json").string();
    for (const std::string& command :
         {"summary " + file, "merge " + file + " " + b.string() + " --out " + (dir / "malformed-merged").string(),
          "run --resume " + folder.string()}) {
      const auto result = runPtbench(command);
      EXPECT_EQ(result.exitCode, 65) << what << ": " << command << "\n" << result.all();
      EXPECT_NE(result.err.find(file + ": " + field), std::string::npos) << what << ": " << command << "\n"
                                                                         << result.err;
      EXPECT_EQ(result.err.find("internal error"), std::string::npos) << what << ": " << command;
    }
  }
  EXPECT_FALSE(fs::exists(dir / "malformed-merged")) << "nothing merged";
}

// Ctrl-C (and SIGTERM) stop the sweep after the current frame: the report keeps every finished
// run, marks the rest interrupted and itself incomplete, the CSV stays rectangular, nothing
// temporary is left, and the exit code is the shell's 128 + signal.
TEST(RunCommand, InterruptionKeepsEveryFinishedRun) {
  for (const auto& [signal, exitCode] : {std::pair<std::string, int>{"INT", 130}, {"TERM", 143}}) {
    const fs::path out = freshFolder("interrupted-" + signal);
    // A sweep of 144 runs, signalled once its results folder exists (the handlers are in place
    // by then) and a second has passed: far from its end. The core of a crash stays in `out`.
    const std::string errFile = (out / "stderr.txt").string();
    const std::string script =
        "cd " + out.string() + " && ulimit -c unlimited; env PTBENCH_DEVICE=" + std::string(testDevice) + " " +
        PTBENCH_EXECUTABLE + " run " + PTBENCH_SOURCE_DIR + "/configs/ci.json --quiet --set spp=[1,2,3,4] --out " +
        (out / "results").string() + " >/dev/null 2>" + errFile + " & pid=$!; while [ ! -d " +
        (out / "results" / "ci").string() + " ]; do sleep 0.1; done; sleep 1; kill -" + signal + " $pid; wait $pid";
    const int status = std::system(("sh -c '" + script + "'").c_str());
    std::ifstream errStream(errFile);
    const std::string err((std::istreambuf_iterator<char>(errStream)), std::istreambuf_iterator<char>());
    const CommandResult result{WIFEXITED(status) ? WEXITSTATUS(status) : -1, "", err};
    EXPECT_EQ(result.exitCode, exitCode) << signal << "\n" << result.all();
    EXPECT_NE(result.err.find("marked incomplete"), std::string::npos) << result.err;
    const fs::path folder = resultsFolder(out / "results", "ci");
    const json report = readJson(folder / "report.json");
    EXPECT_EQ(report["complete"], false);
    size_t interrupted = 0;
    for (const auto& run : report["runs"]) {
      EXPECT_TRUE(run["status"] == "ok" || run["status"] == "interrupted") << run.dump();
      if (run["status"] == "interrupted") ++interrupted;
      if (run["status"] == "ok") {
        EXPECT_TRUE(fs::exists(folder / run["images"]["png"].get<std::string>()));
      }
    }
    EXPECT_GT(interrupted, 0u);
    EXPECT_TRUE(fs::exists(folder / "report.csv"));
    EXPECT_TRUE(fs::exists(folder / "config.json"));
    for (const auto& entry : fs::directory_iterator(folder))
      EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << entry.path();
    if (!HasFailure()) fs::remove_all(out);
  }
}

// Issue 31: a Ctrl-C while a large scene was generated, its BVH built or its pipelines created
// waited for the step to end (minutes on a large scene). Now the first one during a long step
// stops at once: a message naming the step, exit 130, and the last report on disk whole.
TEST(RunCommand, CtrlCWhilePreparingASceneStopsAtOnce) {
  const fs::path out = freshFolder("interrupted-preparing");
  std::ofstream(out / "config.json")
      << R"({"schema_version": 1, "name": "large", "scenes": ["builtin:spheres?n=1&subdiv=2048"],
      "width": 8, "height": 8, "spp": 1, "integrators": "megakernel", "backends": "software", "warmup": 0,
      "repeats": 1})";
  // Signalled a second after its results folder exists: generating the 8M triangles and their
  // software BVH takes far longer. The time from the signal to the exit is printed last.
  const std::string errFile = (out / "stderr.txt").string();
  const std::string script =
      "cd " + out.string() + " || exit 1; env PTBENCH_DEVICE=" + std::string(testDevice) + " " + PTBENCH_EXECUTABLE +
      " run config.json --out results >/dev/null 2>" + errFile +
      " & pid=$!; while [ ! -d results/large ]; do sleep "
      "0.1; done; sleep 1; start=$(date +%s%N); kill -INT $pid; wait $pid; code=$?; echo $(( ($(date +%s%N) - start) / "
      "1000000 )) >> " +
      errFile + "; exit $code";
  const auto result = runCommand("sh -c '" + script + "'");
  std::ifstream errStream(errFile);
  const std::string err((std::istreambuf_iterator<char>(errStream)), std::istreambuf_iterator<char>());
  EXPECT_EQ(result.exitCode, 130) << err;
  // Generating the scene or building its BVH, whichever the signal found.
  const size_t message = err.find("ptbench: interrupted by Ctrl-C while ");
  ASSERT_NE(message, std::string::npos) << err;
  EXPECT_NE(err.find("builtin:spheres?n=1&subdiv=2048", message), std::string::npos) << err;
  const std::string lastLine = err.substr(err.rfind('\n', err.size() - 2) + 1);
  // Generating and building take tens of seconds; letting go of their memory, on a loaded machine
  // of two cores, up to a few.
  EXPECT_LT(std::stoi(lastLine), 5000) << "milliseconds from the signal to the exit\n" << err;
  const json report = readJson(resultsFolder(out / "results", "large") / "report.json");
  EXPECT_EQ(report["complete"], false);
  for (const auto& entry : fs::directory_iterator(resultsFolder(out / "results", "large")))
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << entry.path();
  if (!HasFailure()) fs::remove_all(out);
}

TEST(RunCommand, ABrokenSceneFailsItsRunsAndTheOthersGoOn) {
  const fs::path dir = freshFolder("broken-scene");
  std::ofstream(dir / "broken.gltf") << R"({"asset": {"version": "2.0"}, "nodes": [)";
  std::ofstream(dir / "config.json")
      << R"({"schema_version": 1, "name": "broken", "scenes": ["broken.gltf", "builtin:cornell"],
      "width": 8, "height": 8, "spp": 1, "backends": "pipeline", "warmup": 0, "repeats": 1})";
  const auto result = runPtbench("run " + (dir / "config.json").string() + " --quiet --out " + (dir / "out").string());
  EXPECT_EQ(result.exitCode, 1) << result.all();
  const json report = readJson(resultsFolder(dir / "out", "broken") / "report.json");
  ASSERT_EQ(report["runs"].size(), 2u);
  EXPECT_EQ(report["runs"][0]["status"], "error");
  EXPECT_NE(report["runs"][0]["error"].get<std::string>().find("broken.gltf: not a valid glTF 2.0 file"),
            std::string::npos)
      << report["runs"][0];
  EXPECT_EQ(report["runs"][1]["status"], "ok");
  // Issue 31: its images say what made them (they were r001.png).
  const json& cornell = report["runs"][1];
  const std::string made = "r001-cornell-" + cornell["parameters"]["integrator"].get<std::string>() + "-pipeline";
  EXPECT_EQ(cornell["images"]["png"], made + ".png");
  EXPECT_EQ(cornell["images"]["exr"], made + ".exr");
  EXPECT_TRUE(fs::exists(resultsFolder(dir / "out", "broken") / (made + ".png")));
  fs::remove_all(dir);
}

// One broken scene among good runs, every integrator, two backends: the good runs succeed,
// the others are error rows, the report is complete, the CSV is rectangular and
// parses, and nothing temporary is left.
TEST(RunCommand, AMixedSweepReportsEveryRunAndLeavesNothingBehind) {
  const fs::path dir = freshFolder("mixed-sweep");
  std::ofstream(dir / "broken.gltf") << R"({"asset": {"version": "2.0"}, "nodes": [)";
  std::ofstream(dir / "config.json")
      << R"({"schema_version": 1, "name": "mixed", "scenes": ["broken.gltf", "builtin:cornell"],
      "integrators": ["megakernel", "megakernel-regen", "wavefront"], "backends": ["rayquery", "software"],
      "width": 8, "height": 8, "spp": 1, "warmup": 0, "repeats": 1})";
  const auto result = runPtbench("run " + (dir / "config.json").string() + " --quiet --out " + (dir / "out").string());
  EXPECT_EQ(result.exitCode, 1) << result.all();
  const fs::path folder = resultsFolder(dir / "out", "mixed");
  const json report = readJson(folder / "report.json");
  EXPECT_EQ(report["complete"], true);
  ASSERT_EQ(report["runs"].size(), 2u * 3u * 2u);
  for (const auto& run : report["runs"]) {
    const bool good = run["parameters"]["scene"] == "builtin:cornell";
    EXPECT_EQ(run["status"], good ? "ok" : "error") << run.dump();
    if (!good) {
      EXPECT_FALSE(run["error"].get<std::string>().empty());
    }
  }
  std::ifstream csv(folder / "report.csv");
  std::vector<std::string> lines;
  for (std::string line; std::getline(csv, line);) lines.push_back(line);
  ASSERT_GT(lines.size(), 12u);
  for (const auto& line : lines) EXPECT_EQ(csvFieldCount(line), csvFieldCount(lines[0])) << line;
  const std::string parse =
      "/usr/bin/python3 -c \"import csv,sys; rows=list(csv.reader(open(sys.argv[1]))); "
      "sys.exit(len({len(r) for r in rows}) != 1)\" " +
      (folder / "report.csv").string();
  EXPECT_EQ(std::system(parse.c_str()), 0) << "Python's csv module reads a fixed column count";
  for (const auto& entry : fs::recursive_directory_iterator(dir / "out"))
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << entry.path();
  fs::remove_all(dir);
}

// A submission that does not finish within --gpu-timeout is a hung GPU: its run fails with a
// message naming the flag, the runs after it are "not run", the report is written, and the
// process exits 1 rather than crash while the GPU may still be using its memory.
TEST(RunCommand, AGpuThatDoesNotFinishInTimeStopsTheSweepWithAReport) {
  const fs::path out = freshFolder("gpu-timeout");
  const auto result = runPtbench("--gpu-timeout 0.000001 run " + std::string(PTBENCH_SOURCE_DIR) +
                                 "/configs/ci.json --quiet --set 'backends=[\"rayquery\"]' --set spp=64 "
                                 "--set width=64 --set height=64 --set 'scenes=[\"builtin:cornell\"]' --out " +
                                 out.string());
  EXPECT_EQ(result.exitCode, 1) << result.all();
  EXPECT_NE(result.err.find("--gpu-timeout"), std::string::npos) << result.err;
  const json report = readJson(resultsFolder(out, "ci") / "report.json");
  ASSERT_FALSE(report["runs"].empty());
  size_t timedOut = 0;
  EXPECT_EQ(report["complete"], false) << "--resume must run what the lost device could not";
  for (const auto& run : report["runs"]) {
    const std::string error = run["error"].get<std::string>();
    if (error.find("VK_TIMEOUT") != std::string::npos) {
      EXPECT_EQ(run["status"], "error") << run.dump();
      ++timedOut;
    } else {
      EXPECT_EQ(run["status"], "interrupted") << run.dump();
      EXPECT_NE(error.find("not run: the device was lost or hung"), std::string::npos) << error;
    }
  }
  EXPECT_GE(timedOut, 1u);  // the scene's acceleration structure build may be the one: then each of its runs says so
  fs::remove_all(out);
}

TEST(RunCommand, AnUnwritableOutputFolderIsAClearError) {
  const auto result =
      runPtbench("run " + std::string(PTBENCH_SOURCE_DIR) + "/configs/ci.json --out /proc/ptbench-results");
  EXPECT_EQ(result.exitCode, 1) << result.all();
  EXPECT_NE(result.err.find("cannot create the results folder under /proc/ptbench-results/ci"), std::string::npos)
      << result.err;
}

TEST(ValidateCommand, ExitCode65WithEveryProblem) {
  const fs::path dir = freshFolder("validate");
  std::ofstream(dir / "bad.json") << R"({"schema_version": 1, "name": "x", "scenes": ["missing.glb"], "spp": -1})";
  const auto result = runPtbench("validate " + (dir / "bad.json").string());
  EXPECT_EQ(result.exitCode, 65);
  EXPECT_NE(result.err.find("bad.json: /scenes/0: scene file missing.glb not found"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("bad.json: /spp: expected an integer"), std::string::npos) << result.err;
  const auto run = runPtbench("run " + (dir / "bad.json").string());
  EXPECT_EQ(run.exitCode, 65) << "run validates before any GPU work";
  const auto good = runPtbench("validate configs/default.json configs/ci.json", "", PTBENCH_SOURCE_DIR);
  EXPECT_EQ(good.exitCode, 0) << good.all();
  fs::remove_all(dir);
}

json gateReport(double medianMs, double cv) {
  json run = {{"status", "ok"},
              {"parameters",
               {{"scene", "builtin:cornell"},
                {"integrator", "megakernel"},
                {"backend", "pipeline"},
                {"width", 8},
                {"height", 8},
                {"spp", 1},
                {"max_depth", 8},
                {"rr_depth", 3},
                {"seed", 0},
                {"sampler", "halton"}}},
              {"frame_gpu_ms", {{"median", medianMs}, {"mean", medianMs}, {"min", medianMs}, {"cv", cv}}},
              {"stages", json::array()}};
  // Ten frames spread evenly about the median, their cv `cv`.
  json samples = json::array();
  for (int i = 0; i < 10; ++i) samples.push_back(medianMs * (1 + cv * (-1 + 2 * i / 9.0) / 0.6728));
  run["frame_gpu_ms_samples"] = samples;
  run["frames"] = 10;
  return {{"schema_version", 3},
          {"device", {{"name", "NVIDIA H200"}, {"type", "discrete"}}},
          {"runs", json::array({run})}};
}

TEST(CompareCommand, ExitCodesFromTheCommandLine) {
  const fs::path dir = freshFolder("compare");
  std::ofstream(dir / "base.json") << gateReport(10, 0.01);
  std::ofstream(dir / "same.json") << gateReport(10.1, 0.01);
  std::ofstream(dir / "slow.json") << gateReport(12, 0.01);
  std::ofstream(dir / "noisy.json") << gateReport(11, 0.3);  // 10% slower, within the noise
  const std::string base = (dir / "base.json").string() + " ";
  EXPECT_EQ(runPtbench("compare " + base + (dir / "same.json").string()).exitCode, 0);
  const auto slow = runPtbench("compare " + base + (dir / "slow.json").string());
  EXPECT_EQ(slow.exitCode, 1);
  EXPECT_NE(slow.out.find("REGRESSED"), std::string::npos) << slow.out;
  EXPECT_EQ(runPtbench("compare " + base + (dir / "slow.json").string() + " --threshold 25%").exitCode, 0);
  EXPECT_EQ(runPtbench("compare " + base + (dir / "noisy.json").string()).exitCode, 2);
  fs::remove_all(dir);
}

// scripts/gpu-perf-gate.sh on a tiny real run of configs/perf-gate.json on lavapipe: with no
// baseline for this device it measures, exits 2 and says how to make one; --update-baseline puts
// the report in place, and the report then passes against it. Its compare step: the report
// against itself passes with the OK line, against a baseline in which one run was 10% faster it
// fails and names that run, and runs in another order still match.
TEST(PerfGateScript, JudgesAReportAgainstThisGpusBaseline) {
  const fs::path dir = freshFolder("perf-gate");
  const std::string gate = "env PTBENCH_DEVICE=" + std::string(testDevice) + " PTBENCH=" + PTBENCH_EXECUTABLE +
                           " PERF_GATE_BASELINES=" + (dir / "baselines").string() + " " + PTBENCH_SOURCE_DIR +
                           "/scripts/gpu-perf-gate.sh ";
  const auto measured =
      runCommand(gate + "--out " + (dir / "out").string() +
                 " --set resolution=16x16 --set spp=1 --set warmup_seconds=0 --set repeats=3"
                 " --set 'scenes=[\"builtin:cornell\"]'"
                 " --set 'integrators=[\"megakernel\",\"wavefront\"]' --set 'backends=[\"software\"]'");
  EXPECT_EQ(measured.exitCode, 2) << measured.all();
  EXPECT_NE(measured.err.find("no baseline for llvmpipe"), std::string::npos) << measured.err;
  EXPECT_NE(measured.err.find("--update-baseline"), std::string::npos) << measured.err;
  const fs::path report = dir / "out" / "report.json";
  ASSERT_TRUE(fs::exists(report)) << measured.all();
  const auto promoted = runCommand(gate + "--report " + report.string() + " --update-baseline");
  EXPECT_EQ(promoted.exitCode, 0) << promoted.all();
  // Lavapipe's times are the host's: against its own baseline the gate is undecided, and says why.
  const auto judged = runCommand(gate + "--report " + report.string());
  EXPECT_EQ(judged.exitCode, 2) << judged.all();
  EXPECT_NE(judged.out.find("CPU implementation"), std::string::npos) << judged.out;
  EXPECT_EQ(judged.out.find("REGRESSED"), std::string::npos) << judged.out;

  // The committed H200 baseline against a copy of itself in which every wavefront run is 10%
  // slower: a regression, each such run named; against itself, or its runs in another order, OK.
  const fs::path committed = baselineReportPath("nvidia-h200");
  const json gpu = readGzippedJson(committed);
  json slower = gpu, reordered = gpu;
  size_t slowed = 0;
  for (auto& run : slower["runs"]) {
    if (run["parameters"]["integrator"] != "wavefront" || run["status"] != "ok") continue;
    for (const char* statistic : {"median", "mean", "min", "max"})
      run["frame_gpu_ms"][statistic] = run["frame_gpu_ms"][statistic].get<double>() * 1.1;
    for (auto& sample : run["frame_gpu_ms_samples"]) sample = sample.get<double>() * 1.1;
    ++slowed;
  }
  ASSERT_GT(slowed, 0u);
  std::reverse(reordered["runs"].begin(), reordered["runs"].end());
  std::ofstream(dir / "slower.json") << slower;
  std::ofstream(dir / "reordered.json") << reordered;
  auto compareOnly = [&](const std::string& baseFile, const std::string& newFile) {
    return runCommand(gate + "--compare-only " + baseFile + " " + newFile);
  };
  const auto regressed = compareOnly(committed.string(), (dir / "slower.json").string());
  EXPECT_EQ(regressed.exitCode, 1) << regressed.all();
  const size_t line = regressed.out.find("REGRESSED");
  ASSERT_NE(line, std::string::npos) << regressed.out;
  const std::string named = regressed.out.substr(line, regressed.out.find('\n', line) - line);
  EXPECT_NE(named.find("integrator=wavefront"), std::string::npos) << named;
  EXPECT_NE(named.find("1.100"), std::string::npos) << named;
  EXPECT_NE(regressed.out.find(fmt::format("compare: verdict REGRESSION ({} of {} runs slower beyond 3% with 99% "
                                           "confidence; {} same)",
                                           slowed, gpu["runs"].size(), gpu["runs"].size() - slowed)),
            std::string::npos)
      << regressed.out;
  const auto same = compareOnly(committed.string(), committed.string());
  EXPECT_EQ(same.exitCode, 0) << same.all();
  const auto moved = compareOnly(committed.string(), (dir / "reordered.json").string());
  EXPECT_EQ(moved.exitCode, 0) << moved.all();
  EXPECT_EQ(moved.out.find("missing"), std::string::npos) << moved.out;
  fs::remove_all(dir);
}

// A report whose field has the wrong type is a message and "undecided", not a crash.
TEST(CompareCommand, AReportWithACorruptFieldIsUndecided) {
  const fs::path dir = freshFolder("compare-corrupt");
  json corrupt = gateReport(10, 0.01);
  corrupt["runs"][0]["frame_gpu_ms"]["median"] = "fast";
  std::ofstream(dir / "base.json") << gateReport(10, 0.01);
  std::ofstream(dir / "corrupt.json") << corrupt;
  const auto result = runPtbench("compare " + (dir / "base.json").string() + " " + (dir / "corrupt.json").string());
  EXPECT_EQ(result.exitCode, 2) << result.all();
  EXPECT_NE(result.err.find("a field is missing or of the wrong type"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("internal error"), std::string::npos) << result.err;
  fs::remove_all(dir);
}

// --quiet leaves stderr to problems: no progress and no "results in".
TEST(RunCommand, QuietPrintsNoProgress) {
  const fs::path out = freshFolder("quiet");
  const auto result = runPtbench("run " + std::string(PTBENCH_SOURCE_DIR) +
                                 "/configs/ci.json --quiet --set spp=1 --set 'scenes=[\"builtin:cornell\"]' "
                                 "--set 'integrators=[\"megakernel\"]' --set repeats=1 --out " +
                                 out.string());
  EXPECT_EQ(result.exitCode, 0) << result.all();
  EXPECT_EQ(result.err.find("results in"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find("[1/"), std::string::npos) << result.err;
  fs::remove_all(out);
}

// Published studies keep their reports gzipped: compare, summary and report read them as they
// are; a damaged one is a message naming it.
TEST(CompareCommand, ReadsGzippedReports) {
  const fs::path dir = freshFolder("compare-gzip");
  std::ofstream(dir / "base.json") << gateReport(10, 0.01);
  std::ofstream(dir / "slow.json") << gateReport(12, 0.01);
  ASSERT_EQ(runCommand("gzip " + (dir / "base.json").string()).exitCode, 0);
  const std::string base = (dir / "base.json.gz").string();
  const auto slow = runPtbench("compare " + base + " " + (dir / "slow.json").string());
  EXPECT_EQ(slow.exitCode, 1) << slow.all();
  EXPECT_NE(slow.out.find("REGRESSED"), std::string::npos) << slow.out;
  EXPECT_EQ(runPtbench("compare " + base + " " + base).exitCode, 0);
  // A whole report, as a published study keeps it.
  fs::copy_file(baselineReportPath("nvidia-h200"), dir / "gate.json.gz");
  const std::string gate = (dir / "gate.json.gz").string();
  const auto summary = runPtbench("summary " + gate);
  EXPECT_EQ(summary.exitCode, 0) << summary.all();
  EXPECT_NE(summary.out.find("NVIDIA H200"), std::string::npos) << summary.out;
  const auto page = runPtbench("report " + gate + " --out " + (dir / "page.html").string());
  EXPECT_EQ(page.exitCode, 0) << page.all();
  std::ifstream pageFile(dir / "page.html");
  const std::string pageText(std::istreambuf_iterator<char>(pageFile), {});
  EXPECT_EQ(pageModel(pageText)["reports"][0]["json"], "gate.json.gz");
  const auto damaged = runCommand("head -c 4000 " + gate + " > " + (dir / "damaged.json.gz").string() + " && " +
                                  PTBENCH_EXECUTABLE + " summary " + (dir / "damaged.json.gz").string());
  EXPECT_EQ(damaged.exitCode, 65) << damaged.all();
  EXPECT_NE(damaged.err.find("damaged.json.gz"), std::string::npos) << damaged.err;
  EXPECT_EQ(damaged.err.find("internal error"), std::string::npos) << damaged.err;
  fs::remove_all(dir);
}

TEST(CompareCommand, UnreadableReportIsUndecided) {
  const auto result = runPtbench("compare /nonexistent/a.json /nonexistent/b.json");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find("/nonexistent/a.json: cannot read the report"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace ptbench::test
