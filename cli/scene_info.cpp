// `ptbench scene-info SCENE`: what a scene holds, and what it costs on the chosen device.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/options.h"
#include "core/elapsed.h"
#include "core/experiment/report.h"
#include "core/scene/builtin_scenes.h"
#include "core/scene/gpu_scene.h"
#include "core/trace/registry.h"

namespace ptbench::cli {
namespace {

nlohmann::json vec3Json(Vec3 v) {
  return {v.x, v.y, v.z};
}

void printSceneInfo(const GlobalOptions& global, const std::string& spec, bool asJson) {
  const auto loadStart = std::chrono::steady_clock::now();
  const SceneData scene = loadScene(spec, global.threads);
  const double loadMs = millisecondsSince(loadStart);

  // Acceleration structures are built when the device has a hardware backend to use them; the
  // software BVH always, both layouts by both builders, uploaded.
  vk::Context context(
      vk::ContextOptions{.validation = global.validate,
                         .deviceSelector = global.device,
                         .backends = trace::deviceNeeds(trace::supportedBackends(vk::selectDevice(global.device))),
                         .submitTimeoutSeconds = global.gpuTimeoutSeconds});
  const GpuScene gpuScene(context, scene, allBvhLayouts, global.threads, allBvhBuilders);
  const auto& as = gpuScene.accelerationStats();
  const Camera camera = scene.defaultCamera();

  nlohmann::json info = {
      {"scene", spec},
      {"device", context.capabilities().name},
      {"triangles", scene.triangleCount()},
      {"unique_triangles", scene.uniqueTriangleCount()},
      {"vertices", scene.vertices.size()},
      {"meshes", scene.meshes.size()},
      {"geometries", scene.geometries.size()},
      {"instances", scene.instances.size()},
      {"materials", scene.materials.size()},
      {"textures", scene.textures.size()},
      {"texture_bytes", scene.textureBytes()},
      {"texture_gpu_bytes", gpuScene.textureBytes()},
      {"buffer_gpu_bytes", gpuScene.bufferBytes()},
      {"emissive_triangles", scene.emissiveTriangles.size()},
      {"emissive_power", scene.totalEmissivePower},
      {"punctual_lights", scene.punctualLights.size()},
      {"cameras", scene.cameraCount},
      {"unshaded_extensions", scene.unshadedExtensions},
      {"material_classes", materialClassTrianglesByName(scene)},
      {"camera",
       {{"from_scene", scene.sceneCamera.has_value()},
        {"position", vec3Json(camera.position)},
        {"target", vec3Json(camera.target)},
        {"up", vec3Json(camera.up)},
        {"yfov_degrees", camera.yfovDegrees}}},
      {"bounds", {{"min", vec3Json(scene.bounds.min)}, {"max", vec3Json(scene.bounds.max)}}},
      {"load_ms", loadMs},
      {"acceleration_structures", gpuScene.hasAccelerationStructures()},
  };
  if (gpuScene.hasAccelerationStructures()) {
    info["blas_bytes"] = as.blasBytes;
    info["blas_bytes_before_compaction"] = as.blasBytesBuilt;
    info["tlas_bytes"] = as.tlasBytes;
    info["blas_build_gpu_ms"] = as.blasBuildGpuMs;
    info["blas_compaction_gpu_ms"] = as.compactionGpuMs;
    info["tlas_build_gpu_ms"] = as.tlasBuildGpuMs;
  }
  // The CPU builder's under the name it always had.
  for (BvhBuilder builder : allBvhBuilders)
    if (const auto& bvh = gpuScene.softwareBvhStats(builder))
      info[builder == BvhBuilder::Cpu ? "software_bvh" : "software_bvh_gpu"] = softwareBvhJson(*bvh);
  if (asJson) {
    std::cout << info.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("{} on {}\n", spec, context.capabilities().name);
  std::cout << fmt::format("  triangles {} ({} unique), meshes {}, instances {}, materials {}\n", scene.triangleCount(),
                           scene.uniqueTriangleCount(), scene.meshes.size(), scene.instances.size(),
                           scene.materials.size());
  std::cout << fmt::format("  textures {} ({:.1f} MiB), emissive triangles {}, punctual lights {}, cameras {}\n",
                           scene.textures.size(), double(scene.textureBytes()) / (1 << 20),
                           scene.emissiveTriangles.size(), scene.punctualLights.size(), scene.cameraCount);
  std::string classes;
  for (const auto& [name, triangles] : materialClassTrianglesByName(scene))
    classes += fmt::format("{}{} {}", classes.empty() ? "" : ", ", name, triangles);
  std::cout << fmt::format("  material classes (triangles): {}\n", classes);
  std::cout << fmt::format("  bounds ({:.3g}, {:.3g}, {:.3g}) to ({:.3g}, {:.3g}, {:.3g}); loaded in {:.1f} ms\n",
                           scene.bounds.min.x, scene.bounds.min.y, scene.bounds.min.z, scene.bounds.max.x,
                           scene.bounds.max.y, scene.bounds.max.z, loadMs);
  if (gpuScene.hasAccelerationStructures())
    std::cout << fmt::format(
        "  BLAS {:.2f} MiB (compacted from {:.2f}), TLAS {:.3f} MiB; GPU build {:.3f} ms BLAS + "
        "{:.3f} ms compaction + {:.3f} ms TLAS\n",
        double(as.blasBytes) / (1 << 20), double(as.blasBytesBuilt) / (1 << 20), double(as.tlasBytes) / (1 << 20),
        as.blasBuildGpuMs, as.compactionGpuMs, as.tlasBuildGpuMs);
  for (BvhBuilder builder : allBvhBuilders) {
    const auto& built = gpuScene.softwareBvhStats(builder);
    if (!built) continue;
    const SoftwareBvhStats& bvh = *built;
    if (builder == BvhBuilder::Cpu)
      std::cout << fmt::format(
          "  software BVH built in {:.1f} ms on {} threads ({:.2f} Mtriangles/s; {:.0f} ms of CPU time, {:.0f}% "
          "of the threads' time, {:.0f}% of it in the kernel), the layouts assembled in the last {:.1f} ms\n",
          bvh.buildMs, bvh.threads, double(scene.uniqueTriangleCount()) / (bvh.buildMs * 1e3), bvh.cpuMs,
          100.0 * bvh.cpuMs / (bvh.buildMs * bvh.threads), 100.0 * bvh.systemCpuMs / std::max(bvh.cpuMs, 1e-9),
          bvh.assembleMs);
    else
      std::cout << fmt::format(
          "  software BVH built in {:.1f} ms by the GPU builder on {} threads, {} batches: {:.1f} ms of kernels "
          "(trees and collapses); summed over meshes and batches, {:.1f} ms of upload and readback (staging {:.1f}, "
          "allocation {:.1f}, copies {:.1f}, conversion {:.1f}), {:.1f} ms waiting for a batch; the layouts "
          "assembled in the last {:.1f} ms\n",
          bvh.buildMs, bvh.threads, bvh.gpuBuild.batches, bvh.gpuBuild.gpuMs, bvh.gpuBuild.transferMs,
          bvh.gpuBuild.prepareMs, bvh.gpuBuild.allocateMs, bvh.gpuBuild.copyMs, bvh.gpuBuild.convertMs,
          bvh.gpuBuild.batchWaitMs, bvh.assembleMs);
    for (const auto& [name, layout] : {std::pair{"cwbvh", &bvh.cwbvh}, std::pair{"bvh2", &bvh.bvh2}})
      std::cout << fmt::format(
          "    {:<5} {:.2f} MiB; {} + {} nodes (top + bottom levels), depth {} + {}, SAH cost {:.2f} (bottom "
          "levels)\n",
          name, double(layout->bytes) / (1 << 20), layout->topLevel.nodes, layout->bottomLevels.nodes,
          layout->topLevel.depth, layout->bottomLevels.depth, layout->bottomLevels.sahCost);
  }
}

}  // namespace

void addSceneInfoCommand(CLI::App& app, const GlobalOptions& global) {
  auto* command = app.add_subcommand("scene-info", "Load a scene, upload it and build its acceleration structures");
  auto spec = std::make_shared<std::string>();
  auto asJson = std::make_shared<bool>(false);
  command
      ->add_option(
          "scene", *spec,
          "a .gltf/.glb path, or builtin:cornell, builtin:furnace[?material=M&roughness=R], "
          "builtin:spheres?n=N&subdiv=S[&materials=M&cost=K], builtin:manylights[?n=N], builtin:room (see `ptbench "
          "render --help`)")
      ->required();
  command->add_flag("--json", *asJson, "Print JSON");
  command->callback([&global, spec, asJson] { printSceneInfo(global, *spec, *asJson); });
}

}  // namespace ptbench::cli
