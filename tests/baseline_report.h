// The performance gate's committed baselines (results/baselines/<gpu>/report.json.gz), read as
// every ptbench command reads a report: gzipped or not.
#pragma once
#include <zlib.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace ptbench::test {

inline std::filesystem::path baselineReportPath(const std::string& gpu) {
  return std::filesystem::path(PTBENCH_SOURCE_DIR) / "results" / "baselines" / gpu / "report.json.gz";
}

inline nlohmann::json readGzippedJson(const std::filesystem::path& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (!file) throw std::runtime_error("cannot open " + path.string());
  std::string text;
  char buffer[1 << 16];
  for (int read; (read = gzread(file, buffer, sizeof buffer)) > 0;) text.append(buffer, size_t(read));
  gzclose(file);
  return nlohmann::json::parse(text);
}

}  // namespace ptbench::test
