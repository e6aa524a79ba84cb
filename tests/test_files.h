// Small files the loader and render tests write: PNG images of any bit depth (stb writes only
// 8-bit ones) and a glTF quad with the vertex attributes a test gives it.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ptbench::test {

enum class PngColor : uint8_t { Grey = 0, Rgb = 2, GreyAlpha = 4, Rgba = 6 };

inline uint32_t crc32(const uint8_t* data, size_t size, uint32_t crc = 0) {
  crc = ~crc;
  for (size_t i = 0; i < size; ++i) {
    crc ^= data[i];
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

// samples: width x height x channels values, row by row, each below 2^bitDepth (8 or 16).
// The image data is deflate's stored blocks: valid PNG without a compressor.
inline void writePng(const std::filesystem::path& path, uint32_t width, uint32_t height, PngColor color, int bitDepth,
                     const std::vector<uint16_t>& samples) {
  const size_t channels = color == PngColor::Grey        ? 1
                          : color == PngColor::GreyAlpha ? 2
                          : color == PngColor::Rgb       ? 3
                                                         : 4;
  std::vector<uint8_t> raw;  // scanlines, each after its filter byte (0: none); samples big-endian
  for (uint32_t y = 0; y < height; ++y) {
    raw.push_back(0);
    for (size_t i = 0; i < width * channels; ++i) {
      const uint16_t sample = samples.at(y * width * channels + i);
      if (bitDepth == 16) raw.push_back(uint8_t(sample >> 8));
      raw.push_back(uint8_t(sample));
    }
  }
  std::vector<uint8_t> zlib = {0x78, 0x01};
  for (size_t at = 0; at < raw.size() || at == 0; at += 65535) {
    const size_t length = std::min<size_t>(65535, raw.size() - at);
    zlib.push_back(at + length == raw.size() ? 1 : 0);  // BFINAL, BTYPE 00 (stored)
    for (uint16_t field : {uint16_t(length), uint16_t(~length)}) {
      zlib.push_back(uint8_t(field));
      zlib.push_back(uint8_t(field >> 8));
    }
    zlib.insert(zlib.end(), raw.begin() + long(at), raw.begin() + long(at + length));
  }
  uint32_t a = 1, b = 0;  // Adler-32 of the uncompressed data
  for (uint8_t byte : raw) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  for (int shift : {24, 16, 8, 0}) zlib.push_back(uint8_t(((b << 16) | a) >> shift));

  std::vector<uint8_t> file = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  auto bigEndian = [](std::vector<uint8_t>& out, uint32_t value) {
    for (int shift : {24, 16, 8, 0}) out.push_back(uint8_t(value >> shift));
  };
  auto chunk = [&](const char* type, const std::vector<uint8_t>& data) {
    bigEndian(file, uint32_t(data.size()));
    std::vector<uint8_t> typed(type, type + 4);
    typed.insert(typed.end(), data.begin(), data.end());
    file.insert(file.end(), typed.begin(), typed.end());
    bigEndian(file, crc32(typed.data(), typed.size()));
  };
  std::vector<uint8_t> header;
  bigEndian(header, width);
  bigEndian(header, height);
  header.insert(header.end(), {uint8_t(bitDepth), uint8_t(color), 0, 0, 0});
  chunk("IHDR", header);
  chunk("IDAT", zlib);
  chunk("IEND", {});
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(file.data()), long(file.size()));
}

// One vertex attribute of the quad: its accessor's type and component type, and its four
// elements as bytes.
struct QuadAttribute {
  std::string name;  // TEXCOORD_0, COLOR_0, ...
  std::string type;  // VEC2, VEC3, VEC4
  int componentType = 5126;
  bool normalized = false;
  std::vector<uint8_t> bytes;
};

template <typename T>
std::vector<uint8_t> bytesOf(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// The glTF layout of a unit-textured quad: u to the right, v down the image, so the top left
// corner (-1, 1) is uv (0, 0).
inline const std::vector<float> quadUv = {0, 1, 1, 1, 1, 0, 0, 0};

// A quad from (-1, -1, 0) to (1, 1, 0) facing +Z, with normals, its extra attributes and
// material 0 (which the caller adds), in dir/name.gltf and dir/name.bin.
inline nlohmann::json quadGltf(const std::filesystem::path& dir, const std::string& name,
                               const std::vector<QuadAttribute>& attributes) {
  const std::vector<float> positions = {-1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0};
  const std::vector<float> normals = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
  const std::vector<uint16_t> indices = {0, 1, 2, 0, 2, 3};
  std::vector<uint8_t> buffer;
  nlohmann::json views = nlohmann::json::array(), accessors = nlohmann::json::array();
  auto add = [&](const std::vector<uint8_t>& bytes, nlohmann::json accessor) {
    while (buffer.size() % 4 != 0) buffer.push_back(0);
    views.push_back({{"buffer", 0}, {"byteOffset", buffer.size()}, {"byteLength", bytes.size()}});
    buffer.insert(buffer.end(), bytes.begin(), bytes.end());
    accessor["bufferView"] = views.size() - 1;
    accessors.push_back(accessor);
    return accessors.size() - 1;
  };
  nlohmann::json primitive = {{"material", 0}};
  primitive["indices"] = add(bytesOf(indices), {{"componentType", 5123}, {"count", 6}, {"type", "SCALAR"}});
  primitive["attributes"]["POSITION"] =
      add(bytesOf(positions),
          {{"componentType", 5126}, {"count", 4}, {"type", "VEC3"}, {"min", {-1, -1, 0}}, {"max", {1, 1, 0}}});
  primitive["attributes"]["NORMAL"] = add(bytesOf(normals), {{"componentType", 5126}, {"count", 4}, {"type", "VEC3"}});
  for (const auto& attribute : attributes)
    primitive["attributes"][attribute.name] = add(attribute.bytes, {{"componentType", attribute.componentType},
                                                                    {"count", 4},
                                                                    {"type", attribute.type},
                                                                    {"normalized", attribute.normalized}});
  std::ofstream(dir / (name + ".bin"), std::ios::binary)
      .write(reinterpret_cast<const char*>(buffer.data()), long(buffer.size()));
  return {{"asset", {{"version", "2.0"}}},
          {"scene", 0},
          {"scenes", {{{"nodes", {0}}}}},
          {"nodes", {{{"mesh", 0}}}},
          {"meshes", {{{"primitives", {primitive}}}}},
          {"materials", {nlohmann::json::object()}},
          {"buffers", {{{"uri", name + ".bin"}, {"byteLength", buffer.size()}}}},
          {"bufferViews", views},
          {"accessors", accessors}};
}

}  // namespace ptbench::test
