// Any bytes as a Radiance .hdr environment map: decodeRadiance must decode them or refuse them
// with a UserError, reading nothing past them, in time bounded by their size (libFuzzer's
// -timeout catches a hang, as stb_image's decoder had on a truncated file). Anything else is a
// finding.
#include <cstdint>
#include <string_view>

#include "core/errors.h"
#include "core/scene/environment_map.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)ptbench::decodeRadiance(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.hdr");
  } catch (const ptbench::UserError&) {
  }
  return 0;
}
