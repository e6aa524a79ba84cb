// Rendered images: PNG (tonemapped, sRGB), EXR and PFM (linear) written; EXR and PFM read back
// (convergence references), and PNG (`ptbench flip`).
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/linear_image.h"

namespace ptbench {

// Exposure scales radiance by 2^exposure before the tonemap (ACES filmic, Narkowicz's fit)
// and the sRGB transfer function.
void writePng(const std::filesystem::path& path, const LinearImage& image, float exposure);
// 8-bit RGB pixels, rows top to bottom, as PNG bytes.
std::string encodePng(uint32_t width, uint32_t height, const std::vector<uint8_t>& rgb);
void writeExr(const std::filesystem::path& path, const LinearImage& image);  // 32-bit float RGB
void writePfm(const std::filesystem::path& path, const LinearImage& image);  // little-endian, rows bottom to top
// By extension: .png, .exr or .pfm; anything else is a UserError.
void writeImage(const std::filesystem::path& path, const LinearImage& image, float exposure);
bool isImageExtension(const std::filesystem::path& path);
// A run's image file, named for what made it: "r003-cornell-wavefront-pipeline.png" for run r003
// of builtin:cornell (or a glTF's file stem) with the wavefront on the pipeline backend. Each
// part is reduced to letters, digits and '-' and the scene to 40 characters, so that the name is
// one safe path component; the run id keeps it unique. extension: ".png" or ".exr".
std::string runImageName(std::string_view runId, std::string_view scene, std::string_view integrator,
                         std::string_view backend, std::string_view extension);

// Frame `frame` of a camera path's image: "-frame" and three digits (or more) before the
// extension, "refs/cornell.exr" -> "refs/cornell-frame002.exr" (references and run images alike).
std::filesystem::path frameImagePath(const std::filesystem::path& path, uint32_t frame);

// The most pixels an image ptbench reads may have: the largest it renders, 16384 x 16384.
inline constexpr uint64_t maxImagePixels = uint64_t(16384) * 16384;

// An EXR (its R, G and B) or a colour PFM; a UserError naming the file when it cannot be read.
LinearImage readLinearImage(const std::filesystem::path& path);
// A PNG's colour as its bytes encode it (its alpha, if any, dropped); a UserError naming the
// file when it cannot be read.
SrgbImage readSrgbPng(const std::filesystem::path& path);

}  // namespace ptbench
