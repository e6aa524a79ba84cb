#include "core/vk/context.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <set>

#include "core/errors.h"
#include "core/text.h"
#include "core/vk/check.h"
#include "core/vk/device_setup.h"

namespace ptbench::vk {
namespace {

constexpr const char* validationLayerName = "VK_LAYER_KHRONOS_validation";
constexpr const char* noDriverMessage =
    "no Vulkan device found: install a Vulkan driver (Debian/Ubuntu: apt-get install "
    "mesa-vulkan-drivers for lavapipe on the CPU, or your GPU vendor's driver)";

bool hasExtension(const std::vector<VkExtensionProperties>& extensions, const char* name) {
  return std::any_of(extensions.begin(), extensions.end(),
                     [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, name) == 0; });
}

std::vector<VkExtensionProperties> deviceExtensions(VkPhysicalDevice device) {
  uint32_t count = 0;
  VK_CHECK(vkEnumerateDeviceExtensionProperties(device, nullptr, &count, nullptr));
  std::vector<VkExtensionProperties> extensions(count);
  VK_CHECK(vkEnumerateDeviceExtensionProperties(device, nullptr, &count, extensions.data()));
  return extensions;
}

DeviceCapabilities probe(VkPhysicalDevice device, uint32_t index) {
  DeviceCapabilities caps;
  caps.index = index;
  VkPhysicalDeviceProperties basic{};
  vkGetPhysicalDeviceProperties(device, &basic);
  caps.name = basic.deviceName;
  caps.type = basic.deviceType;
  caps.vendorId = basic.vendorID;
  caps.deviceId = basic.deviceID;
  caps.apiVersion = basic.apiVersion;
  caps.timestampPeriodNs = basic.limits.timestampPeriod;
  const bool vulkan13 = basic.apiVersion >= VK_API_VERSION_1_3;

  const auto extensions = deviceExtensions(device);
  caps.accelerationStructure = hasExtension(extensions, VK_KHR_ACCELERATION_STRUCTURE_EXTENSION_NAME) &&
                               hasExtension(extensions, VK_KHR_DEFERRED_HOST_OPERATIONS_EXTENSION_NAME);
  const bool rayQueryExtension = hasExtension(extensions, VK_KHR_RAY_QUERY_EXTENSION_NAME);
  const bool pipelineExtension = hasExtension(extensions, VK_KHR_RAY_TRACING_PIPELINE_EXTENSION_NAME);
  caps.invocationReorderNv = hasExtension(extensions, VK_NV_RAY_TRACING_INVOCATION_REORDER_EXTENSION_NAME);
  // Newer than the headers Debian 12 ships; the name is all ptbench needs to report it.
  caps.invocationReorderExt = hasExtension(extensions, "VK_EXT_ray_tracing_invocation_reorder");

  VkPhysicalDeviceDriverProperties driver{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceVulkan11Properties vulkan11{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES};
  VkPhysicalDeviceProperties2 properties{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  if (vulkan13) {
    properties.pNext = &driver;
    driver.pNext = &vulkan11;
    VkPhysicalDeviceAccelerationStructurePropertiesKHR accelerationProperties{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_PROPERTIES_KHR};
    VkPhysicalDeviceRayTracingInvocationReorderPropertiesNV reorderProperties{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_INVOCATION_REORDER_PROPERTIES_NV};
    void** next = &vulkan11.pNext;
    if (pipelineExtension) {
      *next = &caps.rayTracingProperties;
      next = &caps.rayTracingProperties.pNext;
    }
    if (caps.invocationReorderNv) {
      *next = &reorderProperties;
      next = &reorderProperties.pNext;
    }
    VkPhysicalDeviceShaderSMBuiltinsPropertiesNV smProperties{
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
    const bool smBuiltins = hasExtension(extensions, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
    if (smBuiltins) {
      *next = &smProperties;
      next = &smProperties.pNext;
    }
    if (caps.accelerationStructure) *next = &accelerationProperties;
    vkGetPhysicalDeviceProperties2(device, &properties);
    caps.invocationReorderReorders = reorderProperties.rayTracingInvocationReorderReorderingHint ==
                                     VK_RAY_TRACING_INVOCATION_REORDER_MODE_REORDER_NV;
    if (caps.accelerationStructure)
      caps.accelerationScratchAlignment = accelerationProperties.minAccelerationStructureScratchOffsetAlignment;
    caps.driverName = driver.driverName;
    caps.driverInfo = driver.driverInfo;
    caps.subgroupSize = vulkan11.subgroupSize;
    std::copy(std::begin(vulkan11.deviceUUID), std::end(vulkan11.deviceUUID), caps.uuid.begin());
    if (smBuiltins) {
      caps.smCount = smProperties.shaderSMCount;
      caps.warpsPerSm = smProperties.shaderWarpsPerSM;
    }
    caps.subgroupBallotInCompute = (vulkan11.subgroupSupportedOperations & VK_SUBGROUP_FEATURE_BALLOT_BIT) &&
                                   (vulkan11.subgroupSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT);
    caps.subgroupStages = vulkan11.subgroupSupportedStages;
    caps.subgroupOperations = vulkan11.subgroupSupportedOperations;
  }
  caps.rayTracingProperties.pNext = nullptr;
  {
    uint64_t width = uint64_t{basic.limits.maxComputeWorkGroupCount[0]} * basic.limits.maxComputeWorkGroupSize[0];
    if (caps.rayTracingProperties.maxRayDispatchInvocationCount > 0)
      width = std::min<uint64_t>(width, caps.rayTracingProperties.maxRayDispatchInvocationCount);
    caps.traceRowWidth = uint32_t(std::min<uint64_t>(width, 1u << 31));
  }

  const bool pipelineExecutableExtension =
      hasExtension(extensions, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  FeatureChain features;
  const bool shaderClockExtension = hasExtension(extensions, VK_KHR_SHADER_CLOCK_EXTENSION_NAME);
  features.link(vulkan13, caps.accelerationStructure, rayQueryExtension, pipelineExtension, caps.invocationReorderNv,
                pipelineExecutableExtension, shaderClockExtension);
  vkGetPhysicalDeviceFeatures2(device, &features.core);
  if (vulkan13) {
    caps.bufferDeviceAddress = features.vulkan12.bufferDeviceAddress;
    caps.scalarBlockLayout = features.vulkan12.scalarBlockLayout;
    caps.descriptorIndexing = features.vulkan12.runtimeDescriptorArray &&
                              features.vulkan12.descriptorBindingPartiallyBound &&
                              features.vulkan12.descriptorBindingVariableDescriptorCount &&
                              features.vulkan12.shaderSampledImageArrayNonUniformIndexing;
    caps.synchronization2 = features.vulkan13.synchronization2;
    caps.int64Atomics = features.core.features.shaderInt64 && features.vulkan12.shaderBufferInt64Atomics;
  }
  caps.accelerationStructure = caps.accelerationStructure && features.accelerationStructure.accelerationStructure;
  caps.rayQuery = caps.accelerationStructure && rayQueryExtension && features.rayQuery.rayQuery;
  caps.rayTracingPipeline =
      caps.accelerationStructure && pipelineExtension && features.rayTracingPipeline.rayTracingPipeline;
  caps.rayTracingIndirect = caps.rayTracingPipeline && features.rayTracingPipeline.rayTracingPipelineTraceRaysIndirect;
  caps.invocationReorderNv =
      caps.invocationReorderNv && caps.rayTracingPipeline && features.invocationReorder.rayTracingInvocationReorder;
  caps.invocationReorderReorders = caps.invocationReorderReorders && caps.invocationReorderNv;
  caps.pipelineExecutableInfo = pipelineExecutableExtension && features.pipelineExecutable.pipelineExecutableInfo;
  caps.subgroupClock = shaderClockExtension && features.shaderClock.shaderSubgroupClock;

  VkPhysicalDeviceMemoryProperties memory{};
  vkGetPhysicalDeviceMemoryProperties(device, &memory);
  for (uint32_t heap = 0; heap < memory.memoryHeapCount; ++heap)
    if (memory.memoryHeaps[heap].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT)
      caps.deviceLocalBytes += memory.memoryHeaps[heap].size;

  uint32_t familyCount = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(device, &familyCount, nullptr);
  std::vector<VkQueueFamilyProperties> families(familyCount);
  vkGetPhysicalDeviceQueueFamilyProperties(device, &familyCount, families.data());
  // The first compute family that can write timestamps; the graphics+compute family comes
  // first on every driver we know, and is the one the path tracers are measured on.
  for (uint32_t family = 0; family < familyCount; ++family) {
    if ((families[family].queueFlags & VK_QUEUE_COMPUTE_BIT) && families[family].timestampValidBits > 0) {
      caps.computeQueueFamily = family;
      caps.timestampValidBits = families[family].timestampValidBits;
      break;
    }
  }
  return caps;
}

int typePreference(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return 3;
    default:
      return 4;
  }
}

std::string deviceList(const std::vector<DeviceCapabilities>& devices) {
  std::string list;
  for (const auto& d : devices) list += "\n  " + std::to_string(d.index) + ": " + d.name + " (" + d.typeName() + ")";
  return list;
}

const DeviceCapabilities& chooseDevice(const std::vector<DeviceCapabilities>& devices, const std::string& selector) {
  if (devices.empty()) throw UserError(noDriverMessage);
  if (selector.empty()) {
    const auto best = std::min_element(devices.begin(), devices.end(), [](const auto& a, const auto& b) {
      return typePreference(a.type) < typePreference(b.type);
    });
    return *best;
  }
  const bool isIndex = std::all_of(selector.begin(), selector.end(), [](unsigned char c) { return std::isdigit(c); });
  for (const auto& d : devices) {
    if (isIndex ? std::to_string(d.index) == selector
                : lowercase(d.name).find(lowercase(selector)) != std::string::npos)
      return d;
  }
  // The selector may come from --device, PTBENCH_DEVICE or a config's "device": name them all.
  throw UserError("the device \"" + selector +
                  "\" (from --device, PTBENCH_DEVICE or the config's \"device\") matches no Vulkan device; the devices "
                  "are:" +
                  deviceList(devices) + "\nGive an index or part of a name.");
}

std::vector<VkPhysicalDevice> physicalDevices(VkInstance instance) {
  uint32_t count = 0;
  VkResult result = vkEnumeratePhysicalDevices(instance, &count, nullptr);
  if (result == VK_ERROR_INITIALIZATION_FAILED || count == 0) return {};
  VK_CHECK(result);
  std::vector<VkPhysicalDevice> devices(count);
  VK_CHECK(vkEnumeratePhysicalDevices(instance, &count, devices.data()));
  return devices;
}

bool hasInstanceExtension(const char* name) {
  uint32_t count = 0;
  VK_CHECK(vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr));
  std::vector<VkExtensionProperties> extensions(count);
  VK_CHECK(vkEnumerateInstanceExtensionProperties(nullptr, &count, extensions.data()));
  return hasExtension(extensions, name);
}

bool hasValidationLayer() {
  uint32_t count = 0;
  VK_CHECK(vkEnumerateInstanceLayerProperties(&count, nullptr));
  std::vector<VkLayerProperties> layers(count);
  VK_CHECK(vkEnumerateInstanceLayerProperties(&count, layers.data()));
  return std::any_of(layers.begin(), layers.end(),
                     [](const VkLayerProperties& l) { return std::strcmp(l.layerName, validationLayerName) == 0; });
}

// An instance with debug utils when the loader has them; with the validation layer when asked.
VkInstance createInstance(bool validation) {
  loadGlobalFunctions();
  uint32_t loaderVersion = VK_API_VERSION_1_0;
  if (vkEnumerateInstanceVersion) vkEnumerateInstanceVersion(&loaderVersion);
  if (loaderVersion < VK_API_VERSION_1_3)
    throw UserError("the Vulkan loader is older than 1.3: install a newer libvulkan1");

  std::vector<const char*> layers;
  std::vector<const char*> extensions;
  if (hasInstanceExtension(VK_EXT_DEBUG_UTILS_EXTENSION_NAME)) extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  if (validation) {
    if (!hasValidationLayer())
      throw UserError("--validate needs the Khronos validation layer: apt-get install vulkan-validationlayers");
    if (extensions.empty()) throw UserError("--validate needs VK_EXT_debug_utils, which this Vulkan loader lacks");
    layers.push_back(validationLayerName);
  }
  const VkApplicationInfo application{.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                                      .pApplicationName = "ptbench",
                                      .applicationVersion = VK_MAKE_API_VERSION(0, 0, 1, 0),
                                      .pEngineName = "ptbench",
                                      .apiVersion = VK_API_VERSION_1_3};
  const VkInstanceCreateInfo info{.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                  .pApplicationInfo = &application,
                                  .enabledLayerCount = static_cast<uint32_t>(layers.size()),
                                  .ppEnabledLayerNames = layers.data(),
                                  .enabledExtensionCount = static_cast<uint32_t>(extensions.size()),
                                  .ppEnabledExtensionNames = extensions.data()};
  VkInstance instance = VK_NULL_HANDLE;
  VkResult result = vkCreateInstance(&info, nullptr, &instance);
  if (result == VK_ERROR_INCOMPATIBLE_DRIVER) throw UserError(noDriverMessage);
  VK_CHECK(result);
  loadInstanceFunctions(instance);
  return instance;
}

}  // namespace

bool DeviceCapabilities::simtCountersIn(VkShaderStageFlagBits stage) const {
  constexpr VkSubgroupFeatureFlags needed =
      VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_BALLOT_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
  return (subgroupStages & stage) && (subgroupOperations & needed) == needed;
}

bool DeviceCapabilities::meetsBaseline() const {
  return apiVersion >= VK_API_VERSION_1_3 && bufferDeviceAddress && scalarBlockLayout && synchronization2 &&
         descriptorIndexing && int64Atomics;
}

bool Context::backendEnabled(Backend backend) const {
  return std::find(backends_.begin(), backends_.end(), backend) != backends_.end();
}

std::string DeviceCapabilities::typeName() const {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "cpu";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual";
    default:
      return "other";
  }
}

std::string DeviceCapabilities::apiVersionString() const {
  return std::to_string(VK_API_VERSION_MAJOR(apiVersion)) + "." + std::to_string(VK_API_VERSION_MINOR(apiVersion)) +
         "." + std::to_string(VK_API_VERSION_PATCH(apiVersion));
}

std::vector<DeviceCapabilities> listDevices() {
  VkInstance instance = createInstance(false);
  std::vector<DeviceCapabilities> devices;
  try {
    const auto handles = physicalDevices(instance);
    for (uint32_t i = 0; i < handles.size(); ++i) devices.push_back(probe(handles[i], i));
  } catch (...) {
    vkDestroyInstance(instance, nullptr);
    throw;
  }
  vkDestroyInstance(instance, nullptr);
  if (devices.empty()) throw UserError(noDriverMessage);
  return devices;
}

DeviceCapabilities selectDevice(const std::string& selector) {
  return chooseDevice(listDevices(), selector);
}

Context::Context(const ContextOptions& options) : submitTimeoutSeconds_(options.submitTimeoutSeconds) {
  instance_ = createInstance(options.validation);
  debugLabels_ = hasInstanceExtension(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  try {
    if (options.validation) {
      const VkDebugUtilsMessengerCreateInfoEXT messengerInfo{
          .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
          .messageSeverity =
              VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
          .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
          .pfnUserCallback = &Context::onDebugMessage,
          .pUserData = this};
      VK_CHECK(vkCreateDebugUtilsMessengerEXT(instance_, &messengerInfo, nullptr, &messenger_));
    }

    const auto handles = physicalDevices(instance_);
    std::vector<DeviceCapabilities> devices;
    for (uint32_t i = 0; i < handles.size(); ++i) devices.push_back(probe(handles[i], i));
    capabilities_ = chooseDevice(devices, options.deviceSelector);
    physicalDevice_ = handles[capabilities_.index];
    if (capabilities_.type == VK_PHYSICAL_DEVICE_TYPE_CPU)
      spdlog::warn("using {}, a CPU implementation of Vulkan: its timings are of software, not of a GPU",
                   capabilities_.name);
    vkGetPhysicalDeviceMemoryProperties(physicalDevice_, &memoryProperties_);

    if (!capabilities_.meetsBaseline())
      throw UserError(capabilities_.name +
                      " lacks what ptbench needs at the least (Vulkan 1.3 with buffer device address, "
                      "scalar block layout, descriptor indexing, synchronization2 and 64-bit buffer atomics); "
                      "choose another with --device");
    // Each backend the run uses enables what it needs, in the order the caller gives them.
    DeviceSetup setup;
    for (const BackendNeeds& needs : options.backends) {
      if (!needs.supportedBy(capabilities_)) throw UserError(needs.unsupported(capabilities_, needs.backend));
      needs.enable(setup, capabilities_);
      accelerationStructures_ |= needs.accelerationStructures;
      backends_.push_back(needs.backend);
    }

    // The driver's statistics of each pipeline (registers, spills) for the kernels' reports;
    // capturing them changes no code the driver generates.
    pipelineStatistics_ = capabilities_.pipelineExecutableInfo;
    if (pipelineStatistics_) setup.enableExtension(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    // The subgroup clock, for the kernels of counters: clocks; a kernel without the clock reads
    // none, so enabling it changes nothing else.
    if (capabilities_.subgroupClock) setup.enableExtension(VK_KHR_SHADER_CLOCK_EXTENSION_NAME);

    // Only the structures of enabled extensions join the chain, as the validation layer wants.
    FeatureChain& enable = setup.features;
    enable.link(true, setup.extensionEnabled(VK_KHR_ACCELERATION_STRUCTURE_EXTENSION_NAME),
                setup.extensionEnabled(VK_KHR_RAY_QUERY_EXTENSION_NAME),
                setup.extensionEnabled(VK_KHR_RAY_TRACING_PIPELINE_EXTENSION_NAME),
                setup.extensionEnabled(VK_NV_RAY_TRACING_INVOCATION_REORDER_EXTENSION_NAME), pipelineStatistics_,
                capabilities_.subgroupClock);
    enable.pipelineExecutable.pipelineExecutableInfo = pipelineStatistics_;
    enable.shaderClock.shaderSubgroupClock = capabilities_.subgroupClock;
    enable.core.features.shaderInt64 = VK_TRUE;
    enable.vulkan12.bufferDeviceAddress = VK_TRUE;
    enable.vulkan12.shaderBufferInt64Atomics = VK_TRUE;  // the film's fixed-point sums
    enable.vulkan12.scalarBlockLayout = VK_TRUE;
    enable.vulkan12.hostQueryReset = VK_TRUE;
    enable.vulkan12.runtimeDescriptorArray = VK_TRUE;
    enable.vulkan12.descriptorBindingPartiallyBound = VK_TRUE;
    enable.vulkan12.descriptorBindingVariableDescriptorCount = VK_TRUE;
    enable.vulkan12.shaderSampledImageArrayNonUniformIndexing = VK_TRUE;
    enable.vulkan13.synchronization2 = VK_TRUE;
    enable.vulkan13.maintenance4 = VK_TRUE;

    const float priority = 1.0f;
    const VkDeviceQueueCreateInfo queueInfo{.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                            .queueFamilyIndex = capabilities_.computeQueueFamily,
                                            .queueCount = 1,
                                            .pQueuePriorities = &priority};
    const VkDeviceCreateInfo deviceInfo{.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                                        .pNext = &enable.core,
                                        .queueCreateInfoCount = 1,
                                        .pQueueCreateInfos = &queueInfo,
                                        .enabledExtensionCount = static_cast<uint32_t>(setup.extensions.size()),
                                        .ppEnabledExtensionNames = setup.extensions.data()};
    VK_CHECK(vkCreateDevice(physicalDevice_, &deviceInfo, nullptr, &device_));
    vkGetDeviceQueue(device_, capabilities_.computeQueueFamily, 0, &queue_);

    const VkCommandPoolCreateInfo poolInfo{.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                           .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
                                           .queueFamilyIndex = capabilities_.computeQueueFamily};
    VK_CHECK(vkCreateCommandPool(device_, &poolInfo, nullptr, &commandPool_));
  } catch (...) {
    release();
    throw;
  }
}

Context::~Context() {
  release();
}

void Context::release() {
  if (deviceAbandoned()) {  // a submission may still run: tearing down under it can crash the driver
    reusablePipelines_.abandon();
    return;
  }
  if (device_) {
    // A lost or hung device may never go idle: it is left to the process's end.
    if (lost_) {
      reusablePipelines_.abandon();
    } else {
      vkDeviceWaitIdle(device_);
      reusablePipelines_.clear();
      if (commandPool_) vkDestroyCommandPool(device_, commandPool_, nullptr);
      vkDestroyDevice(device_, nullptr);
    }
    device_ = VK_NULL_HANDLE;
  }
  if (messenger_) {
    vkDestroyDebugUtilsMessengerEXT(instance_, messenger_, nullptr);
    messenger_ = VK_NULL_HANDLE;
  }
  if (instance_) {
    vkDestroyInstance(instance_, nullptr);
    instance_ = VK_NULL_HANDLE;
  }
}

VkBool32 VKAPI_PTR Context::onDebugMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                           VkDebugUtilsMessageTypeFlagsEXT,
                                           const VkDebugUtilsMessengerCallbackDataEXT* data, void* self) {
  static_cast<Context*>(self)->validationMessages_++;
  if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)
    spdlog::error("validation: {}", data->pMessage);
  else
    spdlog::warn("validation: {}", data->pMessage);
  return VK_FALSE;
}

void Context::submitAndWait(const std::function<void(VkCommandBuffer)>& record) const {
  VkCommandBuffer commands = VK_NULL_HANDLE;
  const VkCommandBufferAllocateInfo allocateInfo{.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                                 .commandPool = commandPool_,
                                                 .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                                 .commandBufferCount = 1};
  VK_CHECK(vkAllocateCommandBuffers(device_, &allocateInfo, &commands));
  VkFence fence = VK_NULL_HANDLE;
  auto release = [&] {
    if (fence) vkDestroyFence(device_, fence, nullptr);
    vkFreeCommandBuffers(device_, commandPool_, 1, &commands);
  };
  try {
    const VkCommandBufferBeginInfo beginInfo{.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                             .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    VK_CHECK(vkBeginCommandBuffer(commands, &beginInfo));
    record(commands);
    VK_CHECK(vkEndCommandBuffer(commands));
    const VkFenceCreateInfo fenceInfo{.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_CHECK(vkCreateFence(device_, &fenceInfo, nullptr, &fence));
    const VkCommandBufferSubmitInfo commandInfo{.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
                                                .commandBuffer = commands};
    const VkSubmitInfo2 submit{
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2, .commandBufferInfoCount = 1, .pCommandBufferInfos = &commandInfo};
    VK_CHECK(vkQueueSubmit2(queue_, 1, &submit, fence));
    const uint64_t timeoutNs =
        submitTimeoutSeconds_ > 0 ? uint64_t(std::min(submitTimeoutSeconds_ * 1e9, 1.8e19)) : UINT64_MAX;
    const VkResult waited = vkWaitForFences(device_, 1, &fence, VK_TRUE, timeoutNs);
    if (waited == VK_TIMEOUT) {
      // The submission may still run and use any memory of the device: give the device up
      // with everything on it, rather than free what the GPU may yet write.
      lost_ = true;
      abandonDevice();
    }
    if (waited != VK_SUCCESS) throw VulkanError(waited, "vkWaitForFences", __FILE__, __LINE__);
  } catch (const VulkanError& error) {
    if (error.result() == VK_ERROR_DEVICE_LOST) lost_ = true;
    // The queue may still hold the buffer if waiting failed; drain it before freeing, unless
    // the device is lost, when draining would never end: then the buffer is left.
    if (!lost_) {
      vkQueueWaitIdle(queue_);
      release();
    }
    throw;
  } catch (...) {
    vkQueueWaitIdle(queue_);
    release();
    throw;
  }
  release();
}

uint32_t Context::findMemoryType(uint32_t typeBits, VkMemoryPropertyFlags properties) const {
  for (uint32_t type = 0; type < memoryProperties_.memoryTypeCount; ++type) {
    if ((typeBits & (1u << type)) && (memoryProperties_.memoryTypes[type].propertyFlags & properties) == properties)
      return type;
  }
  throw std::runtime_error("no Vulkan memory type with properties " + std::to_string(properties) + " among types " +
                           std::to_string(typeBits));
}

}  // namespace ptbench::vk
