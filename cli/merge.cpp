// `ptbench merge`: one report from the reports of a sweep's shards.
#include "core/experiment/merge.h"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/options.h"
#include "core/errors.h"
#include "core/experiment/atomic_file.h"
#include "core/experiment/html_report.h"
#include "core/experiment/report.h"
#include "core/experiment/summary.h"

namespace ptbench::cli {

namespace fs = std::filesystem;
using nlohmann::json;

void addMergeCommand(CLI::App& app, const GlobalOptions&) {
  auto* command =
      app.add_subcommand("merge", "Merge the reports of a sweep's shards (run --shard K/N) into one report");
  command->footer(
      "Exit 0: every run of the sweep is in the merged report; 1: runs are missing (in no shard) or interrupted, "
      "each named, or a mistake (other configs or builds, an --out folder that holds one of the reports); 65: a "
      "report that is no report or a malformed one, named with its field.");
  struct Options {
    std::vector<std::string> reports;
    std::string out;
  };
  auto options = std::make_shared<Options>();
  command->add_option("reports", options->reports, "the shards' report.json files")->required();
  command->add_option("--out", options->out, "the folder of the merged report.json, report.csv, config.json and images")
      ->required();
  command->callback([options] {
    const fs::path out = options->out;
    // The merged report.json, report.csv and images would replace those of an input in its own
    // folder, before the input is read in full: refuse it.
    for (const std::string& path : options->reports) {
      const fs::path folder = fs::path(path).parent_path().empty() ? fs::path(".") : fs::path(path).parent_path();
      std::error_code missing;  // out, or the input's folder, does not exist
      if (fs::equivalent(folder, out, missing) && !missing)
        throw UserError("--out " + out.string() + ": holds the input " + path +
                        ", which the merged report would replace; give a folder that holds none of the inputs, "
                        "such as one beside it");
    }
    // Merge replaces a folder's report and writes its images over any of the same names: another
    // command's results there would be lost. A folder that holds files is written only where an
    // earlier merge wrote them (its report.json merged from shards).
    std::error_code ignored;
    std::set<std::string> earlierImages;  // an earlier merge's, removed where this one has none of the name
    if (fs::is_directory(out, ignored) && !fs::is_empty(out, ignored)) {
      bool merged = false;
      try {
        const json previous = readCheckedReport((out / "report.json").string());
        merged = previous.contains("sweep") && previous["sweep"].is_object() &&
                 previous["sweep"].value("merged_from", json()).is_array();
        if (merged) earlierImages = reportImageNames(previous);
      } catch (const UserError&) {
        // no report there, or none merge wrote
      }
      if (!merged)
        throw UserError("--out " + out.string() +
                        ": holds files, and no report that merge wrote; merge writes into a new or empty folder, or "
                        "over an earlier merge's");
    }
    std::vector<ShardReport> shards;
    for (const std::string& path : options->reports)
      shards.push_back({readCheckedReport(path), fs::path(path).parent_path()});
    MergedReport merged;
    std::string summary;
    try {
      merged = mergeReports(shards);
      // Everything read from the runs' fields before anything is written: a field of the wrong
      // type (an option of a number where a name belongs) stops the merge before its folder
      // holds half a result.
      summary = reportSummary(merged.report, SummaryFormat::Table);
      static_cast<void>(reportCsv(merged.report));
    } catch (const json::exception& error) {  // a field checkReport does not know
      throw UserError(
          "a field of one of the reports is missing or of the wrong type (" + std::string(error.what()) + ")",
          exitReportMalformed);
    }
    // A shard's images are files its run wrote: a link (to a file anywhere) or anything but a
    // regular file (a FIFO would block the read) is refused before anything is written.
    for (const auto& [from, name] : merged.images)
      if (fs::symlink_status(from, ignored).type() != fs::file_type::regular)
        throw UserError(from.string() + ": not a regular file (a link, a folder, a FIFO, or missing); a shard's " +
                        "images are the files its run wrote beside its report");
    std::error_code error;
    fs::create_directories(out, error);
    if (error) throw UserError("--out " + out.string() + ": cannot create the folder: " + error.message());
    for (const auto& [from, name] : merged.images) {
      // Read whole and written as every file is (atomically), not copied over.
      std::ifstream in(from, std::ios::binary);
      const std::string image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (!in && !in.eof()) throw UserError("cannot read " + from.string() + " to copy it into " + out.string());
      writeFileAtomically(out / name, image);
      earlierImages.erase(name);
    }
    writeReportFiles(out, merged.report);
    writeReportPage(out, merged.report);
    // The earlier merge's images this report does not name would pass for its own.
    for (const std::string& name : earlierImages) fs::remove(out / name, ignored);
    for (const std::string& warning : merged.warnings) spdlog::warn("{}", warning);
    std::cout << summary;
    spdlog::info("merged {} report(s), {} run(s), into {}", shards.size(), merged.report["runs"].size(), out.string());
    if (merged.missingRuns > 0 || merged.interruptedRuns > 0) throw CLI::RuntimeError(1);
  });
}

}  // namespace ptbench::cli
