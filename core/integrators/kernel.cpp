#include "core/integrators/kernel.h"

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <vector>

#include "core/elapsed.h"
#include "core/scene/gpu_scene.h"
#include "core/trace/registry.h"
#include "core/vk/barrier.h"
#include "shared/bvh.h"
#include "shared/raytracing.h"
#include "shared/render.h"

namespace ptbench {
namespace {

uint32_t divideRoundingUp(uint32_t value, uint32_t divisor) {
  return (value + divisor - 1) / divisor;
}

// Only 65535 workgroups in X are guaranteed: larger 1-D launches fold into rows. The
// kernels read their index through kernelIndex() (shaders/common/launch.glsl) and check it.
constexpr uint32_t maxGroupsX = 65535;

// The kernel's own constants (ids 0, 1, ...), the scene's material-class limit, whether the
// BSDF compensates multiple scattering, ReSTIR and, on the software backend, the BVH layout.
struct Specialization {
  std::vector<uint32_t> values;
  std::vector<VkSpecializationMapEntry> entries;
  VkSpecializationInfo info{};

  Specialization(const std::vector<uint32_t>& kernelValues, uint32_t shadedClassLimit, bool msCompensation,
                 uint32_t restir, std::optional<BvhLayout> softwareBvh)
      : values(kernelValues) {
    for (uint32_t id = 0; id < values.size(); ++id) entries.push_back(entry(id, id));
    entries.push_back(entry(gpu::SPEC_SHADED_CLASS_LIMIT, uint32_t(values.size())));
    values.push_back(shadedClassLimit);
    entries.push_back(entry(gpu::SPEC_MS_COMPENSATION, uint32_t(values.size())));
    values.push_back(msCompensation ? 1u : 0u);
    entries.push_back(entry(gpu::SPEC_RESTIR, uint32_t(values.size())));
    values.push_back(restir);
    if (softwareBvh) {
      entries.push_back(entry(gpu::SPEC_SOFTWARE_BVH, uint32_t(values.size())));
      values.push_back(*softwareBvh == BvhLayout::Bvh2 ? gpu::SOFTWARE_BVH_BVH2 : gpu::SOFTWARE_BVH_CWBVH);
    }
    info = {.mapEntryCount = uint32_t(entries.size()),
            .pMapEntries = entries.data(),
            .dataSize = values.size() * sizeof(uint32_t),
            .pData = values.data()};
  }
  static VkSpecializationMapEntry entry(uint32_t id, uint32_t slot) {
    return {.constantID = id, .offset = slot * uint32_t(sizeof(uint32_t)), .size = sizeof(uint32_t)};
  }
  const VkSpecializationInfo* get() const { return entries.empty() ? nullptr : &info; }
};

ShaderBindingTable createShaderBindingTable(const vk::Context& context, VkPipeline pipeline, uint32_t groupCount) {
  // Each region starts at the base alignment; records are handles padded to the handle
  // alignment (no shader records of our own). Groups: raygen, miss (closest), miss (shadow), the
  // hit groups in HIT_GROUP_* order.
  const auto& properties = context.capabilities().rayTracingProperties;
  const uint32_t handleSize = properties.shaderGroupHandleSize;
  const VkDeviceSize recordStride = vk::alignUp(handleSize, properties.shaderGroupHandleAlignment);
  const VkDeviceSize base = properties.shaderGroupBaseAlignment;
  const VkDeviceSize raygenOffset = 0;
  const VkDeviceSize missOffset = vk::alignUp(raygenOffset + recordStride, base);
  const VkDeviceSize hitOffset = vk::alignUp(missOffset + 2 * recordStride, base);
  const VkDeviceSize tableBytes = hitOffset + gpu::HIT_GROUP_COUNT * recordStride;

  std::vector<uint8_t> handles(size_t(groupCount) * handleSize);
  VK_CHECK(
      vkGetRayTracingShaderGroupHandlesKHR(context.device(), pipeline, 0, groupCount, handles.size(), handles.data()));
  std::vector<uint8_t> table(tableBytes, 0);
  std::memcpy(&table[raygenOffset], &handles[0 * handleSize], handleSize);
  std::memcpy(&table[missOffset], &handles[1 * handleSize], handleSize);
  std::memcpy(&table[missOffset + recordStride], &handles[2 * handleSize], handleSize);
  for (uint32_t group = 0; group < gpu::HIT_GROUP_COUNT; ++group)
    std::memcpy(&table[hitOffset + group * recordStride], &handles[(3 + group) * handleSize], handleSize);

  // Device-local, with slack to align within: the base alignment applies to device addresses.
  ShaderBindingTable result;
  result.buffer = vk::Buffer(context, tableBytes + base,
                             VK_BUFFER_USAGE_SHADER_BINDING_TABLE_BIT_KHR | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                             vk::MemoryUse::DeviceOnly);
  const VkDeviceAddress tableAddress = vk::alignUp(result.buffer.address(), base);
  vk::Buffer staging(context, tableBytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, vk::MemoryUse::Upload);
  std::memcpy(staging.mapped(), table.data(), table.size());
  context.submitAndWait([&](VkCommandBuffer commands) {
    const VkBufferCopy region{.dstOffset = tableAddress - result.buffer.address(), .size = tableBytes};
    vkCmdCopyBuffer(commands, staging.get(), result.buffer.get(), 1, &region);
  });
  result.raygen = {tableAddress + raygenOffset, recordStride, recordStride};
  result.miss = {tableAddress + missOffset, recordStride, 2 * recordStride};
  result.hit = {tableAddress + hitOffset, recordStride, gpu::HIT_GROUP_COUNT * recordStride};
  return result;
}

}  // namespace

Kernel::Kernel(const vk::Context& context, KernelDesc desc, TraceTarget target, const GpuScene& scene)
    : desc_(std::move(desc)), traceRowWidth_(context.capabilities().traceRowWidth) {
  const auto start = std::chrono::steady_clock::now();
  std::string shader = desc_.shader;
  std::optional<BvhLayout> softwareBvh;
  if (desc_.traces) {
    const Backend backend = target.backend;
    if (!context.backendEnabled(backend))
      throw std::logic_error("kernel " + shader + " for backend " + std::string(backendName(backend)) +
                             " on a context created without it");
    const trace::BackendDescriptor& traced = trace::descriptor(backend);
    shader += "_" + std::string(traced.name);
    rayGeneration_ = traced.rayGeneration;
    if (traced.scene == trace::SceneNeeds::SoftwareBvh) softwareBvh = target.softwareBvh;
  }
  const Specialization specialization(desc_.specialization, desc_.shadedClassLimit, desc_.msCompensation, desc_.restir,
                                      softwareBvh);
  // Everything compile() reads.
  std::string key =
      fmt::format("{} push {} scene set {}constants", shader, desc_.pushBytes, scene.descriptorSetLayoutKey());
  for (const VkSpecializationMapEntry& entry : specialization.entries)
    fmt::format_to(std::back_inserter(key), " {}={}", entry.constantID, specialization.values[entry.offset / 4]);
  vk::ReusablePipelines& reusable = context.reusablePipelines();
  compiled_ = std::static_pointer_cast<const Compiled>(reusable.find(key));
  if (!compiled_) {
    compiled_ = std::make_shared<const Compiled>(
        compile(context, shader, rayGeneration_, desc_.pushBytes, scene.descriptorSetLayout(), specialization.get()));
    reusable.keep(key, compiled_);
  }
  createMs_ = millisecondsSince(start);
  shaderName_ = shader;
  // A ray-generation launch's threads are scheduled per warp; a compute kernel's per workgroup.
  const uint32_t threadsPerWorkgroup = rayGeneration_ || desc_.singleInvocation ? 1
                                       : desc_.tiled ? gpu::MEGAKERNEL_TILE * gpu::MEGAKERNEL_TILE
                                                     : gpu::WORKGROUP_SIZE_1D;
  occupancy_ = vk::occupancy(context.capabilities(), compiled_->executables, threadsPerWorkgroup);
}

Kernel::Compiled Kernel::compile(const vk::Context& context, const std::string& shader, bool rayGeneration,
                                 uint32_t pushBytes, VkDescriptorSetLayout sceneLayout,
                                 const VkSpecializationInfo* specialization) {
  Compiled compiled;
  if (!rayGeneration) {
    auto pipeline = vk::createComputePipeline(context, shader, pushBytes, std::span(&sceneLayout, 1), specialization);
    compiled.layout = std::move(pipeline.layout);
    compiled.pipeline = std::move(pipeline.pipeline);
  } else {
    compiled.layout = vk::createPipelineLayout(context, pushBytes, std::span(&sceneLayout, 1));
    const VkDevice device = context.device();
    const vk::ShaderModule raygenModule = vk::createShaderModule(context, shader);
    const vk::ShaderModule missModule = vk::createShaderModule(context, "rt_miss");
    const vk::ShaderModule shadowMissModule = vk::createShaderModule(context, "rt_shadow_miss");
    const vk::ShaderModule closestHitModule = vk::createShaderModule(context, "rt_closest_hit");
    const vk::ShaderModule anyHitModule = vk::createShaderModule(context, "rt_any_hit");
    const vk::ShaderModule shadowAnyHitModule = vk::createShaderModule(context, "rt_shadow_any_hit");
    auto stage = [](VkShaderStageFlagBits flags, VkShaderModule module, const VkSpecializationInfo* info) {
      return VkPipelineShaderStageCreateInfo{.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                                             .stage = flags,
                                             .module = module,
                                             .pName = "main",
                                             .pSpecializationInfo = info};
    };
    const std::vector<VkPipelineShaderStageCreateInfo> stages = {
        stage(VK_SHADER_STAGE_RAYGEN_BIT_KHR, raygenModule.get(), specialization),
        stage(VK_SHADER_STAGE_MISS_BIT_KHR, missModule.get(), nullptr),
        stage(VK_SHADER_STAGE_MISS_BIT_KHR, shadowMissModule.get(), nullptr),
        stage(VK_SHADER_STAGE_CLOSEST_HIT_BIT_KHR, closestHitModule.get(), nullptr),
        stage(VK_SHADER_STAGE_ANY_HIT_BIT_KHR, anyHitModule.get(), nullptr),
        stage(VK_SHADER_STAGE_ANY_HIT_BIT_KHR, shadowAnyHitModule.get(), nullptr),
    };
    auto general = [](uint32_t shaderIndex) {
      return VkRayTracingShaderGroupCreateInfoKHR{.sType = VK_STRUCTURE_TYPE_RAY_TRACING_SHADER_GROUP_CREATE_INFO_KHR,
                                                  .type = VK_RAY_TRACING_SHADER_GROUP_TYPE_GENERAL_KHR,
                                                  .generalShader = shaderIndex,
                                                  .closestHitShader = VK_SHADER_UNUSED_KHR,
                                                  .anyHitShader = VK_SHADER_UNUSED_KHR,
                                                  .intersectionShader = VK_SHADER_UNUSED_KHR};
    };
    auto triangles = [](uint32_t closestHitShader, uint32_t anyHitShader) {
      return VkRayTracingShaderGroupCreateInfoKHR{.sType = VK_STRUCTURE_TYPE_RAY_TRACING_SHADER_GROUP_CREATE_INFO_KHR,
                                                  .type = VK_RAY_TRACING_SHADER_GROUP_TYPE_TRIANGLES_HIT_GROUP_KHR,
                                                  .generalShader = VK_SHADER_UNUSED_KHR,
                                                  .closestHitShader = closestHitShader,
                                                  .anyHitShader = anyHitShader,
                                                  .intersectionShader = VK_SHADER_UNUSED_KHR};
    };
    // Groups in SBT order: raygen, miss (closest), miss (shadow), then the triangle hit groups in
    // HIT_GROUP_* order: closest-hit rays (and traceAny's), traceShadow's (which skip closest hit).
    static_assert(gpu::HIT_GROUP_CLOSEST == 0 && gpu::HIT_GROUP_SHADOW == 1 && gpu::HIT_GROUP_COUNT == 2);
    const std::vector<VkRayTracingShaderGroupCreateInfoKHR> groups = {
        general(0),      general(1 + gpu::MISS_CLOSEST),     general(1 + gpu::MISS_SHADOW),
        triangles(3, 4), triangles(VK_SHADER_UNUSED_KHR, 5),
    };
    const VkRayTracingPipelineCreateInfoKHR info{.sType = VK_STRUCTURE_TYPE_RAY_TRACING_PIPELINE_CREATE_INFO_KHR,
                                                 .flags = vk::pipelineStatisticsFlags(context),
                                                 .stageCount = uint32_t(stages.size()),
                                                 .pStages = stages.data(),
                                                 .groupCount = uint32_t(groups.size()),
                                                 .pGroups = groups.data(),
                                                 // Only the ray-generation shader traces rays.
                                                 .maxPipelineRayRecursionDepth = 1,
                                                 .layout = compiled.layout.get()};
    VkPipeline pipeline = VK_NULL_HANDLE;
    VK_CHECK(vkCreateRayTracingPipelinesKHR(device, VK_NULL_HANDLE, VK_NULL_HANDLE, 1, &info, nullptr, &pipeline));
    compiled.pipeline = {device, pipeline};
    compiled.bindingTable = createShaderBindingTable(context, pipeline, uint32_t(groups.size()));
  }
  compiled.executables = vk::pipelineExecutables(context, compiled.pipeline.get());
  return compiled;
}

KernelStatistics Kernel::statistics(Stage stage) const {
  return {.stage = stage,
          .shader = shaderName_,
          .createMs = createMs_,
          .executables = compiled_->executables,
          .occupancy = occupancy_};
}

double pipelineCreateMs(const std::vector<KernelStatistics>& kernels) {
  double total = 0;
  for (const auto& kernel : kernels) total += kernel.createMs;
  return total;
}

void Kernel::bind(VkCommandBuffer commands, VkDescriptorSet sceneSet, const void* push) const {
  const VkPipelineBindPoint bindPoint =
      rayGeneration_ ? VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR : VK_PIPELINE_BIND_POINT_COMPUTE;
  vkCmdBindPipeline(commands, bindPoint, compiled_->pipeline.get());
  vkCmdBindDescriptorSets(commands, bindPoint, compiled_->layout.get(), gpu::SCENE_SET, 1, &sceneSet, 0, nullptr);
  vkCmdPushConstants(commands, compiled_->layout.get(), VK_SHADER_STAGE_ALL, 0, desc_.pushBytes, push);
}

void Kernel::launch(VkCommandBuffer commands, VkDescriptorSet sceneSet, const void* push, uint32_t width,
                    uint32_t height) const {
  if (!desc_.tiled) throw std::logic_error("kernel " + desc_.shader + " is 1-D: launch it over a count");
  bind(commands, sceneSet, push);
  if (rayGeneration_) {
    const auto& t = compiled_->bindingTable;
    vkCmdTraceRaysKHR(commands, &t.raygen, &t.miss, &t.hit, &t.callable, width, height, 1);
  } else {
    vkCmdDispatch(commands, divideRoundingUp(width, gpu::MEGAKERNEL_TILE),
                  divideRoundingUp(height, gpu::MEGAKERNEL_TILE), 1);
  }
}

void Kernel::launch(VkCommandBuffer commands, VkDescriptorSet sceneSet, const void* push, uint32_t count) const {
  if (desc_.tiled) throw std::logic_error("kernel " + desc_.shader + " is tiled: launch it over a grid");
  if (count == 0) return;
  bind(commands, sceneSet, push);
  if (rayGeneration_) {
    const uint32_t width = std::min(count, traceRowWidth_);
    const auto& t = compiled_->bindingTable;
    vkCmdTraceRaysKHR(commands, &t.raygen, &t.miss, &t.hit, &t.callable, width, divideRoundingUp(count, width), 1);
  } else {
    const uint32_t groups = divideRoundingUp(count, gpu::WORKGROUP_SIZE_1D);
    const uint32_t groupsX = std::min(groups, maxGroupsX);
    vkCmdDispatch(commands, groupsX, divideRoundingUp(groups, groupsX), 1);
  }
}

void Kernel::launchIndirect(VkCommandBuffer commands, VkDescriptorSet sceneSet, const void* push,
                            const vk::Buffer& records, VkDeviceSize recordOffset) const {
  static_assert(sizeof(gpu::LaunchRecord) == 32);
  static_assert(offsetof(gpu::LaunchRecord, width) == 12, "the trace-rays command follows the dispatch command");
  bind(commands, sceneSet, push);
  if (rayGeneration_) {
    const auto& t = compiled_->bindingTable;
    vkCmdTraceRaysIndirectKHR(commands, &t.raygen, &t.miss, &t.hit, &t.callable,
                              records.address() + recordOffset + offsetof(gpu::LaunchRecord, width));
  } else {
    vkCmdDispatchIndirect(commands, records.get(), recordOffset);
  }
}

VkPipelineStageFlags2 Kernel::pipelineStage() const {
  return rayGeneration_ ? VK_PIPELINE_STAGE_2_RAY_TRACING_SHADER_BIT_KHR : VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
}

}  // namespace ptbench
