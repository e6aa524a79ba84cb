// Descriptor bindings. Everything else reaches the GPU through buffer device addresses.
#ifndef PTBENCH_BINDINGS_H
#define PTBENCH_BINDINGS_H
#include "shared.h"

#ifdef __cplusplus
namespace ptbench::gpu {
#endif

PTBENCH_CONST uint SCENE_SET = 0;
PTBENCH_CONST uint BINDING_TLAS = 0;      // absent for the software backend
PTBENCH_CONST uint BINDING_TEXTURES = 1;  // sampler2D[], as many as the scene has
PTBENCH_CONST uint MAX_TEXTURES = 4096;

// Where a scene's arrays live, as device addresses.
struct SceneAddresses {
  uint64_t vertices;           // Vertex[]
  uint64_t indices;            // uint[]
  uint64_t geometries;         // Geometry[]
  uint64_t instances;          // Instance[]
  uint64_t materials;          // Material[]
  uint64_t emissiveTriangles;  // EmissiveTriangle[]
  uint64_t lightAliasTable;    // AliasEntry[]
  uint64_t punctualLights;     // PunctualLight[]
  uint64_t emissiveBases;      // uint[], see Instance::emissiveBasesOffset
  // The software backend's BVH (shared/bvh.h) in the layout the kernel was specialised for;
  // 0 on the hardware backends.
  uint64_t bvhNodes;
  uint64_t bvhTriangles;
  uint64_t bvhInstances;
  // The environment map (core/scene/environment_map.h): vec3 radiance per texel, rows from the
  // zenith down, and an alias table over its texels for sampling; 0 without one.
  uint64_t environmentTexels;
  uint64_t environmentAliasTable;
  // KHR_materials_sheen's directional albedo E(cos theta, roughness), SHEEN_ALBEDO_SIZE squared
  // floats (core/scene/sheen.h); 0 when no material has sheen.
  uint64_t sheenAlbedo;
  // The multiple-scattering compensation's table, MS_TABLE_SIZE floats (shared/render.h); 0 when
  // no material is metallic or transmissive.
  uint64_t multipleScattering;
  uint emissiveTriangleCount;
  uint punctualLightCount;
  float totalEmissivePower;
  uint environmentWidth;  // 0: no environment map
  uint environmentHeight;
  float environmentIntensity;
  float environmentRotation;  // radians about +Y
  uint pad;
};

PTBENCH_END_NAMESPACE
#endif
