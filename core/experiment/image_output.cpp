#include "core/experiment/image_output.h"

#include <fmt/format.h>
#include <stb_image.h>
#include <stb_image_write.h>
#include <tinyexr.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>

#include "core/errors.h"
#include "core/experiment/atomic_file.h"
#include "core/input_file.h"
#include "core/text.h"

namespace ptbench {
namespace {

float acesFilmic(float x) {
  const float a = 2.51f, b = 0.03f, c = 2.43f, d = 0.59f, e = 0.14f;
  return std::clamp((x * (a * x + b)) / (x * (c * x + d) + e), 0.0f, 1.0f);
}

float srgbEncode(float linear) {
  return linear <= 0.0031308f ? 12.92f * linear : 1.055f * std::pow(linear, 1.0f / 2.4f) - 0.055f;
}

std::string lowercaseExtension(const std::filesystem::path& path) {
  return lowercase(path.extension().string());
}

}  // namespace

std::string runImageName(std::string_view runId, std::string_view scene, std::string_view integrator,
                         std::string_view backend, std::string_view extension) {
  // Letters and digits kept, every run of anything else one '-', none at either end.
  const auto component = [](std::string_view text, size_t maxLength) {
    std::string out;
    for (const char c : text) {
      if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
        if (out.size() == maxLength) break;
        out += c;
      } else if (!out.empty() && out.back() != '-') {
        out += '-';
      }
    }
    while (!out.empty() && out.back() == '-') out.pop_back();
    return out;
  };
  constexpr std::string_view builtin = "builtin:";
  const std::string sceneName = scene.starts_with(builtin) ? std::string(scene.substr(builtin.size()))
                                                           : std::filesystem::path(scene).stem().string();
  std::string name(runId);
  for (const std::string& part : {component(sceneName, 40), component(integrator, 40), component(backend, 40)})
    if (!part.empty()) name += "-" + part;
  return name += extension;
}

std::filesystem::path frameImagePath(const std::filesystem::path& path, uint32_t frame) {
  std::filesystem::path framed = path;
  framed.replace_filename(fmt::format("{}-frame{:03}{}", path.stem().string(), frame, path.extension().string()));
  return framed;
}

void writePng(const std::filesystem::path& path, const LinearImage& image, float exposure) {
  const float scale = std::exp2(exposure);
  std::vector<uint8_t> pixels(image.rgb.size());
  for (size_t i = 0; i < image.rgb.size(); ++i) {
    const float value = std::isfinite(image.rgb[i]) ? std::max(image.rgb[i], 0.0f) : 0.0f;
    pixels[i] = uint8_t(std::lround(255.0f * srgbEncode(acesFilmic(value * scale))));
  }
  std::string encoded = encodePng(image.width, image.height, pixels);
  if (encoded.empty()) throw UserError("cannot encode " + path.string() + " as PNG");
  writeFileAtomically(path, encoded);
}

std::string encodePng(uint32_t width, uint32_t height, const std::vector<uint8_t>& rgb) {
  std::string encoded;
  const auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data), size_t(size));
  };
  if (!stbi_write_png_to_func(append, &encoded, int(width), int(height), 3, rgb.data(), int(width * 3))) return {};
  return encoded;
}

void writeExr(const std::filesystem::path& path, const LinearImage& image) {
  // Encoded in memory (tinyexr's SaveEXR, minus its fopen), so that the file is written like
  // every other: atomically, or through a device, with every write error reported.
  const size_t pixels = size_t(image.width) * image.height;
  std::vector<float> planes[3];
  for (int c = 0; c < 3; ++c) {
    planes[c].resize(pixels);
    for (size_t i = 0; i < pixels; ++i) planes[c][i] = image.rgb[3 * i + size_t(c)];
  }
  float* channelPlanes[3] = {planes[2].data(), planes[1].data(), planes[0].data()};  // B, G, R as viewers expect
  EXRChannelInfo channels[3] = {};
  int pixelTypes[3] = {TINYEXR_PIXELTYPE_FLOAT, TINYEXR_PIXELTYPE_FLOAT, TINYEXR_PIXELTYPE_FLOAT};
  std::strcpy(channels[0].name, "B");
  std::strcpy(channels[1].name, "G");
  std::strcpy(channels[2].name, "R");
  EXRHeader header;
  InitEXRHeader(&header);
  header.compression_type =
      image.width < 16 && image.height < 16 ? TINYEXR_COMPRESSIONTYPE_NONE : TINYEXR_COMPRESSIONTYPE_ZIP;
  header.num_channels = 3;
  header.channels = channels;
  header.pixel_types = pixelTypes;
  header.requested_pixel_types = pixelTypes;
  EXRImage exr;
  InitEXRImage(&exr);
  exr.num_channels = 3;
  exr.images = reinterpret_cast<unsigned char**>(channelPlanes);
  exr.width = int(image.width);
  exr.height = int(image.height);
  unsigned char* memory = nullptr;
  const char* error = nullptr;
  const size_t size = SaveEXRImageToMemory(&exr, &header, &memory, &error);
  if (size == 0) {
    const std::string message = error ? error : "unknown tinyexr error";
    if (error) FreeEXRErrorMessage(error);
    throw UserError("cannot encode " + path.string() + " as EXR: " + message);
  }
  const std::string encoded(reinterpret_cast<const char*>(memory), size);
  free(memory);  // tinyexr allocates with malloc
  writeFileAtomically(path, encoded);
}

void writePfm(const std::filesystem::path& path, const LinearImage& image) {
  // "PF" is colour; a negative scale says little-endian; rows run bottom to top.
  std::string data = "PF\n" + std::to_string(image.width) + " " + std::to_string(image.height) + "\n-1.0\n";
  const size_t header = data.size();
  const size_t rowFloats = size_t(image.width) * 3;
  data.resize(header + image.rgb.size() * sizeof(float));
  for (uint32_t row = 0; row < image.height; ++row) {
    const float* source = image.rgb.data() + size_t(image.height - 1 - row) * rowFloats;
    std::memcpy(data.data() + header + row * rowFloats * sizeof(float), source, rowFloats * sizeof(float));
  }
  writeFileAtomically(path, data);
}

bool isImageExtension(const std::filesystem::path& path) {
  const std::string extension = lowercaseExtension(path);
  return extension == ".png" || extension == ".exr" || extension == ".pfm";
}

void writeImage(const std::filesystem::path& path, const LinearImage& image, float exposure) {
  const std::string extension = lowercaseExtension(path);
  if (extension == ".png") return writePng(path, image, exposure);
  if (extension == ".exr") return writeExr(path, image);
  if (extension == ".pfm") return writePfm(path, image);
  throw UserError(path.string() + ": unknown image format; use .png, .exr or .pfm");
}

LinearImage readLinearImage(const std::filesystem::path& path) {
  requireRegularFile(path, "give an EXR or PFM image file");
  const std::string extension = lowercaseExtension(path);
  LinearImage image;
  if (extension == ".exr") {
    float* rgba = nullptr;
    int width = 0, height = 0;
    const char* error = nullptr;
    if (LoadEXR(&rgba, &width, &height, path.c_str(), &error) < 0) {
      const std::string message = error ? error : "unknown tinyexr error";
      if (error) FreeEXRErrorMessage(error);
      throw UserError(path.string() + ": cannot read it as EXR (" + message + ")");
    }
    image = {uint32_t(width), uint32_t(height), std::vector<float>(size_t(width) * size_t(height) * 3)};
    for (size_t i = 0; i < size_t(width) * size_t(height); ++i)
      for (int c = 0; c < 3; ++c) image.rgb[3 * i + c] = rgba[4 * i + c];
    free(rgba);  // tinyexr allocates with malloc
    return image;
  }
  if (extension != ".pfm") throw UserError(path.string() + ": a reference image is .exr or .pfm");
  std::ifstream in(path, std::ios::binary);
  std::string magic;
  double scale = 0;
  in >> magic >> image.width >> image.height >> scale;
  in.get();  // the one whitespace character before the data
  if (!in || magic != "PF" || image.width == 0 || image.height == 0 || scale == 0 || image.width > 65536 ||
      image.height > 65536)
    throw UserError(path.string() + ": not a colour PFM (\"PF\", width, height, scale)");
  const size_t rowFloats = size_t(image.width) * 3;
  image.rgb.resize(rowFloats * image.height);
  // Rows run bottom to top; a negative scale says little-endian, as this machine is.
  if (scale > 0) throw UserError(path.string() + ": a big-endian PFM; write it little-endian (negative scale)");
  for (uint32_t row = 0; row < image.height; ++row)
    in.read(reinterpret_cast<char*>(image.rgb.data() + size_t(image.height - 1 - row) * rowFloats),
            std::streamsize(rowFloats * sizeof(float)));
  if (!in)
    throw UserError(path.string() + ": the PFM ends before its " + std::to_string(image.width) + "x" +
                    std::to_string(image.height) + " pixels");
  return image;
}

SrgbImage readSrgbPng(const std::filesystem::path& path) {
  if (lowercaseExtension(path) != ".png") throw UserError(path.string() + ": an sRGB image is .png");
  requireRegularFile(path, "give a PNG image file");
  int width = 0, height = 0, channels = 0;
  // Its size from its header before its pixels: a small file can claim gigabytes of them.
  if (stbi_info(path.c_str(), &width, &height, &channels) && uint64_t(width) * uint64_t(height) > maxImagePixels)
    throw UserError(path.string() + ": " + std::to_string(width) + "x" + std::to_string(height) +
                    " pixels, more than the largest image ptbench reads (" + std::to_string(maxImagePixels) + ")");
  unsigned char* pixels = stbi_load(path.c_str(), &width, &height, &channels, 3);
  if (!pixels) throw UserError(path.string() + ": cannot read it as PNG (" + stbi_failure_reason() + ")");
  SrgbImage image{uint32_t(width), uint32_t(height), std::vector<float>(size_t(width) * size_t(height) * 3)};
  for (size_t i = 0; i < image.rgb.size(); ++i) image.rgb[i] = float(pixels[i]) / 255.0f;
  stbi_image_free(pixels);
  return image;
}

}  // namespace ptbench
