// Any bytes as a config file: loadConfig must accept them or refuse them with a UserError.
// Anything else (a crash, a sanitizer report, another exception) is a finding.
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "core/errors.h"
#include "core/experiment/config.h"
#include "core/experiment/sweep.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/dev/shm/ptbench-fuzz-config-" + std::to_string(::getpid()) + ".json";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(data), std::streamsize(size));
  try {
    const auto config = ptbench::loadConfig(path);
    (void)ptbench::expandSweep(config);
  } catch (const ptbench::UserError&) {
  }
  return 0;
}
