#include "core/integrators/registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <type_traits>

#include "core/integrators/megakernel.h"
#include "core/integrators/raycast.h"
#include "core/integrators/restir.h"
#include "core/integrators/wavefront.h"

namespace ptbench {
namespace {

using json = nlohmann::json;

// An option that is true or false: the field `field` of the settings' `group` of options; a
// summary's label says `onLabel` or `offLabel` ("" for the value that goes without saying).
template <typename Group>
IntegratorOption settingsSwitch(OptionInfo info, Group RenderSettings::*group, bool Group::*field, std::string onLabel,
                                std::string offLabel, bool fixedAtCreation) {
  return {.info = std::move(info),
          .fixedAtCreation = fixedAtCreation,
          .parse =
              [group, field](const json& value, RenderSettings& settings) {
                if (!value.is_boolean()) return false;
                (settings.*group).*field = value.get<bool>();
                return true;
              },
          .print = [group, field](const RenderSettings& settings) { return json((settings.*group).*field); },
          .label = [onLabel, offLabel](const json& value) { return value == true ? onLabel : offLabel; }};
}

// A wavefront option that is true or false, fixed at creation (it chooses kernels).
IntegratorOption wavefrontSwitch(OptionInfo info, bool WavefrontOptions::*field, std::string onLabel,
                                 std::string offLabel) {
  return settingsSwitch(std::move(info), &RenderSettings::wavefront, field, std::move(onLabel), std::move(offLabel),
                        true);
}

// Every path tracer's: whether the BSDF's rough lobes compensate multiple scattering. It is a
// specialisation constant of their kernels (SPEC_MS_COMPENSATION), so fixed at creation.
IntegratorOption msCompensationOption() {
  return {.info = {"ms_compensation", "true or false",
                   "rough metal and glass give back the light that single-scattering microfacets lose (Kulla and "
                   "Conty's energy compensation); false, single scattering"},
          .fixedAtCreation = true,
          .parse =
              [](const json& value, RenderSettings& settings) {
                if (!value.is_boolean()) return false;
                settings.msCompensation = value.get<bool>();
                return true;
              },
          .print = [](const RenderSettings& settings) { return json(settings.msCompensation); },
          .label = [](const json& value) { return value == true ? "" : "-ms"; }};
}

// restir: ReSTIR DI and GI at the primary vertex (DESIGN.md, "ReSTIR"), of the megakernel and the
// wavefront (its depth schedule); megakernel-regen (whose paths of one pixel follow each other in one launch, with no
// pass boundary for the reuse between them) and megakernel-ser do not declare it, so a config that gives it to them
// is refused as an unknown option.
IntegratorOption restirOption() {
  return {
      .info = {"restir", "off, di, gi or di+gi",
               "off: next-event estimation at every vertex; di: ReSTIR DI at the primary vertex (initial "
               "candidates, temporal and spatial reuse, unbiased); gi: ReSTIR GI at the primary vertex (the first "
               "indirect bounce's point and radiance, temporal and spatial reuse by reconnection, unbiased on rough "
               "surfaces); di+gi: both"},
      .fixedAtCreation = true,
      .parse =
          [](const json& value, RenderSettings& settings) {
            for (Restir choice : allRestir)
              if (value == restirName(choice)) {
                settings.restir = choice;
                return true;
              }
            return false;
          },
      .print = [](const RenderSettings& settings) { return json(restirName(settings.restir)); },
      .label = [](const json& value) { return value == "off" ? std::string() : "restir=" + value.get<std::string>(); }};
}

// A ReSTIR option that is a number from `least` to `most` (a whole number where `Number` is), or
// 0 as well where `zeroTurnsItOff`: the field `field` of the run's RestirOptions. It sizes a frame's work, so frames
// take it; a summary's label says `labelName=value` where it is not the default.
template <typename Number>
IntegratorOption restirNumber(OptionInfo info, Number RestirOptions::*field, double least, double most,
                              std::string labelName, bool zeroTurnsItOff = false) {
  constexpr bool whole = std::is_integral_v<Number>;
  const json fallback = json(RestirOptions{}.*field);
  return {
      .info = std::move(info),
      .parse =
          [field, least, most, zeroTurnsItOff](const json& value, RenderSettings& settings) {
            if (!value.is_number() || (whole && !value.is_number_integer())) return false;
            const double number = value.get<double>();
            if (!(number >= least && number <= most) && !(zeroTurnsItOff && number == 0)) return false;
            settings.restirOptions.*field = static_cast<Number>(number);
            return true;
          },
      .print = [field](const RenderSettings& settings) { return json(settings.restirOptions.*field); },
      .label = [labelName, fallback](
                   const json& value) { return value == fallback ? std::string() : labelName + "=" + value.dump(); }};
}

// A ReSTIR option that is true or false, which frames take (its uniforms); a summary's label
// says `labelName` where it is true.
IntegratorOption restirSwitch(OptionInfo info, bool RestirOptions::*field, std::string labelName) {
  return settingsSwitch(std::move(info), &RenderSettings::restirOptions, field, std::move(labelName), "", false);
}

// The ReSTIR options besides restir itself, the megakernel's and the wavefront's alike.
std::vector<IntegratorOption> restirTuningOptions() {
  return {
      restirNumber({"restir_candidates", fmt::format("an integer from 1 to {}", gpu::RESTIR_MAX_CANDIDATES),
                    "ReSTIR DI's light samples resampled into a pixel's initial reservoir"},
                   &RestirOptions::candidates, 1, gpu::RESTIR_MAX_CANDIDATES, "candidates"),
      restirNumber({"restir_neighbours", fmt::format("an integer from 0 to {}", gpu::RESTIR_MAX_NEIGHBOURS),
                    "spatial reuse's neighbours, each within 30 pixels (pairwise MIS: 2 x neighbours visibility "
                    "rays a pixel for DI, as many for GI)"},
                   &RestirOptions::neighbours, 0, gpu::RESTIR_MAX_NEIGHBOURS, "neighbours"),
      restirNumber({"restir_history_cap", "a number from 0 to 1000",
                    "temporal reuse counts the history as at most this many times the pixel's own samples (0: no "
                    "temporal reuse); lower forgets faster, with more noise"},
                   &RestirOptions::historyCap, 0, 1000, "history"),
      restirNumber({"restir_gi_jacobian", "0, or a number from 1 to 1000",
                    "biased: GI reuse rejects a sample whose reconnection Jacobian lies outside [1/limit, limit] "
                    "(RTXDI's 10); 0, the default, rejects none (unbiased)"},
                   &RestirOptions::giJacobianLimit, 1, 1000, "gi_jacobian", true),
      restirSwitch({"restir_bsdf_candidate", "true or false",
                    "ReSTIR DI resamples the primary vertex's BSDF sample beside its light samples (balance heuristic) "
                    "and estimates all of the direct light; false, the default, light samples only, MIS-weighted "
                    "against the path's BSDF sample"},
                   &RestirOptions::bsdfCandidate, "bsdf_candidate"),
  };
}

// The megakernel's and the wavefront's ReSTIR options: restir and its tuning.
std::vector<IntegratorOption> restirOptions() {
  std::vector<IntegratorOption> options = {restirOption()};
  for (IntegratorOption& option : restirTuningOptions()) options.push_back(std::move(option));
  return options;
}

std::vector<IntegratorOption> wavefrontOptions() {
  IntegratorOption schedule{
      .info = {"schedule", "depth or pool",
               "depth: the paths of a pass advance one bounce per iteration; pool: a persistent pool refilled as paths "
               "end"},
      .parse =
          [](const json& value, RenderSettings& settings) {
            if (value != "depth" && value != "pool") return false;
            settings.wavefront.schedule = value == "pool" ? WavefrontSchedule::Pool : WavefrontSchedule::Depth;
            return true;
          },
      .print =
          [](const RenderSettings& settings) {
            return json(settings.wavefront.schedule == WavefrontSchedule::Pool ? "pool" : "depth");
          },
      .label = [](const json& value) { return value.get<std::string>(); }};
  IntegratorOption compaction = wavefrontSwitch(
      {"compaction", "true or false", "launch each stage over its queue (true) or over the whole pool (false)"},
      &WavefrontOptions::compaction, "", "-compact");
  IntegratorOption materialQueues =
      wavefrontSwitch({"material_queues", "true or false", "one shade kernel and queue per material class"},
                      &WavefrontOptions::materialQueues, "+matq", "");
  IntegratorOption shadowOverlap = wavefrontSwitch(
      {"shadow_overlap", "true or false",
       "a bounce's shadow rays trace beside the next bounce's extension rays (depth) or generate (pool), no barrier "
       "between them (with compaction and timing frame); false, one stage after another"},
      &WavefrontOptions::shadowOverlap, "", "-overlap");
  shadowOverlap.fixedAtCreation = false;  // it orders launches, it chooses no kernel
  IntegratorOption poolSize{
      .info = {"pool_size", fmt::format("an integer from 1 to {}, or 0 for the default", maxPoolSize),
               "paths in flight (0, the default: chosen from the device, the memory budget and the frame; reports say "
               "why)"},
      .parse =
          [](const json& value, RenderSettings& settings) {
            if (!value.is_number_unsigned() || value.get<uint64_t>() > maxPoolSize) return false;
            settings.wavefront.poolSize = value.get<uint32_t>();
            return true;
          },
      .print = [](const RenderSettings& settings) { return json(settings.wavefront.poolSize); },
      // Runs that differ in pool size only must not share a label (summaries group by it).
      .label =
          [](const json& value) {
            const double pool = value.get<double>();
            return pool >= 1e6   ? fmt::format("{:.3g}M", pool * 1e-6)
                   : pool >= 1e3 ? fmt::format("{:.3g}k", pool * 1e-3)
                                 : fmt::format("{:g}", pool);
          }};
  std::vector<IntegratorOption> options = {schedule,       poolSize,      compaction,
                                           materialQueues, shadowOverlap, msCompensationOption()};
  for (IntegratorOption& option : restirOptions()) options.push_back(std::move(option));
  return options;
}

std::vector<IntegratorOption> serOptions() {
  IntegratorOption hint{
      .info = {"hint", "none or material",
               "the coherence hint of each reorder: none, the hit object alone (hit or miss); material, also the hit's "
               "material class (3 bits)"},
      .fixedAtCreation = true,
      .parse =
          [](const json& value, RenderSettings& settings) {
            if (value != "none" && value != "material") return false;
            settings.ser.hint = value == "material" ? SerHint::Material : SerHint::None;
            return true;
          },
      .print =
          [](const RenderSettings& settings) {
            return json(settings.ser.hint == SerHint::Material ? "material" : "none");
          },
      .label = [](const json& value) { return "hint=" + value.get<std::string>(); }};
  IntegratorOption reorderFrom{
      .info = {"reorder_from", "an integer from 1 to 1024",
               "the first bounce whose hits are reordered: 1, the camera rays' too; 2, from the first indirect ray on"},
      .fixedAtCreation = true,
      .parse =
          [](const json& value, RenderSettings& settings) {
            if (!value.is_number_unsigned() || value.get<uint64_t>() < 1 || value.get<uint64_t>() > 1024) return false;
            settings.ser.reorderFrom = value.get<uint32_t>();
            return true;
          },
      .print = [](const RenderSettings& settings) { return json(settings.ser.reorderFrom); },
      .label = [](const json& value) { return "from=" + value.dump(); }};
  return {hint, reorderFrom, msCompensationOption()};
}

std::vector<IntegratorOption> raycastOptions() {
  IntegratorOption rays{
      .info = {"rays", "primary, diffuse or shadow",
               "the rays the trace stage measures: camera rays (closest hit), cosine-distributed rays from their hits "
               "(closest hit) or rays from their hits to light samples (any hit)"},
      .parse =
          [](const json& value, RenderSettings& settings) {
            for (RaycastRays choice : {RaycastRays::Primary, RaycastRays::Diffuse, RaycastRays::Shadow})
              if (value == raycastRaysName(choice)) {
                settings.raycast.rays = choice;
                return true;
              }
            return false;
          },
      .print = [](const RenderSettings& settings) { return json(raycastRaysName(settings.raycast.rays)); },
      .label = [](const json& value) { return value.get<std::string>(); }};
  return {rays};
}

std::vector<IntegratorOption> megakernelOptions() {
  std::vector<IntegratorOption> options = {msCompensationOption()};
  for (IntegratorOption& option : restirOptions()) options.push_back(std::move(option));
  return options;
}

IntegratorFactory megakernel(IntegratorKind kind) {
  return [kind](const vk::Context& context, const GpuScene& scene, TraceTarget target, const RenderSettings& settings) {
    return std::make_unique<MegakernelIntegrator>(context, scene, target, kind, settings);
  };
}

const std::vector<IntegratorEntry>& registry() {
  static const std::vector<IntegratorEntry> entries = {
      {IntegratorKind::Megakernel, megakernelOptions(), megakernel(IntegratorKind::Megakernel)},
      {IntegratorKind::MegakernelRegen, {msCompensationOption()}, megakernel(IntegratorKind::MegakernelRegen)},
      {IntegratorKind::MegakernelSer, serOptions(), megakernel(IntegratorKind::MegakernelSer)},
      {IntegratorKind::Wavefront, wavefrontOptions(),
       [](const vk::Context& context, const GpuScene& scene, TraceTarget target, const RenderSettings& settings) {
         return std::make_unique<WavefrontIntegrator>(context, scene, target, settings);
       }},
      {IntegratorKind::Raycast, raycastOptions(),
       [](const vk::Context& context, const GpuScene& scene, TraceTarget target, const RenderSettings&) {
         return std::make_unique<RaycastIntegrator>(context, scene, target);
       }},
  };
  return entries;
}

}  // namespace

const IntegratorEntry& integratorEntry(IntegratorKind kind) {
  for (const IntegratorEntry& entry : registry())
    if (entry.kind == kind) return entry;
  throw std::logic_error("integrator " + std::string(integratorName(kind)) + " has no registry entry");
}

std::string applyOption(IntegratorKind kind, const std::string& key, const json& value, RenderSettings& settings) {
  const auto& known = integratorEntry(kind).options;
  const auto option =
      std::find_if(known.begin(), known.end(), [&](const IntegratorOption& o) { return o.info.name == key; });
  if (option == known.end()) {
    if (known.empty()) return std::string(integratorName(kind)) + " has no options";
    std::string names;
    for (const auto& other : known) names += (names.empty() ? "" : ", ") + other.info.name;
    return "unknown option of " + std::string(integratorName(kind)) + "; it has " + names;
  }
  return option->parse(value, settings) ? "" : "expected " + option->info.accepted;
}

json optionsJson(IntegratorKind kind, const RenderSettings& settings) {
  json options = json::object();
  for (const IntegratorOption& option : integratorEntry(kind).options)
    options[option.info.name] = option.print(settings);
  return options;
}

json optionsOffDefault(IntegratorKind kind, const json& options) {
  json offDefault = options;
  const RenderSettings defaults;
  for (const IntegratorOption& option : integratorEntry(kind).options)
    if (offDefault.contains(option.info.name) && offDefault[option.info.name] == option.print(defaults))
      offDefault.erase(option.info.name);
  return offDefault;
}

std::string optionsLabel(IntegratorKind kind, const json& options) {
  std::string label;
  for (const IntegratorOption& option : integratorEntry(kind).options)
    if (options.contains(option.info.name))
      if (const std::string words = option.label(options[option.info.name]); !words.empty()) label += " " + words;
  return label;
}

}  // namespace ptbench
