// A kernel stage: a compute pipeline, or, where it traces rays through the `pipeline`
// backend, a ray-tracing pipeline whose ray-generation shader is the kernel. Both take the
// same push constants and the same launches (direct over a grid or a count, or indirect from
// a record a GPU kernel wrote), so integrators never see the difference.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/stage.h"
#include "core/vk/buffer.h"
#include "core/vk/pipeline.h"
#include "core/vk/pipeline_statistics.h"
#include "shared/restir.h"
#include "shared/scene.h"

namespace ptbench {

struct KernelDesc {
  std::string shader;  // embedded shader name; a tracing kernel's gets "_<backend>"
  // A tracing kernel on the software backend also gets SPEC_SOFTWARE_BVH (shared/bvh.h).
  bool traces = false;  // compiled per backend; a ray-generation shader on `pipeline`
  bool tiled = false;   // 2-D launches in MEGAKERNEL_TILE squares; else 1-D in WORKGROUP_SIZE_1D
  uint32_t pushBytes = 0;
  std::vector<uint32_t> specialization;  // values of constant_id 0, 1, ...
  // SPEC_SHADED_CLASS_LIMIT: the highest material class of the scene (GpuScene).
  uint32_t shadedClassLimit = gpu::MATERIAL_CLASS_COUNT;
  // SPEC_MS_COMPENSATION: the rough lobes' multiple-scattering compensation (ms_compensation).
  bool msCompensation = true;
  // SPEC_RESTIR (shared/restir.h), for the path tracers' kernels; ignored by kernels without it.
  uint32_t restir = gpu::RESTIR_OFF;
  bool singleInvocation = false;  // a workgroup of one (prepare kernels): for its occupancy
};

// `desc` for a kernel whose shader declares local_size_x = 1.
inline KernelDesc singleInvocation(KernelDesc desc) {
  desc.singleInvocation = true;
  return desc;
}

// What a run reports of one of its kernels: the stage it runs in, its pipeline's creation time,
// the driver's statistics of it and the occupancy they allow (null with a reason where the
// device does not say).
struct KernelStatistics {
  Stage stage = Stage::TraceShade;
  std::string shader;  // the embedded shader, with its backend suffix where it traces
  double createMs = 0;
  std::vector<vk::PipelineExecutable> executables;
  vk::OccupancyResult occupancy;
};

// Their total creation time: an integrator's pipelineCreateMs.
double pipelineCreateMs(const std::vector<KernelStatistics>& kernels);

// The shader binding table of a ray-generation shader with ptbench's miss and hit groups
// (shared/raytracing.h), in device-local memory so that no launch reads it over the bus.
struct ShaderBindingTable {
  vk::Buffer buffer;
  VkStridedDeviceAddressRegionKHR raygen{}, miss{}, hit{}, callable{};
};

class GpuScene;

class Kernel {
 public:
  // Reuses the pipeline an earlier kernel of the same shader, backend and constants made on this
  // context for a scene of the same descriptor-set layout (then its createMs is this one's
  // lookup, near 0), else creates it.
  Kernel(const vk::Context& context, KernelDesc desc, TraceTarget target, const GpuScene& scene);

  // One invocation per pixel of a width x height grid (tiled kernels).
  void launch(VkCommandBuffer commands, VkDescriptorSet sceneSet, const void* push, uint32_t width,
              uint32_t height) const;
  // `count` invocations of a 1-D kernel, folded into two dimensions where one would exceed the
  // guaranteed 65535 workgroups.
  void launch(VkCommandBuffer commands, VkDescriptorSet sceneSet, const void* push, uint32_t count) const;
  // A launch whose size a kernel wrote into the gpu::LaunchRecord at `recordOffset` in `records`:
  // its dispatch command (compute) or its trace-rays command (ray generation).
  void launchIndirect(VkCommandBuffer commands, VkDescriptorSet sceneSet, const void* push, const vk::Buffer& records,
                      VkDeviceSize recordOffset) const;

  // The pipeline stage a barrier names for this kernel's memory accesses.
  VkPipelineStageFlags2 pipelineStage() const;
  bool isRayGeneration() const { return rayGeneration_; }
  KernelStatistics statistics(Stage stage) const;

 private:
  // What creating the pipeline made, shared by the kernels that reuse it.
  struct Compiled {
    vk::PipelineLayout layout;
    vk::PipelineHandle pipeline;
    ShaderBindingTable bindingTable;  // ray generation only
    std::vector<vk::PipelineExecutable> executables;
  };
  static Compiled compile(const vk::Context& context, const std::string& shader, bool rayGeneration, uint32_t pushBytes,
                          VkDescriptorSetLayout sceneLayout, const VkSpecializationInfo* specialization);
  void bind(VkCommandBuffer commands, VkDescriptorSet sceneSet, const void* push) const;

  KernelDesc desc_;
  std::string shaderName_;  // desc_.shader with its backend suffix
  uint32_t traceRowWidth_;  // DeviceCapabilities::traceRowWidth
  bool rayGeneration_ = false;
  std::shared_ptr<const Compiled> compiled_;
  double createMs_ = 0;
  vk::OccupancyResult occupancy_;
};

}  // namespace ptbench
