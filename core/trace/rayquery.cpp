// rayquery: GL_EXT_ray_query inline in compute shaders, through the scene's acceleration structures.
#include "core/trace/backend.h"
#include "core/vk/capabilities.h"
#include "core/vk/device_setup.h"

namespace ptbench::trace {
namespace {

constexpr BackendListing rayQueryListing = listing(Backend::RayQuery);

}  // namespace

extern constinit const BackendDescriptor rayqueryBackend{
    .id = rayQueryListing.id,
    .name = rayQueryListing.name,
    .shaderDefine = rayQueryListing.shaderDefine,
    .rayGeneration = rayQueryListing.rayGeneration,
    .scene = SceneNeeds::AccelerationStructures,
    .supportedBy = [](const vk::DeviceCapabilities& device) { return device.rayQuery; },
    .needs = "ray queries (VK_KHR_ray_query with VK_KHR_acceleration_structure)",
    .enable =
        [](vk::DeviceSetup& setup, const vk::DeviceCapabilities&) {
          enableAccelerationStructures(setup);
          setup.enableExtension(VK_KHR_RAY_QUERY_EXTENSION_NAME);
          setup.features.rayQuery.rayQuery = VK_TRUE;
        },
};

}  // namespace ptbench::trace
