#include <dlfcn.h>

#include <cstdlib>
#include <string>

#include "core/errors.h"
#include "core/vk/vulkan.h"

#define PTBENCH_VK_DEFINE(name) PFN_##name name = nullptr;
PTBENCH_VK_GLOBAL_FUNCTIONS(PTBENCH_VK_DEFINE)
PTBENCH_VK_INSTANCE_FUNCTIONS(PTBENCH_VK_DEFINE)
#undef PTBENCH_VK_DEFINE

namespace ptbench::vk {
namespace {
PFN_vkGetInstanceProcAddr getInstanceProcAddr = nullptr;
}

void loadGlobalFunctions() {
  if (getInstanceProcAddr) return;
  // PTBENCH_VULKAN_LIBRARY names another loader (a build of one's own, or a test's absent one).
  const char* override = std::getenv("PTBENCH_VULKAN_LIBRARY");
  const std::string name = override && *override ? override : "libvulkan.so.1";
  // The library stays open for the life of the process: function pointers into it are global.
  void* library = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    throw UserError("cannot open the Vulkan loader (" + name +
                    "): install it (Debian/Ubuntu: apt-get install libvulkan1 mesa-vulkan-drivers, or run "
                    "scripts/setup.sh)");
  }
  getInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(library, "vkGetInstanceProcAddr"));
  if (!getInstanceProcAddr) {
    throw UserError("libvulkan.so.1 has no vkGetInstanceProcAddr: reinstall libvulkan1");
  }
#define PTBENCH_VK_LOAD(name) name = reinterpret_cast<PFN_##name>(getInstanceProcAddr(nullptr, #name));
  PTBENCH_VK_GLOBAL_FUNCTIONS(PTBENCH_VK_LOAD)
#undef PTBENCH_VK_LOAD
}

void loadInstanceFunctions(VkInstance instance) {
#define PTBENCH_VK_LOAD(name) name = reinterpret_cast<PFN_##name>(getInstanceProcAddr(instance, #name));
  PTBENCH_VK_INSTANCE_FUNCTIONS(PTBENCH_VK_LOAD)
#undef PTBENCH_VK_LOAD
}
}  // namespace ptbench::vk
