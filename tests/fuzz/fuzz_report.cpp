// Any bytes as a report.json: once checkReport accepts them, every reader of a report (the
// summary in each format, compare against itself, the CSV, the HTML page) must take them or
// refuse them with a UserError, as summary, merge, compare and report do. Anything else (a
// crash, a sanitizer report, another exception) is a finding.
#include <cstdint>
#include <string>

#include "core/errors.h"
#include "core/experiment/compare.h"
#include "core/experiment/config.h"
#include "core/experiment/html_report.h"
#include "core/experiment/report.h"
#include "core/experiment/summary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const nlohmann::json report = ptbench::parseJsonRefusingDuplicateKeys(text, "fuzz.json", 65);
    if (!report.is_object() || !report.contains("runs") || !report["runs"].is_array()) return 0;
    ptbench::checkReport(report, "fuzz.json");
    for (auto format : {ptbench::SummaryFormat::Table, ptbench::SummaryFormat::Markdown, ptbench::SummaryFormat::Csv})
      (void)ptbench::reportSummary(report, format);
    (void)ptbench::compareReports(report, report, ptbench::CompareOptions{});
    (void)ptbench::reportCsv(report);
    (void)ptbench::reportPage({report, "/dev/shm/ptbench-fuzz-report/report.json"},
                              {.out = "/dev/shm/ptbench-fuzz-report/page.html"});
  } catch (const ptbench::UserError&) {
  }
  return 0;
}
