// pipeline: GL_EXT_ray_tracing; each tracing kernel is the ray-generation shader of a pipeline
// whose traversal is the driver's (the only hardware backend on the H100 and H200).
#include "core/trace/backend.h"
#include "core/vk/capabilities.h"
#include "core/vk/device_setup.h"

namespace ptbench::trace {
namespace {

constexpr BackendListing pipelineListing = listing(Backend::Pipeline);

}  // namespace

extern constinit const BackendDescriptor pipelineBackend{
    .id = pipelineListing.id,
    .name = pipelineListing.name,
    .shaderDefine = pipelineListing.shaderDefine,
    .rayGeneration = pipelineListing.rayGeneration,
    .scene = SceneNeeds::AccelerationStructures,
    .supportedBy = [](const vk::DeviceCapabilities& device) { return device.rayTracingPipeline; },
    .needs = "ray-tracing pipelines (VK_KHR_ray_tracing_pipeline with VK_KHR_acceleration_structure)",
    .enable =
        [](vk::DeviceSetup& setup, const vk::DeviceCapabilities& device) {
          enableAccelerationStructures(setup);
          setup.enableExtension(VK_KHR_RAY_TRACING_PIPELINE_EXTENSION_NAME);
          setup.features.rayTracingPipeline.rayTracingPipeline = VK_TRUE;
          setup.features.rayTracingPipeline.rayTracingPipelineTraceRaysIndirect = device.rayTracingIndirect;
          // For megakernel-ser. Enabling it changes nothing for the kernels that do not use it.
          if (device.invocationReorderNv) {
            setup.enableExtension(VK_NV_RAY_TRACING_INVOCATION_REORDER_EXTENSION_NAME);
            setup.features.invocationReorder.rayTracingInvocationReorder = VK_TRUE;
          }
        },
};

}  // namespace ptbench::trace
