#include "core/scene/environment_map.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/errors.h"

namespace ptbench::test {
namespace {

namespace fs = std::filesystem;

const fs::path shippedMaps = fs::path(PTBENCH_SOURCE_DIR) / "scenes/env";

TEST(EnvironmentMap, LoadsTheShippedRadianceMaps) {
  for (const char* name : {"studio_small_03_1k.hdr", "venice_sunset_1k.hdr"}) {
    const EnvironmentMap map = loadEnvironmentMap(shippedMaps / name, 2, 45);
    EXPECT_EQ(map.width, 1024u) << name;
    EXPECT_EQ(map.height, 512u) << name;
    ASSERT_EQ(map.rgb.size(), 1024u * 512u * 3u) << name;
    EXPECT_EQ(map.intensity, 2.0f);
    EXPECT_EQ(map.rotationDegrees, 45.0f);
    double sum = 0;
    for (float value : map.rgb) sum += value;
    EXPECT_GT(sum / double(map.rgb.size()), 0.01) << name << ": a lit sky";
  }
}

TEST(EnvironmentMap, FilesThatAreNotRadianceMapsAreClearErrors) {
  const fs::path dir = fs::temp_directory_path() / ("ptbench-env-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "fake.hdr") << "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 4 +X 4\n";  // no pixels
  std::ofstream(dir / "text.hdr") << "not an image";
  const auto message = [](const fs::path& file) {
    try {
      loadEnvironmentMap(file);
    } catch (const UserError& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message(dir / "missing.hdr").find("missing.hdr: no such environment map"), std::string::npos);
  EXPECT_NE(message(dir / "text.hdr").find("text.hdr: not a Radiance"), std::string::npos);
  EXPECT_NE(message(dir / "fake.hdr").find("fake.hdr: cannot read the environment map"), std::string::npos)
      << message(dir / "fake.hdr");
  EXPECT_NE(
      message(fs::path(PTBENCH_SOURCE_DIR) / "scenes/FlightHelmet/FlightHelmet_Materials_GlassPlasticMat_BaseColor.png")
          .find("not a Radiance"),
      std::string::npos);
  fs::remove_all(dir);
}

std::string refusal(const fs::path& file) {
  try {
    loadEnvironmentMap(file);
  } catch (const UserError& error) {
    return error.what();
  }
  return "accepted";
}

// stb_image's decoder spins forever on a truncated run-length encoded map. Cut
// anywhere, a map is refused within a second, naming the file and the truncation.
TEST(EnvironmentMap, TruncatedMapsAreRefusedWithinASecond) {
  const fs::path dir = fs::temp_directory_path() / ("ptbench-env-cut-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::stringstream whole;
  whole << std::ifstream(shippedMaps / "venice_sunset_1k.hdr", std::ios::binary).rdbuf();
  const std::string bytes = whole.str();
  for (const double fraction : {0.02, 0.3, 0.5, 0.9, 0.999}) {
    const fs::path cut = dir / "cut.hdr";
    std::ofstream(cut, std::ios::binary).write(bytes.data(), std::streamsize(double(bytes.size()) * fraction));
    const auto start = std::chrono::steady_clock::now();
    const std::string message = refusal(cut);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0) << fraction;
    EXPECT_NE(message.find(cut.string() + ": cannot read the environment map: the file ends before its 1024x512 "
                                          "texels (truncated?)"),
              std::string::npos)
        << fraction << ": " << message;
  }
  fs::remove_all(dir);
}

// Corrupt run-length data, sizes beyond the documented limits and other orientations are
// refused naming what is wrong; the decoder never reads past its bytes (ASan, fuzz_hdr).
TEST(EnvironmentMap, CorruptOrOversizedMapsAreRefusedNamingTheReason) {
  const std::string header = "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n";
  const auto message = [](const std::string& bytes) {
    try {
      decodeRadiance(bytes, "m.hdr");
    } catch (const UserError& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  // A scanline of 8 texels whose first run has length 0 (what a truncated file reads as).
  std::string zeroRun = header + "-Y 1 +X 8\n" + std::string("\x02\x02\x00\x08", 4) + std::string(64, '\0');
  EXPECT_NE(message(zeroRun).find("m.hdr: cannot read the environment map: scanline 0 has a run of 0 texels"),
            std::string::npos)
      << message(zeroRun);
  EXPECT_NE(message(header + "-Y 40000 +X 100\n")
                .find("m.hdr: an environment map of 100x40000 texels; ptbench "
                      "takes 2x1 to 65536x32768 and at most 134217728 texels"),
            std::string::npos);
  EXPECT_NE(message(header + "-Y 16384 +X 16384\n").find("at most 134217728 texels"), std::string::npos);
  // A negative size is no size (it was read as 2^64 - 8 and named so).
  EXPECT_NE(message(header + "-Y -8 +X 16\n").find("the image size line is \"-Y -8 +X 16\""), std::string::npos);
  EXPECT_NE(message(header + "-Y 8 +X +16\n").find("reads \"-Y HEIGHT +X WIDTH\" only"), std::string::npos);
  EXPECT_NE(message(header + "+Y 2 +X 2\n" + std::string(16, '\x80')).find("reads \"-Y HEIGHT +X WIDTH\" only"),
            std::string::npos);
  EXPECT_NE(message("#?RADIANCE\nFORMAT=32-bit_rle_xyze\n\n-Y 1 +X 2\n").find("FORMAT=32-bit_rle_rgbe only"),
            std::string::npos);
  // A flat 2x1 map: mantissa x 2^(exponent - 136).
  const RadianceImage flat = decodeRadiance(header + "-Y 1 +X 2\n" + std::string("\x80\x40\x20\x81\0\0\0\0", 8), "f");
  ASSERT_EQ(flat.rgb.size(), 6u);
  EXPECT_EQ(flat.rgb[0], 1.0f);
  EXPECT_EQ(flat.rgb[1], 0.5f);
  EXPECT_EQ(flat.rgb[2], 0.25f);
  EXPECT_EQ(flat.rgb[3], 0.0f);
}

// The mapping environment.glsl uses: the centre column looks down -Z, the top row is the
// zenith, u grows towards +X (phi = atan2(x, -z)), and a rotation turns the map about +Y.
TEST(EnvironmentMap, DirectionsFollowTheDocumentedMapping) {
  EnvironmentMap map{.width = 8, .height = 4};
  const auto near = [](Vec3 a, Vec3 b) { return length(a - b) < 1e-5f; };
  EXPECT_TRUE(near(environmentDirection(map, 0.5, 0.5), {0, 0, -1}));
  EXPECT_TRUE(near(environmentDirection(map, 0.75, 0.5), {1, 0, 0}));
  EXPECT_TRUE(near(environmentDirection(map, 0.25, 0.5), {-1, 0, 0}));
  EXPECT_TRUE(near(environmentDirection(map, 0.3, 0.0), {0, 1, 0}));
  EXPECT_TRUE(near(environmentDirection(map, 0.3, 1.0), {0, -1, 0}));
  map.rotationDegrees = 90;  // what was at u = 0.75 (+X) now is at u = 1.0
  EXPECT_TRUE(near(environmentDirection(map, 1.0, 0.5), {1, 0, 0}));
}

// Bilinear filtering: a texel's own value at its centre, the mean of four texels at the corner
// between their centres, wrapping across u = 0 and clamped at the poles.
TEST(EnvironmentMap, RadianceIsFilteredBilinearlyBetweenTexelCentres) {
  EnvironmentMap map{.width = 4, .height = 2};
  for (uint32_t y = 0; y < map.height; ++y)
    for (uint32_t x = 0; x < map.width; ++x)
      for (int k = 0; k < 3; ++k) map.rgb.push_back(float(x + 10 * y));
  EXPECT_NEAR(environmentRadiance(map, 1.5 / 4, 0.5 / 2).x, 1, 1e-6) << "texel (1, 0)'s centre";
  EXPECT_NEAR(environmentRadiance(map, 2.0 / 4, 1.0 / 2).x, (1 + 2 + 11 + 12) / 4.0, 1e-6) << "a corner";
  EXPECT_NEAR(environmentRadiance(map, 1.75 / 4, 0.5 / 2).x, 1.25, 1e-6) << "a quarter of the way to (2, 0)";
  EXPECT_NEAR(environmentRadiance(map, 0.0, 0.5 / 2).x, (0 + 3) / 2.0, 1e-6) << "u wraps: texels 3 and 0";
  EXPECT_NEAR(environmentRadiance(map, 0.5 / 4, 0.0).x, 0, 1e-6) << "the zenith row is clamped, not wrapped";
  EXPECT_NEAR(environmentRadiance(map, 0.5 / 4, 1.0).x, 10, 1e-6) << "and the nadir row";
}

// Weights are the filtered luminance's integral over each texel x sin theta at its centre: one
// bright texel lends its neighbours 1/8 per axis of its excess (the filtered radiance reaches
// into them, so they must be chosen there too), and nothing two texels away.
TEST(EnvironmentMap, SamplingWeightsFollowFilteredLuminanceAndSolidAngle) {
  EnvironmentMap map{.width = 8, .height = 8, .rgb = std::vector<float>(8 * 8 * 3, 1.0f)};
  map.rgb[(4 * 8 + 3) * 3 + 1] = 2;  // texel (3, 4): more green, its luminance 1 + 0.7152
  const double excess = 0.7152;
  const std::vector<float> weights = environmentSamplingWeights(map);
  ASSERT_EQ(weights.size(), 64u);
  const double pi = 3.14159265358979;
  const auto weight = [&](uint32_t x, uint32_t y) { return weights[y * 8 + x] / std::sin(pi * (y + 0.5) / 8); };
  EXPECT_NEAR(weights[0], std::sin(pi * 0.5 / 8), 1e-6) << "row 0's centre is at theta = pi / 16";
  EXPECT_NEAR(weight(3, 4), 1 + excess * 0.75 * 0.75, 1e-5) << "Rec. 709 luminance, 3/4 of it kept per axis";
  EXPECT_NEAR(weight(4, 4), 1 + excess * 0.125 * 0.75, 1e-5) << "a neighbour in u";
  EXPECT_NEAR(weight(3, 3), 1 + excess * 0.75 * 0.125, 1e-5) << "a neighbour in v";
  EXPECT_NEAR(weight(2, 5), 1 + excess * 0.125 * 0.125, 1e-5) << "a diagonal neighbour";
  EXPECT_NEAR(weight(5, 4), 1, 1e-5) << "two texels away";
}

}  // namespace
}  // namespace ptbench::test
