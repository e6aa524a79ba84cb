#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "gpu_test.h"
#include "test_files.h"

namespace ptbench::test {
namespace {

// The option names a `--help` lists (its "Options:" lines, long names; -h,--help left out, the
// synopsis in docs/cli.md names it once) and the environment variables it names.
std::set<std::string> helpFlags(const std::string& help) {
  std::set<std::string> flags;
  std::istringstream lines(help);
  const std::regex optionLine(R"(^  (-[-\w]+(,-[-\w]+)*))");
  const std::regex name(R"(--[a-z][-a-z0-9]*)");
  const std::regex environment(R"(Env:\s*([A-Z_]+))");
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (std::regex_search(line, match, optionLine)) {
      const std::string names = match[1];
      for (auto it = std::sregex_iterator(names.begin(), names.end(), name); it != std::sregex_iterator(); ++it)
        if (it->str() != "--help") flags.insert(it->str());
    }
    for (auto it = std::sregex_iterator(line.begin(), line.end(), environment); it != std::sregex_iterator(); ++it)
      flags.insert((*it)[1].str());
  }
  return flags;
}

// The commands `ptbench --help` lists under "Subcommands:".
std::set<std::string> helpCommands(const std::string& help) {
  std::set<std::string> commands;
  std::istringstream lines(help.substr(help.find("Subcommands:")));
  const std::regex subcommand(R"(^  ([a-z][-a-z]*) )");
  for (std::string line; std::getline(lines, line);)
    if (std::smatch match; std::regex_search(line, match, subcommand)) commands.insert(match[1]);
  return commands;
}

// docs/cli.md's synopsis (the first code block under "## Commands"), command by command: the
// flags (and PTBENCH_ variables) each entry names; "" holds ptbench's own.
std::map<std::string, std::set<std::string>> cliSynopsis(const std::set<std::string>& commands) {
  std::ifstream in(std::string(PTBENCH_SOURCE_DIR) + "/docs/cli.md");
  std::string line;
  while (std::getline(in, line) && line != "## Commands") {
  }
  while (std::getline(in, line) && line != "```") {
  }
  std::map<std::string, std::set<std::string>> synopsis;
  std::string command;
  const std::regex entry(R"(^  ([a-z][-a-z]*)( |$))");
  const std::regex flag(R"(--[a-z][-a-z0-9]*|PTBENCH_[A-Z_]+)");
  while (std::getline(in, line) && line != "```") {
    std::smatch match;
    if (std::regex_search(line, match, entry) && commands.contains(match[1])) command = match[1];
    synopsis[command];
    for (auto it = std::sregex_iterator(line.begin(), line.end(), flag); it != std::sregex_iterator(); ++it)
      synopsis[command].insert(it->str());
  }
  return synopsis;
}

// Every flag a --help lists is in the command's docs/cli.md entry and every flag an entry names
// is in its --help (reference takes render's scene, camera and light options, which its entry
// names as such).
TEST(Help, TheCliReferenceAndEveryHelpAgree) {
  const auto top = runPtbench("--help");
  ASSERT_EQ(top.exitCode, 0) << top.all();
  const std::set<std::string> commands = helpCommands(top.out);
  ASSERT_GE(commands.size(), 11u) << top.out;
  const auto synopsis = cliSynopsis(commands);
  const auto difference = [](const std::set<std::string>& a, const std::set<std::string>& b) {
    std::vector<std::string> out;
    std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    return ::testing::PrintToString(out);
  };
  std::set<std::string> global = helpFlags(top.out);
  global.insert("--help");
  EXPECT_EQ(difference(global, synopsis.at("")), "{}") << "in ptbench --help, not in docs/cli.md\n" << top.out;
  EXPECT_EQ(difference(synopsis.at(""), global), "{}") << "in docs/cli.md, not in ptbench --help\n" << top.out;
  for (const std::string& command : commands) {
    const auto help = runPtbench(command + " --help");
    ASSERT_EQ(help.exitCode, 0) << help.all();
    ASSERT_TRUE(synopsis.contains(command)) << command << " has no entry in docs/cli.md's synopsis";
    const std::set<std::string> flags = helpFlags(help.out);
    std::set<std::string> documented = synopsis.at(command);
    EXPECT_EQ(difference(documented, flags), "{}") << "in docs/cli.md's " << command << ", not in its --help\n"
                                                   << help.out;
    if (command == "reference") documented.insert(synopsis.at("render").begin(), synopsis.at("render").end());
    EXPECT_EQ(difference(flags, documented), "{}") << "in " << command << " --help, not in docs/cli.md\n" << help.out;
  }
  // What the help said too little of: verify's integrators, builtin:spheres' parameters,
  // compare's exit 2 and its threshold's bound.
  EXPECT_NE(runPtbench("verify --help").out.find("megakernel-regen, megakernel-ser, wavefront"), std::string::npos);
  for (const char* command : {"render", "reference", "scene-info"})
    EXPECT_NE(runPtbench(std::string(command) + " --help").out.find("spheres?n=N&subdiv=S[&materials=M&cost=K]"),
              std::string::npos)
        << command;
  const std::string compareHelp = runPtbench("compare --help").out;
  EXPECT_NE(compareHelp.find("2 when it cannot decide"), std::string::npos) << compareHelp;
  EXPECT_NE(compareHelp.find("up to 10 (1000%)"), std::string::npos) << compareHelp;
}

// Global options act after the command as they do before it, with every command: the same
// output and exit code, the device they name the one each command looks for. run's own --quiet
// is run's, and does what -q does.
TEST(GlobalOptions, ActTheSameAfterTheCommandAsBeforeIt) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("ptbench-global-options-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string missing = (dir / "missing.json").string();
  // Each command with arguments that end quickly, and what its output says with a device that
  // is not there.
  const std::map<std::string, std::pair<std::string, std::string>> commands = {
      {"run", {"configs/ci.json --dry-run", "nonexistent-gpu"}},
      {"validate", {"configs/ci.json", "configs/ci.json: ok"}},
      {"compare", {missing + " " + missing, "missing.json"}},
      {"render", {"--scene builtin:cornell --width 8 --height 8 --spp 1", "nonexistent-gpu"}},
      {"devices", {"--json", "llvmpipe"}},
      {"selftest", {"", "nonexistent-gpu"}},
      {"scene-info", {"builtin:cornell", "nonexistent-gpu"}},
      {"verify", {"--quick", "nonexistent-gpu"}},
      {"summary", {missing, "missing.json"}},
      {"flip", {missing + " " + missing, "missing.json"}},
      {"reference", {"builtin:cornell --spp 1 --out " + (dir / "ref.exr").string(), "nonexistent-gpu"}},
      {"merge", {missing + " --out " + (dir / "merged").string(), "missing.json"}},
      {"report", {missing + " --out " + (dir / "page.html").string(), "missing.json"}},
  };
  const auto top = runPtbench("--help");
  ASSERT_EQ(top.exitCode, 0) << top.all();
  for (const std::string& command : helpCommands(top.out))
    EXPECT_TRUE(commands.contains(command)) << command << " is not tried here";
  const std::string global = "--device nonexistent-gpu --validate --gpu-timeout 5 --threads 2 -v -q";
  for (const auto& [command, call] : commands) {
    const auto& [arguments, says] = call;
    const auto before = runPtbench(global + " " + command + " " + arguments, "", PTBENCH_SOURCE_DIR);
    const auto after = runPtbench(command + " " + arguments + " " + global, "", PTBENCH_SOURCE_DIR);
    EXPECT_EQ(after.exitCode, before.exitCode) << command << "\n" << after.all();
    EXPECT_EQ(after.all(), before.all()) << command;
    EXPECT_NE(after.all().find(says), std::string::npos) << command << "\n" << after.all();
  }
  const auto lavapipe = runPtbench("run configs/ci.json --dry-run --device llvmpipe", "", PTBENCH_SOURCE_DIR);
  EXPECT_EQ(lavapipe.exitCode, 0) << lavapipe.all();
  EXPECT_NE(lavapipe.out.find("on llvmpipe"), std::string::npos) << lavapipe.all();
  for (const char* quiet : {"--quiet", "-q"}) {
    const auto result = runPtbench(std::string("run configs/ci.json --dry-run ") + quiet, "", PTBENCH_SOURCE_DIR);
    EXPECT_EQ(result.exitCode, 0) << quiet << "\n" << result.all();
  }
  const auto silenced = runPtbench("scene-info builtin:cornell -q", "PTBENCH_PROGRESS_AFTER_MS=0");
  EXPECT_EQ(silenced.exitCode, 0) << silenced.all();
  EXPECT_EQ(silenced.err.find("done in "), std::string::npos) << "-q after the command silences progress\n"
                                                              << silenced.err;
  fs::remove_all(dir);
}

// configs/*.json names configs/schema.json, the JSON Schema of the configs, too: validate says it
// skips it and checks the rest. A config that names that schema in its own "$schema" is checked.
TEST(ValidateCommand, SkipsAJsonSchemaAmongTheConfigs) {
  namespace fs = std::filesystem;
  const auto shipped = runPtbench("validate configs/*.json", "", PTBENCH_SOURCE_DIR);
  EXPECT_EQ(shipped.exitCode, 0) << shipped.all();
  EXPECT_NE(shipped.out.find("configs/schema.json: a JSON Schema, not a config; skipped\n"), std::string::npos)
      << shipped.all();
  EXPECT_NE(shipped.out.find("configs/camera-path.json: ok"), std::string::npos) << shipped.all();

  const fs::path dir = fs::temp_directory_path() / ("ptbench-validate-schema-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "draft7.json") << R"({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"})";
  std::ofstream(dir / "broken.json") << R"({"$schema": "./schema.json", "schema_version": 1, "name": "x"})";
  const auto schema = runPtbench("validate " + (dir / "draft7.json").string());
  EXPECT_EQ(schema.exitCode, 0) << schema.all();
  EXPECT_NE(schema.out.find("draft7.json: a JSON Schema, not a config; skipped"), std::string::npos) << schema.all();
  const auto broken = runPtbench("validate " + (dir / "broken.json").string());
  EXPECT_EQ(broken.exitCode, 65) << broken.all();
  EXPECT_NE(broken.err.find("broken.json: /scenes: required"), std::string::npos) << broken.all();
  fs::remove_all(dir);
}

TEST(DevicesCommand, JsonListsLavapipeWithItsBackends) {
  const auto result = runPtbench("devices --json");
  ASSERT_EQ(result.exitCode, 0) << result.all();
  const auto json = nlohmann::json::parse(result.out);
  ASSERT_TRUE(json["devices"].is_array());
  ASSERT_FALSE(json["devices"].empty());
  const auto lavapipe = std::find_if(json["devices"].begin(), json["devices"].end(), [](const auto& d) {
    return d["name"].template get<std::string>().find("llvmpipe") != std::string::npos;
  });
  ASSERT_NE(lavapipe, json["devices"].end()) << result.out;
  const auto& device = *lavapipe;
  for (const char* key : {"index", "name", "type", "vendor_id", "driver", "api_version", "memory_bytes",
                          "subgroup_size", "timestamp_period_ns", "timestamp_valid_bits", "backends", "ser"})
    EXPECT_TRUE(device.contains(key)) << key;
  EXPECT_EQ(device["type"], "cpu");
  EXPECT_EQ(device["backends"]["rayquery"], true);
  EXPECT_EQ(device["backends"]["pipeline"], true);
  EXPECT_EQ(device["backends"]["software"], true);
  EXPECT_TRUE(device["ser"].is_boolean());
  // Lavapipe: no SER, and subgroup operations in compute shaders but not in ray generation.
  EXPECT_EQ(device["invocation_reorder"]["VK_NV_ray_tracing_invocation_reorder"], false);
  EXPECT_EQ(device["invocation_reorder"]["reorders"], false);
  EXPECT_EQ(device["simt_counters"]["compute"], true);
  EXPECT_EQ(device["simt_counters"]["ray_generation"], false);
}

TEST(DevicesCommand, UnknownDeviceFailsAndListsDevices) {
  // devices lists every device; a subcommand that opens one must refuse a bad --device.
  const auto result = runPtbench("--device nonexistent-gpu selftest");
  EXPECT_NE(result.exitCode, 0);
  EXPECT_NE(result.all().find("the device \"nonexistent-gpu\" (from --device, PTBENCH_DEVICE or the config's "
                              "\"device\") matches no Vulkan device"),
            std::string::npos)
      << result.all();
  EXPECT_NE(result.all().find("llvmpipe"), std::string::npos) << result.all();
}

TEST(DevicesCommand, NoVulkanDriverNamesThePackage) {
  // An ICD list naming no driver is what a machine without mesa-vulkan-drivers looks like.
  const auto result = runPtbench("devices", "VK_DRIVER_FILES=/nonexistent.json VK_ICD_FILENAMES=/nonexistent.json");
  EXPECT_NE(result.exitCode, 0);
  EXPECT_NE(result.all().find("mesa-vulkan-drivers"), std::string::npos) << result.all();
}

TEST(DevicesCommand, NoVulkanLoaderNamesThePackage) {
  const auto result = runPtbench("devices", "PTBENCH_VULKAN_LIBRARY=/nonexistent/libvulkan.so.1");
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find("cannot open the Vulkan loader (/nonexistent/libvulkan.so.1)"), std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("apt-get install libvulkan1"), std::string::npos) << result.err;
}

TEST(SelftestCommand, RunsTheKernelAndReportsItsTime) {
  const auto result = runPtbench("--validate selftest");
  EXPECT_EQ(result.exitCode, 0) << result.all();
  EXPECT_NE(result.all().find("selftest: ok"), std::string::npos) << result.all();
  EXPECT_EQ(result.all().find("validation:"), std::string::npos) << result.all();
}

TEST(SceneInfoCommand, JsonDescribesTheScene) {
  const auto result = runPtbench("--validate scene-info --json " + std::string(PTBENCH_SOURCE_DIR) +
                                 "/scenes/DamagedHelmet/glTF-Binary/DamagedHelmet.glb");
  ASSERT_EQ(result.exitCode, 0) << result.all();
  const auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["triangles"], 15452);
  EXPECT_EQ(json["materials"], 1);
  EXPECT_EQ(json["textures"], 5);
  EXPECT_EQ(json["cameras"], 0);
  EXPECT_GT(json["emissive_triangles"].get<int>(), 0);
  EXPECT_EQ(json["bounds"]["min"].size(), 3u);
  EXPECT_EQ(json["bounds"]["max"].size(), 3u);
  EXPECT_GT(json["blas_bytes"].get<uint64_t>(), 0u);
  EXPECT_GT(json["blas_build_gpu_ms"].get<double>(), 0.0);
  // The software BVH's figures, both layouts: one mesh of 15,452 triangles, one instance.
  const auto& bvh = json.at("software_bvh");
  EXPECT_GT(bvh["build_ms"].get<double>(), 0.0);
  EXPECT_GT(bvh["build_cpu_ms"].get<double>(), 0.0);
  EXPECT_LE(bvh["build_system_cpu_ms"].get<double>(), bvh["build_cpu_ms"].get<double>());
  for (const char* layout : {"cwbvh", "bvh2"}) {
    const auto& figures = bvh.at(layout);
    EXPECT_EQ(figures["bottom_levels"]["primitives"], 15452) << layout;
    EXPECT_EQ(figures["top_level"]["primitives"], 1) << layout;
    EXPECT_GT(figures["bottom_levels"]["nodes"].get<uint64_t>(), 0u) << layout;
    EXPECT_GT(figures["bottom_levels"]["depth"].get<uint32_t>(), 1u) << layout;
    EXPECT_GT(figures["bottom_levels"]["sah_cost"].get<double>(), 1.0) << layout;
    EXPECT_GE(figures["bytes"].get<uint64_t>(), 15452u * 48u) << layout << ": the triangles alone take 48 bytes each";
    EXPECT_LE(figures["stack_entries"].get<uint32_t>(), 64u) << layout;
  }
  EXPECT_LT(bvh["cwbvh"]["bottom_levels"]["nodes"].get<uint64_t>(),
            bvh["bvh2"]["bottom_levels"]["nodes"].get<uint64_t>())
      << "8-wide nodes are fewer";
}

TEST(SceneInfoCommand, MissingSceneFailsWithItsName) {
  const auto result = runPtbench("scene-info /nonexistent/scene.glb");
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.all().find("/nonexistent/scene.glb: no such scene file"), std::string::npos) << result.all();
}

// A step that runs past its threshold (a second; 0 ms here, so that every step does) says so on
// stderr with its time and again when it ends; -q (and run's --quiet) silence it.
TEST(StepProgress, LongStepsReportTheirTimeAndQuietSilencesThem) {
  const std::string scene = std::string(PTBENCH_SOURCE_DIR) + "/scenes/DamagedHelmet/glTF-Binary/DamagedHelmet.glb";
  const auto loud = runPtbench("scene-info " + scene, "PTBENCH_PROGRESS_AFTER_MS=0");
  ASSERT_EQ(loud.exitCode, 0) << loud.all();
  EXPECT_NE(loud.err.find("reading " + scene + ": "), std::string::npos) << loud.err;
  EXPECT_NE(loud.err.find(" s so far"), std::string::npos) << loud.err;
  EXPECT_NE(loud.err.find("done in "), std::string::npos) << loud.err;
  const auto quiet = runPtbench("-q scene-info " + scene, "PTBENCH_PROGRESS_AFTER_MS=0");
  ASSERT_EQ(quiet.exitCode, 0) << quiet.all();
  EXPECT_EQ(quiet.err.find("so far"), std::string::npos) << quiet.err;
  EXPECT_NE(quiet.out.find("triangles 15452"), std::string::npos) << "the results themselves are printed";
  // Without the override a quick step is silent.
  const auto quick = runPtbench("scene-info builtin:cornell");
  EXPECT_EQ(quick.err.find("so far"), std::string::npos) << quick.err;
}

// A material extension that ptbench loads without shading is named once by every command
// that loads the scene, and listed in scene-info's JSON and in each run of the report.
TEST(UnshadedExtensions, EveryCommandNamesThemOnce) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "ptbench-unshaded";
  std::filesystem::create_directories(dir);
  nlohmann::json gltf = quadGltf(dir, "iridescent", {});
  gltf["materials"] = {{{"extensions", {{"KHR_materials_iridescence", {{"iridescenceFactor", 1}}}}}}};
  std::ofstream(dir / "iridescent.gltf") << gltf.dump();
  const std::string scene = (dir / "iridescent.gltf").string();
  auto warnings = [](const std::string& text) {
    size_t count = 0;
    for (size_t at = text.find("does not shade KHR_materials_iridescence"); at != std::string::npos;
         at = text.find("does not shade KHR_materials_iridescence", at + 1))
      ++count;
    return count;
  };
  const auto info = runPtbench("scene-info " + scene);
  ASSERT_EQ(info.exitCode, 0) << info.all();
  EXPECT_EQ(warnings(info.err), 1u) << info.all();
  const auto json = runPtbench("scene-info --json " + scene);
  ASSERT_EQ(json.exitCode, 0) << json.all();
  EXPECT_EQ(nlohmann::json::parse(json.out)["unshaded_extensions"],
            nlohmann::json::array({"KHR_materials_iridescence"}));

  const auto render = runPtbench("render --scene " + scene + " --backend pipeline --width 8 --height 8 --spp 1");
  ASSERT_EQ(render.exitCode, 0) << render.all();
  EXPECT_EQ(warnings(render.err), 1u) << render.all();

  std::ofstream(dir / "config.json") << R"({"schema_version": 1, "name": "unshaded", "scenes": [")" + scene +
                                            R"("], "integrators": ["megakernel", "megakernel-regen"],
      "width": 8, "height": 8, "spp": 1, "backends": "pipeline", "warmup": 0, "repeats": 1})";
  const auto run =
      runPtbench("run " + (dir / "config.json").string() + " --quiet --json - --out " + (dir / "out").string());
  ASSERT_EQ(run.exitCode, 0) << run.all();
  EXPECT_EQ(warnings(run.err), 1u) << run.all();
  const auto report = nlohmann::json::parse(run.out);
  ASSERT_EQ(report["runs"].size(), 2u);
  for (const auto& r : report["runs"])
    EXPECT_EQ(r["unshaded_extensions"], nlohmann::json::array({"KHR_materials_iridescence"})) << r["id"];
  std::filesystem::remove_all(dir);
}

TEST(RenderCommand, WritesEveryRequestedImageAndReportsThroughput) {
  const std::string dir = ::testing::TempDir();
  const auto result = runPtbench(
      "--validate render --scene builtin:cornell --backend pipeline --width 16 --height 16 "
      "--spp 2 --out " +
      dir + "r.png " + dir + "r.exr " + dir + "r.pfm");
  ASSERT_EQ(result.exitCode, 0) << result.all();
  EXPECT_NE(result.out.find("trace_shade"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("Mrays/s"), std::string::npos) << result.out;
  for (const char* name : {"r.png", "r.exr", "r.pfm"}) {
    std::ifstream file(dir + name, std::ios::binary | std::ios::ate);
    EXPECT_GT(file.tellg(), 0) << name;
  }
  std::ifstream pfm(dir + "r.pfm", std::ios::binary | std::ios::ate);
  EXPECT_EQ(pfm.tellg(), std::streamoff(std::string("PF\n16 16\n-1.0\n").size() + 16 * 16 * 3 * 4));
}

// counters: simt prints utilisation and coherence per bounce; megakernel-ser on a device without
// SER is an error naming the extension, exit 1, no image.
TEST(RenderCommand, CountsDivergenceAndRefusesSerWithoutTheExtension) {
  const auto counted = runPtbench(
      "--validate render --scene builtin:cornell --integrator wavefront --width 16 --height 16 --spp 2 --counters "
      "simt");
  ASSERT_EQ(counted.exitCode, 0) << counted.all();
  EXPECT_NE(counted.out.find("simt         at shade, subgroups of"), std::string::npos) << counted.out;
  EXPECT_NE(counted.out.find("utilisation"), std::string::npos) << counted.out;
  const std::string image = ::testing::TempDir() + "ser.png";
  std::filesystem::remove(image);
  const auto ser = runPtbench("render --scene builtin:cornell --integrator megakernel-ser --out " + image);
  EXPECT_EQ(ser.exitCode, 1) << ser.all();
  EXPECT_NE(ser.err.find("lacks VK_NV_ray_tracing_invocation_reorder, which megakernel-ser needs"), std::string::npos)
      << ser.err;
  EXPECT_FALSE(std::filesystem::exists(image));
  const auto raygen = runPtbench("render --scene builtin:cornell --backend pipeline --counters simt");
  EXPECT_EQ(raygen.exitCode, 1) << raygen.all();
  EXPECT_NE(raygen.err.find("in ray-generation shaders"), std::string::npos) << raygen.err;
}

// counters: clocks prints each phase's share per bounce; one run counts simt or clocks, and the
// raycast has no phases to time.
TEST(RenderCommand, TimesThePhasesWithClocks) {
  const auto clocked = runPtbench(
      "--validate render --scene builtin:cornell --backend rayquery --width 16 --height 16 --spp 2 --max-depth 3 "
      "--counters clocks");
  ASSERT_EQ(clocked.exitCode, 0) << clocked.all();
  EXPECT_NE(clocked.out.find("clocks       shares of the clocked lane-cycles"), std::string::npos) << clocked.out;
  EXPECT_NE(clocked.out.find("bounce        traversal   material      light       rest"), std::string::npos)
      << clocked.out;
  const auto both = runPtbench("render --scene builtin:cornell --counters simt,clocks");
  EXPECT_NE(both.exitCode, 0);
  EXPECT_NE(both.err.find("--counters"), std::string::npos) << both.err;
  const auto raycast = runPtbench("render --scene builtin:cornell --integrator raycast --counters clocks");
  EXPECT_EQ(raycast.exitCode, 1);
  EXPECT_NE(raycast.err.find("--counters clocks: times a path tracer's phases"), std::string::npos) << raycast.err;
}

TEST(RenderCommand, RefusesBadArgumentsBeforeRendering) {
  const auto badFormat = runPtbench("render --scene builtin:cornell --out image.bmp");
  EXPECT_EQ(badFormat.exitCode, 1);
  EXPECT_NE(badFormat.err.find("image.bmp: unknown image format"), std::string::npos) << badFormat.err;
  const auto badIntegrator = runPtbench("render --scene builtin:cornell --integrator wavefront-ish");
  EXPECT_EQ(badIntegrator.exitCode, 1);
  EXPECT_NE(badIntegrator.err.find("unknown integrator 'wavefront-ish'"), std::string::npos) << badIntegrator.err;
  const auto badBackend = runPtbench("render --scene builtin:cornell --backend optix");
  EXPECT_EQ(badBackend.exitCode, 1);
  EXPECT_NE(badBackend.err.find("unknown backend 'optix'"), std::string::npos) << badBackend.err;
  // A config's "all" is several runs; render draws one image (it once rendered the first).
  const auto allBackends = runPtbench("render --scene builtin:cornell --backend all");
  EXPECT_EQ(allBackends.exitCode, 1);
  EXPECT_NE(allBackends.err.find("--backend all: one image is drawn on one backend"), std::string::npos)
      << allBackends.err;
  // The raycast is measured by its trace stage: frame-only timing would leave nothing to report.
  const auto raycastFrame = runPtbench("render --scene builtin:cornell --integrator raycast --timing frame");
  EXPECT_EQ(raycastFrame.exitCode, 1);
  EXPECT_NE(raycastFrame.err.find("--timing frame: the raycast's measure is its trace stage"), std::string::npos)
      << raycastFrame.err;
  // A scene that cannot be read is reported as such before any device is chosen.
  const auto missingScene = runPtbench("--device no-such-gpu render --scene missing.glb");
  EXPECT_EQ(missingScene.exitCode, 1);
  EXPECT_NE(missingScene.err.find("missing.glb"), std::string::npos) << missingScene.err;
  EXPECT_EQ(missingScene.err.find("no-such-gpu"), std::string::npos) << missingScene.err;
}

// `ptbench verify` for one integrator and backend (scripts/test.sh runs every one): every case
// passes; with --json - the results go to stdout as JSON and the table to stderr, each verdict
// following from its numbers.
TEST(VerifyCommand, PassesOnLavapipeWithATableAndJson) {
  const auto result = runPtbench("--validate verify --quick --integrator megakernel-regen --backend pipeline --json -");
  ASSERT_EQ(result.exitCode, 0) << result.all();
  const std::string& table = result.err;
  EXPECT_NE(table.find("case                               integrator       backend    expected  measured tolerance "
                       "regions off invalid  result"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("furnace, rough dielectric          megakernel-regen pipeline    1.0"), std::string::npos)
      << table;
  EXPECT_NE(table.find("verify: 27 passed, 0 failed, 0 skipped in"), std::string::npos) << table;
  EXPECT_EQ(table.find("FAIL"), std::string::npos) << table;

  const auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["schema_version"], 1);
  EXPECT_EQ(json["passed"], true);
  EXPECT_EQ(json["validation"], true);
  EXPECT_NE(json["device"]["name"].get<std::string>().find("llvmpipe"), std::string::npos);
  ASSERT_EQ(json["results"].size(), 27u);
  EXPECT_TRUE(json["skipped"].empty());
  for (const auto& r : json["results"]) {
    const std::string what = r["case"].get<std::string>();
    EXPECT_EQ(r["integrator"], "megakernel-regen");
    EXPECT_EQ(r["backend"], "pipeline");
    for (const char* key : {"scene", "expected_mean", "measured_mean", "standard_error", "tolerance", "pixels",
                            "invalid_samples", "validation_messages", "regions", "pass", "problems"})
      EXPECT_TRUE(r.contains(key)) << what << ": " << key;
    // The verdict follows from the numbers beside it.
    bool regionsPass = true;
    for (const auto& region : r["regions"]) {
      const bool within = std::fabs(region["measured_mean"].get<double>() - region["expected_mean"].get<double>()) <=
                          region["tolerance"].get<double>();
      EXPECT_EQ(region["pass"], within) << what << ", " << region["region"];
      regionsPass &= within;
    }
    const bool within =
        std::fabs(r["measured_mean"].get<double>() - r["expected_mean"].get<double>()) <= r["tolerance"].get<double>();
    EXPECT_EQ(r["pass"], within && regionsPass && r["invalid_samples"] == 0 && r["validation_messages"] == 0) << what;
    EXPECT_EQ(r["pass"], true) << what << ": " << r["problems"];
  }
}

// A backend ptbench has not written is a note in the table; with nothing left to run, verify
// says so and fails rather than pass on nothing.
TEST(VerifyCommand, VerifiesTheSoftwareBackend) {
  const auto result = runPtbench("verify --quick --backend software --integrator megakernel");
  EXPECT_EQ(result.exitCode, 0) << result.all();
  EXPECT_NE(result.out.find("megakernel       software"), std::string::npos) << result.out;
  EXPECT_EQ(result.out.find("skipped:"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("0 failed, 0 skipped"), std::string::npos) << result.out;
}

TEST(VerifyCommand, HelpNamesTheFailureExitCodeAndBadOptionsAreRefused) {
  const auto help = runPtbench("verify --help");
  EXPECT_EQ(help.exitCode, 0) << help.all();
  EXPECT_NE(help.out.find("exit 3 if any check fails"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("--quick"), std::string::npos) << help.out;
  const auto badSpp = runPtbench("verify --spp 0");
  EXPECT_EQ(badSpp.exitCode, 1) << badSpp.all();
  const auto badIntegrator = runPtbench("verify --integrator wavefront-ish");
  EXPECT_EQ(badIntegrator.exitCode, 1) << badIntegrator.all();
  EXPECT_NE(badIntegrator.err.find("--integrator wavefront-ish: unknown integrator"), std::string::npos)
      << badIntegrator.err;
  const auto badFolder = runPtbench("verify --json /nonexistent/folder/verify.json");
  EXPECT_EQ(badFolder.exitCode, 1) << badFolder.all();
  EXPECT_NE(badFolder.err.find("--json /nonexistent/folder/verify.json"), std::string::npos) << badFolder.err;
}

// `verify --spp 1` must not fail checks that pass at the default for lack of a variance: fewer
// samples widen the tolerance (the JSON says by how many standard errors).
TEST(VerifyCommand, PassesAtOneTwoAndFourSamplesPerPixel) {
  for (const char* samples : {"1", "2", "4"}) {
    const auto result =
        runPtbench(std::string("verify --quick --integrator megakernel --backend rayquery --json - --spp ") + samples);
    EXPECT_EQ(result.exitCode, 0) << samples << " spp: " << result.all();
    EXPECT_NE(result.err.find("verify: 27 passed, 0 failed"), std::string::npos) << result.err;
    const auto json = nlohmann::json::parse(result.out);
    for (const auto& r : json["results"]) EXPECT_GE(r["standard_errors"].get<double>(), 5) << r["case"];
  }
}

// `reference` must not render for minutes and then find its output unwritable, losing the
// work, nor stay silent while it renders: it checks every output first, prints frames
// done and an ETA on stderr, ends with a summary line, and writes the EXR even when the PNG
// (given first, here a link to /dev/full) fails.
TEST(ReferenceCommand, ChecksItsOutputsFirstShowsProgressAndKeepsTheExrWhenThePngFails) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("ptbench-reference-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::create_symlink("/dev/full", dir / "full.png");

  // sysfs lets nobody, root included, create a file at its top.
  const auto unwritable = runPtbench("reference builtin:cornell --width 8 --height 8 --spp 64 --out /sys/ptbench.exr");
  EXPECT_EQ(unwritable.exitCode, 1) << unwritable.all();
  EXPECT_NE(unwritable.err.find("--out /sys/ptbench.exr: cannot write into /sys"), std::string::npos)
      << unwritable.all();
  EXPECT_EQ(unwritable.out.find("| reference |"), std::string::npos) << "rendered before checking\n"
                                                                     << unwritable.all();

  const auto result = runPtbench("reference builtin:cornell --width 8 --height 8 --spp 128 --spp-per-frame 32 --out " +
                                 (dir / "full.png").string() + " " + (dir / "ref.exr").string());
  EXPECT_EQ(result.exitCode, 1) << result.all();
  EXPECT_NE(result.err.find("reference: frame 4/4 (128/128 spp), "), std::string::npos) << result.all();
  EXPECT_NE(result.err.find(" s, ETA 0 s"), std::string::npos) << result.all();
  EXPECT_NE(result.err.find("cannot write " + (dir / "full.png").string() + ": No space left on device"),
            std::string::npos)
      << result.all();
  EXPECT_NE(result.out.find("reference: 128 spp in 4 frames in "), std::string::npos) << result.all();
  EXPECT_NE(result.out.find("; wrote " + (dir / "ref.exr").string() + "; FAILED " + (dir / "full.png").string()),
            std::string::npos)
      << result.all();
  EXPECT_GT(fs::file_size(dir / "ref.exr"), 100u);
  EXPECT_TRUE(fs::is_symlink(dir / "full.png"));
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
  fs::remove_all(dir);
}

// A reference must not repeat the samples of the runs measured against it: with the same seed
// and a run's sample count, its first frame used to be that run's image exactly, and the run's
// error against the reference read too low.
TEST(ReferenceCommand, SharesNoSamplesWithARunOfTheSameSeed) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("ptbench-reference-seed-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string size = " --width 8 --height 8 --spp 4 --seed 7";
  const auto reference =
      runPtbench("reference builtin:cornell" + size + " --spp-per-frame 4 --out " + (dir / "ref.pfm").string());
  ASSERT_EQ(reference.exitCode, 0) << reference.all();
  const auto run = runPtbench("render --scene builtin:cornell --integrator megakernel" + size + " --out " +
                              (dir / "run.pfm").string());
  ASSERT_EQ(run.exitCode, 0) << run.all();
  auto bytes = [](const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string referenceBytes = bytes(dir / "ref.pfm"), runBytes = bytes(dir / "run.pfm");
  ASSERT_EQ(referenceBytes.size(), runBytes.size());
  EXPECT_NE(referenceBytes, runBytes) << "the reference's samples are the run's";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ptbench::test
