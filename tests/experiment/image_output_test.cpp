#include "core/experiment/image_output.h"

#include <gtest/gtest.h>

namespace ptbench::test {
namespace {

// A run's images say what made them, not only its id (r003.png said nothing).
TEST(RunImageName, SaysTheRunSceneIntegratorAndBackend) {
  EXPECT_EQ(runImageName("r003", "builtin:cornell", "wavefront", "pipeline", ".png"),
            "r003-cornell-wavefront-pipeline.png");
  EXPECT_EQ(
      runImageName("r010", "scenes/DamagedHelmet/glTF-Binary/DamagedHelmet.glb", "megakernel-ser", "pipeline", ".exr"),
      "r010-DamagedHelmet-megakernel-ser-pipeline.exr");
  EXPECT_EQ(runImageName("r001", "builtin:spheres?n=64&subdiv=32", "megakernel", "software", ".png"),
            "r001-spheres-n-64-subdiv-32-megakernel-software.png");
}

TEST(RunImageName, IsOneSafeBoundedPathComponent) {
  const std::string name =
      runImageName("r000", "builtin:" + std::string(300, 'x') + "/../.. ?*\n", "wave/../front", "..", ".png");
  EXPECT_EQ(name, "r000-" + std::string(40, 'x') + "-wave-front.png");
  // A glTF's file stem, whatever folders lead to it.
  EXPECT_EQ(runImageName("r001", "../../up/there/My Scene (2).gltf", "megakernel", "rayquery", ".png"),
            "r001-My-Scene-2-megakernel-rayquery.png");
}

}  // namespace
}  // namespace ptbench::test
