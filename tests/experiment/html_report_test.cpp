#include "core/experiment/html_report.h"

#include <gtest/gtest.h>
#include <stb_image.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace ptbench::test {
namespace {

using nlohmann::json;

// A run as a report holds it, eight frames around `gpuMs`.
json timedRun(const std::string& id, const std::string& integrator, double gpuMs) {
  std::vector<double> samples;
  for (int k = -4; k < 4; ++k) samples.push_back(gpuMs * (1 + 0.001 * k));
  return {{"id", id},
          {"status", "ok"},
          {"parameters",
           {{"scene", "builtin:cornell"},
            {"integrator", integrator},
            {"backend", "pipeline"},
            {"width", 8},
            {"height", 8},
            {"spp", 1},
            {"max_depth", 8},
            {"rr_depth", 3},
            {"seed", 1},
            {"sampler", "halton"},
            {"counters", "off"},
            {"options", json::object()}}},
          {"frame_gpu_ms", {{"median", gpuMs}, {"cv", 0.002}}},
          {"frame_gpu_ms_samples", samples},
          {"stages", json::array()}};
}

json gpuReport(std::vector<json> runs, const std::string& deviceType = "discrete") {
  return {{"runs", runs}, {"device", {{"name", "a GPU"}, {"type", deviceType}}}, {"config", {{"name", "test"}}}};
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(HtmlReport, TheVerdictNamesTheFastestIntegratorAndWhetherItsSpreadRulesOutNoise) {
  const json report = gpuReport({timedRun("r000", "megakernel", 10), timedRun("r001", "megakernel-regen", 9.9),
                                 timedRun("r002", "wavefront", 8)});
  const json verdict = pageModel(reportPage({report, "report.json"}, {.out = "report.html"}))["reports"][0]["verdict"];
  ASSERT_EQ(verdict["lines"].size(), 2u) << verdict.dump(1);
  const json& regen = verdict["lines"][0];
  const json& wavefront = verdict["lines"][1];
  EXPECT_NEAR(regen["ratio"].get<double>(), 0.99, 1e-9);
  EXPECT_NEAR(wavefront["ratio"].get<double>(), 0.8, 1e-9);
  EXPECT_FALSE(regen["winner"].get<bool>());
  EXPECT_TRUE(wavefront["winner"].get<bool>());
  EXPECT_TRUE(wavefront["decisive"].get<bool>()) << wavefront.dump(1);
  EXPECT_EQ(wavefront["spread"]["kind"], "99% interval");
  EXPECT_LT(wavefront["spread"]["high"].get<double>(), 1);
  EXPECT_EQ(wavefront["megakernel_ids"], json::array({"r000"}));
  // The same runs measured on a CPU: the winner is named, never as beyond noise.
  const json cpu = gpuReport(report["runs"], "cpu");
  const json cpuVerdict = pageModel(reportPage({cpu, "report.json"}, {.out = "report.html"}))["reports"][0]["verdict"];
  EXPECT_TRUE(cpuVerdict["lines"][1]["winner"].get<bool>());
  EXPECT_FALSE(cpuVerdict["lines"][1]["decisive"].get<bool>());
  EXPECT_EQ(cpuVerdict["lines"][1]["undecided_because"], "measured on a CPU");
  // Three frames a run bound no interval: the page says so rather than calling it noise.
  json few = report;
  for (json& run : few["runs"]) run["frame_gpu_ms_samples"] = json::array({9.99, 10.0, 10.01});
  const json fewVerdict = pageModel(reportPage({few, "report.json"}, {.out = "report.html"}))["reports"][0]["verdict"];
  EXPECT_FALSE(fewVerdict["lines"][1]["decisive"].get<bool>());
  EXPECT_EQ(fewVerdict["lines"][1]["undecided_because"], "too few frames for an interval");
}

TEST(HtmlReport, NoIntegratorFasterThanTheMegakernelWinsNothing) {
  const json report = gpuReport({timedRun("r000", "megakernel", 10), timedRun("r001", "wavefront", 12)});
  const json verdict = pageModel(reportPage({report, "report.json"}, {.out = "report.html"}))["reports"][0]["verdict"];
  ASSERT_EQ(verdict["lines"].size(), 1u);
  EXPECT_FALSE(verdict["lines"][0]["winner"].get<bool>());
}

// A config's text ends up in the page's data: a "</script>" in it must not end that element
// (and run what follows as script).
TEST(HtmlReport, TheReportsTextCannotCloseTheDataElement) {
  json report = gpuReport({timedRun("r000", "megakernel", 10)});
  report["config"]["description"] = "</script><script>alert(1)</script>";
  const std::string page = reportPage({report, "report.json"}, {.out = "report.html"});
  // The data, Chart.js and the page's script: three elements, each closed once.
  EXPECT_EQ(count(page, "</script>"), 3u);
  EXPECT_EQ(pageModel(page)["reports"][0]["report"]["config"]["description"], report["config"]["description"]);
  EXPECT_NE(page.find("Content-Security-Policy"), std::string::npos);
  EXPECT_EQ(page.find("http://"), page.find("http://www.w3.org"));  // no address to fetch (SVG namespaces aside)
}

TEST(HtmlReport, ReportsOfDifferentConfigsAreNoHistory) {
  json a = gpuReport({timedRun("r000", "megakernel", 10)}), b = a;
  a["config_hash"] = "one";
  b["config_hash"] = "another";
  EXPECT_THROW(historyPage({{a, "a.json"}, {b, "b.json"}}, {}, {.out = "history.html"}), std::exception);
}

std::vector<uint8_t> decode(const std::string& png, int& width, int& height) {
  int channels = 0;
  unsigned char* pixels = stbi_load_from_memory(reinterpret_cast<const unsigned char*>(png.data()), int(png.size()),
                                                &width, &height, &channels, 3);
  if (!pixels) return {};
  std::vector<uint8_t> out(pixels, pixels + size_t(width) * size_t(height) * 3);
  stbi_image_free(pixels);
  return out;
}

// Where the images agree the difference is the ramp's dark end; a pixel three times as bright as its
// reference is at its bright end (relative squared error 1 and more), one a tenth off between them.
TEST(HtmlReport, TheDifferenceImageGrowsWithTheRelativeError) {
  LinearImage reference{3, 1, {1, 1, 1, 1, 1, 1, 1, 1, 1}};
  LinearImage image{3, 1, {1, 1, 1, 3, 3, 3, 1.1f, 1.1f, 1.1f}};
  int width = 0, height = 0;
  const std::vector<uint8_t> rgb = decode(differencePng(image, reference), width, height);
  ASSERT_EQ(rgb.size(), 9u);
  EXPECT_EQ(width, 3);
  EXPECT_EQ(height, 1);
  EXPECT_EQ(std::vector<uint8_t>(rgb.begin(), rgb.begin() + 3), (std::vector<uint8_t>{68, 1, 84}));
  EXPECT_EQ(std::vector<uint8_t>(rgb.begin() + 3, rgb.begin() + 6), (std::vector<uint8_t>{253, 231, 37}));
  const int middle = rgb[6] + rgb[7] + rgb[8];
  EXPECT_GT(middle, 68 + 1 + 84);
  EXPECT_LT(middle, 253 + 231 + 37);
}

// A convergence curve is one scene's runs of one integrator and backend across sample counts:
// the default pool, which grows with them, does not split it; another scene is another curve.
TEST(HtmlReport, AConvergenceCurveJoinsOneScenesRunsAcrossSampleCountsAndPools) {
  json small = timedRun("r000", "wavefront", 10), large = timedRun("r001", "wavefront", 20),
       other = timedRun("r002", "wavefront", 10);
  small["parameters"]["options"] = {{"schedule", "depth"}, {"pool_size", 1024}};
  large["parameters"]["options"] = {{"schedule", "depth"}, {"pool_size", 4096}};
  large["parameters"]["spp"] = 4;
  other["parameters"]["options"] = small["parameters"]["options"];
  other["parameters"]["scene"] = "builtin:furnace";
  const json runs = pageModel(
      reportPage({gpuReport({small, large, other}), "report.json"}, {.out = "report.html"}))["reports"][0]["runs"];
  EXPECT_EQ(runs[0]["curve"], runs[1]["curve"]) << runs.dump(1);
  EXPECT_NE(runs[0]["curve"], runs[2]["curve"]) << runs.dump(1);
  EXPECT_NE(runs[0]["integrator"], runs[1]["integrator"]) << "the run's own label keeps its pool";
}

// A published study keeps report.json.gz and no images: the page links the file that is there,
// names the images that are not, and computes no difference it cannot read.
TEST(HtmlReport, APageOfAReportWithoutItsImagesLinksOnlyWhatIsBesideIt) {
  const std::filesystem::path folder = std::filesystem::path(testing::TempDir()) / "published-report";
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "report.json.gz") << "stands for the gzipped report";
  std::ofstream(folder / "r000.png") << "stands for a PNG";
  json megakernel = timedRun("r000", "megakernel", 10), wavefront = timedRun("r001", "wavefront", 8);
  megakernel["images"] = {{"png", "r000.png"}, {"exr", "r000.exr"}};
  wavefront["images"] = {{"png", "r001.png"}, {"exr", "r001.exr"}};
  const json model = pageModel(reportPage({gpuReport({megakernel, wavefront}), folder / "report.json"},
                                          {.out = folder / "report.html"}))["reports"][0];
  EXPECT_EQ(model["json"], "report.json.gz");
  EXPECT_TRUE(model["csv"].is_null()) << model["csv"];
  EXPECT_EQ(model["runs"][0]["image"], "r000.png");
  EXPECT_FALSE(model["runs"][1].contains("image")) << model["runs"][1].dump();
  EXPECT_EQ(model["runs"][1]["image_missing"], "r001.png");
  EXPECT_EQ(model["differences"], json::object()) << model["differences"].dump();
}

}  // namespace
}  // namespace ptbench::test
