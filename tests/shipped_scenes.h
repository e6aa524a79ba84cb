// The glTF scenes that ship under scenes/, by their paths there: every scene-wide test runs on each.
#pragma once
#include <string>
#include <vector>

namespace ptbench::test {

inline const std::vector<std::string> shippedScenes = {
    "CornellBox_bevy/CornellBox.glb",
    "CornellBox_nvpro/cornellBox.gltf",
    "DamagedHelmet/glTF-Binary/DamagedHelmet.glb",
    "FlightHelmet/FlightHelmet.gltf",
    "MetalRoughSpheresNoTextures/glTF-Binary/MetalRoughSpheresNoTextures.glb",
    "ClearCoatTest/glTF-Binary/ClearCoatTest.glb",
    "EmissiveStrengthTest/glTF-Binary/EmissiveStrengthTest.glb",
    "ToyCar/glTF/ToyCar.gltf",
    "ManyLights/ManyLights.gltf",
};

}  // namespace ptbench::test
