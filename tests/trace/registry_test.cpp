#include "core/trace/registry.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "core/vk/pipeline.h"

namespace ptbench::test {
namespace {

TEST(BackendRegistry, ListsEveryBackendOnceInItsPlace) {
  const auto backends = trace::backends();
  ASSERT_EQ(backends.size(), allBackends.size());
  std::set<std::string_view> names;
  std::set<std::string_view> defines;
  for (size_t i = 0; i < backends.size(); ++i) {
    const trace::BackendDescriptor& backend = *backends[i];
    EXPECT_EQ(backend.id, allBackends[i]) << backend.name;
    EXPECT_EQ(&trace::descriptor(backend.id), &backend) << backend.name;
    EXPECT_TRUE(names.insert(backend.name).second) << "two backends named " << backend.name;
    EXPECT_TRUE(defines.insert(backend.shaderDefine).second) << "two backends define " << backend.shaderDefine;
    EXPECT_EQ(backendName(backend.id), backend.name);
    EXPECT_EQ(parseBackend(backend.name), backend.id);
    EXPECT_NE(backend.supportedBy, nullptr) << backend.name;
    EXPECT_NE(backend.enable, nullptr) << backend.name;
  }
  EXPECT_EQ(parseBackend("auto"), std::nullopt) << "auto is a rule, not a backend";
}

// The shader build compiles a tracing kernel once per backend, named <kernel>_<backend>, with
// the backend's define choosing its trace functions in shaders/trace/trace.glsl.
TEST(BackendRegistry, EveryBackendHasItsDefineAndItsKernels) {
  std::ifstream in(std::string(PTBENCH_SOURCE_DIR) + "/shaders/trace/trace.glsl");
  ASSERT_TRUE(in) << "shaders/trace/trace.glsl not found";
  std::stringstream trace;
  trace << in.rdbuf();
  for (const trace::BackendDescriptor* backend : trace::backends()) {
    EXPECT_NE(trace.str().find("defined(" + std::string(backend->shaderDefine) + ")"), std::string::npos)
        << backend->shaderDefine << " is not one trace.glsl chooses by";
    EXPECT_TRUE(embeddedShaders().contains("megakernel_" + std::string(backend->name)))
        << "no megakernel compiled for " << backend->name;
  }
}

TEST(BackendRegistry, OptionsRoundTripThroughParseAndPrint) {
  for (const trace::BackendDescriptor* backend : trace::backends()) {
    for (const trace::BackendOption& option : backend->options) {
      TraceTarget target(backend->id);
      const nlohmann::json printed = option.print(target);
      TraceTarget parsed(backend->id, BvhLayout::Bvh2);
      EXPECT_TRUE(option.parse(printed, parsed)) << option.name << " " << printed;
      EXPECT_EQ(option.print(parsed), printed) << option.name;
      EXPECT_FALSE(option.parse(nlohmann::json(12345), parsed)) << option.name << " took 12345";
      EXPECT_FALSE(option.accepted.empty() || option.description.empty()) << option.name;
    }
  }
  const auto& software = trace::descriptor(Backend::Software).options;
  ASSERT_EQ(software.size(), 1u);
  TraceTarget target(Backend::Software);
  EXPECT_TRUE(software[0].parse("bvh2", target));
  EXPECT_EQ(target.softwareBvh, BvhLayout::Bvh2);
  EXPECT_FALSE(software[0].parse("bvh4", target));
  EXPECT_EQ(target.softwareBvh, BvhLayout::Bvh2) << "a refused value leaves the target as it was";
}

// The help and messages name the backends as they did when the names were written out.
TEST(BackendRegistry, NamesTheBackendsInMessagesAndHelp) {
  EXPECT_EQ(trace::backendNameList(" or "), "rayquery, pipeline or software");
  EXPECT_EQ(trace::backendNameList(", "), "rayquery, pipeline, software");
  EXPECT_EQ(trace::backendChoicesHelp(),
            "auto, rayquery, pipeline or software (auto: rayquery where supported, else pipeline, else software)");
}

}  // namespace
}  // namespace ptbench::test
