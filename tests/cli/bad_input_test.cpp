// Bad input, as a hostile user would give it (issue 10): every case is a clear message naming
// the file, key or flag, a documented exit code, and never a crash or an internal error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "gpu_test.h"

namespace ptbench::test {
namespace {

namespace fs = std::filesystem;

struct BadInput {
  const char* what;
  std::string arguments;  // after `ptbench`; {dir} is replaced by a scratch folder
  int exitCode;
  const char* message;  // part of stderr
};

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
  }
  void TearDown() override { fs::remove_all(dir); }

  void expect(const BadInput& c) {
    std::string arguments = c.arguments;
    for (size_t at; (at = arguments.find("{dir}")) != std::string::npos;) arguments.replace(at, 5, dir.string());
    const auto result = runPtbench(arguments);
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
           {"compare a folder", "compare {dir} {dir}", 2, "is a folder; give its report.json"},
           {"compare with a NaN threshold", "compare {dir}/ok.json {dir}/ok.json --threshold nan", 2,
            "--threshold nan"},
           {"compare a config as a report", "compare {dir}/ok.json {dir}/ok.json", 2, "ok.json: not a ptbench report"},
       })
    expect(c);
}

// Issues 27 and 31: every numeric flag of every command refuses NaN, the infinities and the
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
           {"POSITION claims 10^8 elements", "scene-info {dir}/lying.gltf", 1, "claims 100000000 elements"},
           {"NaN vertex", "scene-info {dir}/nan.gltf", 1, "NaN or infinite coordinate at vertex 0"},
       })
    expect(c);
}

}  // namespace
}  // namespace ptbench::test
