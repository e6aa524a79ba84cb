// Rendered images: PNG (tonemapped, sRGB), EXR and PFM (linear) written; EXR and PFM read back
// (convergence references).
#pragma once
#include <filesystem>

#include "core/linear_image.h"

namespace ptbench {

// Exposure scales radiance by 2^exposure before the tonemap (ACES filmic, Narkowicz's fit)
// and the sRGB transfer function.
void writePng(const std::filesystem::path& path, const LinearImage& image, float exposure);
void writeExr(const std::filesystem::path& path, const LinearImage& image);  // 32-bit float RGB
void writePfm(const std::filesystem::path& path, const LinearImage& image);  // little-endian, rows bottom to top
// By extension: .png, .exr or .pfm; anything else is a UserError.
void writeImage(const std::filesystem::path& path, const LinearImage& image, float exposure);
bool isImageExtension(const std::filesystem::path& path);
// An EXR (its R, G and B) or a colour PFM; a UserError naming the file when it cannot be read.
LinearImage readLinearImage(const std::filesystem::path& path);

}  // namespace ptbench
