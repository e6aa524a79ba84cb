#include "core/experiment/html_report.h"

#include <zlib.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>

#include "core/errors.h"
#include "core/experiment/atomic_file.h"
#include "core/experiment/convergence.h"
#include "core/experiment/image_output.h"
#include "core/experiment/metrics.h"
#include "core/experiment/report.h"
#include "core/experiment/statistics.h"
#include "core/experiment/summary.h"

namespace ptbench {

// The page's parts, embedded at build time (cmake/EmbedText.cmake).
std::string_view embeddedReportText(std::string_view name);

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr std::string_view base64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64(std::string_view bytes) {
  constexpr std::string_view alphabet = base64Alphabet;
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t chunk = uint32_t(uint8_t(bytes[i])) << 16;
    if (i + 1 < bytes.size()) chunk |= uint32_t(uint8_t(bytes[i + 1])) << 8;
    if (i + 2 < bytes.size()) chunk |= uint32_t(uint8_t(bytes[i + 2]));
    out += alphabet[(chunk >> 18) & 63];
    out += alphabet[(chunk >> 12) & 63];
    out += i + 1 < bytes.size() ? alphabet[(chunk >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? alphabet[chunk & 63] : '=';
  }
  return out;
}

std::string pngDataUri(std::string_view png) {
  return "data:image/png;base64," + base64(png);
}

// The page's model, zlib-deflated and in base64: a report's JSON shrinks about tenfold, so a
// page of a sweep of a hundred runs stays a few hundred kilobytes (the browser inflates it with
// its DecompressionStream). Base64 holds no '<', so no text of the report can close the element.
std::string deflatedBase64(const std::string& text) {
  uLongf size = compressBound(uLong(text.size()));
  std::string deflated(size, '\0');
  if (compress2(reinterpret_cast<Bytef*>(deflated.data()), &size, reinterpret_cast<const Bytef*>(text.data()),
                uLong(text.size()), Z_BEST_COMPRESSION) != Z_OK)
    throw std::runtime_error("zlib could not compress the page's data");
  deflated.resize(size);
  return base64(deflated);
}

std::optional<std::string> readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// How the page names a file of a report's folder: relative to the page, or inside it.
std::string link(const fs::path& file, const HtmlOptions& options) {
  std::error_code error;
  const fs::path from = fs::absolute(options.out, error).parent_path();
  const fs::path relative = fs::relative(fs::absolute(file, error), from, error);
  return (error || relative.empty() ? file : relative).generic_string();
}

bool isFile(const fs::path& file) {
  std::error_code error;
  return fs::is_regular_file(file, error);
}

// A link to `file`, or to its gzipped copy (a published study keeps report.json.gz), or null
// when neither lies beside the report: the page then names no file it cannot open.
json linkIfPresent(const fs::path& file, const HtmlOptions& options) {
  if (isFile(file)) return link(file, options);
  if (fs::path gzipped = file; isFile(gzipped += ".gz")) return link(gzipped, options);
  return nullptr;
}

std::optional<double> frameMedian(const json& run) {
  if (run.value("status", "") != "ok") return std::nullopt;
  return run["frame_gpu_ms"]["median"].get<double>();
}

const json* runById(const json& runs, const std::string& id) {
  for (const auto& run : runs)
    if (run.value("id", "") == id) return &run;
  return nullptr;
}

// The verdict: each integrator variant's GPU time over the megakernel's, its spread (the 99%
// interval of one run's frames, as compare judges; the range over a repeated sweep point's
// runs), its noise, and the winner of its scene, backend and settings.
json verdictJson(const json& report, const RelativeTimes& relative) {
  const json& runs = report.at("runs");
  json lines = json::array();
  // Per scene, backend and settings: the lowest time relative to the megakernel's (1).
  std::map<std::string, std::pair<double, size_t>> best;
  for (const RelativeTimeLine& line : relative.lines) {
    json entry = {{"scene", line.scene},       {"integrator", line.integrator},       {"backend", line.backend},
                  {"settings", line.settings}, {"ratio", line.geometricMean},         {"ratios", line.ratios},
                  {"run_ids", line.runIds},    {"megakernel_ids", line.megakernelIds}};
    bool noisy = false;
    for (size_t i = 0; i < line.runIds.size(); ++i)
      for (const std::string& id : {line.runIds[i], line.megakernelIds[i]})
        if (const json* run = runById(runs, id)) {
          const std::optional<double> cv = metric("frame_gpu_ms_cv").value(*run);
          noisy |= cv && isNoisy(*cv);
        }
    entry["noisy"] = noisy;
    json spread = nullptr;
    if (line.ratios.size() > 1) {
      const auto [low, high] = std::minmax_element(line.ratios.begin(), line.ratios.end());
      spread = {{"kind", "range of the runs"}, {"low", *low}, {"high", *high}};
    } else if (const json* run = runById(runs, line.runIds[0]), *megakernel = runById(runs, line.megakernelIds[0]);
               run && megakernel) {
      const std::vector<double> base = frameSamples(*megakernel), next = frameSamples(*run);
      if (const auto interval = ratioInterval(base, next, compareConfidence))
        spread = {{"kind", fmt::format("{:g}% interval", compareConfidence * 100)},
                  {"low", interval->low},
                  {"high", interval->high}};
    }
    entry["spread"] = spread;
    const std::string group = line.scene + "|" + line.backend + "|" + line.settings;
    const auto [found, added] = best.try_emplace(group, line.geometricMean, lines.size());
    if (!added && line.geometricMean < found->second.first) found->second = {line.geometricMean, lines.size()};
    lines.push_back(entry);
  }
  // A winner faster than the megakernel wins its group; where none is, the megakernel does.
  for (auto& line : lines) line["winner"] = false;
  for (const auto& [group, winner] : best)
    if (winner.first < 1) {
      json& line = lines[winner.second];
      line["winner"] = true;
      // Within its spread of 1 (or measured on a CPU), the win is not one that noise rules out;
      // the page says which of these kept it from being decisive.
      const json& spread = line["spread"];
      std::string undecided;
      if (onCpuDevice(report))
        undecided = "measured on a CPU";
      else if (line["noisy"].get<bool>())
        undecided = "a run is noisy";
      else if (!spread.is_object())
        undecided = "too few frames for an interval";
      else if (spread["high"].get<double>() >= 1)
        undecided = "its spread reaches 1";
      line["decisive"] = undecided.empty();
      if (!undecided.empty()) line["undecided_because"] = undecided;
    }
  return {{"convention", std::string(relativeTimeConvention)}, {"lines", lines}};
}

// The runs' differences to the megakernel each is timed against: its image's relMSE and FLIP and a
// false-colour view, read from both runs' EXRs. A run whose EXR cannot be read says why.
json differencesJson(const json& report, const RelativeTimes& relative, const fs::path& folder) {
  const json& runs = report.at("runs");
  json differences = json::object();
  std::map<std::string, LinearImage> images;
  auto image = [&](const json& run) -> const LinearImage& {
    const std::string id = run["id"];
    if (!images.count(id)) images[id] = readLinearImage(folder / run["images"]["exr"].get<std::string>());
    return images[id];
  };
  for (const RelativeTimeLine& line : relative.lines)
    for (size_t i = 0; i < line.runIds.size(); ++i) {
      const json *run = runById(runs, line.runIds[i]), *megakernel = runById(runs, line.megakernelIds[i]);
      if (!run || !megakernel || !run->contains("images") || !megakernel->contains("images")) continue;
      // Images a published report left behind: the page says so once, not a failure a run.
      if (!isFile(folder / (*run)["images"]["exr"].get<std::string>()) ||
          !isFile(folder / (*megakernel)["images"]["exr"].get<std::string>()))
        continue;
      json entry = {{"against", line.megakernelIds[i]}};
      try {
        const LinearImage &ours = image(*run), &theirs = image(*megakernel);
        if (const auto metrics = convergenceMetrics(ours, theirs)) {
          entry["relmse"] = metrics->relmse;
          entry["flip"] = *metrics->flip;
          entry["image"] = pngDataUri(differencePng(ours, theirs));
        } else {
          entry["error"] = "the images differ in size";
        }
      } catch (const UserError& error) {
        entry["error"] = error.what();
      }
      differences[line.runIds[i]] = entry;
    }
  return differences;
}

json metricsJson() {
  json metrics = json::array();
  for (const Metric& m : runMetrics())
    metrics.push_back({{"name", m.name},
                       {"header", m.header},
                       {"unit", m.unit},
                       {"better", m.better == Better::Lower    ? "lower"
                                  : m.better == Better::Higher ? "higher"
                                                               : "neither"},
                       {"scale", m.scale},
                       {"decimals", m.decimals},
                       {"in_summary", m.inSummary}});
  return metrics;
}

// What the page shows of each run beside its report entry: its labels, its metrics by the one
// list, and where its image is.
json runsJson(const json& report, const fs::path& folder, const HtmlOptions& options) {
  const json& runs = report.at("runs");
  const std::vector<Axis> varying = varyingAxes(runAxes(runs), runs);
  json out = json::array();
  for (const auto& run : runs) {
    const json& p = run["parameters"];
    json values = json::object();
    for (const Metric& m : runMetrics())
      if (const auto value = m.value(run)) values[m.name] = *value;
    // A convergence curve joins one scene's runs of one integrator and backend across sample
    // counts; the default pool grows with the samples, so its size does not split the curve.
    json unpooled = p;
    if (unpooled.contains("options")) unpooled["options"].erase("pool_size");
    const std::string scene = fs::path(p["scene"].get<std::string>()).filename().string();
    json entry = {{"id", run["id"]},
                  {"label", runLabel(p, varying)},
                  {"scene", scene},
                  {"integrator", integratorLabel(p)},
                  {"backend", backendLabel(p)},
                  {"curve", scene + " | " + integratorLabel(unpooled) + " | " + backendLabel(p)},
                  {"values", values}};
    if (run.contains("images")) {
      const fs::path png = folder / run["images"]["png"].get<std::string>();
      if (!isFile(png)) {
        entry["image_missing"] = png.filename().string();
      } else {
        std::optional<std::string> bytes;
        if (options.embedImages) bytes = readFile(png);
        entry["image"] = bytes ? pngDataUri(*bytes) : link(png, options);
        if (options.embedImages && !bytes) entry["image_error"] = "cannot read " + png.string();
      }
    }
    out.push_back(entry);
  }
  return out;
}

json reportJsonForPage(const HtmlSource& source, const HtmlOptions& options) {
  const fs::path folder = source.path.parent_path();
  const json& report = source.report;
  const RelativeTimes relative = relativeTimes(report.at("runs"));
  json differences;
  try {
    differences = differencesJson(report, relative, folder);
  } catch (const std::exception& error) {  // a report whose images are gone: the page says so
    differences = {{"error", error.what()}};
  }
  return {{"report", report},
          {"device_line", deviceLine(report)},
          {"cpu", onCpuDevice(report)},
          {"json", linkIfPresent(source.path, options)},
          {"csv", linkIfPresent(folder / "report.csv", options)},
          {"runs", runsJson(report, folder, options)},
          {"verdict", verdictJson(report, relative)},
          {"differences", differences}};
}

// Each run key of `reports`' runs (a repeat numbered "#2", ... as compare numbers it) with what
// the page calls the run: "r003 cornell | wavefront | pipeline", the first report's where both have it.
json labelsByKey(const std::vector<const json*>& reports) {
  json labels = json::object();
  for (const json* report : reports) {
    const json& runs = report->at("runs");
    const std::vector<Axis> varying = varyingAxes(runAxes(runs), runs);
    std::map<std::string, int> seen;
    for (const auto& run : runs) {
      std::string key = runKey(run);
      if (const int count = ++seen[key]; count > 1) key += " #" + std::to_string(count);
      if (!labels.contains(key)) labels[key] = run.value("id", "") + " " + runLabel(run["parameters"], varying);
    }
  }
  return labels;
}

json compareJson(const CompareResult& result, const CompareOptions& options) {
  json runs = json::array();
  for (const ComparedRun& run : result.runs) {
    json entry = {
        {"key", run.key}, {"verdict", run.verdict}, {"base_status", run.baseStatus}, {"new_status", run.nextStatus}};
    auto optional = [](const std::optional<double>& value) { return value ? json(*value) : json(nullptr); };
    entry["base_ms"] = optional(run.baseMs);
    entry["new_ms"] = optional(run.nextMs);
    entry["base_cv"] = optional(run.baseCv);
    entry["new_cv"] = optional(run.nextCv);
    entry["ratio"] = run.baseMs && run.nextMs && *run.baseMs > 0 ? json(*run.nextMs / *run.baseMs) : json(nullptr);
    entry["interval"] = run.interval ? json::array({run.interval->low, run.interval->high}) : json(nullptr);
    runs.push_back(entry);
  }
  const std::string& table = result.table;
  const size_t last = table.rfind("compare: verdict");
  return {{"verdict", result.verdict},
          {"line", last == std::string::npos ? "" : table.substr(last, table.find('\n', last) - last)},
          {"threshold", options.threshold},
          {"confidence", compareConfidence},
          {"runs", runs}};
}

std::string htmlEscape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string page(const std::string& title, const json& model) {
  std::string html = "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  // Nothing but what the page holds and the images beside it: no network request can leave.
  html +=
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; "
      "style-src 'unsafe-inline'; img-src 'self' data: file:\">\n";
  html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  html += "<title>" + htmlEscape(title) + "</title>\n<style>\n" + std::string(embeddedReportText("report.css")) +
          "</style>\n</head>\n<body>\n<noscript>This report is drawn by its script: open it in a browser with "
          "JavaScript on.</noscript>\n<main id=\"report\"></main>\n";
  html += "<script type=\"application/octet-stream\" id=\"ptbench-data\" data-encoding=\"deflate base64\">" +
          deflatedBase64(model.dump()) + "</script>\n";
  html += "<!-- Chart.js, from Debian's libjs-chart.js; its license:\n" +
          htmlEscape(embeddedReportText("chart_license")) + "-->\n";
  html += "<script>\n" + std::string(embeddedReportText("chart.js")) + "\n</script>\n";
  html += "<script>\n" + std::string(embeddedReportText("report.js")) + "\n</script>\n</body>\n</html>\n";
  return html;
}

json pageModel(std::string_view kind, const json& tool) {
  return {{"kind", kind}, {"generated_by", tool}, {"metrics", metricsJson()}};
}

std::string configName(const json& report) {
  return report.value("config", json::object()).value("name", "ptbench");
}

}  // namespace

std::string differencePng(const LinearImage& image, const LinearImage& reference) {
  // Viridis at ten stops: ordered in lightness, readable with every common colour-vision deficiency.
  static constexpr std::array<std::array<float, 3>, 10> viridis = {{{68, 1, 84},
                                                                    {72, 40, 120},
                                                                    {62, 73, 137},
                                                                    {49, 104, 142},
                                                                    {38, 130, 142},
                                                                    {31, 158, 137},
                                                                    {53, 183, 121},
                                                                    {110, 206, 88},
                                                                    {181, 222, 43},
                                                                    {253, 231, 37}}};
  const size_t pixels = size_t(image.width) * image.height;
  std::vector<uint8_t> rgb(pixels * 3);
  for (size_t i = 0; i < pixels; ++i) {
    double error = 0;
    for (size_t c = 0; c < 3; ++c) {
      const double x = image.rgb[3 * i + c], r = reference.rgb[3 * i + c];
      // As convergenceMetrics: relative, and bounded where the reference is dark.
      error += std::isfinite(x) && std::isfinite(r) ? (x - r) * (x - r) / (r * r + 0.01) : 1;
    }
    error /= 3;
    // log10 of the error from -4 (and below) to 0 (and above) across the ramp.
    const double t = std::clamp((std::log10(std::max(error, 1e-12)) + 4) / 4, 0.0, 1.0) * double(viridis.size() - 1);
    const size_t low = std::min(size_t(t), viridis.size() - 2);
    const float f = float(t - double(low));
    for (size_t c = 0; c < 3; ++c)
      rgb[3 * i + c] = uint8_t(std::lround(viridis[low][c] * (1 - f) + viridis[low + 1][c] * f));
  }
  return encodePng(image.width, image.height, rgb);
}

std::string reportPage(const HtmlSource& report, const HtmlOptions& options) {
  json model = pageModel("report", toolJson());
  model["reports"] = json::array({reportJsonForPage(report, options)});
  return page(configName(report.report) + " - ptbench report", model);
}

void writeReportPage(const fs::path& folder, const json& report) {
  const fs::path out = folder / "report.html";
  writeFileAtomically(out, reportPage({report, folder / "report.json"}, {.out = out}));
}

std::string comparePage(const HtmlSource& base, const HtmlSource& next, const CompareResult& result,
                        const CompareOptions& compare, const HtmlOptions& options) {
  json model = pageModel("compare", toolJson());
  model["reports"] = json::array({reportJsonForPage(next, options)});
  model["compare"] = compareJson(result, compare);
  model["labels"] = labelsByKey({&next.report, &base.report});
  model["compare"]["base"] = {{"json", link(base.path, options)},
                              {"device_line", deviceLine(base.report)},
                              {"tool", base.report.value("tool", json::object())},
                              {"date", base.report.value("date", "")}};
  return page(configName(next.report) + " - ptbench compare", model);
}

std::string historyPage(std::vector<HtmlSource> reports, const CompareOptions& compare, const HtmlOptions& options) {
  if (reports.size() < 2) throw UserError("a history needs two reports or more");
  const std::string hash = reports[0].report.value("config_hash", "");
  for (const HtmlSource& source : reports)
    if (source.report.value("config_hash", "") != hash)
      throw UserError(source.path.string() + ": its config is not " + reports[0].path.string() +
                      "'s (config_hash differs): a history follows one config across builds");
  std::stable_sort(reports.begin(), reports.end(), [](const HtmlSource& a, const HtmlSource& b) {
    return a.report.value("date", "") < b.report.value("date", "");
  });
  json builds = json::array();
  for (size_t i = 0; i < reports.size(); ++i) {
    const json& report = reports[i].report;
    const json& tool = report.value("tool", json::object());
    json build = {{"json", link(reports[i].path, options)},
                  {"date", report.value("date", "")},
                  {"revision", tool.value("git_revision", "unknown")},
                  {"dirty", tool.value("git_dirty", false)},
                  {"device_line", deviceLine(report)},
                  {"cpu", onCpuDevice(report)}};
    // Keyed as compare keys them: a repeated key's later runs "#2", "#3", ...
    json medians = json::object();
    std::map<std::string, int> seen;
    for (const auto& run : report.at("runs")) {
      std::string key = runKey(run);
      if (const int count = ++seen[key]; count > 1) key += " #" + std::to_string(count);
      if (const auto median = frameMedian(run)) medians[key] = *median;
    }
    build["medians"] = medians;
    // Each step against the build before it, by compare's own rule.
    if (i > 0) build["compare"] = compareJson(compareReports(reports[i - 1].report, report, compare), compare);
    builds.push_back(build);
  }
  json model = pageModel("history", toolJson());
  model["builds"] = builds;
  std::vector<const json*> newestFirst;
  for (auto it = reports.rbegin(); it != reports.rend(); ++it) newestFirst.push_back(&it->report);
  model["labels"] = labelsByKey(newestFirst);
  model["reports"] = json::array({reportJsonForPage(reports.back(), options)});
  return page(configName(reports.back().report) + " - ptbench history", model);
}

nlohmann::json pageModel(std::string_view page) {
  const std::string_view open = "id=\"ptbench-data\" data-encoding=\"deflate base64\">";
  const size_t start = page.find(open);
  if (start == std::string_view::npos) throw UserError("not a ptbench page: no #ptbench-data element");
  const std::string_view encoded = page.substr(start + open.size(), page.find('<', start + open.size()) - start - open.size());
  std::string bytes;
  uint32_t chunk = 0;
  int bits = 0;
  for (char c : encoded) {
    const size_t value = base64Alphabet.find(c);
    if (value == std::string_view::npos) continue;  // '=' and line breaks
    chunk = (chunk << 6) | uint32_t(value);
    if ((bits += 6) >= 8) bytes += char((chunk >> (bits -= 8)) & 0xff);
  }
  z_stream stream{};
  if (inflateInit(&stream) != Z_OK) throw std::runtime_error("zlib could not start inflating");
  stream.next_in = reinterpret_cast<Bytef*>(bytes.data());
  stream.avail_in = uInt(bytes.size());
  std::string text;
  char buffer[1 << 16];
  int status = Z_OK;
  while (status == Z_OK) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof buffer;
    status = inflate(&stream, Z_NO_FLUSH);
    text.append(buffer, sizeof buffer - stream.avail_out);
  }
  inflateEnd(&stream);
  if (status != Z_STREAM_END) throw UserError("the page's #ptbench-data does not inflate");
  return json::parse(text);
}

}  // namespace ptbench
