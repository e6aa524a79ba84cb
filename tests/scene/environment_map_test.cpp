#include "core/scene/environment_map.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

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

TEST(EnvironmentMap, SamplingWeightsFollowLuminanceAndSolidAngle) {
  EnvironmentMap map{.width = 2, .height = 4, .rgb = std::vector<float>(2 * 4 * 3, 1.0f)};
  map.rgb[(1 * 2 + 1) * 3 + 1] = 2;  // texel (1, 1): more green
  const std::vector<float> weights = environmentSamplingWeights(map);
  ASSERT_EQ(weights.size(), 8u);
  const double pi = 3.14159265358979;
  EXPECT_NEAR(weights[0], std::sin(pi * 0.5 / 4), 1e-6) << "row 0's centre is at theta = pi / 8";
  EXPECT_NEAR(weights[2], std::sin(pi * 1.5 / 4), 1e-6);
  EXPECT_NEAR(weights[3], (1 + 0.7152) * std::sin(pi * 1.5 / 4), 1e-5) << "Rec. 709 luminance";
}

}  // namespace
}  // namespace ptbench::test
