// The GPU's clocks, temperature, power and throttling around each frame, through NVIDIA's NVML
// (libnvidia-ml.so.1, loaded at run time from the driver). Without NVML, or on a device it does
// not know (lavapipe, other vendors), nothing is sampled and reports carry nulls: a benchmark
// that records no clocks cannot tell a slower kernel from a throttled GPU.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ptbench {

struct GpuSample {
  uint32_t smClockMhz = 0;
  uint32_t memoryClockMhz = 0;
  uint32_t temperatureC = 0;
  double powerW = 0;
  uint64_t throttleReasons = 0;  // nvmlClocksThrottleReasons bits
};

// What NVML says of the device once: for the report's device block.
struct GpuIdentity {
  uint32_t maxSmClockMhz = 0;
  uint32_t maxMemoryClockMhz = 0;
  uint32_t memoryBusWidthBits = 0;
  std::optional<bool> ecc;  // absent where the device has no ECC
};

// Reasons that slow the GPU below what it was asked (power, thermal, hardware slowdown), not
// idling or a clock someone set: a frame sampled with one of them set is "throttled".
constexpr uint64_t throttlingReasonsMask = 0x4 | 0x8 | 0x20 | 0x40 | 0x80;
// The names of the reasons set in `reasons`, as NVML's documentation gives them.
std::vector<std::string> throttleReasonNames(uint64_t reasons);

class GpuMonitor {
 public:
  // NVML's device whose UUID is `uuid` (Vulkan's deviceUUID); unavailable when there is none.
  explicit GpuMonitor(const std::array<uint8_t, 16>& uuid);
  ~GpuMonitor();
  GpuMonitor(const GpuMonitor&) = delete;
  GpuMonitor& operator=(const GpuMonitor&) = delete;

  bool available() const { return device_ != nullptr; }
  std::optional<GpuSample> sample() const;
  std::optional<GpuIdentity> identity() const;

 private:
  struct Library;
  std::unique_ptr<Library> library_;
  void* device_ = nullptr;  // nvmlDevice_t
};

}  // namespace ptbench
