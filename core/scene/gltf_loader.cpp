#include "core/scene/gltf_loader.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <stb_image.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <tiny_gltf.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <numbers>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <string_view>
#include <thread>

#include "core/errors.h"
#include "core/input_file.h"
#include "core/json_depth.h"
#include "core/progress.h"
#include "core/scene/bvh/thread_budget.h"

namespace ptbench {
namespace {

// Extensions whose data ptbench reads; any other in extensionsRequired is refused.
// KHR_materials_unlit is not among them: its materials would be shaded as lit.
const std::set<std::string> supportedExtensions = {"KHR_materials_emissive_strength",
                                                   "KHR_texture_transform",
                                                   "KHR_materials_transmission",
                                                   "KHR_materials_ior",
                                                   "KHR_materials_specular",
                                                   "KHR_materials_clearcoat",
                                                   "KHR_materials_sheen",
                                                   "KHR_materials_volume",
                                                   "KHR_lights_punctual",
                                                   "KHR_mesh_quantization"};

// Material extensions the shaders render. Any other that a scene uses is loaded (or ignored)
// without shading, and named in a warning: the image lacks its effect.
const std::set<std::string> shadedMaterialExtensions = {"KHR_materials_emissive_strength",
                                                        "KHR_materials_ior",
                                                        "KHR_materials_specular",
                                                        "KHR_materials_transmission",
                                                        "KHR_materials_volume",
                                                        "KHR_materials_clearcoat",
                                                        "KHR_materials_sheen"};

constexpr int modeTriangles = 4;

// A URI as a message shows it: a data URI can be megabytes long.
std::string shownUri(const std::string& uri) {
  return uri.size() > 64 ? uri.substr(0, 61) + "..." : uri;
}

// Why tinygltf found no file for a buffer or image URI, and what it would take: glTF URIs are
// relative references from the glTF file's folder, or base64 data URIs of the types it names.
std::string missingUriReason(const std::string& uri, const std::filesystem::path& gltf) {
  const std::string folder = std::filesystem::absolute(gltf).parent_path().string();
  if (uri.starts_with("data:"))
    return "not a data URI ptbench reads; embed a buffer as data:application/octet-stream;base64,... (or "
           "data:application/gltf-buffer;base64,...) and an image as data:image/png;base64,... or "
           "data:image/jpeg;base64,...";
  if (uri.starts_with("file:") || uri.starts_with("/"))
    return "an absolute path or file: URI, which glTF does not allow: URIs are relative to the glTF file's folder (" +
           folder + "); give the path relative to it";
  return "no such file in " + folder + " (glTF URIs are relative to the glTF file's folder)";
}

// tinygltf's "File not found : URI" and "Failed to decode 'uri' : URI in Buffer", said with
// the reason and what would be accepted; other lines as they are.
std::string explainUriErrors(const std::string& errors, const std::filesystem::path& gltf) {
  std::string explained;
  std::istringstream lines(errors);
  for (std::string line; std::getline(lines, line);) {
    static const std::string notFound = "File not found : ", undecodable = "Failed to decode 'uri' : ";
    if (line.starts_with(notFound)) {
      const std::string uri = line.substr(notFound.size());
      line = "URI " + shownUri(uri) + ": " + missingUriReason(uri, gltf);
    } else if (line.starts_with(undecodable) && line.ends_with(" in Buffer")) {
      const std::string uri = line.substr(undecodable.size(), line.size() - undecodable.size() - 10);
      line = "buffer URI " + shownUri(uri) +
             ": its base64 data cannot be decoded (or has fewer bytes than its byteLength)";
    }
    explained += (explained.empty() ? "" : "\n") + line;
  }
  return explained;
}

class GltfReader {
 public:
  GltfReader(const std::filesystem::path& path, tinygltf::Model& model, unsigned threads)
      : path_(path), model_(model), builder_(path.string()), threads_(threads) {}

  SceneData read();

 private:
  [[noreturn]] void fail(const std::string& what) const { throw UserError(path_.string() + ": " + what); }
  // node 3 ("Wheel"), for messages.
  std::string nodeName(int nodeIndex) const {
    const std::string& name = model_.nodes[size_t(nodeIndex)].name;
    return "node " + std::to_string(nodeIndex) + (name.empty() ? "" : " (\"" + name + "\")");
  }

  // Where an accessor's elements lie, checked to fit inside its buffer view and buffer.
  struct ElementBytes {
    const uint8_t* first;
    size_t stride;
  };
  ElementBytes locate(const tinygltf::Accessor& accessor, size_t elementBytes, const std::string& name) const;
  std::vector<float> readAccessor(int accessorIndex, int components, const std::string& what) const;
  std::vector<uint32_t> readIndices(int accessorIndex) const;
  int colorComponents(const tinygltf::Primitive& source) const;
  uint32_t material(int gltfMaterial);
  // `what` names the texture for messages: material 3 ("Paint") normalTexture.
  gpu::TextureRef textureRef(int textureIndex, int texCoord, const tinygltf::ExtensionMap& extensions, bool srgb,
                             const std::string& what);
  gpu::TextureRef textureRef(const tinygltf::Value& info, bool srgb, const std::string& what);
  uint32_t texture(int textureIndex, bool srgb);
  // The deepest node below a scene's root that the recursive walks below visit.
  static constexpr int maxNodeDepth = 256;
  void checkNodeTrees(const std::vector<int>& roots) const;
  void checkLight(size_t index) const;
  std::vector<int> meshesInVisitOrder(const std::vector<int>& roots) const;
  void addMeshes(const std::vector<int>& roots);
  Primitive primitive(const tinygltf::Primitive& source, uint32_t material) const;
  void takeFaceNormalsWhereNone(Primitive& primitive) const;
  void visit(int nodeIndex, const Mat4& parent);
  // body(begin, end) over the chunks of [0, count): on the threads the budget spares, when
  // there is one and the count is large.
  template <typename Body>
  void inChunks(size_t count, Body&& body) const {
    constexpr uint32_t elementsPerChunk = 1 << 16;
    if (budget_ == nullptr || count <= elementsPerChunk || count > UINT32_MAX) return body(0, count);
    const Chunks chunks{.begin = 0, .end = uint32_t(count), .size = elementsPerChunk};
    parallelFor(*budget_, chunks.count(), [&](size_t chunk) { body(chunks.first(chunk), chunks.last(chunk)); });
  }
  std::vector<CameraAnimation> cameraAnimations() const;
  std::vector<std::string> unshadedMaterialExtensions() const;

  const std::filesystem::path& path_;
  tinygltf::Model& model_;
  SceneBuilder builder_;
  std::map<int, uint32_t> materials_;
  std::map<std::pair<int, bool>, uint32_t> textures_;
  std::map<int, uint32_t> meshes_;
  std::optional<uint32_t> defaultMaterial_;
  unsigned threads_;
  // The threads addMeshes() has to spare, lent to the element loops of a primitive large enough
  // to be worth them, so that a scene of one huge mesh is not read on one thread.
  mutable ThreadBudget* budget_ = nullptr;
  uint32_t skippedPrimitives_ = 0;
  bool haveCamera_ = false;
  // The scene camera's node and its parent's world transform: what its animations move.
  int cameraNode_ = -1;
  Mat4 cameraParent_;
};

Mat4 nodeTransform(const tinygltf::Node& node) {
  Mat4 m;
  if (node.matrix.size() == 16) {
    for (int i = 0; i < 16; ++i) m.m[i] = static_cast<float>(node.matrix[i]);
    return m;
  }
  if (node.translation.size() == 3)
    m = Mat4::translation({float(node.translation[0]), float(node.translation[1]), float(node.translation[2])});
  if (node.rotation.size() == 4)
    m = m * Mat4::rotation(float(node.rotation[0]), float(node.rotation[1]), float(node.rotation[2]),
                           float(node.rotation[3]));
  if (node.scale.size() == 3) m = m * Mat4::scale({float(node.scale[0]), float(node.scale[1]), float(node.scale[2])});
  return m;
}

double number(const tinygltf::Value& object, const char* key, double fallback) {
  if (!object.IsObject() || !object.Has(key)) return fallback;
  const auto& value = object.Get(key);
  return value.IsNumber() || value.IsInt() ? value.GetNumberAsDouble() : fallback;
}

gpu::vec3 vector3(const tinygltf::Value& object, const char* key, gpu::vec3 fallback) {
  if (!object.IsObject() || !object.Has(key)) return fallback;
  const auto& value = object.Get(key);
  if (!value.IsArray() || value.ArrayLen() < 3) return fallback;
  return {float(value.Get(0).GetNumberAsDouble()), float(value.Get(1).GetNumberAsDouble()),
          float(value.Get(2).GetNumberAsDouble())};
}

const tinygltf::Value* extension(const tinygltf::ExtensionMap& extensions, const char* name) {
  const auto found = extensions.find(name);
  return found == extensions.end() ? nullptr : &found->second;
}

TextureFilter filterOf(int gltfFilter, TextureFilter fallback) {
  switch (gltfFilter) {
    case TINYGLTF_TEXTURE_FILTER_NEAREST:
    case TINYGLTF_TEXTURE_FILTER_NEAREST_MIPMAP_NEAREST:
    case TINYGLTF_TEXTURE_FILTER_NEAREST_MIPMAP_LINEAR:
      return TextureFilter::Nearest;
    case TINYGLTF_TEXTURE_FILTER_LINEAR:
    case TINYGLTF_TEXTURE_FILTER_LINEAR_MIPMAP_NEAREST:
    case TINYGLTF_TEXTURE_FILTER_LINEAR_MIPMAP_LINEAR:
      return TextureFilter::Linear;
    default:
      return fallback;
  }
}

TextureFilter mipFilterOf(int gltfMinFilter) {
  return gltfMinFilter == TINYGLTF_TEXTURE_FILTER_NEAREST_MIPMAP_NEAREST ||
                 gltfMinFilter == TINYGLTF_TEXTURE_FILTER_LINEAR_MIPMAP_NEAREST
             ? TextureFilter::Nearest
             : TextureFilter::Linear;
}

TextureWrap wrapOf(int gltfWrap) {
  switch (gltfWrap) {
    case TINYGLTF_TEXTURE_WRAP_CLAMP_TO_EDGE:
      return TextureWrap::ClampToEdge;
    case TINYGLTF_TEXTURE_WRAP_MIRRORED_REPEAT:
      return TextureWrap::MirroredRepeat;
    default:
      return TextureWrap::Repeat;
  }
}

// An accessor without a buffer reads as zeros; one that claims more has no meaning worth the memory.
constexpr size_t maxZeroAccessorElements = size_t{1} << 24;

GltfReader::ElementBytes GltfReader::locate(const tinygltf::Accessor& accessor, size_t elementBytes,
                                            const std::string& name) const {
  if (accessor.bufferView >= int(model_.bufferViews.size())) fail(name + " names a buffer view that does not exist");
  const auto& view = model_.bufferViews[accessor.bufferView];
  if (view.buffer < 0 || view.buffer >= int(model_.buffers.size())) fail(name + " names a buffer that does not exist");
  const auto& buffer = model_.buffers[view.buffer].data;
  const size_t stride = view.byteStride ? view.byteStride : elementBytes;
  const size_t start = view.byteOffset + accessor.byteOffset;
  // Every element takes at least a byte: a larger count is a lie, refused before the
  // arithmetic below can overflow or anything is allocated for it.
  if (accessor.count > buffer.size())
    fail(name + " claims " + std::to_string(accessor.count) + " elements, more than its buffer's " +
         std::to_string(buffer.size()) + " bytes hold");
  if (accessor.count > 0) {
    const size_t span = stride * (accessor.count - 1) + elementBytes;
    if (accessor.byteOffset + span > view.byteLength || start + span > buffer.size())
      fail(name + " reads bytes " + std::to_string(start) + ".." + std::to_string(start + span) +
           " beyond its buffer of " + std::to_string(buffer.size()) + " bytes (or its view of " +
           std::to_string(view.byteLength) + ")");
  }
  return {buffer.data() + start, stride};
}

std::vector<float> GltfReader::readAccessor(int accessorIndex, int components, const std::string& what) const {
  if (accessorIndex < 0 || accessorIndex >= int(model_.accessors.size()))
    fail(what + " names accessor " + std::to_string(accessorIndex) + ", which does not exist");
  const auto& accessor = model_.accessors[accessorIndex];
  const std::string name = what + " (accessor " + std::to_string(accessorIndex) + ")";
  if (accessor.sparse.isSparse) fail(name + " is sparse, which ptbench does not read");
  const int accessorComponents = tinygltf::GetNumComponentsInType(accessor.type);
  if (accessorComponents != components)
    fail(name + " has " + std::to_string(accessorComponents) + " components, expected " + std::to_string(components));
  if (accessor.bufferView < 0) {  // all zeros, as the specification says
    if (accessor.count > maxZeroAccessorElements)
      fail(name + " has no buffer and claims " + std::to_string(accessor.count) + " elements; ptbench takes " +
           std::to_string(maxZeroAccessorElements) + " at most");
    return std::vector<float>(accessor.count * components, 0.0f);
  }
  const int componentBytes = tinygltf::GetComponentSizeInBytes(accessor.componentType);
  if (componentBytes <= 0) fail(name + " has an unknown component type");
  // Located, so bounds-checked against the buffer, before anything is allocated.
  // Named, not bound: the chunks' lambda below captures them (clang refuses structured bindings).
  const ElementBytes located = locate(accessor, size_t(componentBytes) * components, name);
  const uint8_t* const first = located.first;
  const size_t stride = located.stride;
  switch (accessor.componentType) {
    case TINYGLTF_COMPONENT_TYPE_FLOAT:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE:
    case TINYGLTF_COMPONENT_TYPE_BYTE:
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT:
    case TINYGLTF_COMPONENT_TYPE_SHORT:
      break;
    default:
      fail(name + " has a component type ptbench cannot read as vertex data");
  }
  std::vector<float> values(accessor.count * components, 0.0f);
  inChunks(accessor.count, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const uint8_t* element = first + i * stride;
      for (int c = 0; c < components; ++c) {
        const uint8_t* p = element + c * componentBytes;
        float v = 0;
        // Integer attributes are normalised when the accessor says so (KHR_mesh_quantization).
        switch (accessor.componentType) {
          case TINYGLTF_COMPONENT_TYPE_FLOAT:
            std::memcpy(&v, p, 4);
            break;
          case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE:
            v = accessor.normalized ? *p / 255.0f : *p;
            break;
          case TINYGLTF_COMPONENT_TYPE_BYTE: {
            const auto s = static_cast<int8_t>(*p);
            v = accessor.normalized ? std::fmax(s / 127.0f, -1.0f) : s;
            break;
          }
          case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
            uint16_t s;
            std::memcpy(&s, p, 2);
            v = accessor.normalized ? s / 65535.0f : s;
            break;
          }
          case TINYGLTF_COMPONENT_TYPE_SHORT: {
            int16_t s;
            std::memcpy(&s, p, 2);
            v = accessor.normalized ? std::fmax(s / 32767.0f, -1.0f) : s;
            break;
          }
        }
        values[i * components + c] = v;
      }
    }
  });
  return values;
}

std::vector<uint32_t> GltfReader::readIndices(int accessorIndex) const {
  const std::string name = "indices (accessor " + std::to_string(accessorIndex) + ")";
  if (accessorIndex >= int(model_.accessors.size())) fail(name + " does not exist");
  const auto& accessor = model_.accessors[accessorIndex];
  if (accessor.type != TINYGLTF_TYPE_SCALAR) fail(name + " is not scalar");
  if (accessor.bufferView < 0) fail(name + " has no buffer view");
  const int bytes = tinygltf::GetComponentSizeInBytes(accessor.componentType);
  if (bytes != 1 && bytes != 2 && bytes != 4) fail(name + " has a component type that is not an unsigned integer");
  const ElementBytes located = locate(accessor, size_t(bytes), name);
  const uint8_t* const first = located.first;
  const size_t stride = located.stride;
  std::vector<uint32_t> indices(accessor.count);
  inChunks(accessor.count, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const uint8_t* p = first + i * stride;
      uint32_t v = 0;
      if (bytes == 1) v = *p;
      if (bytes == 2) {
        uint16_t s;
        std::memcpy(&s, p, 2);
        v = s;
      }
      if (bytes == 4) std::memcpy(&v, p, 4);
      indices[i] = v;
    }
  });
  return indices;
}

// COLOR_0's components (3 or 4; 0 without one), checked to be of a type the specification
// allows: float, or unsigned byte or short normalized.
int GltfReader::colorComponents(const tinygltf::Primitive& source) const {
  const auto found = source.attributes.find("COLOR_0");
  if (found == source.attributes.end()) return 0;
  if (found->second < 0 || found->second >= int(model_.accessors.size()))
    fail("COLOR_0 names accessor " + std::to_string(found->second) + ", which does not exist");
  const auto& accessor = model_.accessors[found->second];
  const std::string name = "COLOR_0 (accessor " + std::to_string(found->second) + ")";
  if (accessor.type != TINYGLTF_TYPE_VEC3 && accessor.type != TINYGLTF_TYPE_VEC4)
    fail(name + " is neither VEC3 nor VEC4");
  const bool normalizedUnsigned =
      accessor.normalized && (accessor.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE ||
                              accessor.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT);
  if (accessor.componentType != TINYGLTF_COMPONENT_TYPE_FLOAT && !normalizedUnsigned)
    fail(name + " is neither float nor normalized unsigned byte or short, as glTF requires of colours");
  return tinygltf::GetNumComponentsInType(accessor.type);
}

uint32_t GltfReader::texture(int textureIndex, bool srgb) {
  const auto key = std::make_pair(textureIndex, srgb);
  if (const auto found = textures_.find(key); found != textures_.end()) return found->second;
  if (textureIndex < 0 || textureIndex >= int(model_.textures.size()))
    fail("a material names texture " + std::to_string(textureIndex) + ", which does not exist");
  const auto& source = model_.textures[textureIndex];
  if (source.source < 0 || source.source >= int(model_.images.size()))
    fail("texture " + std::to_string(textureIndex) + " has no image ptbench can read (PNG or JPEG)");
  const auto& image = model_.images[source.source];
  if (image.image.empty() || image.width <= 0 || image.height <= 0) {
    // tinygltf only warns of an image file it cannot find, leaving the image empty.
    std::error_code error;
    if (!image.uri.empty() && !image.uri.starts_with("data:") && image.uri.find('%') == std::string::npos &&
        !std::filesystem::is_regular_file(path_.parent_path() / image.uri, error))
      fail("image " + std::to_string(source.source) + " (" + shownUri(image.uri) +
           "): " + missingUriReason(image.uri, path_));
    fail("image " + std::to_string(source.source) + " (" + shownUri(image.uri) + ") could not be decoded");
  }
  TextureImage out;
  out.name = image.name.empty() ? image.uri : image.name;
  out.width = uint32_t(image.width);
  out.height = uint32_t(image.height);
  out.srgb = srgb;
  const size_t pixels = size_t(out.width) * out.height;
  // tinygltf asks stb for four channels, so every image arrives as RGBA (grey copied to red,
  // green and blue; alpha 1 where the file has none): the expansion is stb's alone.
  if (image.component != 4 || (image.bits != 8 && image.bits != 16))
    fail("image " + std::to_string(source.source) + " (" + image.uri + ") was decoded to " +
         std::to_string(image.component) + " channels of " + std::to_string(image.bits) +
         " bits; ptbench takes 4 channels of 8 or 16 bits");
  const size_t channelBytes = size_t(image.bits) / 8;
  if (image.image.size() < pixels * 4 * channelBytes)
    fail("image " + std::to_string(source.source) + " (" + image.uri + ") has fewer bytes than its size says");
  out.rgba8.resize(pixels * 4);
  for (size_t i = 0; i < pixels * 4; ++i) {
    // 16-bit: the high byte of a sample (big-endian in the file, decoded to host order by stb).
    uint16_t sample = 0;
    if (channelBytes == 2) std::memcpy(&sample, &image.image[i * 2], 2);
    out.rgba8[i] = channelBytes == 2 ? uint8_t(sample >> 8) : image.image[i];
  }
  double sum[3] = {0, 0, 0};
  for (size_t i = 0; i < pixels; ++i)
    for (int c = 0; c < 3; ++c) sum[c] += texelToLinear(out.rgba8[i * 4 + c], srgb);
  const double pixelCount = double(pixels);
  out.averageLinearColor = {float(sum[0] / pixelCount), float(sum[1] / pixelCount), float(sum[2] / pixelCount)};
  if (source.sampler >= 0 && source.sampler < int(model_.samplers.size())) {
    const auto& sampler = model_.samplers[source.sampler];
    out.sampler.magFilter = filterOf(sampler.magFilter, TextureFilter::Linear);
    out.sampler.minFilter = filterOf(sampler.minFilter, TextureFilter::Linear);
    out.sampler.mipFilter = mipFilterOf(sampler.minFilter);
    out.sampler.wrapU = wrapOf(sampler.wrapS);
    out.sampler.wrapV = wrapOf(sampler.wrapT);
  }
  const uint32_t index = builder_.addTexture(std::move(out));
  textures_[key] = index;
  return index;
}

gpu::TextureRef GltfReader::textureRef(int textureIndex, int texCoord, const tinygltf::ExtensionMap& extensions,
                                       bool srgb, const std::string& what) {
  gpu::TextureRef ref = noTexture();
  if (textureIndex < 0) return ref;
  ref.texture = int(texture(textureIndex, srgb));
  const auto* transform = extension(extensions, "KHR_texture_transform");
  if (transform && transform->Has("texCoord")) texCoord = int(number(*transform, "texCoord", 0));
  // A vertex carries two sets; reading uv0 for any other would texture the surface wrongly.
  if (texCoord != 0 && texCoord != 1)
    fail(what + " reads TEXCOORD_" + std::to_string(texCoord) + "; ptbench reads TEXCOORD_0 and TEXCOORD_1");
  ref.texCoord = uint32_t(texCoord);
  if (transform) {
    float offset[2] = {0, 0}, scale[2] = {1, 1};
    if (transform->Has("offset") && transform->Get("offset").ArrayLen() == 2)
      for (int i = 0; i < 2; ++i) offset[i] = float(transform->Get("offset").Get(i).GetNumberAsDouble());
    if (transform->Has("scale") && transform->Get("scale").ArrayLen() == 2)
      for (int i = 0; i < 2; ++i) scale[i] = float(transform->Get("scale").Get(i).GetNumberAsDouble());
    const float rotation = float(number(*transform, "rotation", 0));
    // The specification's translation x rotation x scale, as two rows of a 3x3 matrix.
    const float c = std::cos(rotation), s = std::sin(rotation);
    ref.transformRow0 = {c * scale[0], s * scale[1], offset[0]};
    ref.transformRow1 = {-s * scale[0], c * scale[1], offset[1]};
  }
  return ref;
}

// A textureInfo inside a material extension, which tinygltf leaves as a JSON value.
gpu::TextureRef GltfReader::textureRef(const tinygltf::Value& info, bool srgb, const std::string& what) {
  if (!info.IsObject() || !info.Has("index")) return noTexture();
  tinygltf::ExtensionMap extensions;
  if (info.Has("extensions") && info.Get("extensions").Has("KHR_texture_transform"))
    extensions["KHR_texture_transform"] = info.Get("extensions").Get("KHR_texture_transform");
  return textureRef(int(number(info, "index", -1)), int(number(info, "texCoord", 0)), extensions, srgb, what);
}

uint32_t GltfReader::material(int gltfMaterial) {
  if (gltfMaterial < 0) {
    if (!defaultMaterial_) defaultMaterial_ = builder_.addMaterial(defaultMaterial());
    return *defaultMaterial_;
  }
  if (const auto found = materials_.find(gltfMaterial); found != materials_.end()) return found->second;
  if (gltfMaterial >= int(model_.materials.size()))
    fail("a primitive names material " + std::to_string(gltfMaterial) + ", which does not exist");
  const auto& source = model_.materials[gltfMaterial];
  const auto& pbr = source.pbrMetallicRoughness;
  const std::string name =
      "material " + std::to_string(gltfMaterial) + (source.name.empty() ? "" : " (\"" + source.name + "\")");
  // A core textureInfo, and one inside a material extension (a JSON value to tinygltf).
  auto coreTexture = [&](const auto& info, const char* slot, bool srgb) {
    return textureRef(info.index, info.texCoord, info.extensions, srgb, name + " " + slot);
  };
  auto extensionTexture = [&](const tinygltf::Value& extensionValue, const char* extensionName, const char* slot,
                              bool srgb) {
    return extensionValue.Has(slot)
               ? textureRef(extensionValue.Get(slot), srgb, name + " " + extensionName + " " + slot)
               : noTexture();
  };
  gpu::Material m = defaultMaterial();
  // glTF bounds these to [0, 1]; beyond it a base colour of 2 is a lobe probability above 1,
  // which ends every path at its first hit (a black image). Clamped, and said.
  const auto unit = [&](double value, const char* factor) {
    if (value >= 0 && value <= 1) return float(value);
    spdlog::warn("{}: {}'s {} {} lies outside glTF's 0 to 1; clamped", path_.string(), name, factor, value);
    return float(std::clamp(value, 0.0, 1.0));
  };
  m.baseColorFactor = {unit(pbr.baseColorFactor[0], "baseColorFactor"), unit(pbr.baseColorFactor[1], "baseColorFactor"),
                       unit(pbr.baseColorFactor[2], "baseColorFactor"),
                       unit(pbr.baseColorFactor[3], "baseColorFactor")};
  m.metallicFactor = unit(pbr.metallicFactor, "metallicFactor");
  m.roughnessFactor = unit(pbr.roughnessFactor, "roughnessFactor");
  m.textures[gpu::SLOT_BASE_COLOR] = coreTexture(pbr.baseColorTexture, "baseColorTexture", true);
  m.textures[gpu::SLOT_METALLIC_ROUGHNESS] =
      coreTexture(pbr.metallicRoughnessTexture, "metallicRoughnessTexture", false);
  m.textures[gpu::SLOT_NORMAL] = coreTexture(source.normalTexture, "normalTexture", false);
  m.normalScale = float(source.normalTexture.scale);
  m.textures[gpu::SLOT_OCCLUSION] = coreTexture(source.occlusionTexture, "occlusionTexture", false);
  m.occlusionStrength = float(source.occlusionTexture.strength);
  m.textures[gpu::SLOT_EMISSIVE] = coreTexture(source.emissiveTexture, "emissiveTexture", true);
  float emissiveStrength = 1;
  if (const auto* strength = extension(source.extensions, "KHR_materials_emissive_strength"))
    emissiveStrength = float(number(*strength, "emissiveStrength", 1));
  m.emissiveFactor = {float(source.emissiveFactor[0]) * emissiveStrength,
                      float(source.emissiveFactor[1]) * emissiveStrength,
                      float(source.emissiveFactor[2]) * emissiveStrength};
  m.alphaMode = source.alphaMode == "MASK"    ? gpu::ALPHA_MASK
                : source.alphaMode == "BLEND" ? gpu::ALPHA_BLEND
                                              : gpu::ALPHA_OPAQUE;
  m.alphaCutoff = float(source.alphaCutoff);
  m.doubleSided = source.doubleSided ? 1u : 0u;

  if (const auto* iorExtension = extension(source.extensions, "KHR_materials_ior")) {
    // 0 is the extension's infinite IOR (a perfect reflector); other values below 1 are invalid.
    const double ior = number(*iorExtension, "ior", 1.5);
    m.ior = ior == 0 ? 1e4f : float(std::max(ior, 1.0));
  }
  if (const auto* specular = extension(source.extensions, "KHR_materials_specular")) {
    m.specularFactor = float(number(*specular, "specularFactor", 1));
    m.specularColorFactor = vector3(*specular, "specularColorFactor", {1, 1, 1});
    m.textures[gpu::SLOT_SPECULAR] = extensionTexture(*specular, "KHR_materials_specular", "specularTexture", false);
    m.textures[gpu::SLOT_SPECULAR_COLOR] =
        extensionTexture(*specular, "KHR_materials_specular", "specularColorTexture", true);
  }
  if (const auto* transmission = extension(source.extensions, "KHR_materials_transmission")) {
    m.transmissionFactor = float(number(*transmission, "transmissionFactor", 0));
    m.textures[gpu::SLOT_TRANSMISSION] =
        extensionTexture(*transmission, "KHR_materials_transmission", "transmissionTexture", false);
  }
  if (const auto* clearcoat = extension(source.extensions, "KHR_materials_clearcoat")) {
    m.clearcoatFactor = float(number(*clearcoat, "clearcoatFactor", 0));
    m.clearcoatRoughnessFactor = float(number(*clearcoat, "clearcoatRoughnessFactor", 0));
    m.textures[gpu::SLOT_CLEARCOAT] =
        extensionTexture(*clearcoat, "KHR_materials_clearcoat", "clearcoatTexture", false);
    m.textures[gpu::SLOT_CLEARCOAT_ROUGHNESS] =
        extensionTexture(*clearcoat, "KHR_materials_clearcoat", "clearcoatRoughnessTexture", false);
    m.textures[gpu::SLOT_CLEARCOAT_NORMAL] =
        extensionTexture(*clearcoat, "KHR_materials_clearcoat", "clearcoatNormalTexture", false);
    if (clearcoat->Has("clearcoatNormalTexture"))
      m.clearcoatNormalScale = float(number(clearcoat->Get("clearcoatNormalTexture"), "scale", 1));
  }
  if (const auto* sheen = extension(source.extensions, "KHR_materials_sheen")) {
    m.sheenColorFactor = vector3(*sheen, "sheenColorFactor", {0, 0, 0});
    m.sheenRoughnessFactor = float(number(*sheen, "sheenRoughnessFactor", 0));
    m.textures[gpu::SLOT_SHEEN_COLOR] = extensionTexture(*sheen, "KHR_materials_sheen", "sheenColorTexture", true);
    m.textures[gpu::SLOT_SHEEN_ROUGHNESS] =
        extensionTexture(*sheen, "KHR_materials_sheen", "sheenRoughnessTexture", false);
  }
  if (const auto* volume = extension(source.extensions, "KHR_materials_volume")) {
    m.thicknessFactor = float(number(*volume, "thicknessFactor", 0));
    m.attenuationColor = vector3(*volume, "attenuationColor", {1, 1, 1});
    m.attenuationDistance = float(number(*volume, "attenuationDistance", INFINITY));
    // The extension requires a positive distance; anything else would attenuate to NaN.
    if (!(m.attenuationDistance > 0)) m.attenuationDistance = INFINITY;
    m.textures[gpu::SLOT_THICKNESS] = extensionTexture(*volume, "KHR_materials_volume", "thicknessTexture", false);
  }
  const uint32_t index = builder_.addMaterial(m, source.name);
  materials_[gltfMaterial] = index;
  return index;
}

// Per-vertex tangents for a normal texture, from the derivatives of its own coordinates (its
// set, after its KHR_texture_transform), summed over the triangles sharing a vertex. glTF's v
// runs down the image, so the texture's +Y (the normal map's green) is -dP/dv: the sign w makes
// cross(n, t) * w point that way, as MikkTSpace and the exporters that use it do.
void generateTangents(Primitive& p, const gpu::TextureRef& normalTexture) {
  std::vector<Vec3> tangents(p.vertices.size()), textureUps(p.vertices.size());
  for (size_t t = 0; t + 2 < p.indices.size(); t += 3) {
    const uint32_t i[3] = {p.indices[t], p.indices[t + 1], p.indices[t + 2]};
    const auto& v0 = p.vertices[i[0]];
    const auto& v1 = p.vertices[i[1]];
    const auto& v2 = p.vertices[i[2]];
    const Vec3 e1 =
        Vec3{v1.position.x, v1.position.y, v1.position.z} - Vec3{v0.position.x, v0.position.y, v0.position.z};
    const Vec3 e2 =
        Vec3{v2.position.x, v2.position.y, v2.position.z} - Vec3{v0.position.x, v0.position.y, v0.position.z};
    const gpu::vec2 uv0 = textureUv(normalTexture, v0);
    const gpu::vec2 uv1 = textureUv(normalTexture, v1);
    const gpu::vec2 uv2 = textureUv(normalTexture, v2);
    const float du1 = uv1.x - uv0.x, dv1 = uv1.y - uv0.y;
    const float du2 = uv2.x - uv0.x, dv2 = uv2.y - uv0.y;
    const float det = du1 * dv2 - du2 * dv1;
    if (std::fabs(det) < 1e-12f) continue;
    const Vec3 dPdu = (e1 * dv2 - e2 * dv1) * (1 / det);
    const Vec3 dPdv = (e2 * du1 - e1 * du2) * (1 / det);
    for (uint32_t k : i) {
      tangents[k] = tangents[k] + dPdu;
      textureUps[k] = textureUps[k] - dPdv;
    }
  }
  for (size_t k = 0; k < p.vertices.size(); ++k) {
    const Vec3 n{p.vertices[k].normal.x, p.vertices[k].normal.y, p.vertices[k].normal.z};
    Vec3 t = tangents[k] - n * dot(n, tangents[k]);
    if (length(t) < 1e-12f) t = std::fabs(n.x) < 0.9f ? cross(n, {1, 0, 0}) : cross(n, {0, 1, 0});
    t = normalize(t);
    const float sign = dot(cross(n, t), textureUps[k]) < 0 ? -1.0f : 1.0f;
    p.vertices[k].tangent = {t.x, t.y, t.z, sign};
  }
}

// glTF's NORMALs are unit vectors; a file's may not be. Each is normalised as it is read (in
// double: one of length 1e-30 would underflow in the shader's float); one of no length at all
// comes out (0, 0, 0).
gpu::vec3 unitNormal(float x, float y, float z) {
  const double length = std::sqrt(double(x) * x + double(y) * y + double(z) * z);
  if (!(length > 0)) return {0, 0, 0};
  return {float(x / length), float(y / length), float(z / length)};
}

// The vertices whose NORMAL had no length (unitNormal) take the area-weighted mean of their
// triangles' face normals, with a warning: left as they were, they shaded black.
void GltfReader::takeFaceNormalsWhereNone(Primitive& primitive) const {
  std::vector<bool> none(primitive.vertices.size());
  size_t count = 0;
  for (size_t v = 0; v < primitive.vertices.size(); ++v) {
    const auto& n = primitive.vertices[v].normal;
    none[v] = n.x == 0 && n.y == 0 && n.z == 0;
    count += none[v];
  }
  for (size_t t = 0; t + 2 < primitive.indices.size(); t += 3) {
    const uint32_t i[3] = {primitive.indices[t], primitive.indices[t + 1], primitive.indices[t + 2]};
    const auto at = [&](uint32_t k) {
      const auto& p = primitive.vertices[k].position;
      return Vec3{p.x, p.y, p.z};
    };
    const Vec3 face = cross(at(i[1]) - at(i[0]), at(i[2]) - at(i[0]));  // twice the area, outward
    for (uint32_t k : i)
      if (none[k]) {
        auto& n = primitive.vertices[k].normal;
        n = {n.x + face.x, n.y + face.y, n.z + face.z};
      }
  }
  for (size_t k = 0; k < none.size(); ++k) {
    if (!none[k]) continue;
    auto& n = primitive.vertices[k].normal;
    const float length = std::sqrt(n.x * n.x + n.y * n.y + n.z * n.z);
    n = length > 0 ? gpu::vec3{n.x / length, n.y / length, n.z / length} : gpu::vec3{0, 0, 1};
  }
  spdlog::warn("{}: {} NORMAL value(s) of no length; those vertices take their triangles' face normal", path_.string(),
               count);
}

Primitive GltfReader::primitive(const tinygltf::Primitive& source, uint32_t material) const {
  Primitive out;
  const auto position = source.attributes.find("POSITION");
  if (position == source.attributes.end()) fail("a triangle primitive has no POSITION attribute");
  const auto positions = readAccessor(position->second, 3, "POSITION");
  const size_t vertexCount = positions.size() / 3;
  for (size_t i = 0; i < positions.size(); i += 3)
    if (!withinSceneBounds({positions[i], positions[i + 1], positions[i + 2]}))
      fail("POSITION (accessor " + std::to_string(position->second) + ") has a coordinate at vertex " +
           std::to_string(i / 3) + " that is NaN, infinite or beyond ±" + fmt::format("{:g}", maxSceneCoordinate) +
           " (the most ptbench's BVHs hold)");
  std::vector<uint32_t> indices;
  if (source.indices >= 0) {
    indices = readIndices(source.indices);
  } else {
    indices.resize(vertexCount);
    for (uint32_t i = 0; i < vertexCount; ++i) indices[i] = i;
  }
  indices.resize(indices.size() / 3 * 3);
  for (uint32_t index : indices)
    if (index >= vertexCount)
      fail("an index (" + std::to_string(index) + ") is beyond the primitive's " + std::to_string(vertexCount) +
           " vertices");

  auto optional = [&](const char* attribute, int components) {
    const auto found = source.attributes.find(attribute);
    if (found == source.attributes.end()) return std::vector<float>{};
    auto values = readAccessor(found->second, components, attribute);
    if (values.size() != vertexCount * components)
      fail(std::string(attribute) + " has a different count than POSITION");
    // A NaN normal, tangent or texture coordinate turns every path that meets it into NaN.
    for (size_t i = 0; i < values.size(); ++i)
      if (!std::isfinite(values[i]))
        fail(std::string(attribute) + " (accessor " + std::to_string(found->second) +
             ") has a NaN or infinite value at vertex " + std::to_string(i / size_t(components)));
    return values;
  };
  const auto normals = optional("NORMAL", 3);
  const auto uv0 = optional("TEXCOORD_0", 2);
  const auto uv1 = optional("TEXCOORD_1", 2);
  const auto tangents = optional("TANGENT", 4);
  const int colorSize = colorComponents(source);
  const auto colors = optional("COLOR_0", colorSize);

  out.material = material;
  out.vertices.resize(vertexCount);
  std::atomic<bool> anyWithoutLength = false;
  inChunks(vertexCount, [&](size_t begin, size_t end) {
    for (size_t v = begin; v < end; ++v) {
      auto& vertex = out.vertices[v];
      vertex.position = {positions[3 * v], positions[3 * v + 1], positions[3 * v + 2]};
      if (!normals.empty()) {
        vertex.normal = unitNormal(normals[3 * v], normals[3 * v + 1], normals[3 * v + 2]);
        if (vertex.normal.x == 0 && vertex.normal.y == 0 && vertex.normal.z == 0)
          anyWithoutLength.store(true, std::memory_order_relaxed);
      }
      if (!uv0.empty()) vertex.uv0 = {uv0[2 * v], uv0[2 * v + 1]};
      if (!uv1.empty()) vertex.uv1 = {uv1[2 * v], uv1[2 * v + 1]};
      if (!tangents.empty())
        vertex.tangent = {tangents[4 * v], tangents[4 * v + 1], tangents[4 * v + 2], tangents[4 * v + 3]};
      if (!colors.empty()) {
        const float* color = &colors[colorSize * v];
        vertex.color = packVertexColor(color[0], color[1], color[2], colorSize == 4 ? color[3] : 1.0f);
      }
    }
  });
  out.indices = std::move(indices);

  if (anyWithoutLength) takeFaceNormalsWhereNone(out);
  if (normals.empty()) {
    // Flat normals: each triangle gets vertices of its own, with the face's normal.
    std::vector<gpu::Vertex> flat;
    flat.reserve(out.indices.size());
    for (size_t t = 0; t < out.indices.size(); t += 3) {
      gpu::Vertex v[3] = {out.vertices[out.indices[t]], out.vertices[out.indices[t + 1]],
                          out.vertices[out.indices[t + 2]]};
      const Vec3 p0{v[0].position.x, v[0].position.y, v[0].position.z};
      const Vec3 p1{v[1].position.x, v[1].position.y, v[1].position.z};
      const Vec3 p2{v[2].position.x, v[2].position.y, v[2].position.z};
      const Vec3 n = normalize(cross(p1 - p0, p2 - p0));
      for (auto& vertex : v) {
        vertex.normal = {n.x, n.y, n.z};
        flat.push_back(vertex);
      }
    }
    out.vertices = std::move(flat);
    for (uint32_t i = 0; i < out.indices.size(); ++i) out.indices[i] = i;
  }
  // The clearcoat's normal map needs tangents as the base's does; they follow the base's
  // texture where both have one.
  const auto& textures = builder_.material(out.material).textures;
  const auto& normalTexture = textures[gpu::SLOT_NORMAL].texture != gpu::NO_TEXTURE
                                  ? textures[gpu::SLOT_NORMAL]
                                  : textures[gpu::SLOT_CLEARCOAT_NORMAL];
  if (tangents.empty() && normalTexture.texture != gpu::NO_TEXTURE) generateTangents(out, normalTexture);
  return out;
}

// The meshes the scene's nodes reach, each once, in the order visit() meets them, so that they
// are numbered as a serial load numbers them. Broken references are left for visit() to report.
std::vector<int> GltfReader::meshesInVisitOrder(const std::vector<int>& roots) const {
  std::vector<int> order;
  std::set<int> seen;
  const std::function<void(int)> walk = [&](int nodeIndex) {
    const auto& node = model_.nodes[nodeIndex];
    if (node.mesh >= 0 && node.mesh < int(model_.meshes.size()) && seen.insert(node.mesh).second)
      order.push_back(node.mesh);
    for (int child : node.children) walk(child);
  };
  for (int root : roots) walk(root);
  return order;
}

// glTF's nodes form disjoint trees: a node has at most one parent, a scene's roots none, and
// no node is its own ancestor. A node with two parents (or listed twice by one) would be reached
// once for every path to it, which a chain of such nodes makes exponential; so it is refused, as
// is a hierarchy deeper than the walks (meshesInVisitOrder, visit) recurse.
void GltfReader::checkNodeTrees(const std::vector<int>& roots) const {
  constexpr int rootOfScene = -2, noParent = -1;
  std::vector<int> parent(model_.nodes.size(), noParent);
  const auto exists = [&](int node) { return node >= 0 && node < int(model_.nodes.size()); };
  for (int n = 0; n < int(model_.nodes.size()); ++n)
    for (int child : model_.nodes[size_t(n)].children) {
      if (!exists(child)) fail(nodeName(n) + " has child " + std::to_string(child) + ", which does not exist");
      if (parent[size_t(child)] == n) fail(nodeName(n) + " lists " + nodeName(child) + " as a child twice");
      if (parent[size_t(child)] != noParent)
        fail(nodeName(child) + " is a child of both " + nodeName(parent[size_t(child)]) + " and " + nodeName(n) +
             "; glTF nodes form disjoint trees, so a node has at most one parent (use two nodes that name the "
             "same mesh to draw it twice)");
      parent[size_t(child)] = n;
    }
  for (int root : roots) {
    if (!exists(root)) fail("the scene names node " + std::to_string(root) + ", which does not exist");
    if (parent[size_t(root)] == rootOfScene) fail("the scene lists " + nodeName(root) + " twice");
    if (parent[size_t(root)] != noParent)
      fail("the scene lists " + nodeName(root) + " as a root, but it is a child of " + nodeName(parent[size_t(root)]) +
           "; a scene's nodes are roots of their trees");
    parent[size_t(root)] = rootOfScene;
  }
  // With one parent each, and roots without one, no walk from the roots meets a node twice or a
  // cycle (a node in a cycle has its parent in the cycle); `reached` checks that all the same.
  std::vector<bool> reached(model_.nodes.size());
  std::vector<std::pair<int, int>> pending;  // (node, its depth)
  for (int root : roots) pending.emplace_back(root, 0);
  while (!pending.empty()) {
    const auto [node, depth] = pending.back();
    pending.pop_back();
    if (reached[size_t(node)]) throw std::logic_error("glTF node " + std::to_string(node) + " reached twice");
    reached[size_t(node)] = true;
    if (depth > maxNodeDepth)
      fail(nodeName(node) + " is " + std::to_string(depth) + " levels below its scene's root, deeper than the " +
           std::to_string(maxNodeDepth) + " levels ptbench reads");
    for (int child : model_.nodes[size_t(node)].children) pending.emplace_back(child, depth + 1);
  }
}

// Every mesh the scene uses, its primitives read on several threads: reading accessors and
// making vertices, normals and tangents is most of a large scene's load. Materials (which add
// textures to the builder) are made first, here, in the serial load's order; the builder gets the
// meshes afterwards, in visit order, so the scene is the same for any thread count.
void GltfReader::addMeshes(const std::vector<int>& roots) {
  struct Job {
    int mesh;
    const tinygltf::Primitive* source;
    uint32_t material;
  };
  const std::vector<int> order = meshesInVisitOrder(roots);
  std::vector<Job> jobs;
  for (int gltfMesh : order)
    for (const auto& source : model_.meshes[gltfMesh].primitives) {
      if (source.mode != -1 && source.mode != modeTriangles) {
        ++skippedPrimitives_;
        continue;
      }
      jobs.push_back({gltfMesh, &source, material(source.material)});
    }
  std::vector<Primitive> primitives(jobs.size());
  std::vector<std::exception_ptr> errors(jobs.size());
  const unsigned threads = threadsToUse(threads_);
  ThreadBudget budget(threads);
  // On one thread the loops run whole, as a serial load's: the reference the tests hold the
  // chunked ones to.
  budget_ = threads > 1 ? &budget : nullptr;
  parallelFor(budget, jobs.size(), [&](size_t i) {
    try {
      primitives[i] = primitive(*jobs[i].source, jobs[i].material);
    } catch (...) {
      errors[i] = std::current_exception();
    }
  });
  budget_ = nullptr;
  // The first broken primitive in load order is the one reported, whichever thread met it first.
  for (const auto& error : errors)
    if (error) std::rethrow_exception(error);
  size_t vertices = 0, indices = 0;
  for (const Primitive& p : primitives) {
    vertices += p.vertices.size();
    indices += p.indices.size();
  }
  builder_.reserve(vertices, indices);
  size_t next = 0;
  for (int gltfMesh : order) {
    const size_t first = next;
    while (next < jobs.size() && jobs[next].mesh == gltfMesh) ++next;
    meshes_[gltfMesh] = builder_.addMesh(std::span(primitives).subspan(first, next - first));
    for (size_t i = first; i < next; ++i) primitives[i] = {};  // the builder has copied them
  }
}

void GltfReader::visit(int nodeIndex, const Mat4& parent) {
  const auto& node = model_.nodes[nodeIndex];
  const Mat4 local = nodeTransform(node);
  if (!std::ranges::all_of(local.m, [](float v) { return std::isfinite(v); }))
    fail(nodeName(nodeIndex) + " has a matrix, translation, rotation or scale that is not finite (in float)");
  const Mat4 world = parent * local;
  if (!std::ranges::all_of(world.m, [](float v) { return std::isfinite(v); }))
    fail(nodeName(nodeIndex) + "'s transform, with its parents', is not finite (in float)");
  // A singular transform has no normal matrix (its inverse): a mesh, camera or light under one
  // would have NaN normals or directions.
  const double determinant = world.determinant3x3();
  if ((node.mesh >= 0 || node.camera >= 0 || extension(node.extensions, "KHR_lights_punctual")) &&
      !(std::isfinite(determinant) && determinant != 0))
    fail(nodeName(nodeIndex) + "'s transform, with its parents', is singular (a zero scale, or a matrix of rank " +
         "below 3), so it has no normals; give every node that carries a mesh, camera or light a scale other than 0");
  if (node.mesh >= 0) {
    const auto found = meshes_.find(node.mesh);
    if (found == meshes_.end()) fail("a node names mesh " + std::to_string(node.mesh) + ", which does not exist");
    builder_.addInstance(found->second, world, gpu::NO_MATERIAL_OVERRIDE,
                         nodeName(nodeIndex) + ", mesh " + std::to_string(node.mesh));
  }
  if (node.camera >= 0 && node.camera < int(model_.cameras.size()) && !haveCamera_ &&
      model_.cameras[node.camera].type == "perspective") {
    Camera camera;
    camera.position = world.transformPoint({0, 0, 0});
    camera.target = camera.position + normalize(world.transformVector({0, 0, -1}));
    camera.up = normalize(world.transformVector({0, 1, 0}));
    camera.yfovDegrees = float(model_.cameras[node.camera].perspective.yfov * 180.0 / 3.14159265358979);
    builder_.setCamera(camera, uint32_t(model_.cameras.size()));
    haveCamera_ = true;
    cameraNode_ = nodeIndex;
    cameraParent_ = parent;
  }
  if (const auto* lightRef = extension(node.extensions, "KHR_lights_punctual")) {
    const int lightIndex = int(number(*lightRef, "light", -1));
    if (lightIndex < 0 || lightIndex >= int(model_.lights.size()))
      fail(nodeName(nodeIndex) + "'s KHR_lights_punctual " +
           (lightIndex < 0 ? std::string("gives no light index")
                           : "names light " + std::to_string(lightIndex) + ", which does not exist") +
           " (the file has " + std::to_string(model_.lights.size()) + ")");
    {
      const auto& light = model_.lights[lightIndex];
      gpu::PunctualLight out{};
      const Vec3 p = world.transformPoint({0, 0, 0});
      const Vec3 d = normalize(world.transformVector({0, 0, -1}));
      out.position = {p.x, p.y, p.z};
      out.direction = {d.x, d.y, d.z};
      out.type = light.type == "spot"          ? gpu::LIGHT_SPOT
                 : light.type == "directional" ? gpu::LIGHT_DIRECTIONAL
                                               : gpu::LIGHT_POINT;
      out.range = float(light.range);
      const float intensity = float(light.intensity);
      const bool hasColor = light.color.size() == 3;
      out.intensity = {intensity * (hasColor ? float(light.color[0]) : 1.0f),
                       intensity * (hasColor ? float(light.color[1]) : 1.0f),
                       intensity * (hasColor ? float(light.color[2]) : 1.0f)};
      out.innerConeCos = std::cos(float(light.spot.innerConeAngle));
      out.outerConeCos = std::cos(float(light.spot.outerConeAngle));
      builder_.addPunctualLight(out);
    }
  }
  for (int child : node.children) visit(child, world);
}

// Each animation with translation or rotation channels on the scene camera's node, sampled at
// the union of those channels' times into world-space keyframes. Between two such times every
// LINEAR channel is a straight line (translation) or one arc (rotation), and the parent's
// transform is fixed, so linear keyframes with slerp reproduce the animation exactly.
std::vector<CameraAnimation> GltfReader::cameraAnimations() const {
  std::vector<CameraAnimation> animations;
  if (cameraNode_ < 0) return animations;
  const auto& node = model_.nodes[cameraNode_];
  if (node.matrix.size() == 16) return animations;  // glTF animates only nodes given as TRS
  struct Channel {
    std::vector<float> times, values;  // values: 3 or 4 a time
    int components = 0;
    // The value at `time`, held before the first time and after the last.
    std::vector<float> at(double time) const {
      const size_t n = times.size();
      size_t i = 0;
      while (i + 1 < n && times[i + 1] <= time) ++i;
      const auto value = [&](size_t k) {
        return std::vector<float>(values.begin() + long(k * components), values.begin() + long((k + 1) * components));
      };
      if (time <= times.front() || i + 1 >= n) return value(time <= times.front() ? 0 : n - 1);
      const float s = float((time - times[i]) / (times[i + 1] - times[i]));
      const std::vector<float> a = value(i), b = value(i + 1);
      if (components == 4) {
        const Quat q = slerp({a[0], a[1], a[2], a[3]}, {b[0], b[1], b[2], b[3]}, s);
        return {q.x, q.y, q.z, q.w};
      }
      return {a[0] + (b[0] - a[0]) * s, a[1] + (b[1] - a[1]) * s, a[2] + (b[2] - a[2]) * s};
    }
  };
  const float yfovDegrees = float(model_.cameras[node.camera].perspective.yfov * 180.0 / 3.14159265358979);
  for (size_t index = 0; index < model_.animations.size(); ++index) {
    const auto& animation = model_.animations[index];
    const std::string what = "animation " + std::to_string(index) + " of the camera's node";
    std::optional<Channel> translation, rotation;
    std::string unfollowed;  // why no camera path can follow it
    for (const auto& channel : animation.channels) {
      if (channel.target_node != cameraNode_ ||
          (channel.target_path != "translation" && channel.target_path != "rotation"))
        continue;
      if (channel.sampler < 0 || channel.sampler >= int(animation.samplers.size()))
        fail(what + " names sampler " + std::to_string(channel.sampler) + ", which does not exist");
      const auto& sampler = animation.samplers[channel.sampler];
      // The scene loads; only a camera path that names this animation is refused.
      if (sampler.interpolation != "LINEAR") {
        unfollowed = what + " interpolates its " + channel.target_path + " by " + sampler.interpolation +
                     "; ptbench follows LINEAR camera animations only";
        break;
      }
      Channel read;
      read.components = channel.target_path == "rotation" ? 4 : 3;
      read.times = readAccessor(sampler.input, 1, what + " times");
      read.values = readAccessor(sampler.output, read.components, what + " " + channel.target_path);
      if (read.times.empty() || read.values.size() != read.times.size() * size_t(read.components))
        fail(what + " has " + std::to_string(read.times.size()) + " times for " +
             std::to_string(read.values.size() / size_t(read.components)) + " " + channel.target_path + " values");
      for (size_t i = 0; i < read.times.size(); ++i)
        if (!std::isfinite(read.times[i]) || (i > 0 && read.times[i] <= read.times[i - 1]))
          fail(what + " has times that are not finite and strictly increasing");
      for (float value : read.values)
        if (!std::isfinite(value)) fail(what + " has a " + channel.target_path + " that is not finite");
      (channel.target_path == "rotation" ? rotation : translation) = std::move(read);
    }
    if (!unfollowed.empty()) {
      animations.push_back({.index = uint32_t(index), .name = animation.name, .unfollowed = unfollowed});
      continue;
    }
    if (!translation && !rotation) continue;
    std::vector<double> times;
    for (const auto* channel : {&translation, &rotation})
      if (*channel) times.insert(times.end(), (*channel)->times.begin(), (*channel)->times.end());
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());
    CameraAnimation out{
        .index = uint32_t(index), .name = animation.name, .path = {.interpolation = PathInterpolation::Linear}};
    for (double time : times) {
      tinygltf::Node posed = node;
      if (translation) {
        const std::vector<float> t = translation->at(time);
        posed.translation = {t[0], t[1], t[2]};
      }
      if (rotation) {
        const std::vector<float> r = rotation->at(time);
        posed.rotation = {r[0], r[1], r[2], r[3]};
      }
      const Mat4 world = cameraParent_ * nodeTransform(posed);
      const Vec3 position = world.transformPoint({0, 0, 0});
      out.path.keyframes.push_back(
          {.time = time,
           .position = position,
           .orientation = lookRotation(world.transformVector({0, 0, -1}), world.transformVector({0, 1, 0})),
           .yfovDegrees = yfovDegrees,
           .focusDistance = 1});
    }
    animations.push_back(std::move(out));
  }
  return animations;
}

// Those on a material, and the KHR_materials_ ones in extensionsUsed, whether or not a
// material carries them. KHR_materials_variants only chooses among materials; without it the
// default ones are shown, as the specification intends.
std::vector<std::string> GltfReader::unshadedMaterialExtensions() const {
  std::set<std::string> used;
  for (const auto& name : model_.extensionsUsed)
    if (name.rfind("KHR_materials_", 0) == 0 && name != "KHR_materials_variants") used.insert(name);
  for (const auto& material : model_.materials)
    for (const auto& [name, value] : material.extensions) used.insert(name);
  std::vector<std::string> unshaded;
  for (const auto& name : used)
    if (!shadedMaterialExtensions.count(name)) unshaded.push_back(name);
  return unshaded;
}

// KHR_lights_punctual's light `index` as the extension defines it: a known type, a colour and
// an intensity that are finite and not negative, a range above 0 where given, and a spot's
// cone angles with 0 <= inner < outer <= pi/2. A light outside them would render black, or
// negative, with no word of why.
void GltfReader::checkLight(size_t index) const {
  const auto& light = model_.lights[index];
  const std::string what = "light " + std::to_string(index) + (light.name.empty() ? "" : " (\"" + light.name + "\")");
  // The GPU takes them as float: a double beyond float's range is infinite there.
  const auto floatValue = [](double v) { return std::isfinite(v) && v >= 0 && v <= std::numeric_limits<float>::max(); };
  if (light.type != "point" && light.type != "spot" && light.type != "directional")
    fail(what + " has type \"" + light.type + "\"; KHR_lights_punctual's are point, spot and directional");
  if (!floatValue(light.intensity))
    fail(what + fmt::format(" has intensity {:g}; it must be finite (in float) and not negative", light.intensity));
  if (!light.color.empty() && (light.color.size() != 3 || !std::ranges::all_of(light.color, floatValue)))
    fail(what + " has a color that is not three finite values of at least 0");
  if (!(std::isfinite(light.range) && light.range >= 0))
    fail(what + fmt::format(" has range {:g}; it must be above 0 (or left out: no limit)", light.range));
  if (light.type == "spot") {
    const double inner = light.spot.innerConeAngle, outer = light.spot.outerConeAngle;
    if (!(inner >= 0 && inner < outer && outer <= std::numbers::pi / 2 + 1e-6))
      fail(what + fmt::format(" has innerConeAngle {:g} and outerConeAngle {:g}; a spot needs 0 <= inner < outer <= "
                              "pi/2 (1.5708)",
                              inner, outer));
  }
}

SceneData GltfReader::read() {
  for (const auto& required : model_.extensionsRequired)
    if (!supportedExtensions.count(required))
      fail("requires the extension " + required + ", which ptbench does not support");
  for (size_t c = 0; c < model_.cameras.size(); ++c) {
    const auto& camera = model_.cameras[c];
    const double yfov = camera.perspective.yfov;
    // Up to 179 degrees, as configs and --fov take: just below pi, the field of view in float
    // degrees rounds to 180, whose half-angle tangent turns the image upside down.
    if (camera.type == "perspective" && !(yfov > 0 && yfov <= 179.0 * std::numbers::pi / 180.0))
      fail("camera " + std::to_string(c) + (camera.name.empty() ? "" : " (\"" + camera.name + "\")") + " has yfov " +
           fmt::format("{:g}", yfov) +
           "; a perspective camera's yfov is in radians, above 0 and at most 179 degrees (3.1241)");
  }
  for (size_t l = 0; l < model_.lights.size(); ++l) checkLight(l);
  std::vector<int> roots;
  if (!model_.scenes.empty()) {
    const int sceneIndex =
        model_.defaultScene >= 0 && model_.defaultScene < int(model_.scenes.size()) ? model_.defaultScene : 0;
    roots = model_.scenes[sceneIndex].nodes;
  } else {
    std::vector<bool> isChild(model_.nodes.size());
    for (const auto& node : model_.nodes)
      for (int child : node.children)
        if (child >= 0 && child < int(isChild.size())) isChild[child] = true;
    for (int i = 0; i < int(model_.nodes.size()); ++i)
      if (!isChild[i]) roots.push_back(i);
  }
  checkNodeTrees(roots);
  addMeshes(roots);
  for (int root : roots) visit(root, Mat4{});
  if (skippedPrimitives_ > 0)
    spdlog::warn("{}: skipped {} primitive(s) that are not triangle lists (points, lines, strips or fans)",
                 path_.string(), skippedPrimitives_);
  SceneData scene = builder_.finish(threadsToUse(threads_));
  if (scene.triangleCount() == 0) fail("has no triangles to render in its default scene");
  if (!haveCamera_) scene.cameraCount = uint32_t(model_.cameras.size());
  scene.cameraAnimations = cameraAnimations();
  scene.unshadedExtensions = unshadedMaterialExtensions();
  // Said here, where every command loads its scenes once, so each names them once.
  if (!scene.unshadedExtensions.empty()) {
    std::string names;
    for (const auto& name : scene.unshadedExtensions) names += (names.empty() ? "" : ", ") + name;
    spdlog::warn("{}: ptbench does not shade {}: the image lacks their effect", path_.string(), names);
  }
  return scene;
}

// tinygltf's image loader, `user` the model being loaded: tinygltf hands an image in a buffer
// view to the decoder as the view's claimed range without checking it against the buffer, so
// a file whose view runs past its buffer had stb_image read beyond it (fuzz_gltf found one).
// The range is checked here; decoding stays tinygltf's (stb_image, 8- or 16-bit RGBA).
// The width and height an image's header declares, read before decoding: a PNG's IHDR
// itself (stb refuses a PNG beyond 2^24 a side as an unknown format, hiding its size), any
// other format through stb's header reader. Nothing when the header is not one of them.
std::optional<std::pair<uint32_t, uint32_t>> declaredImageSize(const unsigned char* bytes, int size) {
  static constexpr unsigned char pngSignature[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (size >= 24 && std::memcmp(bytes, pngSignature, 8) == 0 && std::memcmp(bytes + 12, "IHDR", 4) == 0) {
    const auto bigEndian = [&](int at) {
      return uint32_t(bytes[at]) << 24 | uint32_t(bytes[at + 1]) << 16 | uint32_t(bytes[at + 2]) << 8 | bytes[at + 3];
    };
    return std::pair{bigEndian(16), bigEndian(20)};
  }
  int width = 0, height = 0, channels = 0;
  if (size > 0 && stbi_info_from_memory(bytes, size, &width, &height, &channels) && width > 0 && height > 0)
    return std::pair{uint32_t(width), uint32_t(height)};
  return std::nullopt;
}

bool loadImage(tinygltf::Image* image, int index, std::string* error, std::string* warning, int width, int height,
               const unsigned char* bytes, int size, void* user) {
  const auto* model = static_cast<const tinygltf::Model*>(user);
  if (image->bufferView >= 0) {
    const auto& views = model->bufferViews;
    const bool inside = size_t(image->bufferView) < views.size() &&
                        size_t(views[size_t(image->bufferView)].buffer) < model->buffers.size() &&
                        views[size_t(image->bufferView)].byteOffset <=
                            model->buffers[size_t(views[size_t(image->bufferView)].buffer)].data.size() &&
                        views[size_t(image->bufferView)].byteLength <=
                            model->buffers[size_t(views[size_t(image->bufferView)].buffer)].data.size() -
                                views[size_t(image->bufferView)].byteOffset;
    if (!inside) {
      if (error) *error += "image " + std::to_string(index) + ": its buffer view runs past its buffer\n";
      return false;
    }
  }
  // Only once the bytes are known to lie inside their buffer (above) is the header read.
  if (const auto declared = declaredImageSize(bytes, size);
      declared && (declared->first > maxTextureSide || declared->second > maxTextureSide)) {
    if (error)
      *error += "image " + std::to_string(index) +
                (image->uri.empty() || image->uri.starts_with("data:") ? "" : " (" + image->uri + ")") +
                ": its header declares " + std::to_string(declared->first) + "x" + std::to_string(declared->second) +
                " pixels, beyond ptbench's limit of " + std::to_string(maxTextureSide) + " pixels a side\n";
    return false;
  }
  return tinygltf::LoadImageData(image, index, error, warning, width, height, bytes, size, nullptr);
}

// tinygltf's own file callbacks open a URI's file to learn that it exists and then read it: a
// FIFO blocks both for ever and a folder reads as gigabytes of nothing. A buffer or an image is
// a regular file; whatever else a URI names exists but is refused, naming it.
bool uriFileExists(const std::string& path, void*) {
  struct stat status {};
  return ::stat(path.c_str(), &status) == 0;
}

bool readUriFile(std::vector<unsigned char>* out, std::string* error, const std::string& path, void* user) {
  try {
    requireRegularFile(path, "a glTF's buffers and images are files");
  } catch (const UserError& refused) {
    if (error) *error += "URI " + std::string(refused.what()) + "\n";
    return false;
  }
  return tinygltf::ReadWholeFile(out, error, path, user);
}

// A file mapped into memory, read-only: a glTF file's bytes reach tinygltf without being read into
// a buffer of their own first (a copy of the whole file, and its pages zeroed beforehand).
class MappedFile {
 public:
  explicit MappedFile(const std::filesystem::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw UserError(path.string() + ": cannot open: " + std::strerror(errno));
    struct stat status {};
    if (::fstat(fd, &status) != 0 || status.st_size <= 0) {
      const int error = errno;
      ::close(fd);
      throw UserError(path.string() + (status.st_size <= 0 ? ": is empty, not a glTF file"
                                                           : ": cannot read: " + std::string(std::strerror(error))));
    }
    size_ = size_t(status.st_size);
    void* data = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    const int error = errno;
    ::close(fd);
    if (data == MAP_FAILED) throw UserError(path.string() + ": cannot map into memory: " + std::strerror(error));
    data_ = static_cast<const unsigned char*>(data);
    ::madvise(data, size_, MADV_SEQUENTIAL);
  }
  ~MappedFile() { ::munmap(const_cast<unsigned char*>(data_), size_); }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  const unsigned char* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  const unsigned char* data_ = nullptr;
  size_t size_ = 0;
};

// The JSON of a glTF file: all of a .gltf, a .glb's first chunk where its header is whole (else
// nothing: tinygltf refuses the header).
std::string_view gltfJson(const unsigned char* bytes, size_t size, bool binary) {
  const char* text = reinterpret_cast<const char*>(bytes);
  if (!binary) return {text, size};
  constexpr size_t headerBytes = 12, chunkHeaderBytes = 8;
  if (size < headerBytes + chunkHeaderBytes) return {};
  uint32_t chunkLength = 0;
  std::memcpy(&chunkLength, bytes + headerBytes, 4);
  const size_t available = size - headerBytes - chunkHeaderBytes;
  return {text + headerBytes + chunkHeaderBytes, std::min<size_t>(chunkLength, available)};
}

}  // namespace

SceneData loadGltf(const std::filesystem::path& path, unsigned threads) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error))
    throw UserError(path.string() +
                    ": no such scene file (give a .gltf or .glb path, or builtin:cornell, "
                    "builtin:furnace, builtin:spheres?n=N&subdiv=S, builtin:manylights?n=N, builtin:room)");
  tinygltf::TinyGLTF loader;
  tinygltf::Model model;
  loader.SetImageLoader(loadImage, &model);
  loader.SetFsCallbacks({.FileExists = uriFileExists,
                         .ExpandFilePath = tinygltf::ExpandFilePath,
                         .ReadWholeFile = readUriFile,
                         .WriteWholeFile = tinygltf::WriteWholeFile,
                         .user_data = nullptr});
  std::string errors, warnings;
  const bool binary = path.extension() == ".glb" || path.extension() == ".GLB";
  bool ok = false;
  {
    const StepProgress progress("reading " + path.string());
    const MappedFile file(path);
    // A glTF binary's header gives its length in 32 bits, as tinygltf takes it; tinygltf takes
    // a text file's length so too.
    if (file.size() > std::numeric_limits<uint32_t>::max())
      throw UserError(path.string() + ": " + std::to_string(file.size()) + " bytes, beyond the 4 GiB " +
                      (binary ? "a glTF binary can hold; split it or use .gltf with external buffers"
                              : "tinygltf reads; move its buffers into .bin files"));
    const std::string_view json = gltfJson(file.data(), file.size(), binary);
    if (const auto at = jsonNestedTooDeepAt(json))
      throw UserError(path.string() + ": arrays and objects nested deeper than " + std::to_string(maxJsonDepth) +
                      " levels at byte " +
                      std::to_string(size_t(json.data() - reinterpret_cast<const char*>(file.data())) + *at) +
                      "; ptbench reads at most " + std::to_string(maxJsonDepth));
    // tinygltf resolves external URIs from the folder part of the path as given.
    const std::string folder = path.has_parent_path() ? path.parent_path().string() : "";
    ok = binary ? loader.LoadBinaryFromMemory(&model, &errors, &warnings, file.data(), unsigned(file.size()), folder)
                : loader.LoadASCIIFromString(&model, &errors, &warnings, reinterpret_cast<const char*>(file.data()),
                                             unsigned(file.size()), folder);
  }
  if (!ok || !errors.empty()) {
    while (!errors.empty() && (errors.back() == '\n' || errors.back() == ' ')) errors.pop_back();
    throw UserError(path.string() + ": not a valid glTF 2.0 file: " +
                    (errors.empty() ? "unknown error" : explainUriErrors(errors, path)));
  }
  if (!warnings.empty()) spdlog::debug("{}: {}", path.string(), warnings);
  const StepProgress progress("processing the meshes and materials of " + path.string());
  return GltfReader(path, model, threads).read();
}

}  // namespace ptbench
