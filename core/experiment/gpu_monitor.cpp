#include "core/experiment/gpu_monitor.h"

#include <dlfcn.h>

#include <cctype>
#include <cstring>

namespace ptbench {
namespace {

// NVML's C interface, the few entry points used (nvml.h is not packaged where ptbench builds).
using Status = int;  // nvmlReturn_t; 0 is NVML_SUCCESS
using Device = void*;
constexpr Status success = 0;
constexpr int clockSm = 1, clockMemory = 2, temperatureGpu = 0;

// The 16 bytes of an NVML UUID string ("GPU-5f0e1c2a-0b7c-..."), or nothing.
std::optional<std::array<uint8_t, 16>> parseUuid(const char* text) {
  std::array<uint8_t, 16> bytes{};
  size_t nibbles = 0;
  for (const char* c = std::strncmp(text, "GPU-", 4) == 0 ? text + 4 : text; *c; ++c) {
    if (*c == '-') continue;
    if (!std::isxdigit(static_cast<unsigned char>(*c)) || nibbles >= 32) return std::nullopt;
    const int value = std::isdigit(static_cast<unsigned char>(*c)) ? *c - '0' : std::tolower(*c) - 'a' + 10;
    bytes[nibbles / 2] = uint8_t(bytes[nibbles / 2] << 4 | value);
    ++nibbles;
  }
  if (nibbles != 32) return std::nullopt;
  return bytes;
}

}  // namespace

struct GpuMonitor::Library {
  void* handle = nullptr;
  Status (*init)() = nullptr;
  Status (*shutdown)() = nullptr;
  Status (*count)(unsigned*) = nullptr;
  Status (*byIndex)(unsigned, Device*) = nullptr;
  Status (*uuid)(Device, char*, unsigned) = nullptr;
  Status (*clock)(Device, int, unsigned*) = nullptr;
  Status (*maxClock)(Device, int, unsigned*) = nullptr;
  Status (*temperature)(Device, int, unsigned*) = nullptr;
  Status (*power)(Device, unsigned*) = nullptr;
  Status (*throttle)(Device, unsigned long long*) = nullptr;
  Status (*busWidth)(Device, unsigned*) = nullptr;
  Status (*ecc)(Device, int*, int*) = nullptr;

  template <typename F>
  bool load(F& function, const char* name) {
    function = reinterpret_cast<F>(dlsym(handle, name));
    return function != nullptr;
  }
};

GpuMonitor::GpuMonitor(const std::array<uint8_t, 16>& uuid) {
  auto library = std::make_unique<Library>();
  library->handle = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library->handle) return;
  Library& l = *library;
  const bool loaded = l.load(l.init, "nvmlInit_v2") && l.load(l.shutdown, "nvmlShutdown") &&
                      l.load(l.count, "nvmlDeviceGetCount_v2") && l.load(l.byIndex, "nvmlDeviceGetHandleByIndex_v2") &&
                      l.load(l.uuid, "nvmlDeviceGetUUID") && l.load(l.clock, "nvmlDeviceGetClockInfo") &&
                      l.load(l.maxClock, "nvmlDeviceGetMaxClockInfo") &&
                      l.load(l.temperature, "nvmlDeviceGetTemperature") && l.load(l.power, "nvmlDeviceGetPowerUsage") &&
                      l.load(l.throttle, "nvmlDeviceGetCurrentClocksThrottleReasons") &&
                      l.load(l.busWidth, "nvmlDeviceGetMemoryBusWidth") && l.load(l.ecc, "nvmlDeviceGetEccMode");
  if (!loaded || l.init() != success) {
    dlclose(l.handle);
    return;
  }
  library_ = std::move(library);
  unsigned count = 0;
  if (l.count(&count) != success) return;
  for (unsigned index = 0; index < count && !device_; ++index) {
    Device device = nullptr;
    char text[96] = {};
    if (l.byIndex(index, &device) != success || l.uuid(device, text, sizeof text) != success) continue;
    if (const auto bytes = parseUuid(text); bytes && *bytes == uuid) device_ = device;
  }
}

GpuMonitor::~GpuMonitor() {
  if (!library_) return;
  library_->shutdown();
  dlclose(library_->handle);
}

std::optional<GpuSample> GpuMonitor::sample() const {
  if (!device_) return std::nullopt;
  const Library& l = *library_;
  GpuSample sample;
  unsigned value = 0;
  if (l.clock(device_, clockSm, &value) == success) sample.smClockMhz = value;
  if (l.clock(device_, clockMemory, &value) == success) sample.memoryClockMhz = value;
  if (l.temperature(device_, temperatureGpu, &value) == success) sample.temperatureC = value;
  if (l.power(device_, &value) == success) sample.powerW = value * 1e-3;
  unsigned long long reasons = 0;
  if (l.throttle(device_, &reasons) == success) sample.throttleReasons = reasons;
  return sample;
}

std::optional<GpuIdentity> GpuMonitor::identity() const {
  if (!device_) return std::nullopt;
  const Library& l = *library_;
  GpuIdentity identity;
  unsigned value = 0;
  if (l.maxClock(device_, clockSm, &value) == success) identity.maxSmClockMhz = value;
  if (l.maxClock(device_, clockMemory, &value) == success) identity.maxMemoryClockMhz = value;
  if (l.busWidth(device_, &value) == success) identity.memoryBusWidthBits = value;
  int current = 0, pending = 0;
  if (l.ecc(device_, &current, &pending) == success) identity.ecc = current != 0;
  return identity;
}

std::vector<std::string> throttleReasonNames(uint64_t reasons) {
  static const std::pair<uint64_t, const char*> names[] = {{0x1, "gpu_idle"},
                                                           {0x2, "applications_clocks_setting"},
                                                           {0x4, "sw_power_cap"},
                                                           {0x8, "hw_slowdown"},
                                                           {0x10, "sync_boost"},
                                                           {0x20, "sw_thermal_slowdown"},
                                                           {0x40, "hw_thermal_slowdown"},
                                                           {0x80, "hw_power_brake_slowdown"},
                                                           {0x100, "display_clock_setting"}};
  std::vector<std::string> result;
  for (const auto& [bit, name] : names)
    if (reasons & bit) result.emplace_back(name);
  return result;
}

}  // namespace ptbench
