// Sharding a sweep: every run in exactly one shard, scenes kept together where they can be,
// parts balanced by cost; and merging: shards of other configs or builds refused, missing and
// duplicated runs found.
#include "core/experiment/shard.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/errors.h"
#include "core/experiment/config.h"
#include "core/experiment/merge.h"
#include "core/experiment/report.h"
#include "core/experiment/runner.h"

namespace ptbench::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

ExperimentConfig sweep(const std::string& extra) {
  const fs::path file = fs::temp_directory_path() / ("ptbench-shard-" + std::to_string(::getpid()) + ".json");
  std::ofstream(file) << R"({"schema_version": 1, "name": "s", "scenes": ["builtin:cornell", "builtin:furnace",
      "builtin:spheres?n=2&subdiv=4"], "integrators": ["megakernel", "wavefront"], "spp": [1, 4, 16])" +
                             extra + "}";
  ExperimentConfig config = loadConfig(file);
  fs::remove(file);
  return config;
}

TEST(Shard, ParsesKOfN) {
  EXPECT_EQ(parseShard("2/4")->index, 2u);
  EXPECT_EQ(parseShard("2/4")->count, 4u);
  for (const char* bad : {"0/4", "5/4", "4", "1/0", "a/b", "1/2/3", "-1/2", "", "1/"})
    EXPECT_FALSE(parseShard(bad).has_value()) << bad;
}

TEST(Shard, EveryRunIsInExactlyOneShardForOneToSevenShards) {
  for (const std::string extra : {"", R"(, "max_depth": [1, 64], "resolution": ["64x64", "1920x1080"])"}) {
    const auto specs = expandSweep(sweep(extra));
    for (uint32_t count = 1; count <= 7; ++count) {
      std::vector<int> seen(specs.size(), 0);
      double largest = 0, smallest = 1e300;
      for (uint32_t index = 1; index <= count; ++index) {
        const auto mine = shardSpecs(specs, {index, count});
        EXPECT_TRUE(std::is_sorted(mine.begin(), mine.end()));
        double cost = 0;
        for (size_t i : mine) {
          ++seen[i];
          cost += runCost(specs[i]);
        }
        largest = std::max(largest, cost);
        smallest = std::min(smallest, cost);
        EXPECT_EQ(mine, shardSpecs(specs, {index, count})) << "deterministic";
      }
      for (size_t i = 0; i < specs.size(); ++i) EXPECT_EQ(seen[i], 1) << "run " << i << " of " << count << " shards";
      // Three scenes of equal cost: one per shard at three; past three, scenes are split so that
      // no shard is left empty.
      if (extra.empty() && count == 3) {
        EXPECT_DOUBLE_EQ(largest, smallest);
      }
      EXPECT_GT(smallest, 0.0) << count << " shards: none is empty while scenes can be split";
    }
  }
}

TEST(Shard, AShardLoadsEachOfItsScenesOnceWhileThereAreScenesEnough) {
  const auto specs = expandSweep(sweep(""));
  for (uint32_t index = 1; index <= 3; ++index) {
    const auto mine = shardSpecs(specs, {index, 3});
    ASSERT_FALSE(mine.empty());
    for (size_t i : mine) EXPECT_EQ(specs[i].scene, specs[mine.front()].scene);
  }
}

// A report of `runs` sweep entries of which this shard ran `specs`, one run each.
json shardReport(const std::string& hash, std::vector<size_t> specs, size_t total, const std::string& device = "GPU") {
  json report = {
      {"schema_version", 3},
      {"tool", {{"version", "0.1.0"}, {"git_revision", "abc"}}},
      {"device", {{"name", device}, {"driver_info", "1.0"}}},
      {"config", {{"name", "s"}}},
      {"config_hash", hash},
      {"complete", true},
      {"sweep", {{"runs_before_backends", total}, {"specs", specs}, {"shard", {{"index", 1}, {"count", 2}}}}},
      {"runs", json::array()}};
  for (size_t spec : specs)
    report["runs"].push_back({{"id", "r00" + std::to_string(spec)},
                              {"sweep_index", spec},
                              {"variant", 0},
                              {"status", "error"},
                              {"error", "x"},
                              {"parameters", {{"integrator", "megakernel"}, {"scene", "s" + std::to_string(spec)}}}});
  return report;
}

TEST(Merge, OrdersRunsAsOneProcessWouldAndFindsWhatIsMissingOrTwice) {
  const auto merged = mergeReports({{shardReport("h", {1, 3}, 5), "a"}, {shardReport("h", {0, 3}, 5), "b"}});
  ASSERT_EQ(merged.report["runs"].size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(merged.report["runs"][i]["id"], "r00" + std::to_string(i));
  EXPECT_EQ(merged.report["runs"][0]["parameters"]["scene"], "s0");
  EXPECT_EQ(merged.report["runs"][2]["parameters"]["scene"], "s3");
  EXPECT_EQ(merged.missingRuns, 2u) << "entries 2 and 4";
  EXPECT_FALSE(merged.report["complete"]);
  ASSERT_EQ(merged.warnings.size(), 2u);
  EXPECT_NE(merged.warnings[0].find("sweep entry 3 appear in more than one shard"), std::string::npos);
  EXPECT_NE(merged.warnings[1].find("2 of the sweep's 5 runs"), std::string::npos);
  EXPECT_FALSE(merged.report["runs"][0].contains("device")) << "one device: runs carry none of their own";
}

TEST(Merge, RefusesOtherConfigsAndBuildsAndMarksDevicesThatDiffer) {
  EXPECT_THROW(mergeReports({{shardReport("h", {0}, 2), "a"}, {shardReport("other", {1}, 2), "b"}}), UserError);
  json otherBuild = shardReport("h", {1}, 2);
  otherBuild["tool"]["git_revision"] = "def";
  try {
    mergeReports({{shardReport("h", {0}, 2), "a"}, {otherBuild, "b"}});
    ADD_FAILURE() << "merged the reports of two builds";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("b/report.json: written by another ptbench"), std::string::npos)
        << error.what();
  }
  const auto mixed = mergeReports({{shardReport("h", {0}, 2, "H100"), "a"}, {shardReport("h", {1}, 2, "H200"), "b"}});
  EXPECT_EQ(mixed.missingRuns, 0u);
  EXPECT_TRUE(mixed.report["complete"]);
  EXPECT_EQ(mixed.report["runs"][1]["device"]["name"], "H200");
  ASSERT_EQ(mixed.warnings.size(), 1u);
  EXPECT_NE(mixed.warnings[0].find("different devices"), std::string::npos);
}

// merge copies each run's images from its shard's folder: a name that is a path (absolute, or
// climbing out with ..) once had it copy whatever file that was into the merged folder.
TEST(Merge, RefusesImageNamesThatAreNotFileNamesInTheShardsFolder) {
  const auto withImage = [](const std::string& name) {
    json report = shardReport("h", {0}, 1);
    report["runs"][0]["status"] = "ok";
    report["runs"][0]["parameters"]["backend"] = "software";
    report["runs"][0]["images"] = {{"png", name}};
    return report;
  };
  for (const std::string name : {"/etc/passwd", "../../secret.png", "sub/r000.png", "..", ".", "a/../r000.png"}) {
    try {
      mergeReports({{withImage(name), "a"}});
      ADD_FAILURE() << name << " was copied";
    } catch (const UserError& error) {
      EXPECT_NE(std::string(error.what()).find("a/report.json: run r000's images.png is \"" + name + "\", not the name"),
                std::string::npos)
          << error.what();
      EXPECT_EQ(error.exitCode(), exitReportMalformed);
    }
  }
  const auto merged = mergeReports({{withImage("r000_s0.png"), "a"}});
  ASSERT_EQ(merged.images.size(), 1u);
  EXPECT_EQ(merged.images[0].first, std::filesystem::path("a") / "r000_s0.png");
}

// A camera path's run names an image a frame; merge once copied only the run's own (its last
// frame's), leaving every other frame's name pointing at no file in the merged folder.
TEST(Merge, CopiesEveryFrameOfACameraPathUnderItsNewId) {
  json report = shardReport("h", {1}, 2);
  json& run = report["runs"][0];
  run["status"] = "ok";
  run["parameters"]["backend"] = "software";
  run["camera_path"]["frames"] = json::array();
  for (int k = 0; k < 3; ++k)
    run["camera_path"]["frames"].push_back({{"frame", k},
                                            {"gpu_ms", 1.0},
                                            {"host_ms", 1.0},
                                            {"images",
                                             {{"png", "r007-s1-frame00" + std::to_string(k) + ".png"},
                                              {"exr", "r007-s1-frame00" + std::to_string(k) + ".exr"}}}});
  run["images"] = run["camera_path"]["frames"][2]["images"];
  const auto merged = mergeReports({{report, "a"}});
  ASSERT_EQ(merged.images.size(), 6u) << "three frames, two formats, the last frame's once";
  const json& out = merged.report["runs"][0];
  for (int k = 0; k < 3; ++k) {
    const std::string png = out["camera_path"]["frames"][k]["images"]["png"];
    EXPECT_EQ(png, "r000-s1-megakernel-software-frame00" + std::to_string(k) + ".png");
    EXPECT_EQ(merged.images[2 * k].first,
              std::filesystem::path("a") / ("r007-s1-frame00" + std::to_string(k) + ".png"));
    EXPECT_EQ(merged.images[2 * k].second, png);
  }
  EXPECT_EQ(out["images"], out["camera_path"]["frames"][2]["images"]);
}
// --resume keeps a finished run only at its own place in the sweep: one scene listed twice (with
// another camera) gives two runs of equal parameters, and the second is not the first.
TEST(Resume, KeepsFinishedRunsAtTheirOwnPlaceInTheSweep) {
  RunRecord first;
  first.scene = "builtin:cornell";
  first.backend = "rayquery";
  RunRecord second = first;
  second.sweepIndex = 1;
  json finished = {{"id", "r001"},
                   {"sweep_index", 1},
                   {"variant", 0},
                   {"status", "ok"},
                   {"parameters", runParametersJson(second)},
                   {"frame_gpu_ms_samples", {1.5}}};
  json failed = finished;
  failed["sweep_index"] = 2;
  failed["status"] = "error";
  failed["error"] = "the scene did not load";
  RunRecord third = first;
  third.sweepIndex = 2;
  std::vector<RunRecord> runs = {first, second, third};
  const ResumedRuns resumed = keepFinishedRuns(runs, json{{"runs", {finished, failed}}}, "r.json");
  EXPECT_EQ(resumed.kept, 1u);
  EXPECT_EQ(resumed.retried, 1u);
  EXPECT_FALSE(runs[0].kept.has_value()) << "the same parameters at another place";
  ASSERT_TRUE(runs[1].kept.has_value());
  EXPECT_EQ((*runs[1].kept)["frame_gpu_ms_samples"], json({1.5}));
  EXPECT_EQ(runs[1].status(), "ok");
  // A failed run runs again: what failed it (a full disk, a timeout) may be gone.
  EXPECT_FALSE(runs[2].kept.has_value());
  EXPECT_EQ(runs[2].status(), "interrupted") << "to run";
  EXPECT_EQ(runs[0].status(), "interrupted") << "not run yet";
}

// A merge of shards with one missing numbers its runs compactly: the sweep's third run is r001
// there, its images r001-*. Resuming that folder planned the missing second run as r001, which
// wrote its images over the finished run's. A kept run keeps its id (its images' names); a run
// to do whose planned id a kept run holds takes a free one.
TEST(Resume, ARunToDoNeverTakesTheIdOfAKeptRun) {
  std::vector<RunRecord> runs(3);
  for (size_t i = 0; i < runs.size(); ++i) {
    runs[i].scene = "builtin:cornell";
    runs[i].backend = "software";
    runs[i].sweepIndex = i;
    runs[i].id = runId(i);
  }
  const auto finished = [&](size_t sweepIndex, const std::string& id) {
    return json{{"id", id},
                {"sweep_index", sweepIndex},
                {"variant", 0},
                {"status", "ok"},
                {"parameters", runParametersJson(runs[sweepIndex])},
                {"images", {{"png", id + "-cornell-megakernel-software.png"}}},
                {"frame_gpu_ms_samples", {1.5}}};
  };
  keepFinishedRuns(runs, json{{"runs", {finished(0, "r000"), finished(2, "r001")}}}, "r.json");
  ASSERT_TRUE(runs[0].kept && runs[2].kept && !runs[1].kept);
  EXPECT_EQ(runs[0].id, "r000");
  EXPECT_EQ(runs[2].id, "r001") << "its images are named so";
  EXPECT_EQ(runs[1].id, "r002") << "r000 and r001 are taken";
}

}  // namespace
}  // namespace ptbench::test
