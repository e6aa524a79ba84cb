// Any bytes as a glTF scene (.glb when they start with its magic, else .gltf): loadGltf must
// load them or refuse them with a UserError. Anything else is a finding.
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>

#include "core/errors.h"
#include "core/scene/gltf_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const bool binary = size >= 4 && std::memcmp(data, "glTF", 4) == 0;
  static const std::string stem = "/dev/shm/ptbench-fuzz-scene-" + std::to_string(::getpid());
  const std::string path = stem + (binary ? ".glb" : ".gltf");
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(data), std::streamsize(size));
  try {
    (void)ptbench::loadGltf(path);
  } catch (const ptbench::UserError&) {
  }
  return 0;
}
