// The device block that `ptbench devices --json` prints and every report carries.
#pragma once
#include <nlohmann/json.hpp>

#include "core/vk/context.h"

namespace ptbench {
nlohmann::json deviceJson(const vk::DeviceCapabilities& device);
}
