#include "core/experiment/report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "baseline_report.h"
#include "core/errors.h"
#include "core/experiment/compare.h"
#include "core/experiment/convergence.h"
#include "core/experiment/flip.h"
#include "core/experiment/metrics.h"
#include "core/experiment/statistics.h"
#include "core/experiment/summary.h"
#include "csv_fields.h"
#include "shared/wavefront.h"
namespace ptbench::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

TEST(Statistics, SummarizesKnownValues) {
  const std::vector<double> values = {4, 1, 3, 2, 10};
  const Summary s = summarize(values);
  EXPECT_EQ(s.count, 5u);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.mean, 4);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 10);
  EXPECT_NEAR(s.stddev, std::sqrt(12.5), 1e-12);
  EXPECT_NEAR(s.cv, std::sqrt(12.5) / 4, 1e-12);
  EXPECT_DOUBLE_EQ(summarize(std::vector<double>{1, 3}).median, 2);
}

// A result as the runner would produce it, without a GPU.
ExperimentResult syntheticResult(const fs::path& folder) {
  ExperimentResult result;
  result.config.name = "synthetic";
  result.config.file = "configs/synthetic.json";
  result.config.resolved = {{"schema_version", 1}, {"name", "synthetic"}};
  result.config.scenes = {{.spec = "builtin:cornell", .load = "builtin:cornell"}};
  result.device.name = "Test GPU";
  result.device.apiVersion = VK_API_VERSION_1_3;
  result.startedUtc = "2026-11-22T00:00:00Z";
  result.folder = folder;
  RunRecord ok;
  ok.id = "r000";
  ok.scene = "builtin:cornell";
  ok.backend = "pipeline";
  ok.spec.integrator = IntegratorKind::Megakernel;
  ok.spec.settings.width = 64;
  ok.spec.settings.height = 32;
  ok.frameGpuMs = {10, 11, 12};
  ok.frameHostMs = {12, 13, 14};
  ok.frameOverheadMs = {0, 0, 0};
  ok.stages = {
      {.stage = Stage::TraceShade, .gpuMs = {10, 11, 12}, .stepGpuMs = {{10, 11, 12}}, .launchesPerFrame = 16}};
  ok.work = {.extensionRays = 2000, .shadowRays = 1000, .pathSegments = 2000, .paths = 1000};
  ok.unshadedExtensions = {"KHR_materials_clearcoat", "KHR_materials_sheen"};
  ok.materialClassTriangles = {{"car_paint", 40}, {"diffuse", 12}};
  ok.png = "r000.png";
  ok.exr = "r000.exr";
  // Its kernel as an NVIDIA driver describes one: 96 registers a thread allow 21 warps of 64 (rounded
  // to 256 registers a warp: 65,536 / 3,072); and as a device without the statistics.
  vk::DeviceCapabilities nvidia;
  nvidia.vendorId = 0x10de;
  nvidia.warpsPerSm = 64;
  nvidia.pipelineExecutableInfo = true;
  const std::vector<vk::PipelineExecutable> executables = {
      {.name = "raygen",
       .stages = VK_SHADER_STAGE_RAYGEN_BIT_KHR,
       .subgroupSize = 32,
       .statistics = {{"Register Count", 96}, {"Local Memory Size", 16}}}};
  ok.kernels = {{.stage = Stage::TraceShade,
                 .shader = "megakernel_pipeline",
                 .createMs = 5,
                 .executables = executables,
                 .occupancy = vk::occupancy(nvidia, executables, 1)},
                {.stage = Stage::TraceShade,
                 .shader = "megakernel_software",
                 .createMs = 2,
                 .occupancy = vk::occupancy(vk::DeviceCapabilities{}, {}, 64)}};
  RunRecord failed = ok;
  failed.id = "r001";
  failed.backend = "rayquery";
  failed.error = "backend rayquery is not supported by Test GPU";
  // A wavefront run of two bounces: per-bounce stage times and work.
  RunRecord wavefront = ok;
  wavefront.id = "r002";
  wavefront.png = wavefront.exr = "";
  wavefront.spec.integrator = IntegratorKind::Wavefront;
  wavefront.spec.settings.wavefront.schedule = WavefrontSchedule::Pool;
  wavefront.frameOverheadMs = {1, 1, 2};
  wavefront.stages = {
      {.stage = Stage::Extend, .gpuMs = {6, 6, 6}, .stepGpuMs = {{4, 4, 4}, {2, 2, 2}}, .launchesPerFrame = 2},
      {.stage = Stage::Shade, .gpuMs = {3, 4, 4}, .stepGpuMs = {{2, 3, 3}, {1, 1, 1}}, .launchesPerFrame = 2}};
  wavefront.steps = {{.extensionRays = 1500, .shadowRays = 700, .pathsStarted = 1000},
                     {.extensionRays = 500, .shadowRays = 300, .pathsStarted = 0}};
  // counters: simt: a whole subgroup at bounce 1; at bounce 2, two events of 40 lanes and 3 classes in all.
  wavefront.spec.settings.counters = Counters::Simt;
  wavefront.simt =
      SimtCounts{.stage = Stage::Shade,
                 .subgroupSize = 32,
                 .bounces = {{.subgroups = 1, .lanes = 32, .classes = 1}, {.subgroups = 2, .lanes = 40, .classes = 3}}};
  result.runs = {ok, failed, wavefront};
  return result;
}

// A raycast run of `rays` whose trace stage takes traceMs a frame for `traced` rays.
RunRecord raycastRun(const std::string& id, RaycastRays rays, const std::string& backend, uint32_t width,
                     double traceMs, uint64_t traced) {
  RunRecord run;
  run.id = id;
  run.scene = "builtin:cornell";
  run.backend = backend;
  run.spec.integrator = IntegratorKind::Raycast;
  run.spec.settings.raycast.rays = rays;
  run.spec.settings.width = width;
  run.spec.settings.height = 32;
  run.frameGpuMs = run.frameHostMs = {2 * traceMs, 2 * traceMs};
  run.frameOverheadMs = {0, 0};
  run.stages = {{.stage = Stage::Generate, .gpuMs = {traceMs, traceMs}, .stepGpuMs = {{traceMs, traceMs}}},
                {.stage = Stage::Trace, .gpuMs = {traceMs, traceMs}, .stepGpuMs = {{traceMs, traceMs}}}};
  (rays == RaycastRays::Shadow ? run.work.shadowRays : run.work.extensionRays) = traced;
  return run;
}

// The roofline of a path tracer is the diffuse raycast of its scene and backend, at its size
// where there is one; its fraction is its throughput over the raycast's trace stage alone.
TEST(Report, RooflineFractionIsOverTheDiffuseRaycastOfTheSameSceneAndBackend) {
  ExperimentResult result = syntheticResult(fs::temp_directory_path());
  const RunRecord megakernel = result.runs[0];  // pipeline, 64x32: 3000 rays in 11 ms (a copy: runs grows)
  result.runs.push_back(raycastRun("r003", RaycastRays::Diffuse, "pipeline", 128, 1, 1000));   // other size
  result.runs.push_back(raycastRun("r004", RaycastRays::Diffuse, "pipeline", 64, 2, 1000));    // the roofline
  result.runs.push_back(raycastRun("r005", RaycastRays::Shadow, "pipeline", 64, 0.1, 1000));   // not diffuse
  result.runs.push_back(raycastRun("r006", RaycastRays::Diffuse, "rayquery", 64, 0.1, 1000));  // other backend
  RunRecord otherScene = megakernel;
  otherScene.id = "r007";
  otherScene.scene = "builtin:furnace";
  result.runs.push_back(otherScene);
  RunRecord counted = megakernel;  // counters: simt slow it: its rays/s are not read against a roofline
  counted.id = "r008";
  counted.spec.settings.counters = Counters::Simt;
  result.runs.push_back(counted);
  result.runs[2].spec.settings.counters = Counters::Off;
  result.runs[2].simt.reset();
  const json report = reportJson(result);
  const json& runs = report["runs"];

  const json& raycast = runs[4];
  EXPECT_EQ(raycast["raycast"]["rays"], "diffuse");
  EXPECT_EQ(raycast["raycast"]["rays_traced"], 1000);
  EXPECT_DOUBLE_EQ(raycast["raycast"]["trace_gpu_ms_median"].get<double>(), 2);
  EXPECT_DOUBLE_EQ(raycast["raycast"]["rays_per_s"].get<double>(), 1000 / 0.002) << "the trace stage alone";
  EXPECT_DOUBLE_EQ(raycast["throughput"]["rays_per_s"].get<double>(), 1000 / 0.004) << "the whole frame";
  EXPECT_EQ(raycast["parameters"]["options"], json({{"rays", "diffuse"}}));
  EXPECT_FALSE(raycast.contains("roofline_fraction")) << "a roofline has none";

  EXPECT_EQ(runs[0]["roofline_run"], "r004");
  EXPECT_DOUBLE_EQ(runs[0]["roofline_fraction"].get<double>(), (3000 / 0.011) / (1000 / 0.002));
  EXPECT_EQ(runs[2]["roofline_run"], "r004") << "the wavefront's options are its own";
  EXPECT_TRUE(runs[7]["roofline_fraction"].is_null()) << "no raycast of that scene";
  EXPECT_TRUE(runs[7]["roofline_run"].is_null());
  EXPECT_TRUE(runs[8]["roofline_run"].is_null()) << "a run with counters";
  EXPECT_FALSE(runs[1].contains("roofline_fraction")) << "a failed run";

  // Without a run of the same size, another size will do.
  result.runs.erase(result.runs.begin() + 4);
  EXPECT_EQ(reportJson(result)["runs"][0]["roofline_run"], "r003");

  // A backend's option (one the integrator does not own) must match.
  json differing = runs;
  differing[0]["parameters"]["options"]["software_bvh"] = "cwbvh";
  EXPECT_EQ(rooflineOf(differing[0], differing), nullptr);
  differing[4]["parameters"]["options"]["software_bvh"] = "cwbvh";
  EXPECT_EQ((*rooflineOf(differing[0], differing))["id"], "r004");

  const std::string csv = reportCsv(report);
  EXPECT_NE(
      csv.find(",raycast_rays_per_s,roofline_fraction,simt_utilisation,simt_coherence,relmse,flip,efficiency,"
               "restir_temporal_rays_per_pixel,restir_spatial_rays_per_pixel,restir_shade_rays_per_pixel,error\n"),
      std::string::npos)
      << csv.substr(0, csv.find('\n'));
  std::istringstream lines(csv);
  std::string header, line;
  std::getline(lines, header);
  while (std::getline(lines, line)) {
    EXPECT_EQ(csvFieldCount(line), csvFieldCount(header)) << line;
    if (line.rfind("r004,", 0) == 0) {
      EXPECT_NE(line.find(",500000,,"), std::string::npos) << line;
    }
  }
}

// A scene listed twice with two camera paths is two settings: the path is a parameter of its
// runs, in their key, and equal paths read alike; a fixed camera has none.
TEST(Report, ACameraPathIsASettingOfItsRuns) {
  SceneEntry entry{.spec = "builtin:cornell"};
  EXPECT_EQ(cameraPathText(entry), "");
  CameraPathSpec path{.fps = 12, .frames = 25};
  path.keyframes = {{.time = 0, .position = {0, 0, -1}, .target = Vec3{0, 0, 0}},
                    {.time = 1, .position = {0.5f, 0, -1}, .target = Vec3{0, 0, 0}}};
  entry.cameraPath = path;
  const std::string text = cameraPathText(entry);
  EXPECT_EQ(text.rfind("2 keyframes ", 0), 0u) << text;
  EXPECT_NE(text.find(", 25 frames at 12 fps, catmull-rom"), std::string::npos) << text;
  SceneEntry other = entry;
  other.cameraPath->keyframes[1].position.x = 0.25f;
  EXPECT_NE(cameraPathText(other), text) << "paths of the same counts told apart";
  EXPECT_EQ(cameraPathText(SceneEntry(entry)), text);

  RunRecord fixed;
  fixed.scene = "builtin:cornell";
  RunRecord moving = fixed;
  moving.cameraPath = text;
  EXPECT_FALSE(runParametersJson(fixed).contains("camera_path"));
  EXPECT_EQ(runParametersJson(moving)["camera_path"], text);
  EXPECT_NE(runKey(json{{"parameters", runParametersJson(fixed)}}),
            runKey(json{{"parameters", runParametersJson(moving)}}));
}

TEST(Report, RoundTripKeepsEveryFieldWithItsType) {
  const fs::path folder = fs::temp_directory_path() / ("ptbench-report-" + std::to_string(::getpid()));
  fs::create_directories(folder);
  const ExperimentResult result = syntheticResult(folder);
  writeReportFiles(result.folder, reportJson(result));

  std::ifstream in(folder / "report.json");
  const json report = json::parse(in);
  EXPECT_EQ(report["schema_version"], 3);
  for (const char* key : {"version", "git_revision", "build_type"}) EXPECT_TRUE(report["tool"][key].is_string()) << key;
  EXPECT_TRUE(report["tool"]["git_dirty"].is_boolean());
  EXPECT_TRUE(report["date"].is_string());
  EXPECT_TRUE(report["host"]["os"].is_string());
  EXPECT_EQ(report["device"]["name"], "Test GPU");
  EXPECT_TRUE(report["device"]["backends"].is_object());
  EXPECT_TRUE(report["validation"].is_boolean());
  EXPECT_EQ(report["config"]["name"], "synthetic");
  ASSERT_EQ(report["runs"].size(), 3u);
  const json& ok = report["runs"][0];
  EXPECT_EQ(ok["status"], "ok");
  EXPECT_EQ(ok["parameters"]["integrator"], "megakernel");
  EXPECT_EQ(ok["parameters"]["width"], 64);
  EXPECT_DOUBLE_EQ(ok["frame_gpu_ms"]["median"].get<double>(), 11);
  EXPECT_TRUE(ok["frame_gpu_ms"]["cv"].is_number());
  EXPECT_EQ(ok["frame_gpu_ms_samples"].size(), 3u);
  EXPECT_EQ(ok["stages"][0]["name"], "trace_shade");
  EXPECT_EQ(ok["stages"][0]["launches_per_frame"], 16);
  EXPECT_NEAR(ok["throughput"]["rays_per_s"].get<double>(), 3000 / 0.011, 1e-6);
  EXPECT_TRUE(ok["memory_bytes"]["film"].is_number_unsigned());
  EXPECT_EQ(ok["images"]["png"], "r000.png");
  EXPECT_EQ(ok["unshaded_extensions"], json::array({"KHR_materials_clearcoat", "KHR_materials_sheen"}));
  EXPECT_EQ(ok["material_classes"], json({{"car_paint", 40}, {"diffuse", 12}}));
  const json& failed = report["runs"][1];
  EXPECT_EQ(failed["status"], "error");
  EXPECT_EQ(failed["error"], "backend rayquery is not supported by Test GPU");
  const json& wavefront = report["runs"][2];
  EXPECT_EQ(wavefront["parameters"]["options"]["schedule"], "pool");
  EXPECT_EQ(wavefront["parameters"]["options"]["compaction"], true);
  EXPECT_DOUBLE_EQ(wavefront["overhead_gpu_ms"]["median"].get<double>(), 1);
  EXPECT_EQ(wavefront["stages"][0]["gpu_ms_median_per_bounce"], json::array({4.0, 2.0}));
  EXPECT_EQ(wavefront["stages"][1]["gpu_ms_median_per_bounce"], json::array({3.0, 1.0}));
  EXPECT_EQ(wavefront["work_per_bounce"]["live_paths"], json::array({1500, 500}));
  EXPECT_EQ(wavefront["work_per_bounce"]["shadow_rays"], json::array({700, 300}));
  // Path-state traffic: 2000 live paths through extend (ray 24 + hit 24 bytes each, read where
  // the queue holds them), and through shade (path and hit read, path written: 2 x the path's
  // PATH_STATE_BYTES, 68 today, + 24) with 1000 shadow rays written (40 + their target); no peak
  // bandwidth known for "Test GPU".
  const json& traffic = wavefront["memory_traffic"];
  EXPECT_DOUBLE_EQ(traffic["stages"]["extend"]["bytes_per_frame"].get<double>(), 2000.0 * 48);
  EXPECT_DOUBLE_EQ(traffic["stages"]["extend"]["gb_per_s"].get<double>(), 2000.0 * 48 / 0.006 * 1e-9);
  EXPECT_DOUBLE_EQ(traffic["stages"]["shade"]["bytes_per_frame"].get<double>(),
                   2000.0 * (2 * gpu::PATH_STATE_BYTES + 24) + 1000.0 * 44);
  EXPECT_TRUE(traffic["stages"]["extend"]["fraction_of_peak"].is_null());
  EXPECT_TRUE(traffic["peak_gb_per_s"].is_null());
  EXPECT_FALSE(ok.contains("memory_traffic")) << "the megakernel keeps its state in registers";
  // The kernels: the driver's statistics and the occupancy they allow, or null with the reason.
  ASSERT_EQ(ok["kernels"].size(), 2u);
  const json& statistics = ok["kernels"][0];
  EXPECT_EQ(statistics["stage"], "trace_shade");
  EXPECT_EQ(statistics["shader"], "megakernel_pipeline");
  EXPECT_EQ(statistics["executables"][0]["stages"], json::array({"raygen"}));
  EXPECT_DOUBLE_EQ(statistics["executables"][0]["statistics"]["Register Count"].get<double>(), 96);
  EXPECT_EQ(statistics["occupancy"]["registers_per_thread"], 96);
  EXPECT_EQ(statistics["occupancy"]["warps_per_sm"], 21);
  EXPECT_EQ(statistics["occupancy"]["limited_by"], "registers");
  const json& unknown = ok["kernels"][1];
  EXPECT_TRUE(unknown["executables"].is_null());
  EXPECT_TRUE(unknown["occupancy"].is_null());
  EXPECT_EQ(unknown["occupancy_reason"], "the device lacks VK_KHR_pipeline_executable_properties");
  EXPECT_EQ(ok["parameters"]["counters"], "off");
  EXPECT_FALSE(ok.contains("simt")) << "without counters, no simt block";
  EXPECT_EQ(wavefront["parameters"]["counters"], "simt");
  const json& simt = wavefront["simt"];
  EXPECT_EQ(simt["stage"], "shade");
  EXPECT_EQ(simt["subgroup_size"], 32);
  EXPECT_DOUBLE_EQ(simt["utilisation"].get<double>(), 72.0 / (3 * 32));
  EXPECT_DOUBLE_EQ(simt["coherence"].get<double>(), 4.0 / 3.0);
  ASSERT_EQ(simt["per_bounce"].size(), 2u);
  EXPECT_EQ(simt["per_bounce"][1]["bounce"], 2);
  EXPECT_DOUBLE_EQ(simt["per_bounce"][1]["utilisation"].get<double>(), 40.0 / 64);
  EXPECT_DOUBLE_EQ(simt["per_bounce"][1]["coherence"].get<double>(), 1.5);
  EXPECT_EQ(ok["parameters"]["options"], (json{{"ms_compensation", true},
                                               {"restir", "off"},
                                               {"restir_candidates", 32},
                                               {"restir_neighbours", 3},
                                               {"restir_history_cap", 20.0},
                                               {"restir_gi_jacobian", 0.0},
                                               {"restir_bsdf_candidate", false}}))
      << "the megakernel's options, at their defaults";
  EXPECT_FALSE(ok.contains("work_per_bounce"));

  std::ifstream csvFile(folder / "report.csv");
  std::vector<std::string> lines;
  for (std::string line; std::getline(csvFile, line);) lines.push_back(line);
  // Header; frame, overhead and trace_shade rows of the good run; one row of the failed; frame,
  // overhead and two rows per stage (total, bounce 0, bounce 1) of the wavefront, and its two
  // bounces of divergence counters.
  ASSERT_EQ(lines.size(), 1u + 3u + 1u + 2u + 6u + 2u);
  EXPECT_EQ(lines[0].rfind("run_id,status,device,scene,integrator,backend,width,height,spp,max_depth,rr_depth,seed,"
                            "sampler,counters,timing,",
                            0),
            0u)
      << lines[0];
  EXPECT_NE(lines[0].find(",stage,bounce,"), std::string::npos);
  EXPECT_NE(lines[0].find("gpu_ms_median"), std::string::npos);
  EXPECT_NE(lines[3].find(",trace_shade,,16,3,11,"), std::string::npos) << lines[3];
  EXPECT_NE(lines[4].find("not supported"), std::string::npos) << lines[4];
  // Every row has as many fields as the header: pandas refuses a file where one has more.
  for (const auto& line : lines) EXPECT_EQ(csvFieldCount(line), csvFieldCount(lines[0])) << line;
  // Every option a column of its own, empty where a run lacks it (the megakernel's schedule).
  EXPECT_EQ(csvCell(lines[0], lines[7], "schedule"), "pool") << lines[7];
  EXPECT_EQ(csvCell(lines[0], lines[1], "schedule"), "") << lines[1];
  EXPECT_EQ(csvCell(lines[0], lines[1], "restir"), "off") << lines[1];
  EXPECT_EQ(csvCell(lines[0], lines[1], "device"), "Test GPU") << lines[1];
  EXPECT_NE(lines[8].find(",extend,0,,3,4,"), std::string::npos) << lines[8];
  EXPECT_NE(lines[9].find(",extend,1,,3,2,"), std::string::npos) << lines[9];
  EXPECT_EQ(csvCell(lines[0], lines[1], "counters"), "off") << lines[1];
  EXPECT_EQ(csvCell(lines[0], lines[1], "timing"), "stages") << lines[1];
  EXPECT_EQ(csvCell(lines[0], lines[1], "stage"), "frame") << lines[1];
  EXPECT_EQ(csvCell(lines[0], lines[10], "counters"), "simt") << lines[10];
  EXPECT_NE(lines[10].find(",shade,,2,3,"), std::string::npos) << lines[10];
  EXPECT_NE(lines[10].find(",0.75,1.33333333,"), std::string::npos) << "the shade stage's row: " << lines[10];
  EXPECT_NE(lines[14].find(",simt_shade,1,"), std::string::npos) << lines[14];
  EXPECT_NE(lines[14].find(",0.625,1.5,"), std::string::npos) << lines[14];
  EXPECT_TRUE(fs::exists(folder / "config.json"));
  for (const auto& entry : fs::directory_iterator(folder))
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << "no temporary file left behind";
  fs::remove_all(folder);
}

// counters: clocks: per bounce for the megakernel, per stage for the wavefront; shares of the
// phases that sum to 1, the cycles beside them; the check refuses shares that do not add up.
TEST(Report, ClocksGivePhaseSharesPerBounceOrStage) {
  ExperimentResult result = syntheticResult(fs::temp_directory_path());
  RunRecord unclocked = result.runs[0];  // the clocked megakernel's twin: its cost is their ratio
  unclocked.id = "r003";
  result.runs.push_back(unclocked);
  RunRecord& megakernel = result.runs[0];
  megakernel.spec.settings.counters = Counters::Clocks;
  megakernel.frameGpuMs = {11, 12, 13};
  megakernel.clocks = ClockCounts{.bounces = {{.cycles = {60, 20, 10, 10}}, {.cycles = {40, 0, 0, 10}}}};
  RunRecord& wavefront = result.runs[2];
  wavefront.spec.settings.counters = Counters::Clocks;
  wavefront.simt.reset();
  wavefront.clocks = ClockCounts{.stages = {{Stage::Extend, {.cycles = {90, 0, 0, 10}}},
                                            {Stage::Shade, {.cycles = {0, 30, 20, 50}}},
                                            {Stage::Shadow, {.cycles = {0, 0, 0, 0}}}}};
  json report = reportJson(result);
  EXPECT_NO_THROW(checkReport(report, "report.json"));
  const json& clocked = report["runs"][0];
  EXPECT_EQ(clocked["parameters"]["counters"], "clocks");
  EXPECT_EQ(clocked["clocks"]["total_cycles"], 150);
  EXPECT_EQ(clocked["clocks"]["cycles"]["traversal"], 100);
  EXPECT_DOUBLE_EQ(clocked["clocks"]["phases"]["traversal"].get<double>(), 100.0 / 150);
  ASSERT_EQ(clocked["clocks"]["per_bounce"].size(), 2u);
  EXPECT_EQ(clocked["clocks"]["per_bounce"][1]["bounce"], 2);
  EXPECT_DOUBLE_EQ(clocked["clocks"]["per_bounce"][1]["phases"]["rest"].get<double>(), 0.2);
  EXPECT_FALSE(clocked.contains("per_stage"));
  const json& stages = report["runs"][2]["clocks"]["per_stage"];
  ASSERT_EQ(stages.size(), 3u);
  EXPECT_EQ(stages[1]["stage"], "shade");
  EXPECT_DOUBLE_EQ(stages[1]["phases"]["material"].get<double>(), 0.3);
  EXPECT_TRUE(stages[2]["phases"]["traversal"].is_null()) << "no cycles: no share";
  EXPECT_FALSE(report["runs"][1].contains("clocks")) << "a failed run has none";
  EXPECT_NE(runKey(clocked), runKey(report["runs"][3])) << "clocked runs are never timed against unclocked ones";
  // The summary: each clocked run's shares, and its time over its unclocked twin's where there is one.
  const std::string summary = reportSummary(report, SummaryFormat::Table);
  EXPECT_NE(summary.find("phases of run r000: traversal 0.667, material 0.133, light 0.067, rest 0.133; 1.091x the "
                         "frame time without clocks"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("phases of run r002: traversal 0.450, material 0.150, light 0.100, rest 0.300\n"),
            std::string::npos)
      << summary;

  report["runs"][0]["clocks"]["per_bounce"][0]["phases"]["rest"] = 0.5;
  try {
    checkReport(report, "report.json");
    ADD_FAILURE() << "shares that sum past 1 passed";
  } catch (const std::exception& error) {
    EXPECT_NE(std::string(error.what()).find("/runs/0/clocks/per_bounce/0/phases"), std::string::npos) << error.what();
  }
}

// A camera path's frames carry FLIP beside relMSE, the path its means and medians; the check
// takes a report from before FLIP, which has none, and refuses a FLIP that is no number.
TEST(Report, CameraPathFramesCarryFlipBesideRelmse) {
  ExperimentResult result = syntheticResult(fs::temp_directory_path());
  RunRecord& run = result.runs[0];
  run.frameGpuMs = {11, 12, 13};
  run.frameHostMs = {12, 13, 14};
  run.pathFrames.clear();
  for (const auto& [relmse, flip] : {std::pair{0.4, 0.2}, std::pair{0.1, 0.05}, std::pair{0.7, 0.3}})
    run.pathFrames.push_back({.convergence = ConvergenceMetrics{.rmse = 0.5, .relmse = relmse, .flip = flip}});
  json report = reportJson(result);
  EXPECT_NO_THROW(checkReport(report, "report.json"));
  const json& path = report["runs"][0]["camera_path"];
  EXPECT_DOUBLE_EQ(path["frames"][1]["flip"].get<double>(), 0.05);
  EXPECT_DOUBLE_EQ(path["frames"][1]["relmse"].get<double>(), 0.1);
  EXPECT_NEAR(path["relmse_mean"].get<double>(), 0.4, 1e-12);
  EXPECT_DOUBLE_EQ(path["relmse_median"].get<double>(), 0.4);
  EXPECT_NEAR(path["flip_mean"].get<double>(), 0.55 / 3, 1e-12);
  EXPECT_DOUBLE_EQ(path["flip_median"].get<double>(), 0.2);
  EXPECT_NEAR(metric("flip").value(report["runs"][0]).value(), 0.55 / 3, 1e-12) << "the path's mean, as relMSE's";
  const std::string summary = reportSummary(report, SummaryFormat::Table);
  EXPECT_NE(summary.find("mean relMSE 0.4, mean FLIP 0.1833, efficiency"), std::string::npos) << summary;

  json old = report;
  for (auto& frame : old["runs"][0]["camera_path"]["frames"]) frame.erase("flip");
  for (const char* key : {"flip_mean", "flip_median", "relmse_median"}) old["runs"][0]["camera_path"].erase(key);
  EXPECT_NO_THROW(checkReport(old, "report.json"));
  EXPECT_FALSE(metric("flip").value(old["runs"][0]).has_value());
  EXPECT_NE(reportSummary(old, SummaryFormat::Table).find("mean relMSE 0.4, efficiency"), std::string::npos);

  // FLIP on some frames only (config flip_every): its means over those, relMSE's over all.
  ExperimentResult sparse = result;
  sparse.runs[0].pathFrames[1].convergence->flip.reset();
  const json sparseReport = reportJson(sparse);
  EXPECT_NO_THROW(checkReport(sparseReport, "report.json"));
  const json& sparsePath = sparseReport["runs"][0]["camera_path"];
  EXPECT_FALSE(sparsePath["frames"][1].contains("flip"));
  EXPECT_NEAR(sparsePath["flip_mean"].get<double>(), 0.25, 1e-12);
  EXPECT_EQ(sparsePath["flip_frames"], 2);
  EXPECT_NEAR(sparsePath["relmse_mean"].get<double>(), 0.4, 1e-12);

  report["runs"][0]["camera_path"]["frames"][2]["flip"] = "0.3";
  try {
    checkReport(report, "report.json");
    ADD_FAILURE() << "a FLIP of text passed";
  } catch (const std::exception& error) {
    EXPECT_NE(std::string(error.what()).find("/runs/0/camera_path/frames/2"), std::string::npos) << error.what();
  }
}

// `run --resume` takes its shard from the report: one that names no part of a sweep (a count
// of 0 crashed the resume; an index past the count rewrote the report with no runs) is refused
// where the report is read, naming the field.
TEST(Report, AShardThatIsNoPartOfASweepIsRefused) {
  json report = reportJson(syntheticResult(fs::temp_directory_path()));
  ASSERT_TRUE(report.contains("sweep"));
  report["sweep"]["shard"] = {{"index", 2}, {"count", 3}};
  EXPECT_NO_THROW(checkReport(report, "report.json"));
  for (const auto& [index, count] : {std::pair{1, 0}, std::pair{0, 1}, std::pair{5, 3}, std::pair{1, 100001}}) {
    report["sweep"]["shard"] = {{"index", index}, {"count", count}};
    try {
      checkReport(report, "report.json");
      ADD_FAILURE() << "shard " << index << "/" << count << " passed";
    } catch (const std::exception& error) {
      EXPECT_NE(std::string(error.what()).find("/sweep/shard"), std::string::npos) << error.what();
    }
  }
}

// A report names its images by file name alone, both formats: a name with a folder had
// `report --embed-images` put /etc/passwd into its page; one format alone read past the JSON.
TEST(Report, ImagesAreFileNamesBesideTheReport) {
  json report = reportJson(syntheticResult(fs::temp_directory_path()));
  report["runs"][0]["images"] = {{"png", "r000.png"}, {"exr", "r000.exr"}};
  EXPECT_NO_THROW(checkReport(report, "report.json"));
  for (const json& images :
       {json{{"png", "/etc/passwd"}, {"exr", "r000.exr"}}, json{{"png", "r000.png"}, {"exr", "../../r000.exr"}},
        json{{"png", "sub/r000.png"}, {"exr", "x"}}, json{{"png", ".."}, {"exr", "r000.exr"}},
        json{{"exr", "r000.exr"}}}) {
    json bad = report;
    bad["runs"][0]["images"] = images;
    try {
      checkReport(bad, "report.json");
      ADD_FAILURE() << images.dump() << " passed";
    } catch (const std::exception& error) {
      EXPECT_NE(std::string(error.what()).find("/runs/0/images/"), std::string::npos) << error.what();
    }
  }
}

// What ReSTIR costs in rays and buys in error per time are metrics: columns of report.csv (and
// so of the HTML report), per pixel and sample pass; none where a run has none.
TEST(Report, RestirRaysAndAPathsEfficiencyAreMetrics) {
  ExperimentResult result = syntheticResult(fs::temp_directory_path());
  RunRecord& run = result.runs[0];
  run.frameGpuMs = {10, 10};
  run.frameHostMs = {11, 11};
  run.pathFrames = {{.convergence = ConvergenceMetrics{.rmse = 0.5, .relmse = 0.5}},
                    {.convergence = ConvergenceMetrics{.rmse = 0.5, .relmse = 0.5}}};
  run.spec.settings.restir = Restir::Di;
  const double pixelSamples =
      double(run.spec.settings.width) * run.spec.settings.height * run.spec.settings.samplesPerPixel;
  run.work.restirRays = {uint64_t(2 * pixelSamples), uint64_t(7 * pixelSamples), uint64_t(pixelSamples)};
  const json report = reportJson(result);
  EXPECT_NO_THROW(checkReport(report, "report.json"));
  const json& first = report["runs"][0];
  EXPECT_DOUBLE_EQ(metric("restir_temporal_rays_per_pixel").value(first).value(), 2.0);
  EXPECT_DOUBLE_EQ(metric("restir_spatial_rays_per_pixel").value(first).value(), 7.0);
  EXPECT_DOUBLE_EQ(metric("restir_shade_rays_per_pixel").value(first).value(), 1.0);
  // 1 / (relMSE 0.5 x 10 ms).
  EXPECT_NEAR(metric("efficiency").value(first).value(), 200.0, 1e-9);
  const std::string csv = reportCsv(report);
  const std::string header = csv.substr(0, csv.find('\n'));
  const std::string firstRow = csv.substr(header.size() + 1, csv.find('\n', header.size() + 1) - header.size() - 1);
  EXPECT_EQ(csvCell(header, firstRow, "restir_spatial_rays_per_pixel"), "7") << firstRow;
  for (const char* name : {"restir_spatial_rays_per_pixel", "efficiency"})
    EXPECT_FALSE(metric(name).value(report["runs"][1]).has_value()) << name << ": the failed run has none";
}

// A report that checkReport accepts may leave out what a run did not measure (its frame count,
// a stage's name or times, the SIMT bounces' numbers): the CSV leaves those cells empty. It read
// them with a const json's operator[], undefined behaviour on a missing key, and under ASan read
// freed memory (found by the fuzzer of reports).
TEST(Report, CsvOfARunMissingWhatItDidNotMeasureHasEmptyCells) {
  json report = reportJson(syntheticResult(fs::temp_directory_path()));
  json& run = report["runs"][0];
  run.erase("frames");
  run["stages"].push_back(json::object());
  run["stages"].push_back({{"name", 7}, {"gpu_ms_median_per_bounce", "many"}});
  run["simt"] = {{"per_bounce", {json::object(), {{"bounce", "first"}}}}};
  const std::string csv = reportCsv(report);
  EXPECT_NE(csv.find("\nr000,ok,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",simt_,,"), std::string::npos) << "a SIMT bounce without its numbers: empty cells\n" << csv;
}

// Clocks that count more lane-cycles than the SMs could hold in the stage's time are wrong (an
// H100's clock, its two words read apart, once counted 10 times as many): the report gives each
// clocked stage's share of that most and `plausible`, and the summary says not to trust them.
TEST(Report, ClocksBeyondWhatTheSmsCanHoldAreNotTrusted) {
  ExperimentResult result = syntheticResult(fs::temp_directory_path());
  result.device.smCount = 2;
  result.device.subgroupSize = 32;
  result.gpuIdentity = GpuIdentity{.maxSmClockMhz = 1000};
  // The megakernel's trace_shade keeps 21 warps resident (syntheticResult) for a median 11 ms:
  // at most 21 x 32 lanes x 2 SMs x 1e9 Hz x 0.011 s = 14,784,000,000 lane-cycles.
  RunRecord& megakernel = result.runs[0];
  megakernel.spec.settings.counters = Counters::Clocks;
  megakernel.clocks =
      ClockCounts{.bounces = {{.cycles = {5'000'000'000, 0, 0, 0}}, {.cycles = {0, 0, 0, 2'392'000'000}}}};
  // The wavefront's extend (6 ms) within its most, its shade (4 ms: at most 5,376,000,000) three times past it.
  RunRecord& wavefront = result.runs[2];
  wavefront.spec.settings.counters = Counters::Clocks;
  wavefront.simt.reset();
  wavefront.kernels = {{.stage = Stage::Extend, .occupancy = megakernel.kernels[0].occupancy},
                       {.stage = Stage::Shade, .occupancy = megakernel.kernels[0].occupancy}};
  wavefront.clocks = ClockCounts{.stages = {{Stage::Extend, {.cycles = {4'032'000'000, 0, 0, 0}}},
                                            {Stage::Shade, {.cycles = {0, 16'128'000'000, 0, 0}}}}};
  json report = reportJson(result);
  EXPECT_NO_THROW(checkReport(report, "report.json"));
  const json& megakernelClocks = report["runs"][0]["clocks"];
  EXPECT_DOUBLE_EQ(megakernelClocks["of_resident_lane_cycles"].get<double>(), 0.5);
  EXPECT_EQ(megakernelClocks["plausible"], true);
  const json& wavefrontClocks = report["runs"][2]["clocks"];
  EXPECT_DOUBLE_EQ(wavefrontClocks["per_stage"][0]["of_resident_lane_cycles"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(wavefrontClocks["per_stage"][1]["of_resident_lane_cycles"].get<double>(), 3.0);
  EXPECT_EQ(wavefrontClocks["plausible"], false);
  const std::string summary = reportSummary(report, SummaryFormat::Table);
  EXPECT_NE(summary.find("phases of run r000: traversal 0.676, material 0.000, light 0.000, rest 0.324\n"),
            std::string::npos)
      << "within the most: trusted, nothing added\n"
      << summary;
  EXPECT_NE(summary.find("phases of run r002: traversal 0.200, material 0.800, light 0.000, rest 0.000; NOT TRUSTED: "
                         "clocks counted more lane-cycles than the SMs hold (shade 3.00x)"),
            std::string::npos)
      << summary;

  // A stage of two kernels (the material queues' shade kernels run side by side) is bounded by
  // the SM's 64 warp slots, not by one kernel's 21: the same shade cycles are then within it.
  wavefront.kernels.push_back(wavefront.kernels[1]);
  report = reportJson(result);
  EXPECT_NEAR(report["runs"][2]["clocks"]["per_stage"][1]["of_resident_lane_cycles"].get<double>(), 3.0 * 21 / 64,
              1e-12);
  EXPECT_EQ(report["runs"][2]["clocks"]["plausible"], true);

  // Without the SM count (lavapipe's, and any device that does not say), nothing to judge by.
  result.device.smCount = 0;
  report = reportJson(result);
  EXPECT_NO_THROW(checkReport(report, "report.json"));
  EXPECT_TRUE(report["runs"][2]["clocks"]["per_stage"][1]["of_resident_lane_cycles"].is_null());
  EXPECT_TRUE(report["runs"][2]["clocks"]["plausible"].is_null());
}

// Ten frame times of median `median` whose cv is `cv`, evenly spread about it.
std::vector<double> frameTimes(double median, double cv, size_t count = 10) {
  std::vector<double> spread;
  for (size_t i = 0; i < count; ++i) spread.push_back(count > 1 ? -1 + 2 * double(i) / double(count - 1) : 0);
  const Summary unit = summarize(spread);
  std::vector<double> times;
  for (double z : spread) times.push_back(median * (1 + (unit.stddev > 0 ? cv * z / unit.stddev : 0)));
  return times;
}

// The run's frames made `count` frame times of `median` and `cv`, its statistics theirs.
void setFrames(json& run, double median, double cv, size_t count = 10) {
  const std::vector<double> times = frameTimes(median, cv, count);
  run["frame_gpu_ms_samples"] = times;
  run["frame_gpu_ms"] = toJson(summarize(times));
  run["frame_gpu_ms"]["median"] = median;
  run["frames"] = count;
}

json syntheticReport(std::vector<std::tuple<std::string, double, double>> runs) {
  json report = {{"schema_version", reportSchemaVersion},
                 {"device", {{"name", "NVIDIA H200"}, {"type", "discrete"}}},
                 {"runs", json::array()}};
  for (const auto& [integrator, median, cv] : runs) {
    json run = {{"status", "ok"},
                {"parameters",
                 {{"scene", "builtin:cornell"},
                  {"integrator", integrator},
                  {"backend", "pipeline"},
                  {"width", 64},
                  {"height", 64},
                  {"spp", 4},
                  {"max_depth", 8},
                  {"rr_depth", 3},
                  {"seed", 1},
                  {"sampler", "halton"}}},
                {"stages", json::array({{{"name", "trace_shade"},
                                         {"gpu_ms", {{"median", median}}},
                                         {"gpu_ms_median_per_bounce", {median * 0.75, median * 0.25}}}})}};
    setFrames(run, median, cv);
    report["runs"].push_back(run);
  }
  return report;
}

TEST(Statistics, RatioIntervalHoldsTheTrueRatioAndNeedsFiveFramesASide) {
  const std::vector<double> base = frameTimes(10, 0.01), slower = frameTimes(11, 0.01);
  const auto interval = ratioInterval(base, slower, 0.99);
  ASSERT_TRUE(interval.has_value());
  EXPECT_NEAR(interval->estimate, 1.1, 0.005);
  EXPECT_LT(interval->low, 1.1);
  EXPECT_GT(interval->high, 1.1);
  EXPECT_GT(interval->low, 1.07) << "ten frames of cv 1% a side pin a 10% slowdown down within 3%";
  const auto same = ratioInterval(base, base, 0.99);
  ASSERT_TRUE(same.has_value());
  EXPECT_DOUBLE_EQ(same->estimate, 1.0);
  EXPECT_LT(same->low, 1.0);
  EXPECT_GT(same->high, 1.0);
  // One slow frame moves a rank interval little: the nine others still decide.
  std::vector<double> outlier = base;
  outlier[3] = 100;
  EXPECT_LT(ratioInterval(base, outlier, 0.99)->high, 1.05);
  EXPECT_FALSE(ratioInterval(frameTimes(10, 0.01, 4), frameTimes(10, 0.01, 4), 0.99).has_value());
  EXPECT_TRUE(ratioInterval(frameTimes(10, 0.01, 5), frameTimes(10, 0.01, 5), 0.99).has_value());
  EXPECT_FALSE(ratioInterval(std::vector<double>{10, 0, 10, 10, 10}, base, 0.99).has_value()) << "a time of 0";
}

TEST(Compare, ExitCodesForSameFasterSlowerMissingAndNoisy) {
  const json base = syntheticReport({{"megakernel", 10.0, 0.01}, {"megakernel-regen", 8.0, 0.01}});
  EXPECT_EQ(
      compareReports(base, syntheticReport({{"megakernel", 10.1, 0.01}, {"megakernel-regen", 7.0, 0.01}}), {}).exitCode,
      compareExitOk);
  // 3% slower with cv 1% a side: the interval reaches both sides of the threshold, so the frames
  // cannot tell; never a regression.
  const auto atThreshold =
      compareReports(base, syntheticReport({{"megakernel", 10.31, 0.01}, {"megakernel-regen", 8.0, 0.01}}), {});
  EXPECT_EQ(atThreshold.exitCode, compareExitUndecided) << atThreshold.table;
  EXPECT_NE(atThreshold.table.find("\nunsure "), std::string::npos) << atThreshold.table;
  const auto slower =
      compareReports(base, syntheticReport({{"megakernel", 10.6, 0.01}, {"megakernel-regen", 8.0, 0.01}}), {});
  EXPECT_EQ(slower.exitCode, compareExitRegression) << slower.table;
  EXPECT_NE(slower.table.find("REGRESSED"), std::string::npos) << slower.table;
  EXPECT_EQ(compareReports(base, syntheticReport({{"megakernel", 10.0, 0.01}}), {}).exitCode, compareExitUndecided);
  // A 10% slowdown that noise of 20% could explain is undecided; the same noise does not hide
  // a doubling; identical noisy inputs are undecided, not the same: their noise cannot rule out
  // a slowdown beyond the threshold.
  EXPECT_EQ(
      compareReports(base, syntheticReport({{"megakernel", 11.0, 0.20}, {"megakernel-regen", 8.0, 0.01}}), {}).exitCode,
      compareExitUndecided);
  EXPECT_EQ(
      compareReports(base, syntheticReport({{"megakernel", 20.0, 0.20}, {"megakernel-regen", 8.0, 0.01}}), {}).exitCode,
      compareExitRegression);
  const json noisy = syntheticReport({{"megakernel", 10.0, 0.40}, {"megakernel-regen", 8.0, 0.30}});
  EXPECT_EQ(compareReports(noisy, noisy, {}).exitCode, compareExitUndecided);
  EXPECT_EQ(compareReports(base, base, {}).exitCode, compareExitOk);
  // A looser threshold lets the 6% slowdown pass.
  EXPECT_EQ(compareReports(base, syntheticReport({{"megakernel", 10.6, 0.01}, {"megakernel-regen", 8.0, 0.01}}),
                           {.threshold = 0.10})
                .exitCode,
            compareExitOk);
}

// Two runs of the default config by one build, back to back on lavapipe, came out 3.3% apart
// with a cv of 0.55% and 1.13% over 3 frames, and compare called it a regression: a CPU
// implementation's times move with the host's other work. Reports measured on one are
// undecided, whatever their frames say, and a run's line never says REGRESSED.
TEST(Compare, ACpuDeviceIsNeverARegression) {
  json base = syntheticReport({{"megakernel", 10.0, 0.0055}, {"wavefront", 5.0, 0.0113}});
  json next = syntheticReport({{"megakernel", 10.5, 0.0055}, {"wavefront", 3.0, 0.0113}});
  EXPECT_EQ(compareReports(base, next, {}).exitCode, compareExitRegression) << "on a GPU, 5% at cv 0.55% is one";
  for (json* report : {&base, &next}) (*report)["device"] = {{"name", "llvmpipe (LLVM 15.0.6, 256 bits)"}, {"type", "cpu"}};
  const auto result = compareReports(base, next, {});
  EXPECT_EQ(result.exitCode, compareExitUndecided) << result.table;
  EXPECT_EQ(result.table.find("REGRESSED"), std::string::npos) << result.table;
  EXPECT_EQ(result.table.find("faster"), std::string::npos) << result.table;
  EXPECT_NE(result.table.find("CPU implementation"), std::string::npos) << result.table;
  EXPECT_NE(result.table.find("compare: verdict UNDECIDED"), std::string::npos) << result.table;
  // Only one side on a CPU is as undecided.
  base["device"]["type"] = "discrete";
  EXPECT_EQ(compareReports(base, next, {}).exitCode, compareExitUndecided);
}

// Two reports without runs once said "ok" and exited 0; either side without a run has
// nothing to compare.
TEST(Compare, AReportWithoutRunsIsNothingToCompare) {
  const json empty = {{"schema_version", reportSchemaVersion}, {"runs", json::array()}};
  const json some = syntheticReport({{"megakernel", 10.0, 0.01}});
  for (const auto& [base, next, side] :
       {std::tuple{empty, empty, "the base report"}, std::tuple{some, empty, "the new report"},
        std::tuple{empty, some, "the base report"}}) {
    const auto result = compareReports(base, next, {});
    EXPECT_EQ(result.exitCode, compareExitUndecided) << result.table;
    EXPECT_NE(
        result.table.find(std::string("compare: verdict UNDECIDED (nothing to compare: ") + side + " has no run)"),
        std::string::npos)
        << result.table;
  }
}

// One frame's cv is 0, so two single-frame runs of one config differing by their noise alone
// were REGRESSED. With fewer frames a side than an interval needs, a difference is "unsure",
// undecided, faster or slower, and compare says to raise repeats.
TEST(Compare, RunsWithTooFewFramesAreNeverARegression) {
  auto frames = [](json report, size_t count) {
    for (auto& run : report["runs"]) setFrames(run, run["frame_gpu_ms"]["median"], 0.001, count);
    return report;
  };
  const json base = frames(syntheticReport({{"megakernel", 10.0, 0.0}}), 1);
  for (double next : {13.7, 7.0}) {
    const auto result = compareReports(base, frames(syntheticReport({{"megakernel", next, 0.0}}), 1), {});
    EXPECT_EQ(result.exitCode, compareExitUndecided) << result.table;
    EXPECT_EQ(result.table.find("REGRESSED"), std::string::npos) << result.table;
    EXPECT_NE(result.table.find("\nunsure "), std::string::npos) << result.table;
    EXPECT_NE(result.table.find("fewer than 5 frames on a side"), std::string::npos) << result.table;
  }
  // One side of four frames is as unsure; with five frames a side the interval decides.
  EXPECT_EQ(compareReports(frames(syntheticReport({{"megakernel", 10.0, 0.0}}), 5),
                           frames(syntheticReport({{"megakernel", 13.7, 0.0}}), 4), {})
                .exitCode,
            compareExitUndecided);
  EXPECT_EQ(compareReports(frames(syntheticReport({{"megakernel", 10.0, 0.0}}), 5),
                           frames(syntheticReport({{"megakernel", 13.7, 0.0}}), 5), {})
                .exitCode,
            compareExitRegression);
}

// A baseline whose times are 0 or negative once made every new run "same" (a change of 0), so
// a run 100 times slower passed: no interval can be drawn from such times, and the run is unsure.
TEST(Compare, ABaselineOfZeroOrNegativeTimesIsNeverPassed) {
  for (double time : {0.0, -5.0}) {
    json base = syntheticReport({{"megakernel", 10.0, 0.01}});
    setFrames(base["runs"][0], time, 0.0);
    const auto result = compareReports(base, syntheticReport({{"megakernel", 1000.0, 0.01}}), {});
    EXPECT_EQ(result.exitCode, compareExitUndecided) << result.table;
    EXPECT_NE(result.table.find("no frame times of their own"), std::string::npos) << result.table;
  }
}

// A committed GPU baseline against a copy of itself made 10% slower is a regression that names
// its runs; against itself it is OK.
TEST(Compare, ABaselineMadeTenPercentSlowerIsARegression) {
  const json base = readGzippedJson(baselineReportPath("nvidia-h200"));
  ASSERT_NE(base["device"]["type"], "cpu");
  const auto same = compareReports(base, base, {});
  EXPECT_EQ(same.exitCode, compareExitOk) << same.table;
  json slower = base;
  for (auto& run : slower["runs"]) {
    if (run["status"] != "ok") continue;
    for (auto& time : run["frame_gpu_ms_samples"]) time = time.get<double>() * 1.1;
    for (const char* statistic : {"median", "mean", "min", "max"})
      run["frame_gpu_ms"][statistic] = run["frame_gpu_ms"][statistic].get<double>() * 1.1;
  }
  const auto result = compareReports(base, slower, {});
  EXPECT_EQ(result.exitCode, compareExitRegression) << result.table;
  const size_t line = result.table.find("REGRESSED");
  ASSERT_NE(line, std::string::npos) << result.table;
  EXPECT_NE(result.table.substr(line, result.table.find('\n', line) - line).find("scene="), std::string::npos)
      << "the line names the run: " << result.table;
}

// Runs are matched by their parameters: neither their place in the report, nor their id, nor
// their place in the sweep makes a run another.
TEST(Compare, MatchesRunsByTheirParametersNotTheirPlace) {
  json base = syntheticReport({{"megakernel", 10.0, 0.01}, {"megakernel-regen", 8.0, 0.01}, {"wavefront", 5.0, 0.01}});
  for (size_t i = 0; i < base["runs"].size(); ++i) {
    base["runs"][i]["id"] = runId(i);
    base["runs"][i]["sweep_index"] = i;
  }
  json reordered = base;
  reordered["runs"] = json::array();
  for (size_t i = base["runs"].size(); i-- > 0;) {
    json run = base["runs"][i];
    run["id"] = runId(reordered["runs"].size());
    run["sweep_index"] = reordered["runs"].size();
    reordered["runs"].push_back(run);
  }
  EXPECT_EQ(runKey(base["runs"][0]), runKey(reordered["runs"][2]));
  const auto same = compareReports(base, reordered, {});
  EXPECT_EQ(same.exitCode, compareExitOk) << same.table;
  EXPECT_EQ(same.table.find("REGRESSED"), std::string::npos) << same.table;
  EXPECT_NE(same.table.find("compare: verdict OK (0 of 3 runs slower beyond 3% with 99% confidence; 3 same)"),
            std::string::npos)
      << same.table;
  // The wavefront slower, now first in the new report: it alone regressed, and is named.
  setFrames(reordered["runs"][0], 5.5, 0.01);
  const auto slower = compareReports(base, reordered, {});
  EXPECT_EQ(slower.exitCode, compareExitRegression);
  const size_t line = slower.table.find("REGRESSED");
  ASSERT_NE(line, std::string::npos) << slower.table;
  EXPECT_NE(slower.table.substr(line, slower.table.find('\n', line) - line).find("integrator=wavefront"),
            std::string::npos)
      << slower.table;
  EXPECT_NE(
      slower.table.find("compare: verdict REGRESSION (1 of 3 runs slower beyond 3% with 99% confidence; 2 same)"),
      std::string::npos)
      << slower.table;
}

// A run on one side only is a line of its own; the other runs are compared all the same.
TEST(Compare, ARunOnOneSideOnlyIsListedAndTheOthersCompared) {
  const json base = syntheticReport({{"megakernel", 10.0, 0.01}, {"megakernel-regen", 8.0, 0.01}});
  const auto result = compareReports(base, syntheticReport({{"megakernel", 11.0, 0.01}, {"wavefront", 5.0, 0.01}}), {});
  EXPECT_EQ(result.exitCode, compareExitRegression) << result.table;
  EXPECT_NE(result.table.find("missing   frame                    ok       absent"), std::string::npos) << result.table;
  EXPECT_NE(result.table.find("missing   frame                absent           ok"), std::string::npos) << result.table;
  EXPECT_NE(result.table.find("compare: verdict REGRESSION (1 of 3 runs slower beyond 3% with 99% confidence; 2 "
                              "missing or failed on one side)"),
            std::string::npos)
      << result.table;
  // Without the regression, a missing run leaves the comparison undecided.
  const auto undecided =
      compareReports(base, syntheticReport({{"megakernel", 10.0, 0.01}, {"wavefront", 5.0, 0.01}}), {});
  EXPECT_EQ(undecided.exitCode, compareExitUndecided);
  EXPECT_NE(undecided.table.find("compare: verdict UNDECIDED (0 of 3 runs slower beyond 3% with 99% confidence; 1 "
                                 "same, 2 missing or failed on one side)"),
            std::string::npos)
      << undecided.table;
}

// Every run's line gives both sides' noise; --runs-only leaves out the stages.
TEST(Compare, RunLinesGiveTheNoiseOfBothSides) {
  const json base = syntheticReport({{"megakernel", 10.0, 0.004}});
  const auto result = compareReports(base, syntheticReport({{"megakernel", 10.1, 0.006}}), {});
  EXPECT_NE(result.table.find("same      frame               10.0000      10.1000    1.010 "), std::string::npos)
      << result.table;
  EXPECT_NE(result.table.find("    0.40%    0.60%  scene=builtin:cornell integrator=megakernel"), std::string::npos)
      << result.table;
  // A cv above the noise bound is flagged beside its number.
  EXPECT_NE(compareReports(base, syntheticReport({{"megakernel", 10.1, 0.08}}), {}).table.find("8.00%!"),
            std::string::npos);
  EXPECT_NE(result.table.find("trace_shade"), std::string::npos);
  EXPECT_EQ(compareReports(base, base, {.runsOnly = true}).table.find("trace_shade"), std::string::npos);
}

// Runs of one report with the same parameters (a scene listed twice with other lights) are told
// apart by their order among themselves, and compare says so.
TEST(Compare, RunsWithTheSameParametersMatchInTheirOrder) {
  const json base = syntheticReport({{"megakernel", 10.0, 0.01}, {"megakernel", 20.0, 0.01}});
  EXPECT_EQ(compareReports(base, base, {}).exitCode, compareExitOk);
  const auto swapped =
      compareReports(base, syntheticReport({{"megakernel", 20.0, 0.01}, {"megakernel", 10.0, 0.01}}), {});
  EXPECT_EQ(swapped.exitCode, compareExitRegression);
  EXPECT_NE(swapped.table.find("#2"), std::string::npos) << swapped.table;
  EXPECT_NE(swapped.table.find("matched by their order among themselves"), std::string::npos) << swapped.table;
}

// Stages match by name and bounce: each bounce gets a line of its own.
// Reports before schema 3 timed frames with the film read back between them (clocks could
// drop): compare refuses them as baselines, saying why, as it refuses newer schemas.
TEST(Compare, RefusesBaselinesTimedTheOldWay) {
  json base = syntheticReport({{"megakernel", 10.0, 0.01}});
  const json next = syntheticReport({{"megakernel", 10.0, 0.01}});
  EXPECT_EQ(compareReports(base, next, {}).exitCode, compareExitOk);
  for (int version : {1, 2, reportSchemaVersion + 1}) {
    base["schema_version"] = version;
    EXPECT_THROW(compareReports(base, next, {}), UserError) << version;
  }
  base["schema_version"] = 2;
  try {
    compareReports(base, next, {});
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("measure the baseline again"), std::string::npos) << error.what();
  }
}

TEST(Compare, MatchesStagesByNameAndBounce) {
  const json base = syntheticReport({{"wavefront", 8.0, 0.01}});
  const auto result = compareReports(base, syntheticReport({{"wavefront", 4.0, 0.01}}), {});
  EXPECT_NE(result.table.find("trace_shade[0]       6.0000       3.0000    0.500"), std::string::npos) << result.table;
  EXPECT_NE(result.table.find("trace_shade[1]       2.0000       1.0000    0.500"), std::string::npos) << result.table;
}

// A run with counters: simt is another run: its time is never set against the same run's without
// counters, and compare says why they stay apart.
TEST(Compare, RunsWithCountersAreComparedOnlyWithRunsWithCounters) {
  const json base = syntheticReport({{"megakernel", 10.0, 0.01}});
  json counted = syntheticReport({{"megakernel", 11.0, 0.01}});
  counted["runs"][0]["parameters"]["counters"] = "simt";
  EXPECT_NE(runKey(base["runs"][0]), runKey(counted["runs"][0]));
  const auto apart = compareReports(base, counted, {});
  EXPECT_EQ(apart.exitCode, compareExitUndecided);
  EXPECT_EQ(apart.table.find("1.100"), std::string::npos) << apart.table;
  EXPECT_NE(apart.table.find("compared only with runs with counters"), std::string::npos) << apart.table;
  EXPECT_EQ(compareReports(counted, counted, {}).exitCode, compareExitOk);
  // "off", as reports of this version write it, is the key of reports written before counters.
  json off = base;
  off["runs"][0]["parameters"]["counters"] = "off";
  EXPECT_EQ(runKey(off["runs"][0]), runKey(base["runs"][0]));
}

// restir: off is the plain path tracer that baselines written before the option hold with no
// options; di is another run.
TEST(Compare, RestirOffMatchesRunsWrittenBeforeTheOption) {
  const json base = syntheticReport({{"megakernel", 10.0, 0.01}});
  json off = base;
  off["runs"][0]["parameters"]["options"] = {{"restir", "off"}};
  EXPECT_EQ(runKey(off["runs"][0]), runKey(base["runs"][0]));
  EXPECT_EQ(compareReports(base, off, {}).exitCode, compareExitOk);
  json di = base;
  di["runs"][0]["parameters"]["options"] = {{"restir", "di"}};
  EXPECT_NE(runKey(di["runs"][0]), runKey(base["runs"][0]));
}

// Likewise ms_compensation at its default (true): today's default renderer is compared with the
// baseline's, so the gate sees what compensation costs; single scattering is a run of its own.
TEST(Compare, DefaultMsCompensationMatchesRunsWrittenBeforeTheOption) {
  const json base = syntheticReport({{"megakernel", 10.0, 0.01}});
  json compensated = base;
  compensated["runs"][0]["parameters"]["options"] = {{"ms_compensation", true}, {"restir", "off"}};
  EXPECT_EQ(runKey(compensated["runs"][0]), runKey(base["runs"][0]));
  json single = base;
  single["runs"][0]["parameters"]["options"] = {{"ms_compensation", false}};
  EXPECT_NE(runKey(single["runs"][0]), runKey(base["runs"][0]));
}

// ReSTIR's tuning at its defaults leaves a run's key as reports written before the options hold
// it; any other value is a run of its own.
TEST(Compare, DefaultRestirTuningMatchesRunsWrittenBeforeTheOptions) {
  const json base = syntheticReport({{"megakernel", 10.0, 0.01}});
  json tuned = base;
  tuned["runs"][0]["parameters"]["options"] = {{"restir", "off"},           {"restir_candidates", 32},
                                               {"restir_neighbours", 3},    {"restir_history_cap", 20.0},
                                               {"restir_gi_jacobian", 0.0}, {"restir_bsdf_candidate", false}};
  EXPECT_EQ(runKey(tuned["runs"][0]), runKey(base["runs"][0]));
  for (const auto& [option, value] : std::vector<std::pair<std::string, json>>{{"restir_candidates", 64},
                                                                               {"restir_neighbours", 6},
                                                                               {"restir_history_cap", 5.0},
                                                                               {"restir_gi_jacobian", 10.0},
                                                                               {"restir_bsdf_candidate", true}}) {
    json other = tuned;
    other["runs"][0]["parameters"]["options"][option] = value;
    EXPECT_NE(runKey(other["runs"][0]), runKey(base["runs"][0])) << option;
  }
}

// And the wavefront's shadow_overlap at its default (true): its gain shows against baselines
// written before the option; the ablation is a run of its own.
TEST(Compare, DefaultShadowOverlapMatchesRunsWrittenBeforeTheOption) {
  const json base = syntheticReport({{"wavefront", 10.0, 0.01}});
  json overlapped = base;
  overlapped["runs"][0]["parameters"]["options"] = {{"shadow_overlap", true}};
  EXPECT_EQ(runKey(overlapped["runs"][0]), runKey(base["runs"][0]));
  json serial = base;
  serial["runs"][0]["parameters"]["options"] = {{"shadow_overlap", false}};
  EXPECT_NE(runKey(serial["runs"][0]), runKey(base["runs"][0]));
}

TEST(Compare, ThresholdParsesPercentAndFraction) {
  EXPECT_DOUBLE_EQ(parseThreshold("5%"), 0.05);
  EXPECT_DOUBLE_EQ(parseThreshold("0.1"), 0.1);
  EXPECT_THROW(parseThreshold("five"), UserError);
  EXPECT_THROW(parseThreshold("-3%"), UserError);
  EXPECT_THROW(compareReports(json::object(), json::object(), {}), UserError);
}

// A reference and an image 0.1 brighter everywhere: RMSE 0.1 exactly; relMSE the mean of
// 0.01 / (r^2 + 0.01); the projected time and efficiency follow from relMSE ~ 1/samples.
TEST(Convergence, KnownOffsetGivesKnownErrors) {
  LinearImage reference{2, 1, {0.0f, 0.5f, 1.0f, 2.0f, 0.1f, 0.0f}};
  LinearImage image = reference;
  for (float& value : image.rgb) value += 0.1f;
  const auto metrics = convergenceMetrics(image, reference);
  ASSERT_TRUE(metrics.has_value());
  EXPECT_NEAR(metrics->rmse, 0.1, 1e-6);
  double relmse = 0;
  for (float r : reference.rgb) relmse += 0.01 / (double(r) * r + 0.01) / 6.0;
  EXPECT_NEAR(metrics->relmse, relmse, 1e-6);
  EXPECT_DOUBLE_EQ(secondsToReach(0.04, 0.5, 0.01), 2.0) << "a quarter of the error takes four times the samples";
  EXPECT_DOUBLE_EQ(efficiency(0.04, 0.5), 50.0);
  EXPECT_FALSE(convergenceMetrics(image, LinearImage{1, 2, image.rgb}).has_value()) << "sizes differ";
  // FLIP beside them, the HDR-FLIP of flip.h; none against the image itself.
  ASSERT_TRUE(metrics->flip.has_value());
  EXPECT_DOUBLE_EQ(*metrics->flip, hdrFlip(image, reference)->mean);
  EXPECT_GT(*metrics->flip, 0.0);
  EXPECT_EQ(convergenceMetrics(reference, reference)->flip, 0.0);
  EXPECT_FALSE(convergenceMetrics(image, reference, WithFlip::No)->flip.has_value()) << "FLIP only where asked for";
}

// summary --format md: a Markdown table (a header, a rule of as many cells, rows of as many),
// a failed run's reason in it, and a warning for a run whose clock wandered.
TEST(Summary, MarkdownIsATableWithEveryRun) {
  ExperimentResult result = syntheticResult(fs::temp_directory_path());
  result.runs[0].frameGpuSamples = {{{.smClockMhz = 1980}, {.smClockMhz = 1980}},
                                    {{.smClockMhz = 1500}, {.smClockMhz = 1500}},
                                    {{.smClockMhz = 1980}, {.smClockMhz = 1980, .throttleReasons = 0x20}}};
  const json report = reportJson(result);
  EXPECT_DOUBLE_EQ(report["runs"][0]["gpu_context"]["sm_clock_mhz_mean"].get<double>(), (1980 + 1500 + 1980) / 3.0);
  EXPECT_EQ(report["runs"][0]["gpu_context"]["throttled_frames"], json::array({2}));
  EXPECT_TRUE(report["runs"][2]["gpu_context"]["sm_clock_mhz_mean"].is_null()) << "no samples: nulls";
  const std::string markdown = reportSummary(report, SummaryFormat::Markdown);
  std::istringstream lines(markdown);
  std::vector<std::string> table;
  std::string device, blank;
  std::getline(lines, device);
  std::getline(lines, blank);
  EXPECT_EQ(device.rfind("device: Test GPU", 0), 0u) << "a pasted table keeps its device: " << markdown;
  for (std::string line; std::getline(lines, line) && !line.empty();) table.push_back(line);
  ASSERT_EQ(table.size(), 2u + result.runs.size()) << markdown;
  auto cells = [](const std::string& row) {
    size_t count = 0;
    for (size_t i = 0; i < row.size(); ++i) count += row[i] == '|' && (i == 0 || row[i - 1] != '\\');
    return count - 1;
  };
  EXPECT_EQ(table[1].find_first_not_of("|-: "), std::string::npos) << table[1];
  for (const auto& row : table) {
    EXPECT_EQ(row.front(), '|');
    EXPECT_EQ(cells(row), cells(table[0])) << row;
  }
  EXPECT_NE(markdown.find("failed: backend rayquery is not supported"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("the SM clock varied by 26%"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("1 of its frames ran throttled (sw_thermal_slowdown)"), std::string::npos) << markdown;
  EXPECT_NE(reportSummary(report, SummaryFormat::Table).find("r000"), std::string::npos);
  EXPECT_EQ(reportSummary(report, SummaryFormat::Csv).rfind("run,scene,integrator", 0), 0u);
}

}  // namespace
}  // namespace ptbench::test
