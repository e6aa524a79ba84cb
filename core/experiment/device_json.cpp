#include "core/experiment/device_json.h"

namespace ptbench {

nlohmann::json deviceJson(const vk::DeviceCapabilities& device) {
  nlohmann::json backends = nlohmann::json::object();
  for (Backend backend : allBackends) backends[std::string(backendName(backend))] = device.supports(backend);
  return {
      {"index", device.index},
      {"name", device.name},
      {"type", device.typeName()},
      {"vendor_id", device.vendorId},
      {"device_id", device.deviceId},
      {"driver", device.driverName},
      {"driver_info", device.driverInfo},
      {"api_version", device.apiVersionString()},
      {"memory_bytes", device.deviceLocalBytes},
      {"subgroup_size", device.subgroupSize},
      {"timestamp_period_ns", device.timestampPeriodNs},
      {"timestamp_valid_bits", device.timestampValidBits},
      {"backends", backends},
      {"ser", device.invocationReorder()},
  };
}

}  // namespace ptbench
