// software: ptbench's own BVH (core/scene/bvh/), built on the CPU or the GPU and traversed in compute shaders
// (shaders/trace/trace_software.glsl); runs on any device that meets the baseline.
#include "core/trace/backend.h"
#include "core/vk/capabilities.h"
#include "core/vk/device_setup.h"

namespace ptbench::trace {
namespace {

constexpr BackendListing softwareListing = listing(Backend::Software);

constexpr BackendOption softwareOptions[] = {
    {.name = "software_bvh",
     .accepted = "cwbvh or bvh2",
     .description = "the BVH layout traversed: cwbvh, compressed 8-wide (Ylitie et al. 2017); bvh2, two-wide (Aila & "
                    "Laine 2009)",
     .parse =
         [](const nlohmann::json& value, TraceTarget& target) {
           const auto layout = value.is_string() ? parseBvhLayout(value.get<std::string>()) : std::nullopt;
           if (layout) target.softwareBvh = *layout;
           return layout.has_value();
         },
     .print = [](const TraceTarget& target) { return nlohmann::json(bvhLayoutName(target.softwareBvh)); }},
    {.name = "software_builder",
     .accepted = "cpu or gpu",
     .description = "where the BVH's binary tree is built: cpu, binned SAH on --threads threads (Wald 2007); gpu, a "
                    "linear BVH in compute shaders (Karras 2012) restructured by treelets (Karras & Aila 2013), collapsed there "
                    "too; both into the layout traversed",
     .parse =
         [](const nlohmann::json& value, TraceTarget& target) {
           const auto builder = value.is_string() ? parseBvhBuilder(value.get<std::string>()) : std::nullopt;
           if (builder) target.softwareBuilder = *builder;
           return builder.has_value();
         },
     // The CPU build is what software runs had before the option: their reports stay as they were.
     .print =
         [](const TraceTarget& target) {
           return target.softwareBuilder == BvhBuilder::Cpu ? nlohmann::json()
                                                            : nlohmann::json(bvhBuilderName(target.softwareBuilder));
         }},
};

}  // namespace

extern constinit const BackendDescriptor softwareBackend{
    .id = softwareListing.id,
    .name = softwareListing.name,
    .shaderDefine = softwareListing.shaderDefine,
    .rayGeneration = softwareListing.rayGeneration,
    .scene = SceneNeeds::SoftwareBvh,
    .supportedBy = [](const vk::DeviceCapabilities&) { return true; },
    .needs = "",
    .enable = [](vk::DeviceSetup&, const vk::DeviceCapabilities&) {},
    .options = softwareOptions,
};

}  // namespace ptbench::trace
