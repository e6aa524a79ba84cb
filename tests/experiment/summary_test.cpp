#include "core/experiment/summary.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

namespace ptbench::test {
namespace {

using nlohmann::json;

// A successful run as a report holds it: what the summary reads of it.
json okRun(const std::string& id, const std::string& integrator, const std::string& backend, double gpuMs,
           json options = json::object(), int width = 64, int height = 32) {
  if (backend == "software" && !options.contains("software_bvh")) options["software_bvh"] = "cwbvh";
  return {{"id", id},
          {"status", "ok"},
          {"parameters",
           {{"scene", "scenes/big/big.gltf"},
            {"integrator", integrator},
            {"backend", backend},
            {"width", width},
            {"height", height},
            {"spp", 1},
            {"max_depth", 8},
            {"rr_depth", 3},
            {"seed", 1},
            {"sampler", "halton"},
            {"counters", "off"},
            {"options", options}}},
          {"frame_gpu_ms", {{"median", gpuMs}, {"cv", 0.01}}},
          {"throughput", {{"rays_per_s", 1e9}}}};
}

json reportOf(const std::vector<json>& runs) {
  return {{"runs", runs}};
}

const json poolOptions = {{"schedule", "pool"}, {"pool_size", 1 << 20}};

json bvh2(json options) {
  options["software_bvh"] = "bvh2";
  return options;
}

// The lines of the relative-time block, title and header left out.
std::vector<std::string> relativeLines(const std::string& summary) {
  std::istringstream in(summary.substr(summary.find("relative to the megakernel")));
  std::vector<std::string> lines;
  std::string line;
  std::getline(in, line);  // the title
  while (std::getline(in, line))
    if (!line.empty() && line.find("| ---") == std::string::npos && line.find("relative GPU time") == std::string::npos)
      lines.push_back(line);
  return lines;
}

// The block's one line that contains every one of `parts`; a failure when there is not exactly one.
std::string lineWith(const std::vector<std::string>& lines, std::initializer_list<std::string> parts) {
  std::vector<std::string> found;
  for (const std::string& line : lines) {
    bool all = true;
    for (const std::string& part : parts) all &= line.find(part) != std::string::npos;
    if (all) found.push_back(line);
  }
  EXPECT_EQ(found.size(), 1u) << ::testing::PrintToString(std::vector<std::string>(parts)) << " in\n"
                              << ::testing::PrintToString(lines);
  return found.empty() ? "" : found[0];
}

// The last cell of a line of the text table or a Markdown row.
std::string lastCell(const std::string& line) {
  const size_t end = line.find_last_not_of(" |") + 1;
  return line.substr(line.find_last_of(" |", end - 1) + 1, end - line.find_last_of(" |", end - 1) - 1);
}

// A cell longer than its column's width (the GPU builder's "software cwbvh gpu", a builtin
// scene's spec) widens the column, so that the GPU-time column starts at the same place on
// every line, header included.
TEST(Summary, TextColumnsWidenToTheirLongestCell) {
  json gpuBuilt = okRun("r001", "megakernel", "software", 2.5, {{"software_builder", "gpu"}});
  gpuBuilt["parameters"]["scene"] = "builtin:spheres?n=4096&subdiv=100&materials=6&cost=16";
  const std::string summary =
      reportSummary(reportOf({okRun("r000", "megakernel", "pipeline", 1.5), gpuBuilt}), SummaryFormat::Table);
  std::istringstream in(summary);
  std::string device, blank, header, first, second;
  std::getline(in, device);
  std::getline(in, blank);
  EXPECT_EQ(device.rfind("device: ", 0), 0u) << summary;
  std::getline(in, header);
  std::getline(in, first);
  std::getline(in, second);
  const size_t column = header.find("GPU ms");
  ASSERT_NE(column, std::string::npos) << summary;
  EXPECT_NE(second.find("software cwbvh gpu "), std::string::npos) << summary;
  // Right-aligned: each line's time ends where the header's title does.
  const size_t end = column + std::string("GPU ms").size();
  EXPECT_EQ(first.substr(end - 5, 5), "1.500") << summary;
  EXPECT_EQ(second.substr(end - 5, 5), "2.500") << summary;
}

// A sweep over the pipeline backend and the software one in both BVH layouts: on a large scene the
// wavefront is slower than the megakernel on one and faster on the others. Each backend and layout
// is its own line with its own ratio, never their mean (sqrt(1.3 x 0.58) = 0.868).
TEST(Summary, RelativeTimesKeepBackendsAndLayoutsApart) {
  const json report = reportOf(
      {okRun("r000", "megakernel", "pipeline", 10), okRun("r001", "megakernel", "software", 100),
       okRun("r002", "megakernel", "software", 200, {{"software_bvh", "bvh2"}}),
       okRun("r003", "wavefront", "pipeline", 13, poolOptions), okRun("r004", "wavefront", "software", 58, poolOptions),
       okRun("r005", "wavefront", "software", 100, bvh2(poolOptions))});
  for (const SummaryFormat format : {SummaryFormat::Table, SummaryFormat::Markdown}) {
    const std::string summary = reportSummary(report, format);
    const auto lines = relativeLines(summary);
    ASSERT_EQ(lines.size(), 3u) << summary;
    EXPECT_NE(lineWith(lines, {"big.gltf", "wavefront pool 1.05M", "pipeline"}).find("1.300x"), std::string::npos);
    EXPECT_NE(lineWith(lines, {"wavefront pool 1.05M", "software cwbvh"}).find("0.580x"), std::string::npos);
    EXPECT_NE(lineWith(lines, {"wavefront pool 1.05M", "software bvh2"}).find("0.500x"), std::string::npos);
    EXPECT_EQ(summary.find("0.868"), std::string::npos) << summary;
    for (const std::string& line : lines)
      EXPECT_EQ(line.find("megakernel "), std::string::npos) << "the megakernel against itself: " << line;
  }
  // The CSV is the runs alone: each one's `vs mk` against the megakernel of its backend and layout.
  std::istringstream csv(reportSummary(report, SummaryFormat::Csv));
  std::vector<std::string> rows;
  for (std::string row; std::getline(csv, row);) rows.push_back(row);
  ASSERT_EQ(rows.size(), 7u);
  EXPECT_NE(rows[4].find(",1.300,"), std::string::npos) << rows[4];
  EXPECT_NE(rows[5].find(",0.580,"), std::string::npos) << rows[5];
  EXPECT_NE(rows[6].find(",0.500,"), std::string::npos) << rows[6];
}

// A sweep of ReSTIR over both architectures: the wavefront with ReSTIR is timed against the
// megakernel with ReSTIR, the plain one against the plain one (a megakernel run of an older
// report, without options, counts as the plain one: the options' defaults).
TEST(Summary, RelativeTimesPairRunsOfTheMegakernelsOwnOptions) {
  const json report = reportOf({okRun("r000", "megakernel", "pipeline", 10),
                                okRun("r001", "megakernel", "pipeline", 40, {{"restir", "di"}}),
                                okRun("r002", "wavefront", "pipeline", 12, {{"restir", "off"}}),
                                okRun("r003", "wavefront", "pipeline", 30, {{"restir", "di"}})});
  const auto lines = relativeLines(reportSummary(report, SummaryFormat::Table));
  ASSERT_EQ(lines.size(), 2u) << ::testing::PrintToString(lines);
  EXPECT_EQ(lastCell(lines[0]), "1.200x") << lines[0];
  EXPECT_NE(lines[1].find("restir=di"), std::string::npos) << lines[1];
  EXPECT_EQ(lastCell(lines[1]), "0.750x") << lines[1];
}

// A resolution sweep: the wavefront's default pool follows the pixel count, so its label changes
// with the size. One line per size, in the sweep's order, the size beside it; a sweep point given
// twice (identical parameters: a scene listed twice) is the one case whose ratios are averaged,
// and the block says how many runs a line averages.
TEST(Summary, RelativeTimesPerSizeAndMeanOnlyOverIdenticalRuns) {
  const json small = {{"schedule", "depth"}, {"pool_size", 2048}};
  const json large = {{"schedule", "depth"}, {"pool_size", 8192}};
  const json report = reportOf({okRun("r000", "megakernel", "pipeline", 10, json::object(), 64, 32),
                                okRun("r001", "megakernel", "pipeline", 40, json::object(), 128, 64),
                                okRun("r002", "megakernel", "pipeline", 20, json::object(), 64, 32),  // the point again
                                okRun("r003", "wavefront", "pipeline", 5, small, 64, 32),
                                okRun("r004", "wavefront", "pipeline", 20, large, 128, 64),
                                okRun("r005", "wavefront", "pipeline", 20, small, 64, 32)});
  for (const SummaryFormat format : {SummaryFormat::Table, SummaryFormat::Markdown}) {
    const std::string summary = reportSummary(report, format);
    const auto lines = relativeLines(summary);
    ASSERT_EQ(lines.size(), 2u) << summary;
    const std::string smaller = lineWith(lines, {"wavefront depth 2.05k", "64x32"});
    EXPECT_NE(smaller.find("0.707x"), std::string::npos) << "sqrt(5/10 x 20/20): " << smaller;
    EXPECT_EQ(lastCell(smaller), "2") << "of two runs: " << smaller;
    const std::string larger = lineWith(lines, {"wavefront depth 8.19k", "128x64"});
    EXPECT_NE(larger.find("0.500x"), std::string::npos) << larger;
    EXPECT_EQ(lastCell(larger), "1") << larger;
    EXPECT_EQ(lines[0], smaller) << "the sweep's order, not the labels' alphabetical one";
  }
  // Each run of the point given twice against the megakernel run of its own place: r003 against
  // r000, r005 against r002.
  std::istringstream csv(reportSummary(report, SummaryFormat::Csv));
  std::vector<std::string> rows;
  for (std::string row; std::getline(csv, row);) rows.push_back(row);
  ASSERT_EQ(rows.size(), 7u);
  EXPECT_NE(rows[4].find(",0.500,"), std::string::npos) << rows[4];
  EXPECT_NE(rows[6].find(",1.000,"), std::string::npos) << rows[6];
}

// configs/paper.json sweeps timing (frame, stages) and the wavefront's material queues: each
// setting is its own line, each against the megakernel of its own timing, never a mean over both
// timings; the run table names the timing of every run.
TEST(Summary, RelativeTimesKeepEverySweptSettingApart) {
  auto timed = [](json run, const char* timing) {
    run["parameters"]["timing"] = timing;
    return run;
  };
  const json queues = {{"material_queues", true}}, noQueues = {{"material_queues", false}};
  const json report =
      reportOf({timed(okRun("r000", "megakernel", "pipeline", 10), "frame"),
                timed(okRun("r001", "megakernel", "pipeline", 20), "stages"),
                timed(okRun("r002", "wavefront", "pipeline", 5, noQueues), "frame"),
                timed(okRun("r003", "wavefront", "pipeline", 6, queues), "frame"),
                timed(okRun("r004", "wavefront", "pipeline", 30, noQueues), "stages"),
                timed(okRun("r005", "wavefront", "pipeline", 40, queues), "stages")});
  for (const SummaryFormat format : {SummaryFormat::Table, SummaryFormat::Markdown}) {
    const std::string summary = reportSummary(report, format);
    const auto lines = relativeLines(summary);
    ASSERT_EQ(lines.size(), 4u) << summary;
    EXPECT_NE(lineWith(lines, {"timing=frame", "material_queues=false"}).find("0.500x"), std::string::npos);
    EXPECT_NE(lineWith(lines, {"timing=frame", "material_queues=true"}).find("0.600x"), std::string::npos);
    EXPECT_NE(lineWith(lines, {"timing=stages", "material_queues=false"}).find("1.500x"), std::string::npos);
    EXPECT_NE(lineWith(lines, {"timing=stages", "material_queues=true"}).find("2.000x"), std::string::npos);
    EXPECT_EQ(summary.find("relative GPU time  runs"), std::string::npos) << "no line averages two runs: " << summary;
    EXPECT_EQ(summary.find("relative GPU time | runs"), std::string::npos) << "no line averages two runs: " << summary;
    // Every run's row says its timing.
    for (const char* id : {"r000", "r001", "r002", "r003", "r004", "r005"}) {
      const size_t row = summary.find(std::string(format == SummaryFormat::Markdown ? "| " : "") + id);
      ASSERT_NE(row, std::string::npos) << summary;
      EXPECT_NE(summary.substr(row, summary.find('\n', row) - row).find("timing="), std::string::npos) << summary;
    }
  }
}

// A run whose frames vary by more than the noise bound is flagged beside its cv and in a note;
// every summary but the CSV names the device first, the CSV in a column.
TEST(Summary, NoisyRunsAreFlaggedAndTheDeviceNamed) {
  json noisy = okRun("r001", "wavefront", "pipeline", 8, poolOptions);
  noisy["frame_gpu_ms"]["cv"] = 0.279;
  json report = reportOf({okRun("r000", "megakernel", "pipeline", 10), noisy});
  report["device"] = {{"name", "llvmpipe (LLVM 15.0.6, 256 bits)"}, {"type", "cpu"}, {"driver_info", "Mesa 25.0.7"}};
  report["tool"] = {{"git_revision", "c4ff8ea0000000000000000000000000000000000"}, {"git_dirty", false}};
  for (const SummaryFormat format : {SummaryFormat::Table, SummaryFormat::Markdown}) {
    const std::string summary = reportSummary(report, format);
    EXPECT_NE(summary.find("27.90!"), std::string::npos) << summary;
    EXPECT_EQ(summary.find("1.00!"), std::string::npos) << summary;
    EXPECT_NE(summary.find("noisy (cv %!): run(s) r001 vary by more than 5%"), std::string::npos) << summary;
    EXPECT_EQ(summary.rfind("device: llvmpipe (LLVM 15.0.6, 256 bits) (driver Mesa 25.0.7; a CPU implementation", 0),
              0u)
        << summary;
    EXPECT_NE(summary.find("ptbench c4ff8ea"), std::string::npos) << summary;
  }
  const std::string csv = reportSummary(report, SummaryFormat::Csv);
  EXPECT_NE(csv.find(",status,device\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",ok,\"llvmpipe (LLVM 15.0.6, 256 bits)\"\n"), std::string::npos) << csv;
}

// Parameters that do not differ between the block's lines are not repeated on every line.
TEST(Summary, RelativeTimesShowOnlyParametersThatDiffer) {
  const json report =
      reportOf({okRun("r000", "megakernel", "pipeline", 10), okRun("r001", "wavefront", "pipeline", 8, poolOptions)});
  const std::string table = reportSummary(report, SummaryFormat::Table);
  const auto lines = relativeLines(table);
  ASSERT_EQ(lines.size(), 1u) << table;
  EXPECT_EQ(lines[0].find("64x32"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("0.800x"), std::string::npos) << lines[0];
  EXPECT_EQ(table.find("  parameters  "), std::string::npos) << table;
  EXPECT_EQ(table.find("GPU time  runs"), std::string::npos) << "no line averages several runs: " << table;
}

// Where the driver gives register counts, each run's kernels are listed with the warps per SM
// they allow; where no run has them, nothing is said.
TEST(Summary, KernelsWithRegisterCountsAreListedPerRun) {
  json megakernel = okRun("r000", "megakernel", "pipeline", 10);
  megakernel["kernels"] = json::array({{{"stage", "trace_shade"},
                                        {"occupancy",
                                         {{"registers_per_thread", 96},
                                          {"warps_per_sm", 21},
                                          {"max_warps_per_sm", 64},
                                          {"limited_by", "registers"}}}}});
  json wavefront = okRun("r001", "wavefront", "pipeline", 5);
  wavefront["kernels"] = json::array({{{"stage", "extend"}, {"occupancy", nullptr}, {"occupancy_reason", "x"}}});
  const std::string summary = reportSummary(reportOf({megakernel, wavefront}), SummaryFormat::Table);
  EXPECT_NE(summary.find("kernels of run r000 (registers a thread, resident warps a SM): trace_shade 96 regs, 21/64 "
                         "warps"),
            std::string::npos)
      << summary;
  EXPECT_EQ(summary.find("kernels of run r001"), std::string::npos) << summary;
}

}  // namespace
}  // namespace ptbench::test
