// Scene records as the GPU reads them (scalar block layout), shared by C++ and GLSL.
#ifndef PTBENCH_SCENE_H
#define PTBENCH_SCENE_H
#include "shared.h"

#ifdef __cplusplus
namespace ptbench::gpu {
#endif

struct Vertex {
  vec3 position;
  vec3 normal;
  vec2 uv0;
  vec2 uv1;
  vec4 tangent;  // xyz tangent, w bitangent sign, as glTF defines it
  // COLOR_0 (RGBA) as four unorm16, red and green in x, blue and alpha in y (packUnorm2x16):
  // 8 bytes where four floats would take 16. White where a mesh has none.
#ifdef __cplusplus
  uvec2 color = {0xffffffffu, 0xffffffffu};
#else
  uvec2 color;
#endif
};

// One glTF primitive: a triangle list inside the scene's vertex and index arrays.
struct Geometry {
  uint firstVertex;
  uint firstIndex;  // indices are relative to firstVertex
  uint triangleCount;
  uint material;
};

// One node that references a mesh. The custom index of its TLAS instance is its index here.
struct Instance {
  vec4 objectToWorld[3];  // rows of a 3x4 affine matrix
  vec4 normalToWorld[3];  // rows of the inverse transpose of its 3x3 part
  uint firstGeometry;     // a hit's geometry is firstGeometry + its geometry index in the BLAS
  uint geometryCount;
  uint materialOverride;  // NO_MATERIAL_OVERRIDE, or a material for every geometry (procedural scenes)
  // emissiveBases[emissiveBasesOffset + g] is the light-list index of triangle 0 of the
  // instance's geometry g, or NOT_EMISSIVE; its triangles follow in order.
  uint emissiveBasesOffset;
  // -1 when objectToWorld mirrors (a negative determinant): glTF then takes clockwise triangles
  // as front faces, so the world-space edge cross product points to the back.
  float windingSign;
};

PTBENCH_CONST uint NOT_EMISSIVE = 0xffffffffu;

PTBENCH_CONST uint NO_MATERIAL_OVERRIDE = 0xffffffffu;
PTBENCH_CONST int NO_TEXTURE = -1;

// Texture slots of a material, in the order of Material::textures.
PTBENCH_CONST uint SLOT_BASE_COLOR = 0;
PTBENCH_CONST uint SLOT_METALLIC_ROUGHNESS = 1;
PTBENCH_CONST uint SLOT_NORMAL = 2;
PTBENCH_CONST uint SLOT_OCCLUSION = 3;
PTBENCH_CONST uint SLOT_EMISSIVE = 4;
PTBENCH_CONST uint SLOT_SPECULAR = 5;
PTBENCH_CONST uint SLOT_SPECULAR_COLOR = 6;
PTBENCH_CONST uint SLOT_TRANSMISSION = 7;
PTBENCH_CONST uint SLOT_CLEARCOAT = 8;
PTBENCH_CONST uint SLOT_CLEARCOAT_ROUGHNESS = 9;
PTBENCH_CONST uint SLOT_CLEARCOAT_NORMAL = 10;
PTBENCH_CONST uint SLOT_SHEEN_COLOR = 11;
PTBENCH_CONST uint SLOT_SHEEN_ROUGHNESS = 12;
PTBENCH_CONST uint SLOT_THICKNESS = 13;
PTBENCH_CONST uint TEXTURE_SLOT_COUNT = 14;

// A glTF textureInfo with KHR_texture_transform folded in: uv' = M * (uv, 1).
struct TextureRef {
  int texture;  // index into the scene's texture array, or NO_TEXTURE
  uint texCoord;
  vec3 transformRow0;
  vec3 transformRow1;
};

PTBENCH_CONST uint ALPHA_OPAQUE = 0;
PTBENCH_CONST uint ALPHA_MASK = 1;
PTBENCH_CONST uint ALPHA_BLEND = 2;

// How a material shades: glTF's metallic-roughness model with its extensions, or ptbench's
// layered car paint (shaders/common/car_paint.glsl), whose cost grows with its noise octaves.
PTBENCH_CONST uint MATERIAL_MODEL_GLTF = 0;
PTBENCH_CONST uint MATERIAL_MODEL_CAR_PAINT = 1;
PTBENCH_CONST uint CAR_PAINT_MAX_OCTAVES = 32;

// Material classes, by the costliest code a material needs; a class may use the code of every
// class below it (a clearcoat material may have sheen), so that a kernel compiled for one class
// leaves out the code of the classes above it. The wavefront's material queues sort by them;
// reports count the triangles of each.
PTBENCH_CONST uint MATERIAL_CLASS_ESCAPED = 0;             // no material: the ray left the scene
PTBENCH_CONST uint MATERIAL_CLASS_DIFFUSE = 1;             // untextured, not metallic, not alpha-tested
PTBENCH_CONST uint MATERIAL_CLASS_METALLIC_ROUGHNESS = 2;  // the rest of glTF's core material
PTBENCH_CONST uint MATERIAL_CLASS_SHEEN = 3;               // KHR_materials_sheen
PTBENCH_CONST uint MATERIAL_CLASS_CLEARCOAT = 4;           // KHR_materials_clearcoat
PTBENCH_CONST uint MATERIAL_CLASS_TRANSMISSION = 5;        // KHR_materials_transmission
PTBENCH_CONST uint MATERIAL_CLASS_CAR_PAINT = 6;           // MATERIAL_MODEL_CAR_PAINT
PTBENCH_CONST uint MATERIAL_CLASS_COUNT = 7;

struct Material {
  vec4 baseColorFactor;
  vec3 emissiveFactor;  // emissiveFactor x KHR_materials_emissive_strength, not clamped
  float metallicFactor;
  float roughnessFactor;
  float normalScale;
  float occlusionStrength;
  float alphaCutoff;
  uint alphaMode;
  uint doubleSided;
  float ior;             // KHR_materials_ior (1.5 by default)
  float specularFactor;  // KHR_materials_specular
  vec3 specularColorFactor;
  float transmissionFactor;  // KHR_materials_transmission
  float clearcoatFactor;     // KHR_materials_clearcoat
  float clearcoatRoughnessFactor;
  float clearcoatNormalScale;  // clearcoatNormalTexture's scale
  vec3 sheenColorFactor;       // KHR_materials_sheen
  float sheenRoughnessFactor;
  float thicknessFactor;  // KHR_materials_volume
  vec3 attenuationColor;
  float attenuationDistance;
  uint model;         // MATERIAL_MODEL_*
  uint noiseOctaves;  // car paint: octaves of each procedural noise, 0 to CAR_PAINT_MAX_OCTAVES
  TextureRef textures[TEXTURE_SLOT_COUNT];
};

#ifdef __cplusplus
inline uint materialClassOf(const Material& m) {
#else
uint materialClassOf(Material m) {
#endif
  if (m.model == MATERIAL_MODEL_CAR_PAINT) return MATERIAL_CLASS_CAR_PAINT;
  if (m.transmissionFactor > 0.0f) return MATERIAL_CLASS_TRANSMISSION;
  if (m.clearcoatFactor > 0.0f) return MATERIAL_CLASS_CLEARCOAT;
  if (m.sheenColorFactor.x > 0.0f || m.sheenColorFactor.y > 0.0f || m.sheenColorFactor.z > 0.0f)
    return MATERIAL_CLASS_SHEEN;
  bool textured = false;
  for (uint slot = 0; slot < TEXTURE_SLOT_COUNT; ++slot) textured = textured || m.textures[slot].texture != NO_TEXTURE;
  bool diffuse = !textured && m.metallicFactor == 0.0f && m.alphaMode == ALPHA_OPAQUE;
  return diffuse ? MATERIAL_CLASS_DIFFUSE : MATERIAL_CLASS_METALLIC_ROUGHNESS;
}

// Whether traversal must ask the shaders about this material's candidate hits (the any-hit
// shader, the ray query's candidate loop, the software BVH's BVH_TRIANGLE_NON_OPAQUE): an alpha
// mask or blend, or a thin wall (transmission without KHR_materials_volume's thickness) that
// shadow rays may pass (traceShadow). The rest is opaque to every ray, and traversal alone
// decides.
#ifdef __cplusplus
inline bool materialNeedsCandidateTest(const Material& m) {
#else
bool materialNeedsCandidateTest(Material m) {
#endif
  bool thinWall = m.model == MATERIAL_MODEL_GLTF && m.transmissionFactor > 0.0f && m.thicknessFactor <= 0.0f;
  return m.alphaMode != ALPHA_OPAQUE || thinWall;
}

// An emissive triangle, for next-event estimation.
struct EmissiveTriangle {
  uint instance;
  uint geometry;
  uint triangle;
  float power;  // emitted flux / pi: luminance of emission x world area
};

// Walker's alias table over the emissive triangles, proportional to power.
struct AliasEntry {
  float probability;  // of keeping this entry rather than taking its alias
  uint alias;
  float pdf;  // of choosing this entry overall (power / total power)
  uint pad;
};

PTBENCH_CONST uint LIGHT_POINT = 0;
PTBENCH_CONST uint LIGHT_SPOT = 1;
PTBENCH_CONST uint LIGHT_DIRECTIONAL = 2;

// KHR_lights_punctual, in world space.
struct PunctualLight {
  vec3 position;
  uint type;
  vec3 direction;  // the direction light travels (the node's -Z)
  float range;     // 0: infinite
  vec3 intensity;  // colour x intensity
  float innerConeCos;
  float outerConeCos;
  uint pad0;
  uint pad1;
  uint pad2;
};

PTBENCH_END_NAMESPACE
#endif
