// One entry per integrator: its options (how each is parsed, written into reports, labelled in
// summaries, and whether it is fixed when the integrator is created) and how it is created.
// Adding an option to an integrator is one edit in its entry (registry.cpp); the config reader,
// `render --option`, `--help`, reports and summaries read the entry.
#pragma once
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/integrators/integrator.h"
#include "core/integrators/options.h"
#include "core/scene/gpu_scene.h"

namespace ptbench {

struct IntegratorOption {
  OptionInfo info;
  // Fixed when the integrator is created (it chooses kernels or their specialisation): the
  // integrator keeps its own and frames do not change it. The others each frame takes.
  bool fixedAtCreation = false;
  // Sets the option in `settings` from a JSON value; false when the value is not one `accepted` allows.
  std::function<bool(const nlohmann::json& value, RenderSettings& settings)> parse;
  // The option's value in `settings`, as reports hold it.
  std::function<nlohmann::json(const RenderSettings& settings)> print;
  // The option's words in a summary's label, from its value in a report: empty where it goes
  // without saying (the default of an on/off option).
  std::function<std::string(const nlohmann::json& value)> label;
};

using IntegratorFactory =
    std::function<std::unique_ptr<Integrator>(const vk::Context&, const GpuScene&, TraceTarget, const RenderSettings&)>;

struct IntegratorEntry {
  IntegratorKind kind;
  // In the order `--help`, messages and a summary's label list them.
  std::vector<IntegratorOption> options;
  IntegratorFactory create;
};

// The entry of `kind`; every IntegratorKind has one.
const IntegratorEntry& integratorEntry(IntegratorKind kind);

// Sets option `key` of `kind` in `settings` from a JSON value. Returns an empty string, or
// what is wrong in one sentence ("expected depth or pool").
std::string applyOption(IntegratorKind kind, const std::string& key, const nlohmann::json& value,
                        RenderSettings& settings);

// The options a run used, defaults resolved, for reports: {} for integrators without options.
nlohmann::json optionsJson(IntegratorKind kind, const RenderSettings& settings);

// `options` (a report's) without those at their integrator's defaults: what makes a run distinct
// from the default run of its integrator, so that an option added later leaves old reports'
// runs matching today's.
nlohmann::json optionsOffDefault(IntegratorKind kind, const nlohmann::json& options);

// The words a summary adds to the integrator's name for `options` (a report's): " pool -compact 1.05M".
std::string optionsLabel(IntegratorKind kind, const nlohmann::json& options);

}  // namespace ptbench
