// `ptbench report`: the HTML page of saved reports: one report's, one against a baseline, or a
// history of one config across builds.
#include "core/experiment/report.h"

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/options.h"
#include "core/errors.h"
#include "core/experiment/atomic_file.h"
#include "core/experiment/html_report.h"

namespace ptbench::cli {

namespace fs = std::filesystem;
using nlohmann::json;

void addReportCommand(CLI::App& app, const GlobalOptions&) {
  auto* command = app.add_subcommand(
      "report", "An HTML page of saved reports: one report, one against --baseline, or a history of several");
  command->footer(
      "One REPORT.json: its page (as `run` writes beside it). With --baseline: the page of REPORT.json with "
      "compare's verdict against BASE.json on top. Several reports of one config (from different builds): a history, "
      "each run's time across the builds in date order, each step judged by compare's rule. Images are linked "
      "relative to the page (--embed-images puts them inside). The page opens offline: no network. Exit 1: a report "
      "cannot be read, reports of different configs for a history, or the page cannot be written; 65: a file is no "
      "report or a malformed one, named with its field.");
  struct Options {
    std::vector<std::string> reports;
    std::string baseline, out, threshold = "3%";
    bool embedImages = false;
  };
  auto options = std::make_shared<Options>();
  command->add_option("reports", options->reports, "report.json files that `ptbench run` or `merge` wrote")->required();
  command->add_option("--baseline", options->baseline, "a base report.json to compare the one report against");
  command->add_option("--out", options->out, "the page to write (FILE.html)")->required();
  command
      ->add_option("--threshold", options->threshold,
                   "slowdown that counts as a regression, as `compare` takes it (--baseline and histories)")
      ->capture_default_str();
  command->add_flag("--embed-images", options->embedImages,
                    "put the run images inside the page, for a page that travels alone (larger)");
  command->callback([options] {
    if (!options->baseline.empty() && options->reports.size() != 1)
      throw UserError("--baseline compares one report against it; a history takes several reports without it");
    const fs::path out = options->out;
    std::vector<std::string> inputs = options->reports;
    if (!options->baseline.empty()) inputs.push_back(options->baseline);
    requireNotAnInput(out, inputs, "--out");
    requireOutputFolder(out, "--out");
    CompareOptions compare;
    compare.threshold = parseThreshold(options->threshold);
    std::vector<HtmlSource> sources;
    for (const std::string& path : options->reports) sources.push_back({readCheckedReport(path), path});
    const HtmlOptions html{.out = out, .embedImages = options->embedImages};
    std::string page;
    try {
      if (!options->baseline.empty()) {
        const HtmlSource base{readCheckedReport(options->baseline), options->baseline};
        page = comparePage(base, sources[0], compareReports(base.report, sources[0].report, compare), compare, html);
      } else if (sources.size() == 1)
        page = reportPage(sources[0], html);
      else
        page = historyPage(sources, compare, html);
    } catch (const json::exception& error) {  // a field checkReport does not know
      throw UserError("a field of a report is missing or of the wrong type (" + std::string(error.what()) + ")",
                      exitReportMalformed);
    }
    writeFileAtomically(out, page);
    std::cout << "report: wrote " << out.string() << "\n";
  });
}

}  // namespace ptbench::cli
