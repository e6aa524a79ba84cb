// Experiment configs: parsing and validation (every error in one pass); sweep.h expands them into runs.
// The format is documented in docs/config.md and configs/schema.json.
#pragma once
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/experiment/experiment_config.h"
#include "core/integrators/integrator.h"
#include "core/json_depth.h"

namespace ptbench {

// Exit codes of the sysexits convention, as docs/cli.md documents them.
constexpr int exitConfigInvalid = 65;  // EX_DATAERR: the config is wrong
constexpr int exitConfigMissing = 66;  // EX_NOINPUT: the config file cannot be read

// Parses JSON as configs and reports are read: a syntax error, a number no double holds, a key
// given twice in one object or nesting deeper than maxJsonDepth (named by its JSON pointer) is a
// UserError naming `source`, with `exitCode`.
nlohmann::json parseJsonRefusingDuplicateKeys(std::istream& in, const std::string& source, int exitCode);
nlohmann::json parseJsonRefusingDuplicateKeys(const std::string& text, const std::string& source, int exitCode);

// The keys a config may have at its top level (configs/schema.json lists the same).
const std::set<std::string>& configKeys();

// Reads and validates a config; --set overrides ("key=value", value as JSON or a bare
// string; dotted keys reach into objects) apply first. Throws UserError with every problem
// found, each naming the file and the JSON pointer.
ExperimentConfig loadConfig(const std::filesystem::path& file, const std::vector<std::string>& overrides = {});

// A camera path from a JSON file of its own (`reference --camera-path`, or a config's
// camera.path given as a file name): validated as a config's, every problem in one UserError.
CameraPathSpec readCameraPathFile(const std::filesystem::path& file);

// A config given as JSON (a report's resolved one, for run --resume); `file` is where its
// relative paths resolve from and what messages name.
ExperimentConfig configFromJson(nlohmann::json config, const std::filesystem::path& file);

}  // namespace ptbench
