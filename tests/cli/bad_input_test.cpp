// Bad input, as a hostile user would give it (issue 10): every case is a clear message naming
// the file, key or flag, a documented exit code, and never a crash or an internal error.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "baseline_report.h"
#include "gpu_test.h"

namespace ptbench::test {
namespace {

namespace fs = std::filesystem;

struct BadInput {
  const char* what;
  std::string arguments;  // after `ptbench`; {dir} is replaced by a scratch folder
  int exitCode;
  std::string message;  // part of stderr
};

// The report.json a run wrote somewhere under its --out folder; empty when there is none.
fs::path reportUnder(const fs::path& out) {
  for (const auto& entry : fs::recursive_directory_iterator(out))
    if (entry.path().filename() == "report.json") return entry.path();
  return {};
}

class BadInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("ptbench-bad-input-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    auto write = [&](const char* name, const std::string& text) { std::ofstream(dir / name) << text; };
    const std::string scene = R"("scenes": ["builtin:cornell"])";
    write("ok.json", R"({"schema_version": 1, "name": "ok", )" + scene + "}");
    write("duplicate.json", R"({"schema_version": 1, "name": "d", "spp": 4, "spp": 8, )" + scene + "}");
    write("huge-number.json", R"({"schema_version": 1, "name": "h", "exposure": 1e400, )" + scene + "}");
    write("env.json",
          R"({"schema_version": 1, "name": "e", "scenes": [{"path": "builtin:cornell", "env": [1e39, 1, 1]}]})");
    write("camera.json", R"({"schema_version": 1, "name": "c", "scenes": [{"path": "builtin:cornell",
        "camera": {"position": [1, 2, 3], "target": [1, 2, 3]}}]})");
    write("repeats.json", R"({"schema_version": 1, "name": "r", "repeats": 1.5, )" + scene + "}");
    write("sweep.json", R"({"schema_version": 1, "name": "s", "spp": [1,2,3,4,5,6,7,8,9,10],
        "width": [1,2,3,4,5,6,7,8,9,10], "height": [1,2,3,4,5,6,7,8,9,10], "seed": [1,2,3,4,5,6,7,8,9,10,11], )" +
                            scene + "}");
    // 100,000 nested lists: writing the report recursed once a level and overflowed the stack.
    write("deep.json", R"({"schema_version": 1, "name": "deep", "options": {"wavefront": {"schedule": )" +
                           std::string(100000, '[') + std::string(100000, ']') + "}}, " + scene + "}");
    // A triangle's buffer named by an absolute path, a file: URI and a data URI that is not base64.
    write("triangle.bin", std::string(36, '\0'));
    const auto triangle = [&](const std::string& uri) {
      return R"({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"}],
        "bufferViews": [{"buffer": 0, "byteLength": 36}], "buffers": [{"byteLength": 36, "uri": ")" +
             uri + "\"}]}";
    };
    write("absolute.gltf", triangle((dir / "triangle.bin").string()));
    write("file-uri.gltf", triangle("file://" + (dir / "triangle.bin").string()));
    write("bad-data.gltf", triangle("data:application/octet-stream,AAAA"));
    // 755 bytes of glTF whose POSITION claims 10^8 elements of a 36-byte buffer.
    write("lying.gltf", R"({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 100000000, "type": "VEC3"}],
        "bufferViews": [{"buffer": 0, "byteLength": 36}],
        "buffers": [{"byteLength": 36, "uri": "data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA"}]})");
    // A triangle with a NaN coordinate (0x7fc00000).
    write("nan.gltf", R"({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"}],
        "bufferViews": [{"buffer": 0, "byteLength": 36}],
        "buffers": [{"byteLength": 36, "uri": "data:application/octet-stream;base64,AADAfwAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA"}]})");
    // A valid triangle in nodes that are not: moved far beyond the bound on coordinates, listed
    // twice by their parent; and a triangle whose extras nest 20,000 deep.
    const auto inNodes = [](const std::string& nodes, const std::string& extras = "") {
      return R"({"asset": {"version": "2.0"}, )" + extras + R"("scene": 0, "scenes": [{"nodes": [0]}], "nodes": )" +
             nodes + R"(, "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"}],
        "bufferViews": [{"buffer": 0, "byteLength": 36}],
        "buffers": [{"byteLength": 36, "uri": "data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA"}]})";
    };
    write("far.gltf", inNodes(R"([{"name": "Far", "mesh": 0, "scale": [1e19, 1, 1]}])"));
    write("twice.gltf", inNodes(R"([{"children": [1, 1]}, {"mesh": 0}])"));
    write("deep-extras.gltf",
          inNodes(R"([{"mesh": 0}])", R"("extras": )" + std::string(20000, '[') + std::string(20000, ']') + ", "));
  }
  void TearDown() override { fs::remove_all(dir); }

  // Bounded: a hang (a FIFO waited for, a decoder that never ends) fails its case with exit 124
  // instead of holding the test to CTest's timeout.
  void expect(const BadInput& c) {
    std::string arguments = c.arguments;
    for (size_t at; (at = arguments.find("{dir}")) != std::string::npos;) arguments.replace(at, 5, dir.string());
    const auto result = runCommand("timeout -k 5 60 env PTBENCH_DEVICE=" + std::string(testDevice) + " " +
                                   PTBENCH_EXECUTABLE + " " + arguments);
    EXPECT_EQ(result.exitCode, c.exitCode) << c.what << "\n" << result.all();
    EXPECT_NE(result.err.find(c.message), std::string::npos) << c.what << "\n" << result.all();
    EXPECT_EQ(result.err.find("internal error"), std::string::npos) << c.what << "\n" << result.all();
  }

  fs::path dir;
};

TEST_F(BadInputTest, ConfigsAreRefusedWithTheirPointerAndExitCode) {
  for (const BadInput& c : std::vector<BadInput>{
           {"repeats 0", "validate {dir}/ok.json --set repeats=0", 65, "/repeats: expected one integer from 1"},
           {"warmup -1", "validate {dir}/ok.json --set warmup=-1", 65, "/warmup: expected one integer from 0"},
           {"warmup as a list", "validate {dir}/ok.json --set warmup=[]", 65, "not a list"},
           {"repeats 1.5", "validate {dir}/repeats.json", 65, "/repeats: expected one integer"},
           {"min_samples 0", "validate {dir}/ok.json --set min_samples=0", 65, "/min_samples"},
           {"run with repeats 0", "run {dir}/ok.json --set repeats=0 --out {dir}/out", 65, "/repeats"},
           {"duplicate key", "validate {dir}/duplicate.json", 65, "the key \"spp\" appears twice"},
           {"number beyond double", "validate {dir}/huge-number.json", 65, "number overflow"},
           {"env beyond float", "validate {dir}/env.json", 65, "/scenes/0/env: expected three non-negative numbers"},
           {"camera looking nowhere", "validate {dir}/camera.json", 65, "target equals its position"},
           {"a folder as config", "validate {dir}", 66, "is a folder, not a config file"},
           {"a sweep of 11,000 runs", "validate {dir}/sweep.json", 65, "expands to 11000 runs, more than max_runs"},
           {"nesting beyond 256 levels", "validate {dir}/deep.json", 65,
            "deep.json: arrays and objects nested deeper than 256 levels at /options/wavefront/schedule/0/0/0/0"},
           {"run with nesting beyond 256 levels", "run {dir}/deep.json --out {dir}/out", 65,
            "deep.json: arrays and objects nested deeper than 256 levels at /options/wavefront/schedule/0/0/0/0"},
           {"--set nesting beyond 256 levels", "validate {dir}/ok.json --set 'spp=" + std::string(1000, '[') +
                                                    std::string(1000, ']') + "'",
            65, "--set spp: arrays and objects nested deeper than 256 levels at /0/0/0"},
           {"a report nested beyond 256 levels", "summary {dir}/deep.json", 65,
            "deep.json: arrays and objects nested deeper than 256 levels"},
           {"name ..", "validate {dir}/ok.json --set name=..", 65, "/name: required: 1 to 64 letters"},
           {"run named .", "run {dir}/ok.json --set name=. --out {dir}/out", 65, "other than \".\" and \"..\""},
           {"malformed --set JSON", "validate {dir}/ok.json --set 'scenes=[builtin:cornell'", 65,
            "--set scenes=[builtin:cornell: the value starts as JSON but is not valid JSON"},
           {"run --json to a missing folder", "run {dir}/ok.json --json /missing/x.json --out {dir}/out", 1,
            "--json /missing/x.json: the folder /missing does not exist"},
       })
    expect(c);
  EXPECT_FALSE(fs::exists(dir / "out")) << "nothing ran";
}

TEST_F(BadInputTest, CommandLinesAreRefusedBeforeAnyWork) {
  for (const BadInput& c : std::vector<BadInput>{
           {"unknown command", "frobnicate", 1, "unknown command 'frobnicate'; the commands are run, validate"},
           {"unknown option", "run --bogus", 1, "--bogus"},
           {"env NaN", "render --scene builtin:cornell --env nan,1,1", 1,
            "--env nan,1,1: a constant radiance takes finite, non-negative numbers"},
           {"env infinite", "render --scene builtin:cornell --env inf,1,1", 1,
            "--env inf,1,1: a constant radiance takes finite, non-negative numbers"},
           {"env map missing", "render --scene builtin:cornell --env {dir}/sky.hdr", 1,
            "sky.hdr: no such environment map"},
           {"env map not radiance", "render --scene builtin:cornell --env {dir}/env.json", 1,
            "env.json: not a Radiance (.hdr, RGBE) image"},
           {"fov NaN", "render --scene builtin:cornell --fov nan", 1, "--fov"},
           {"warm-up beyond 1000", "render --scene builtin:cornell --warmup 4294967295", 1, "--warmup"},
           {"image into a missing folder", "render --scene builtin:cornell --out /missing/dir/x.png", 1,
            "the folder /missing/dir does not exist"},
           {"camera looking nowhere", "render --scene builtin:cornell --camera-position 0,1,0 --camera-target 0,1,0", 1,
            "target equals its position"},
           {"camera path missing", "reference builtin:cornell --out {dir}/x.exr --camera-path {dir}/path.json", 66,
            "cannot read the camera path file"},
           {"camera path not a path", "reference builtin:cornell --out {dir}/x.exr --camera-path {dir}/env.json", 65,
            "/: expected either keyframes (a list) or animation"},
           {"camera path beside a fixed camera",
            "reference builtin:cornell --out {dir}/x.exr --camera-path {dir}/env.json --camera-position 0,1,0", 1,
            "--camera-path: its keyframes place the camera; leave out --camera-position and --camera-target"},
           {"compare a folder", "compare {dir} {dir}", 2, "is a folder; give its report.json"},
           // The variance once replaced the image, both "wrote".
           {"variance over the image", "render --scene builtin:cornell --out {dir}/s.pfm --out-variance {dir}/./s.pfm",
            1, "is also --out " + (dir / "s.pfm").string() + ": the variance would replace the image"},
           {"compare with a NaN threshold", "compare {dir}/ok.json {dir}/ok.json --threshold nan", 2,
            "--threshold nan"},
           {"compare a config as a report", "compare {dir}/ok.json {dir}/ok.json", 2, "ok.json: not a ptbench report"},
       })
    expect(c);
}

// `ptbench report` and `compare --html` never write a page over a report they read (its
// baseline's too), nor into a folder that is not there; report refuses --baseline beside a
// history's several reports and a report it cannot read.
TEST_F(BadInputTest, ReportPagesRefuseToOverwriteTheirReportsOrGuessWhatWasMeant) {
  std::ofstream(dir / "gate.json") << readGzippedJson(baselineReportPath("nvidia-h200")).dump(2);
  fs::copy_file(dir / "gate.json", dir / "base.json");
  const auto before = fs::file_size(dir / "gate.json");
  for (const BadInput& c : std::vector<BadInput>{
           {"page over its report", "report {dir}/gate.json --out {dir}/gate.json", 1,
            "--out " + (dir / "gate.json").string() + " is the input " + (dir / "gate.json").string() +
                ": writing it would destroy it; name another file"},
           {"page over its baseline", "report {dir}/gate.json --baseline {dir}/base.json --out {dir}/base.json", 1,
            "--out " + (dir / "base.json").string() + " is the input " + (dir / "base.json").string()},
           {"compare's page over its new report", "compare {dir}/base.json {dir}/gate.json --html {dir}/gate.json", 2,
            "--html " + (dir / "gate.json").string() + " is the input"},
           {"compare's page over its base", "compare {dir}/base.json {dir}/gate.json --html {dir}/base.json", 2,
            "--html " + (dir / "base.json").string() + " is the input"},
           {"baseline beside a history",
            "report {dir}/gate.json {dir}/gate.json --baseline {dir}/gate.json --out {dir}/p.html", 1,
            "--baseline compares one report against it; a history takes several reports without it"},
           {"page into a missing folder", "report {dir}/gate.json --out {dir}/missing/p.html", 1,
            "the folder " + (dir / "missing").string() + " does not exist"},
           {"page onto a folder", "report {dir}/gate.json --out {dir}", 1, "a folder, not a file"},
           {"no such report", "report {dir}/absent.json --out {dir}/p.html", 1, "absent.json: cannot read the report"},
           {"a config as a report", "report {dir}/ok.json --out {dir}/p.html", 65, "ok.json: not a ptbench report"},
       })
    expect(c);
  EXPECT_EQ(fs::file_size(dir / "gate.json"), before);
  EXPECT_EQ(fs::file_size(dir / "base.json"), before);
  EXPECT_FALSE(fs::exists(dir / "p.html"));
}

// `run`'s --json and --md wrote the report and the summary over the config it ran (by name or
// through a link), exit 0. Its inputs are refused before any work, and so is --md over --json.
TEST_F(BadInputTest, RunRefusesToWriteItsReportOverItsConfig) {
  const std::string config = (dir / "ok.json").string();
  fs::create_symlink(dir / "ok.json", dir / "link.json");
  const auto before = fs::file_size(dir / "ok.json");
  for (const BadInput& c : std::vector<BadInput>{
           {"report over its config", "run {dir}/ok.json --out {dir}/r --json {dir}/ok.json", 1,
            "--json " + config + " is the input " + config + ": writing it would destroy it"},
           {"summary over its config", "run {dir}/ok.json --out {dir}/r --md {dir}/ok.json", 1,
            "--md " + config + " is the input " + config},
           {"report through a link to its config", "run {dir}/ok.json --out {dir}/r --json {dir}/link.json", 1,
            "is the input " + config},
           {"summary over the report", "run {dir}/ok.json --out {dir}/r --json {dir}/x.json --md {dir}/./x.json", 1,
            "--md " + (dir / "./x.json").string() + " is also --json " + (dir / "x.json").string()},
       })
    expect(c);
  EXPECT_EQ(fs::file_size(dir / "ok.json"), before);
  EXPECT_FALSE(fs::exists(dir / "r"));
}

// A shard report whose option has the wrong type (a number where a layout's name belongs) passes
// checkReport, which does not know each integrator's options, and met the summary only after
// merge had written report.json and report.csv: internal error, exit 70, half a result. Now it
// is a malformed report (exit 65) and nothing is written.
TEST_F(BadInputTest, MergeRefusesAFieldOfTheWrongTypeBeforeWritingAnything) {
  nlohmann::json report = readGzippedJson(baselineReportPath("nvidia-h200"));
  bool edited = false;
  for (auto& run : report["runs"])
    if (!edited && run["parameters"]["backend"] == "software") {
      run["parameters"]["options"]["software_bvh"] = 5;
      edited = true;
    }
  ASSERT_TRUE(edited) << "the baseline has a software run";
  fs::create_directories(dir / "shard");
  std::ofstream(dir / "shard" / "report.json") << report.dump();
  expect({"an option of the wrong type", "merge {dir}/shard/report.json --out {dir}/merged", 65,
          "a field of one of the reports is missing or of the wrong type"});
  EXPECT_FALSE(fs::exists(dir / "merged")) << "nothing written";
}

// Every numeric flag of every command refuses NaN, the infinities and the
// values outside its documented range (negative, zero, overflowing: --exposure 128 made
// 2^exposure a float's infinity and an all-black image), naming the flag, before any work.
TEST_F(BadInputTest, EveryNumericFlagRefusesNaNInfinitiesAndValuesOutsideItsRange) {
  struct NumericFlag {
    const char* flag;
    std::string arguments;                // {value} is the value tried
    std::vector<std::string> outOfRange;  // beside nan, inf and -inf, which every flag refuses
    int exitCode = 1;
  };
  const std::string render = "render --scene builtin:cornell --out {dir}/x.png ";
  const std::vector<NumericFlag> flags = {
      {"--gpu-timeout", "--gpu-timeout {value} " + render, {"-1", "86401", "1e300"}},
      {"--width", render + "--width {value}", {"0", "-1", "16385"}},
      {"--height", render + "--height {value}", {"0", "-1", "16385"}},
      {"--spp", render + "--spp {value}", {"0", "-1", "1048577"}},
      {"--max-depth", render + "--max-depth {value}", {"0", "-1", "1025"}},
      {"--rr-depth", render + "--rr-depth {value}", {"0", "-1", "1025"}},
      {"--seed", render + "--seed {value}", {"-1", "4294967296"}},
      {"--warmup", render + "--warmup {value}", {"-1", "1001"}},
      {"--env", render + "--env {value},1,1", {"-1", "1e39"}},
      {"--env-intensity", render + "--env-intensity {value}", {"-1", "1e31"}},
      {"--env-rotation", render + "--env-rotation {value}", {"-3601", "3601"}},
      {"--material-cost", render + "--material-override '*' --material-cost {value}", {"-1", "33"}},
      {"--camera-position", render + "--camera-position 0,{value},0", {"1e39", "-1e39"}},
      {"--camera-target", render + "--camera-target {value},0,0", {"1e39"}},
      {"--camera-up", render + "--camera-up 0,0,{value}", {"1e39"}},
      {"--fov", render + "--fov {value}", {"0", "-1", "180", "1e300"}},
      {"--aperture", render + "--aperture {value}", {"-1", "1e31"}},
      {"--focus-distance", render + "--focus-distance {value}", {"-1", "1e31"}},
      {"--exposure", render + "--exposure {value}", {"128", "-128", "33", "1e300"}},
      {"--spp", "reference builtin:cornell --out {dir}/x.exr --spp {value}", {"0", "-1"}},
      {"--spp-per-frame", "reference builtin:cornell --out {dir}/x.exr --spp-per-frame {value}", {"0", "-1", "65537"}},
      {"--exposure", "reference builtin:cornell --out {dir}/x.exr --exposure {value}", {"128"}},
      {"--spp", "verify --spp {value}", {"0", "-1", "65537"}},
      {"--shard", "run {dir}/ok.json --out {dir}/out --shard {value}/4", {"0", "-1", "5"}},
      {"--threshold", "compare {dir}/ok.json {dir}/ok.json --threshold {value}", {"0", "-1", "11", "1e400"}, 2},
  };
  for (const NumericFlag& f : flags) {
    std::vector<std::string> values = {"nan", "inf", "-inf"};
    values.insert(values.end(), f.outOfRange.begin(), f.outOfRange.end());
    for (const std::string& value : values) {
      std::string arguments = f.arguments;
      arguments.replace(arguments.find("{value}"), 7, value);
      expect({f.flag, arguments, f.exitCode, f.flag});
    }
  }
  EXPECT_FALSE(fs::exists(dir / "x.png")) << "nothing rendered";
  EXPECT_FALSE(fs::exists(dir / "x.exr")) << "nothing rendered";
  EXPECT_FALSE(fs::exists(dir / "out")) << "nothing ran";
}

TEST_F(BadInputTest, ScenesThatLieAboutTheirSizeOrHoldNaNAreRefused) {
  for (const BadInput& c : std::vector<BadInput>{
           {"buffer by absolute path", "scene-info {dir}/absolute.gltf", 1,
            "URI " + (dir / "triangle.bin").string() +
                ": an absolute path or file: URI, which glTF does not allow: URIs are relative to the glTF file's "
                "folder (" +
                dir.string() + "); give the path relative to it"},
           {"buffer by file: URI", "scene-info {dir}/file-uri.gltf", 1,
            "an absolute path or file: URI, which glTF does not allow"},
           {"malformed data: URI", "scene-info {dir}/bad-data.gltf", 1,
            "URI data:application/octet-stream,AAAA: not a data URI ptbench reads; embed a buffer as "
            "data:application/octet-stream;base64,..."},
           {"POSITION claims 10^8 elements", "scene-info {dir}/lying.gltf", 1, "claims 100000000 elements"},
           {"NaN vertex", "scene-info {dir}/nan.gltf", 1, "coordinate at vertex 0 that is NaN, infinite or beyond"},
           {"a node far beyond the bound on coordinates", "scene-info {dir}/far.gltf", 1,
            "far.gltf: node 0 (\"Far\"), mesh 0 has triangle 0 of geometry 0 beyond ±1e+12 in world space"},
           {"a node listed twice as a child", "scene-info {dir}/twice.gltf", 1,
            "twice.gltf: node 0 lists node 1 as a child twice"},
           {"extras nested 20,000 deep", "scene-info {dir}/deep-extras.gltf", 1,
            "deep-extras.gltf: arrays and objects nested deeper than 256 levels at byte"},
       })
    expect(c);
}

// Issue 31: results stay inside the --out folder, checked after resolving: a config name that
// is a link out of it is refused before anything is written there.
TEST_F(BadInputTest, ResultsNeverLeaveTheOutFolder) {
  fs::create_directories(dir / "out");
  fs::create_directories(dir / "elsewhere");
  fs::create_directory_symlink(dir / "elsewhere", dir / "out" / "ok");
  const auto result = runPtbench("run " + (dir / "ok.json").string() + " --out " + (dir / "out").string());
  EXPECT_EQ(result.exitCode, 1) << result.all();
  EXPECT_NE(result.err.find("the results folder " + (dir / "out" / "ok").string() + " resolves to " +
                            (dir / "elsewhere").string() + ", outside the output folder"),
            std::string::npos)
      << result.all();
  EXPECT_TRUE(fs::is_empty(dir / "elsewhere"));
}

// Issue 31: a truncated Radiance map hung stb_image's decoder at 100% CPU, and `validate`
// passed a config naming one. Given to `render --env` or in a config, it is refused within
// seconds (`timeout` ends a hang, with SIGKILL: a hung `run` ignored SIGTERM), naming the file
// and the truncation.
TEST_F(BadInputTest, TruncatedEnvironmentMapsAreRefusedNotDecodedForever) {
  std::string map;
  {
    std::ifstream in(fs::path(PTBENCH_SOURCE_DIR) / "scenes/env/venice_sunset_1k.hdr", std::ios::binary);
    map.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::ofstream(dir / "cut.hdr", std::ios::binary).write(map.data(), std::streamsize(map.size() / 2));
  std::ofstream(dir / "cut-env.json") << R"({"schema_version": 1, "name": "cut",
      "scenes": [{"path": "builtin:cornell", "env": {"file": "cut.hdr"}}]})";
  const std::string truncated = "cut.hdr: cannot read the environment map: the file ends before its 1024x512 texels";
  for (const BadInput& c : std::vector<BadInput>{
           {"render", "render --scene builtin:cornell --width 8 --height 8 --spp 1 --env {dir}/cut.hdr", 1, truncated},
           {"validate", "validate {dir}/cut-env.json", 65, truncated},
           {"run", "run {dir}/cut-env.json --out {dir}/out", 65, truncated}})
    expect(c);
  EXPECT_FALSE(fs::exists(dir / "out")) << "nothing ran";
}

// Issue 31: a symlink is followed and its target written, a device or FIFO written through,
// never replaced by a regular file; a write error (a full disk) names the path and exits 1, on
// standard output too. /dev/full is only ever opened, through a link in the scratch folder.
TEST_F(BadInputTest, OutputsThatAreNotRegularFilesAreFollowedOrWrittenThroughNeverReplaced) {
  std::ofstream(dir / "tiny.json") << R"({"schema_version": 1, "name": "tiny", "scenes": ["builtin:cornell"],
      "integrators": ["megakernel"], "backends": ["software"], "width": 8, "height": 8, "spp": 1, "warmup": 0,
      "repeats": 1, "images": false})";
  std::ofstream(dir / "report-target.json") << "old";
  fs::create_symlink("report-target.json", dir / "report-link.json");  // relative, as `ln -s` makes them
  fs::create_symlink("/dev/full", dir / "full.json");
  fs::create_symlink("/dev/full", dir / "full.png");
  fs::create_symlink(dir / "variance-target.exr", dir / "variance-link.exr");  // dangling until written
  ASSERT_EQ(::mknod((dir / "null.png").c_str(), S_IFCHR | 0666, makedev(1, 3)), 0) << "mknod needs root";
  ASSERT_EQ(::mkfifo((dir / "fifo.pfm").c_str(), 0666), 0);
  const auto run = [&](const std::string& arguments) {
    std::string line = arguments;
    for (size_t at; (at = line.find("{dir}")) != std::string::npos;) line.replace(at, 5, dir.string());
    return runPtbench(line);
  };

  const auto linked = run("run {dir}/tiny.json --quiet --json {dir}/report-link.json --out {dir}/out");
  ASSERT_EQ(linked.exitCode, 0) << linked.all();
  EXPECT_TRUE(fs::is_symlink(dir / "report-link.json"));
  EXPECT_EQ(nlohmann::json::parse(std::ifstream(dir / "report-target.json"))["runs"].size(), 1u);

  const auto full = run("run {dir}/tiny.json --quiet --json {dir}/full.json --out {dir}/out");
  EXPECT_EQ(full.exitCode, 1) << full.all();
  EXPECT_NE(full.err.find("cannot write " + (dir / "full.json").string() + ": No space left on device"),
            std::string::npos)
      << full.all();
  EXPECT_TRUE(fs::is_symlink(dir / "full.json"));

  // A character device and a link to /dev/full as images; a dangling link as the variance.
  const auto device = run("render --scene builtin:cornell --width 8 --height 8 --spp 1 --out {dir}/null.png "
                          "--out-variance {dir}/variance-link.exr");
  EXPECT_EQ(device.exitCode, 0) << device.all();
  EXPECT_TRUE(fs::is_character_file(dir / "null.png"));
  EXPECT_TRUE(fs::is_symlink(dir / "variance-link.exr"));
  EXPECT_GT(fs::file_size(dir / "variance-target.exr"), 0u);
  const auto fullImage = run("render --scene builtin:cornell --width 8 --height 8 --spp 1 --out {dir}/full.png");
  EXPECT_EQ(fullImage.exitCode, 1) << fullImage.all();
  EXPECT_NE(fullImage.err.find("cannot write " + (dir / "full.png").string()), std::string::npos) << fullImage.all();
  EXPECT_TRUE(fs::is_symlink(dir / "full.png"));

  // A FIFO: a reader is open (so the writer's open does not wait), and receives the whole image.
  const int reader = ::open((dir / "fifo.pfm").c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  const auto fifo = run("render --scene builtin:cornell --width 8 --height 8 --spp 1 --out {dir}/fifo.pfm");
  EXPECT_EQ(fifo.exitCode, 0) << fifo.all();
  std::string received(8192, '\0');
  const ssize_t size = ::read(reader, received.data(), received.size());
  ::close(reader);
  EXPECT_EQ(size, ssize_t(std::string("PF\n8 8\n-1.0\n").size() + 8 * 8 * 3 * 4));
  EXPECT_TRUE(fs::is_fifo(dir / "fifo.pfm"));

  // Standard output on a full disk: what was printed is lost, so the exit code says so.
  for (const std::string command : {"validate {dir}/tiny.json", "summary {dir}/report-target.json",
                                    "render --scene builtin:cornell --width 8 --height 8 --spp 1"}) {
    const auto printed = run(command + " > {dir}/full.json");
    EXPECT_EQ(printed.exitCode, 1) << command << "\n" << printed.all();
    EXPECT_NE(printed.err.find("cannot write standard output: No space left on device"), std::string::npos)
        << command << "\n" << printed.all();
  }
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

// A file-size limit (ulimit -f) once killed ptbench with SIGXFSZ mid-write (exit 153, its
// temporary file left): the write fails as on a full disk, naming the path, exit 1, nothing left.
TEST_F(BadInputTest, AFileSizeLimitIsAWriteErrorNamingThePath) {
  const fs::path out = dir / "limited";
  fs::create_directories(out);
  // A page of 0.3 MB (no device: a Vulkan driver's own cache files would meet the limit too).
  const auto limited =
      runCommand("sh -c 'ulimit -f 8; exec " + std::string(PTBENCH_EXECUTABLE) + " report " + PTBENCH_SOURCE_DIR +
                 "/results/baselines/nvidia-h200/report.json.gz --out " + (out / "page.html").string() + "'");
  EXPECT_EQ(limited.exitCode, 1) << limited.all();
  EXPECT_NE(limited.err.find("cannot write " + (out / "page.html").string() + ": File too large"), std::string::npos)
      << limited.all();
  EXPECT_TRUE(fs::is_empty(out)) << "no image and no temporary file";
}

// A FIFO without a writer as a config, a report or a camera path once blocked ptbench for ever,
// and so did one as a glTF's buffer or a FLIP image; a folder as a buffer was read as gigabytes
// (bad_alloc, exit 70) and one as a camera path was an internal error. Inputs on the command
// line may be pipes (they read as empty without a writer); what a file names must be a file.
TEST_F(BadInputTest, FoldersAndFifosAsInputsAreNamedNeverWaitedFor) {
  for (const char* name : {"fifo.json", "fifo.bin", "fifo.png", "fifo.exr"})
    ASSERT_EQ(::mkfifo((dir / name).c_str(), 0666), 0) << name;
  fs::create_directories(dir / "folder.bin");
  fs::create_directories(dir / "folder-path.json");
  const auto triangle = [](const std::string& uri) {
    return R"({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
      "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
      "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"}],
      "bufferViews": [{"buffer": 0, "byteLength": 36}], "buffers": [{"byteLength": 36, "uri": ")" +
           uri + "\"}]}";
  };
  std::ofstream(dir / "fifo-buffer.gltf") << triangle("fifo.bin");
  std::ofstream(dir / "folder-buffer.gltf") << triangle("folder.bin");
  for (const char* path : {"fifo.json", "folder-path.json"})
    std::ofstream(dir / (std::string("camera-") + path)) << R"({"schema_version": 1, "name": "p", "scenes":
        [{"path": "builtin:cornell", "camera": {"path": ")" + (dir / path).string() +
                                                                R"("}}]})";
  for (const BadInput& c : std::vector<BadInput>{
           {"a FIFO as config", "validate {dir}/fifo.json", 65, "fifo.json"},
           {"a FIFO as report", "summary {dir}/fifo.json", 65, "fifo.json"},
           {"a FIFO as camera path", "validate {dir}/camera-fifo.json", 65, "fifo.json"},
           {"a folder as camera path", "validate {dir}/camera-folder-path.json", 65,
            "folder-path.json: is a folder, not a camera path file"},
           {"a FIFO as a glTF buffer", "scene-info {dir}/fifo-buffer.gltf", 1,
            "fifo.bin: is a FIFO, not a regular file; a glTF's buffers and images are files"},
           {"a folder as a glTF buffer", "scene-info {dir}/folder-buffer.gltf", 1,
            "folder.bin: is a folder, not a regular file; a glTF's buffers and images are files"},
           {"a FIFO as a FLIP image", "flip {dir}/fifo.png {dir}/fifo.png", 1,
            "fifo.png: is a FIFO, not a regular file"},
           {"a FIFO as a reference", "flip {dir}/fifo.exr {dir}/fifo.exr", 1,
            "fifo.exr: is a FIFO, not a regular file"},
       })
    expect(c);
  // A pipe with its writer reads as a file does: process substitution.
  const auto piped = runCommand("bash -c 'env PTBENCH_DEVICE=" + std::string(testDevice) + " " + PTBENCH_EXECUTABLE +
                                " validate <(cat " + (dir / "ok.json").string() + ")'");
  EXPECT_EQ(piped.exitCode, 0) << piped.all();
}

// A NaN compares as no difference: an image or reference holding one once scored a FLIP of 0
// (a perfect match) and a relMSE of null. FLIP refuses it, naming the file; a run says why it
// measured no error.
TEST_F(BadInputTest, ImagesWithNaNAreRefusedNotScoredPerfect) {
  const auto pfm = [&](const char* name, float value) {
    std::ofstream out(dir / name, std::ios::binary);
    out << "PF\n2 2\n-1.0\n";
    for (int i = 0; i < 12; ++i) {
      const float v = i == 4 ? value : 0.5f;
      out.write(reinterpret_cast<const char*>(&v), sizeof v);
    }
  };
  pfm("fine.pfm", 0.5f);
  pfm("nan.pfm", std::numeric_limits<float>::quiet_NaN());
  expect({"FLIP of a NaN image", "flip {dir}/fine.pfm {dir}/nan.pfm", 1,
          "nan.pfm: 1 of its values are NaN or infinite; FLIP compares finite radiance"});
  std::ofstream(dir / "nan-reference.json") << R"({"schema_version": 1, "name": "n", "backends": ["software"],
      "width": 2, "height": 2, "spp": 1, "warmup": 0, "repeats": 1, "images": false,
      "scenes": [{"path": "builtin:cornell", "reference": ")" +
                                                   (dir / "nan.pfm").string() + R"("}]})";
  const auto run =
      runPtbench("run " + (dir / "nan-reference.json").string() + " --quiet --out " + (dir / "out").string());
  EXPECT_EQ(run.exitCode, 0) << run.all();
  const fs::path report = reportUnder(dir / "out");
  ASSERT_FALSE(report.empty());
  const nlohmann::json runs = nlohmann::json::parse(std::ifstream(report))["runs"];
  EXPECT_EQ(runs[0]["convergence"]["error"],
            "the reference has 1 value(s) that are NaN or infinite: no error against the reference is measured")
      << runs[0].dump();
}

// A camera path's frames read their references as they are kept: one that could not be read
// (truncated) failed the run after every frame had been rendered and timed, its times lost.
// The run is kept, its convergence saying which reference could not be read.
TEST_F(BadInputTest, AnUnreadableFrameReferenceKeepsTheRunsTimes) {
  std::ofstream(dir / "path.json") << R"({"keyframes": [
      {"time": 0, "position": [0.278, 0.273, -0.8], "target": [0.278, 0.273, 0]},
      {"time": 1, "position": [0.15, 0.3, -0.7], "target": [0.35, 0.25, 0.2]}], "frames": 2, "fps": 1})";
  std::ofstream(dir / "ref-frame000.pfm", std::ios::binary) << "PF\n2 2\n-1.0\n" << std::string(48, '\0');
  std::ofstream(dir / "ref-frame001.pfm", std::ios::binary) << "PF\n2 2\n-1.0\n" << std::string(7, '\0');
  std::ofstream(dir / "truncated-reference.json") << R"({"schema_version": 1, "name": "t", "backends": ["software"],
      "width": 2, "height": 2, "spp": 1, "warmup": 0, "images": false,
      "scenes": [{"path": "builtin:cornell", "camera": {"path": "path.json"}, "reference": "ref.pfm"}]})";
  const auto run =
      runPtbench("run " + (dir / "truncated-reference.json").string() + " --quiet --out " + (dir / "out").string());
  EXPECT_EQ(run.exitCode, 0) << run.all();
  const fs::path report = reportUnder(dir / "out");
  ASSERT_FALSE(report.empty());
  const nlohmann::json measured = nlohmann::json::parse(std::ifstream(report))["runs"][0];
  EXPECT_EQ(measured["status"], "ok") << measured.dump();
  EXPECT_TRUE(measured.contains("frame_gpu_ms")) << measured.dump();
  const std::string error = measured["convergence"].value("error", "");
  EXPECT_NE(error.find("frame 1's reference " + (dir / "ref-frame001.pfm").string()), std::string::npos)
      << measured.dump();
}

}  // namespace
}  // namespace ptbench::test
