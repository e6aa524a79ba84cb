// The HTML report: one page that opens offline from the results folder (its script, style sheet
// and chart library inside it, no network), of a report, a comparison or a history of builds.
// C++ decides every number the page shows (the verdict, compare's verdicts, the difference
// images and their relMSE) and puts them in the page as JSON beside the reports; the page's
// script (core/experiment/html/report.js) only lays them out and hands the charts to Chart.js.
#pragma once
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/experiment/compare.h"
#include "core/linear_image.h"

namespace ptbench {

// A report and where its report.json lies: its images are named relative to that folder.
struct HtmlSource {
  nlohmann::json report;
  std::filesystem::path path;
};

struct HtmlOptions {
  std::filesystem::path out;  // where the page will be written: images are linked relative to it
  bool embedImages = false;   // the run images inside the page (data: URIs), for a page that travels alone
};

// The page of one report (a run's, a merge's): device, the verdict, the why (stages, bounces,
// kernels), the images with their difference to the megakernel's, curves, config and parameters.
std::string reportPage(const HtmlSource& report, const HtmlOptions& options);
// `next`'s page with compare's verdict against `base` on top (`result`, what compareReports gave
// with `compare`): each run's ratio, interval and verdict.
std::string comparePage(const HtmlSource& base, const HtmlSource& next, const CompareResult& result,
                        const CompareOptions& compare, const HtmlOptions& options);
// Reports of one config from several builds, in date order: each run's time across the builds,
// each step judged by compare's rule against the build before it. A UserError when the reports'
// configs differ.
std::string historyPage(std::vector<HtmlSource> reports, const CompareOptions& compare, const HtmlOptions& options);

// `folder`/report.html of the report in `folder` (a run's, a merge's), written atomically.
void writeReportPage(const std::filesystem::path& folder, const nlohmann::json& report);

// The model a page carries in its #ptbench-data element (deflated, base64), as the page's script
// reads it; a UserError when `page` has none.
nlohmann::json pageModel(std::string_view page);

// The false-colour image of the per-pixel relative squared error of `image` against `reference`
// (log scale from 1e-4 to 1, viridis), as PNG bytes; the images must be of one size.
std::string differencePng(const LinearImage& image, const LinearImage& reference);

}  // namespace ptbench
