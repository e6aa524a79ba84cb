// `ptbench summary`: the summary table of a saved report.
#include "core/experiment/summary.h"

#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/options.h"
#include "core/errors.h"
#include "core/experiment/report.h"

namespace ptbench::cli {

using nlohmann::json;

void addSummaryCommand(CLI::App& app, const GlobalOptions&) {
  auto* command = app.add_subcommand("summary", "The summary table of a saved report, as text, Markdown or CSV");
  command->footer("Exit 1: the report cannot be read; 65: it is no report or a malformed one, named with its field.");
  auto report = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("table");
  command->add_option("report", *report, "a report.json that `ptbench run` wrote")->required();
  command->add_option("--format", *format, "table (as `run` prints it), md (Markdown) or csv")
      ->capture_default_str()
      ->check(CLI::IsMember({"table", "md", "csv"}));
  command->callback([report, format] {
    const json parsed = readCheckedReport(*report);
    try {
      std::cout << reportSummary(parsed, *parseSummaryFormat(*format));
    } catch (const json::exception& error) {  // a field checkReport does not know
      throw UserError(*report + ": a field is missing or of the wrong type (" + error.what() + ")",
                      exitReportMalformed);
    }
  });
}

}  // namespace ptbench::cli
