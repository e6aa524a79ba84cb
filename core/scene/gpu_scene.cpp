#include "core/scene/gpu_scene.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <future>
#include <map>
#include <optional>
#include <stdexcept>

#include "core/errors.h"
#include "core/progress.h"
#include "core/scene/bvh/gpu_binary_bvh.h"
#include "core/scene/multiple_scattering.h"
#include "core/scene/sheen.h"
#include "core/trace/registry.h"
#include "core/vk/barrier.h"
#include "core/vk/timestamps.h"

namespace ptbench {
namespace {

constexpr VkBufferUsageFlags sceneBufferUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
constexpr VkBufferUsageFlags buildInputUsage = VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_BIT_KHR;

VkFilter vkFilter(TextureFilter f) {
  return f == TextureFilter::Nearest ? VK_FILTER_NEAREST : VK_FILTER_LINEAR;
}
VkSamplerAddressMode vkWrap(TextureWrap w) {
  switch (w) {
    case TextureWrap::ClampToEdge:
      return VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    case TextureWrap::MirroredRepeat:
      return VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT;
    default:
      return VK_SAMPLER_ADDRESS_MODE_REPEAT;
  }
}

// Builds and copies of acceleration structures must land before the next reads them.
void accelerationBarrier(VkCommandBuffer commands) {
  constexpr VkPipelineStageFlags2 stages = VK_PIPELINE_STAGE_2_ACCELERATION_STRUCTURE_BUILD_BIT_KHR |
                                           VK_PIPELINE_STAGE_2_ACCELERATION_STRUCTURE_COPY_BIT_KHR;
  vk::memoryBarrier(commands, stages, VK_ACCESS_2_ACCELERATION_STRUCTURE_WRITE_BIT_KHR, stages,
                    VK_ACCESS_2_ACCELERATION_STRUCTURE_READ_BIT_KHR);
}

template <typename T, typename Allocator>
vk::Buffer upload(const vk::Context& context, const std::vector<T, Allocator>& data, VkBufferUsageFlags extra = 0) {
  return vk::uploadBuffer(context, std::span<const T>(data), sceneBufferUsage | extra);
}

}  // namespace

AccelerationStructure::AccelerationStructure(const vk::Context& context, VkAccelerationStructureTypeKHR type,
                                             VkDeviceSize bytes)
    : buffer_(context, bytes, VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_STORAGE_BIT_KHR, vk::MemoryUse::DeviceOnly) {
  const VkAccelerationStructureCreateInfoKHR info{.sType = VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_CREATE_INFO_KHR,
                                                  .buffer = buffer_.get(),
                                                  .size = bytes,
                                                  .type = type};
  VkAccelerationStructureKHR handle = VK_NULL_HANDLE;
  VK_CHECK(vkCreateAccelerationStructureKHR(context.device(), &info, nullptr, &handle));
  handle_ = {context.device(), handle};
  const VkAccelerationStructureDeviceAddressInfoKHR addressInfo{
      .sType = VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_DEVICE_ADDRESS_INFO_KHR, .accelerationStructure = handle};
  address_ = vkGetAccelerationStructureDeviceAddressKHR(context.device(), &addressInfo);
}

GpuScene::GpuScene(const vk::Context& context, const SceneData& scene, std::span<const BvhLayout> softwareBvhLayouts,
                   unsigned bvhThreads, std::span<const BvhBuilder> softwareBuilders) {
  const VkBufferUsageFlags geometryUsage = context.accelerationStructuresEnabled() ? buildInputUsage : 0;
  vertices_ = upload(context, scene.vertices, geometryUsage);
  indices_ = upload(context, scene.indices, geometryUsage);
  geometries_ = upload(context, scene.geometries);
  instances_ = upload(context, scene.instances);
  materials_ = upload(context, scene.materials);
  emissiveTriangles_ = upload(context, scene.emissiveTriangles);
  aliasTable_ = upload(context, scene.lightAliasTable);
  punctualLights_ = upload(context, scene.punctualLights);
  emissiveBases_ = upload(context, scene.emissiveBases);
  addresses_ = {.vertices = vertices_.address(),
                .indices = indices_.address(),
                .geometries = geometries_.address(),
                .instances = instances_.address(),
                .materials = materials_.address(),
                .emissiveTriangles = emissiveTriangles_.address(),
                .lightAliasTable = aliasTable_.address(),
                .punctualLights = punctualLights_.address(),
                .emissiveBases = emissiveBases_.address(),
                .emissiveTriangleCount = uint32_t(scene.emissiveTriangles.size()),
                .punctualLightCount = uint32_t(scene.punctualLights.size()),
                .totalEmissivePower = float(scene.totalEmissivePower)};
  if (const auto& map = scene.environmentMap) {
    environmentTexels_ = upload(context, map->rgb);
    addresses_.environmentTexels = environmentTexels_.address();
    // A black map sends no light: next-event estimation leaves it out (no alias table).
    const std::vector<float> weights = environmentSamplingWeights(*map);
    const bool sendsLight = std::any_of(map->rgb.begin(), map->rgb.end(), [](float c) { return c > 0; });
    if (sendsLight && std::any_of(weights.begin(), weights.end(), [](float w) { return w > 0; })) {
      environmentAliasTable_ = upload(context, buildAliasTable(weights));
      addresses_.environmentAliasTable = environmentAliasTable_.address();
    }
    addresses_.environmentWidth = map->width;
    addresses_.environmentHeight = map->height;
    addresses_.environmentIntensity = map->intensity;
    addresses_.environmentRotation = float(map->rotationDegrees * 3.14159265358979323846 / 180);
  }
  const auto classTriangles = scene.materialClassTriangles();
  highestMaterialClass_ = gpu::MATERIAL_CLASS_DIFFUSE;
  for (uint32_t c = 0; c < classTriangles.size(); ++c)
    if (classTriangles[c] > 0) highestMaterialClass_ = c;
  const bool anySheen = std::any_of(scene.materials.begin(), scene.materials.end(), [](const gpu::Material& m) {
    return m.model == gpu::MATERIAL_MODEL_GLTF &&
           std::max({m.sheenColorFactor.x, m.sheenColorFactor.y, m.sheenColorFactor.z}) > 0;
  });
  if (anySheen) {
    sheenAlbedo_ = upload(context, sheenAlbedoTable());
    addresses_.sheenAlbedo = sheenAlbedo_.address();
  }
  // The compensation reads the conductor's part for metals, the glass's for transmission only.
  const auto anyGltf = [&](const auto& has) {
    return std::any_of(scene.materials.begin(), scene.materials.end(),
                       [&](const gpu::Material& m) { return m.model == gpu::MATERIAL_MODEL_GLTF && has(m); });
  };
  const bool anyTransmission = anyGltf([](const gpu::Material& m) { return m.transmissionFactor > 0; });
  if (anyTransmission || anyGltf([](const gpu::Material& m) { return m.metallicFactor > 0; })) {
    multipleScattering_ = upload(context, anyTransmission ? multipleScatteringTable() : conductorAlbedoTable());
    addresses_.multipleScattering = multipleScattering_.address();
  }
  uploadTextures(context, scene);
  if (context.accelerationStructuresEnabled()) {
    const StepProgress progress("building the acceleration structures of " + scene.source);
    buildAccelerationStructures(context, scene);
  }
  if (!softwareBvhLayouts.empty())
    for (BvhBuilder builder : softwareBuilders)
      uploadSoftwareBvh(context, scene, softwareBvhLayouts, bvhThreads, builder);
  createDescriptors(context);
}

std::string softwareBvhLayoutError(const std::string& scene, BvhLayout layout, const BvhLayoutStats& stats,
                                   uint64_t deviceLocalBytes, const std::string& device) {
  const std::string name = scene + ": its software BVH (" + std::string(bvhLayoutName(layout)) + ")";
  if (stats.stackEntries > gpu::SOFTWARE_TRACE_STACK_SIZE)
    return name + " is " + std::to_string(stats.topLevel.depth) + " levels deep over the instances and " +
           std::to_string(stats.bottomLevels.depth) + " in its deepest mesh, more than the " +
           std::to_string(gpu::SOFTWARE_TRACE_STACK_SIZE) + "-entry traversal stack holds; use a hardware backend";
  // The traversal indexes its arrays' 16-byte words with 32-bit integers, and the hardware
  // backends number instances with 24 bits (a TLAS's custom index).
  const uint64_t nodeWords = (stats.topLevel.nodes + stats.bottomLevels.nodes) * (layout == BvhLayout::Bvh2 ? 4 : 5);
  if (nodeWords >= (uint64_t{1} << 32) || stats.bottomLevels.primitives * 3 >= (uint64_t{1} << 32) ||
      stats.topLevel.primitives > (uint64_t{1} << 24))
    return name +
           " has more nodes, triangles or instances than the software traversal indexes; use a hardware "
           "backend or a smaller scene";
  // The scene's other buffers, the film and the textures need room too; a BVH that alone fills
  // the memory certainly does not fit.
  if (stats.bytes < deviceLocalBytes) return "";
  const auto mib = [](uint64_t b) { return std::to_string((b + (1u << 20) - 1) >> 20) + " MiB"; };
  return name + " needs " + mib(stats.bytes) + ", but " + device + " has " + mib(deviceLocalBytes) +
         " of device memory; use a hardware backend, the other layout (software_bvh), or a smaller scene";
}

void GpuScene::uploadSoftwareBvh(const vk::Context& context, const SceneData& scene, std::span<const BvhLayout> layouts,
                                 unsigned threads, BvhBuilder builder) {
  SoftwareBvh bvh;
  std::optional<GpuBvhBuilder> gpuBuilder;
  try {
    const StepProgress progress("building the software BVH of " + scene.source +
                                (builder == BvhBuilder::Gpu ? " on the GPU" : ""));
    BvhBuildOptions options{.threads = threads, .layouts = {layouts.begin(), layouts.end()}};
    if (builder == BvhBuilder::Gpu) {
      gpuBuilder.emplace(context, options.costs);
      options.levelsBuilder = gpuBuilder->levelsBuilder();
    }
    bvh = buildSoftwareBvh(scene, options);
    bvh.stats.builder = builder;
    if (gpuBuilder) {
      bvh.stats.gpuBuild = gpuBuilder->times();
    }
  } catch (const std::exception& error) {
    for (BvhLayout layout : layouts)
      softwareBvhErrors_[size_t(builder)][size_t(layout)] =
          scene.source + ": cannot build its software BVH: " + error.what();
    return;
  }
  softwareBvhStats_[size_t(builder)] = bvh.stats;
  // The GPU builder's buffers (its batches' arrays, gigabytes for the largest scenes) are freed
  // beside the layouts' upload, on a thread of their own: the driver took 0.17-0.24 s to free
  // them for a 50M-triangle scene. An upload that finds the device full waits for that and
  // tries once more.
  std::future<void> builderFreed = std::async(std::launch::async, [&gpuBuilder] { gpuBuilder.reset(); });
  const auto& device = context.capabilities();
  for (BvhLayout layout : layouts) {
    const std::string name = scene.source + ": its software BVH (" + std::string(bvhLayoutName(layout)) + ")";
    const BvhLayoutStats& stats = layout == BvhLayout::Bvh2 ? bvh.stats.bvh2 : bvh.stats.cwbvh;
    std::string& error = softwareBvhErrors_[size_t(builder)][size_t(layout)];
    error = softwareBvhLayoutError(scene.source, layout, stats, device.deviceLocalBytes, device.name);
    if (!error.empty()) continue;
    const auto uploadLayout = [&] {
      SoftwareBvhBuffers buffers;
      if (layout == BvhLayout::Bvh2) {
        buffers.nodes = upload(context, bvh.bvh2.nodes);
        buffers.triangles = upload(context, bvh.bvh2.triangles);
        buffers.instances = upload(context, bvh.bvh2.instances);
      } else {
        buffers.nodes = upload(context, bvh.cwbvh.nodes);
        buffers.triangles = upload(context, bvh.cwbvh.triangles);
        buffers.instances = upload(context, bvh.cwbvh.instances);
      }
      return buffers;
    };
    std::optional<SoftwareBvhBuffers> buffers;
    while (!buffers) {
      try {
        buffers = uploadLayout();
      } catch (const vk::VulkanError& failure) {
        if (!failure.outOfMemory()) throw;
        if (!builderFreed.valid()) break;  // nothing more to free
        builderFreed.get();
      }
    }
    if (!buffers) {
      error = name + " (" + std::to_string(stats.bytes >> 20) + " MiB) does not fit in the memory " + device.name +
              " has left; use a hardware backend, the other layout (software_bvh), or a smaller scene";
      continue;
    }
    softwareBvh_[size_t(builder)][size_t(layout)] = std::move(*buffers);
  }
  spdlog::debug("{}: software BVH built in {:.1f} ms: bvh2 {} bytes, cwbvh {} bytes", scene.source, bvh.stats.buildMs,
                bvh.stats.bvh2.bytes, bvh.stats.cwbvh.bytes);
}

gpu::SceneAddresses GpuScene::addresses(TraceTarget target) const {
  gpu::SceneAddresses addresses = addresses_;
  if (trace::tracesSoftwareBvh(target.backend)) {
    const auto& bvh = softwareBvh_[size_t(target.softwareBuilder)][size_t(target.softwareBvh)];
    if (const std::string& error = softwareBvhError(target.softwareBvh, target.softwareBuilder); !bvh && !error.empty())
      throw UserError(error);
    if (!bvh)
      throw std::logic_error("the " + std::string(bvhLayoutName(target.softwareBvh)) + " " +
                             std::string(bvhBuilderName(target.softwareBuilder)) +
                             "-built software BVH was not uploaded with this scene");
    addresses.bvhNodes = bvh->nodes.address();
    addresses.bvhTriangles = bvh->triangles.address();
    addresses.bvhInstances = bvh->instances.address();
  }
  return addresses;
}

void GpuScene::uploadTextures(const vk::Context& context, const SceneData& scene) {
  if (scene.textures.size() > gpu::MAX_TEXTURES)
    throw UserError(scene.source + ": has " + std::to_string(scene.textures.size()) +
                    " textures; ptbench takes at most " + std::to_string(gpu::MAX_TEXTURES));
  std::map<std::tuple<int, int, int, int, int>, uint32_t> samplerIndex;
  for (const auto& texture : scene.textures) {
    const VkFormat format = texture.srgb ? VK_FORMAT_R8G8B8A8_SRGB : VK_FORMAT_R8G8B8A8_UNORM;
    images_.emplace_back(context, texture.width, texture.height, format, texture.rgba8);
    const auto& s = texture.sampler;
    const auto key = std::make_tuple(int(s.magFilter), int(s.minFilter), int(s.mipFilter), int(s.wrapU), int(s.wrapV));
    auto found = samplerIndex.find(key);
    if (found == samplerIndex.end()) {
      const VkSamplerCreateInfo info{.sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
                                     .magFilter = vkFilter(s.magFilter),
                                     .minFilter = vkFilter(s.minFilter),
                                     .mipmapMode = s.mipFilter == TextureFilter::Nearest
                                                       ? VK_SAMPLER_MIPMAP_MODE_NEAREST
                                                       : VK_SAMPLER_MIPMAP_MODE_LINEAR,
                                     .addressModeU = vkWrap(s.wrapU),
                                     .addressModeV = vkWrap(s.wrapV),
                                     .addressModeW = VK_SAMPLER_ADDRESS_MODE_REPEAT,
                                     .maxLod = VK_LOD_CLAMP_NONE};
      VkSampler sampler = VK_NULL_HANDLE;
      VK_CHECK(vkCreateSampler(context.device(), &info, nullptr, &sampler));
      samplers_.emplace_back(context.device(), sampler);
      found = samplerIndex.emplace(key, uint32_t(samplers_.size() - 1)).first;
    }
    imageSampler_.push_back(found->second);
  }
}

void GpuScene::buildAccelerationStructures(const vk::Context& context, const SceneData& scene) {
  const VkDevice device = context.device();
  const VkDeviceAddress scratchAlignment = context.capabilities().accelerationScratchAlignment;

  // One BLAS per mesh, one geometry per primitive. Opaque geometry skips the any-hit shader
  // (and the candidate loop of ray queries); alpha-tested or blended geometry runs it.
  struct BlasInput {
    std::vector<VkAccelerationStructureGeometryKHR> geometries;
    std::vector<VkAccelerationStructureBuildRangeInfoKHR> ranges;
    std::vector<uint32_t> triangleCounts;
    VkAccelerationStructureBuildSizesInfoKHR sizes{.sType =
                                                       VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_SIZES_INFO_KHR};
  };
  std::vector<BlasInput> inputs(scene.meshes.size());
  const VkBuildAccelerationStructureFlagsKHR blasFlags = VK_BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_TRACE_BIT_KHR |
                                                         VK_BUILD_ACCELERATION_STRUCTURE_ALLOW_COMPACTION_BIT_KHR;
  VkDeviceSize scratchBytes = 0;
  std::vector<VkDeviceSize> scratchOffsets;
  for (size_t m = 0; m < scene.meshes.size(); ++m) {
    auto& input = inputs[m];
    const Mesh& mesh = scene.meshes[m];
    for (uint32_t g = mesh.firstGeometry; g < mesh.firstGeometry + mesh.geometryCount; ++g) {
      const auto& geometry = scene.geometries[g];
      const auto& material = scene.materials[geometry.material];
      const uint32_t vertexCount =
          (g + 1 < scene.geometries.size() ? scene.geometries[g + 1].firstVertex : uint32_t(scene.vertices.size())) -
          geometry.firstVertex;
      VkAccelerationStructureGeometryKHR info{.sType = VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_KHR,
                                              .geometryType = VK_GEOMETRY_TYPE_TRIANGLES_KHR};
      info.geometry.triangles = {
          .sType = VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_TRIANGLES_DATA_KHR,
          .vertexFormat = VK_FORMAT_R32G32B32_SFLOAT,
          .vertexData = {.deviceAddress =
                             vertices_.address() + VkDeviceAddress{geometry.firstVertex} * sizeof(gpu::Vertex)},
          .vertexStride = sizeof(gpu::Vertex),
          .maxVertex = vertexCount - 1,
          .indexType = VK_INDEX_TYPE_UINT32,
          .indexData = {.deviceAddress = indices_.address() + VkDeviceAddress{geometry.firstIndex} * sizeof(uint32_t)}};
      // A shadow ray multiplies in each thin wall it crosses: one any-hit per candidate, not two.
      info.flags = gpu::materialNeedsCandidateTest(material) ? VK_GEOMETRY_NO_DUPLICATE_ANY_HIT_INVOCATION_BIT_KHR
                                                             : VK_GEOMETRY_OPAQUE_BIT_KHR;
      input.geometries.push_back(info);
      input.ranges.push_back({.primitiveCount = geometry.triangleCount});
      input.triangleCounts.push_back(geometry.triangleCount);
    }
    const VkAccelerationStructureBuildGeometryInfoKHR build{
        .sType = VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_GEOMETRY_INFO_KHR,
        .type = VK_ACCELERATION_STRUCTURE_TYPE_BOTTOM_LEVEL_KHR,
        .flags = blasFlags,
        .mode = VK_BUILD_ACCELERATION_STRUCTURE_MODE_BUILD_KHR,
        .geometryCount = uint32_t(input.geometries.size()),
        .pGeometries = input.geometries.data()};
    vkGetAccelerationStructureBuildSizesKHR(device, VK_ACCELERATION_STRUCTURE_BUILD_TYPE_DEVICE_KHR, &build,
                                            input.triangleCounts.data(), &input.sizes);
    scratchOffsets.push_back(scratchBytes);
    scratchBytes = vk::alignUp(scratchBytes + input.sizes.buildScratchSize, scratchAlignment);
  }

  std::vector<AccelerationStructure> built;
  for (const auto& input : inputs)
    built.emplace_back(context, VK_ACCELERATION_STRUCTURE_TYPE_BOTTOM_LEVEL_KHR, input.sizes.accelerationStructureSize);
  vk::Buffer scratch(context, scratchBytes + scratchAlignment, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                     vk::MemoryUse::DeviceOnly);
  const VkDeviceAddress scratchBase = vk::alignUp(scratch.address(), scratchAlignment);

  const VkQueryPoolCreateInfo queryInfo{.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                        .queryType = VK_QUERY_TYPE_ACCELERATION_STRUCTURE_COMPACTED_SIZE_KHR,
                                        .queryCount = uint32_t(inputs.size())};
  VkQueryPool compactedPool = VK_NULL_HANDLE;
  VK_CHECK(vkCreateQueryPool(device, &queryInfo, nullptr, &compactedPool));
  vk::DeviceHandle<VkQueryPool, vkDestroyQueryPool> compactedPoolOwner(device, compactedPool);

  vk::StageTimer timer(context);
  context.submitAndWait([&](VkCommandBuffer commands) {
    timer.begin(commands);
    vkCmdResetQueryPool(commands, compactedPool, 0, uint32_t(inputs.size()));
    timer.time(commands, Stage::BuildBlas, [&] {
      // Every BLAS has scratch memory of its own, so one call builds them all.
      std::vector<VkAccelerationStructureBuildGeometryInfoKHR> builds;
      std::vector<const VkAccelerationStructureBuildRangeInfoKHR*> ranges;
      for (size_t m = 0; m < inputs.size(); ++m) {
        builds.push_back({.sType = VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_GEOMETRY_INFO_KHR,
                          .type = VK_ACCELERATION_STRUCTURE_TYPE_BOTTOM_LEVEL_KHR,
                          .flags = blasFlags,
                          .mode = VK_BUILD_ACCELERATION_STRUCTURE_MODE_BUILD_KHR,
                          .dstAccelerationStructure = built[m].get(),
                          .geometryCount = uint32_t(inputs[m].geometries.size()),
                          .pGeometries = inputs[m].geometries.data(),
                          .scratchData = {.deviceAddress = scratchBase + scratchOffsets[m]}});
        ranges.push_back(inputs[m].ranges.data());
      }
      vkCmdBuildAccelerationStructuresKHR(commands, uint32_t(builds.size()), builds.data(), ranges.data());
    });
    // The compacted size can only be queried once the build has written the structure.
    accelerationBarrier(commands);
    std::vector<VkAccelerationStructureKHR> handles;
    for (const auto& blas : built) handles.push_back(blas.get());
    vkCmdWriteAccelerationStructuresPropertiesKHR(commands, uint32_t(handles.size()), handles.data(),
                                                  VK_QUERY_TYPE_ACCELERATION_STRUCTURE_COMPACTED_SIZE_KHR,
                                                  compactedPool, 0);
  });
  stats_.blasBuildGpuMs = timer.read().stages.at(0).gpuNs * 1e-6;

  std::vector<VkDeviceSize> compactedSizes(inputs.size());
  VK_CHECK(vkGetQueryPoolResults(device, compactedPool, 0, uint32_t(inputs.size()),
                                 compactedSizes.size() * sizeof(VkDeviceSize), compactedSizes.data(),
                                 sizeof(VkDeviceSize), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  for (size_t m = 0; m < inputs.size(); ++m) {
    blases_.emplace_back(context, VK_ACCELERATION_STRUCTURE_TYPE_BOTTOM_LEVEL_KHR, compactedSizes[m]);
    stats_.blasBytesBuilt += built[m].bytes();
    stats_.blasBytes += compactedSizes[m];
  }

  // The TLAS: one instance per scene instance, its custom index the instance's index so that
  // shaders find the instance record (and through it the geometries) of a hit.
  constexpr size_t maxInstances = size_t{1} << 24;  // the custom index has 24 bits
  if (scene.instances.size() > maxInstances)
    throw UserError(scene.source + ": has " + std::to_string(scene.instances.size()) + " instances; at most " +
                    std::to_string(maxInstances) + " fit a TLAS");
  std::vector<VkAccelerationStructureInstanceKHR> instances;
  for (size_t i = 0; i < scene.instances.size(); ++i) {
    VkAccelerationStructureInstanceKHR instance{};
    for (int row = 0; row < 3; ++row) {
      const auto& r = scene.instances[i].objectToWorld[row];
      instance.transform.matrix[row][0] = r.x;
      instance.transform.matrix[row][1] = r.y;
      instance.transform.matrix[row][2] = r.z;
      instance.transform.matrix[row][3] = r.w;
    }
    instance.instanceCustomIndex = uint32_t(i) & 0xffffffu;
    instance.mask = 0xff;
    instance.instanceShaderBindingTableRecordOffset = 0;
    // Facing is decided in shading (double-sided materials, and rays leaving a surface), so
    // traversal culls nothing.
    instance.flags = VK_GEOMETRY_INSTANCE_TRIANGLE_FACING_CULL_DISABLE_BIT_KHR;
    instance.accelerationStructureReference = blases_[scene.instanceMeshes[i]].address();
    instances.push_back(instance);
  }
  tlasInstances_ =
      vk::uploadBuffer(context, std::span<const VkAccelerationStructureInstanceKHR>(instances), buildInputUsage);
  VkAccelerationStructureGeometryKHR tlasGeometry{.sType = VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_KHR,
                                                  .geometryType = VK_GEOMETRY_TYPE_INSTANCES_KHR};
  tlasGeometry.geometry.instances = {.sType = VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_INSTANCES_DATA_KHR,
                                     .arrayOfPointers = VK_FALSE,
                                     .data = {.deviceAddress = tlasInstances_.address()}};
  VkAccelerationStructureBuildGeometryInfoKHR tlasBuild{
      .sType = VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_GEOMETRY_INFO_KHR,
      .type = VK_ACCELERATION_STRUCTURE_TYPE_TOP_LEVEL_KHR,
      .flags = VK_BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_TRACE_BIT_KHR,
      .mode = VK_BUILD_ACCELERATION_STRUCTURE_MODE_BUILD_KHR,
      .geometryCount = 1,
      .pGeometries = &tlasGeometry};
  const uint32_t instanceCount = uint32_t(instances.size());
  VkAccelerationStructureBuildSizesInfoKHR tlasSizes{.sType =
                                                         VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_SIZES_INFO_KHR};
  vkGetAccelerationStructureBuildSizesKHR(device, VK_ACCELERATION_STRUCTURE_BUILD_TYPE_DEVICE_KHR, &tlasBuild,
                                          &instanceCount, &tlasSizes);
  tlas_ =
      AccelerationStructure(context, VK_ACCELERATION_STRUCTURE_TYPE_TOP_LEVEL_KHR, tlasSizes.accelerationStructureSize);
  stats_.tlasBytes = tlasSizes.accelerationStructureSize;
  vk::Buffer tlasScratch(context, tlasSizes.buildScratchSize + scratchAlignment, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                         vk::MemoryUse::DeviceOnly);
  tlasBuild.dstAccelerationStructure = tlas_.get();
  tlasBuild.scratchData.deviceAddress = vk::alignUp(tlasScratch.address(), scratchAlignment);

  context.submitAndWait([&](VkCommandBuffer commands) {
    timer.begin(commands);
    timer.time(commands, Stage::CompactBlas, [&] {
      for (size_t m = 0; m < inputs.size(); ++m) {
        const VkCopyAccelerationStructureInfoKHR copy{.sType = VK_STRUCTURE_TYPE_COPY_ACCELERATION_STRUCTURE_INFO_KHR,
                                                      .src = built[m].get(),
                                                      .dst = blases_[m].get(),
                                                      .mode = VK_COPY_ACCELERATION_STRUCTURE_MODE_COMPACT_KHR};
        vkCmdCopyAccelerationStructureKHR(commands, &copy);
      }
    });
    // The TLAS build reads the compacted BLASes through their addresses.
    accelerationBarrier(commands);
    timer.time(commands, Stage::BuildTlas, [&] {
      const VkAccelerationStructureBuildRangeInfoKHR range{.primitiveCount = instanceCount};
      const VkAccelerationStructureBuildRangeInfoKHR* ranges = &range;
      vkCmdBuildAccelerationStructuresKHR(commands, 1, &tlasBuild, &ranges);
    });
  });
  const auto timings = timer.read().stages;
  stats_.compactionGpuMs = timings.at(0).gpuNs * 1e-6;
  stats_.tlasBuildGpuMs = timings.at(1).gpuNs * 1e-6;
  spdlog::debug("{}: BLAS {} bytes ({} before compaction), TLAS {} bytes", scene.source, stats_.blasBytes,
                stats_.blasBytesBuilt, stats_.tlasBytes);
}

void GpuScene::createDescriptors(const vk::Context& context) {
  const VkDevice device = context.device();
  const bool withTlas = hasAccelerationStructures();
  std::vector<VkDescriptorSetLayoutBinding> bindings;
  std::vector<VkDescriptorBindingFlags> flags;
  if (withTlas) {
    bindings.push_back({.binding = gpu::BINDING_TLAS,
                        .descriptorType = VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR,
                        .descriptorCount = 1,
                        .stageFlags = VK_SHADER_STAGE_ALL});
    flags.push_back(0);
  }
  // The texture array is last so that its count can vary with the scene.
  bindings.push_back({.binding = gpu::BINDING_TEXTURES,
                      .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                      .descriptorCount = gpu::MAX_TEXTURES,
                      .stageFlags = VK_SHADER_STAGE_ALL});
  flags.push_back(VK_DESCRIPTOR_BINDING_PARTIALLY_BOUND_BIT | VK_DESCRIPTOR_BINDING_VARIABLE_DESCRIPTOR_COUNT_BIT);
  const VkDescriptorSetLayoutBindingFlagsCreateInfo flagsInfo{
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO,
      .bindingCount = uint32_t(flags.size()),
      .pBindingFlags = flags.data()};
  const VkDescriptorSetLayoutCreateInfo layoutInfo{.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                                   .pNext = &flagsInfo,
                                                   .bindingCount = uint32_t(bindings.size()),
                                                   .pBindings = bindings.data()};
  VkDescriptorSetLayout layout = VK_NULL_HANDLE;
  VK_CHECK(vkCreateDescriptorSetLayout(device, &layoutInfo, nullptr, &layout));
  setLayout_ = {device, layout};
  for (size_t i = 0; i < bindings.size(); ++i)
    setLayoutKey_ += fmt::format("{}:{}x{}:{:x}:{:x} ", bindings[i].binding, int(bindings[i].descriptorType),
                                 bindings[i].descriptorCount, bindings[i].stageFlags, flags[i]);

  const uint32_t textureCount = std::max<uint32_t>(uint32_t(images_.size()), 1);
  std::vector<VkDescriptorPoolSize> poolSizes = {{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, textureCount}};
  if (withTlas) poolSizes.push_back({VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR, 1});
  const VkDescriptorPoolCreateInfo poolInfo{.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                            .maxSets = 1,
                                            .poolSizeCount = uint32_t(poolSizes.size()),
                                            .pPoolSizes = poolSizes.data()};
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VK_CHECK(vkCreateDescriptorPool(device, &poolInfo, nullptr, &pool));
  pool_ = {device, pool};
  const VkDescriptorSetVariableDescriptorCountAllocateInfo variableCount{
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_VARIABLE_DESCRIPTOR_COUNT_ALLOCATE_INFO,
      .descriptorSetCount = 1,
      .pDescriptorCounts = &textureCount};
  const VkDescriptorSetAllocateInfo allocateInfo{.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                                 .pNext = &variableCount,
                                                 .descriptorPool = pool,
                                                 .descriptorSetCount = 1,
                                                 .pSetLayouts = &layout};
  VK_CHECK(vkAllocateDescriptorSets(device, &allocateInfo, &set_));

  std::vector<VkWriteDescriptorSet> writes;
  const VkAccelerationStructureKHR tlas = tlas_.get();
  const VkWriteDescriptorSetAccelerationStructureKHR tlasWrite{
      .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET_ACCELERATION_STRUCTURE_KHR,
      .accelerationStructureCount = 1,
      .pAccelerationStructures = &tlas};
  if (withTlas)
    writes.push_back({.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                      .pNext = &tlasWrite,
                      .dstSet = set_,
                      .dstBinding = gpu::BINDING_TLAS,
                      .descriptorCount = 1,
                      .descriptorType = VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR});
  std::vector<VkDescriptorImageInfo> imageInfos;
  for (size_t i = 0; i < images_.size(); ++i)
    imageInfos.push_back({.sampler = samplers_[imageSampler_[i]].get(),
                          .imageView = images_[i].view(),
                          .imageLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL});
  if (!imageInfos.empty())
    writes.push_back({.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                      .dstSet = set_,
                      .dstBinding = gpu::BINDING_TEXTURES,
                      .descriptorCount = uint32_t(imageInfos.size()),
                      .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                      .pImageInfo = imageInfos.data()});
  vkUpdateDescriptorSets(device, uint32_t(writes.size()), writes.data(), 0, nullptr);
}

uint64_t GpuScene::bufferBytes() const {
  uint64_t bytes = 0;
  for (const auto* b : {&vertices_, &indices_, &geometries_, &instances_, &materials_, &emissiveTriangles_,
                        &aliasTable_, &punctualLights_, &emissiveBases_, &environmentTexels_, &environmentAliasTable_,
                        &sheenAlbedo_, &multipleScattering_})
    bytes += b->bytes();
  return bytes;
}

uint64_t GpuScene::softwareBvhBytes(BvhLayout layout, BvhBuilder builder) const {
  const auto& bvh = softwareBvh_[size_t(builder)][size_t(layout)];
  return bvh ? bvh->nodes.bytes() + bvh->triangles.bytes() + bvh->instances.bytes() : 0;
}

uint64_t GpuScene::textureBytes() const {
  uint64_t bytes = 0;
  for (const auto& image : images_) bytes += image.bytes();
  return bytes;
}

}  // namespace ptbench
