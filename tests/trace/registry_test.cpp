#include "core/trace/registry.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>

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

// core/backends.def is the registration the C++ and the shader build both read: each
// descriptor, in the list's order, has its line's name, shader define and stage. (A define the
// generated #if chain lacked would fail the shader build itself, at that backend's kernels.)
TEST(BackendRegistry, EachDescriptorIsItsLineOfBackendsDef) {
  std::ifstream in(std::string(PTBENCH_SOURCE_DIR) + "/core/backends.def");
  ASSERT_TRUE(in) << "core/backends.def not found";
  const std::regex listed(R"(^PTBENCH_TRACE_BACKEND\((\w+), (\w+), (\w+), (comp|rgen)\)$)");
  const auto backends = trace::backends();
  size_t index = 0;
  for (std::string line; std::getline(in, line);) {
    std::smatch fields;
    if (!std::regex_match(line, fields, listed)) continue;
    ASSERT_LT(index, backends.size()) << "backends.def lists more backends than the registry: " << line;
    const trace::BackendDescriptor& backend = *backends[index++];
    EXPECT_EQ(backend.name, fields[2].str()) << line;
    EXPECT_EQ(backend.shaderDefine, fields[3].str()) << line;
    EXPECT_EQ(backend.rayGeneration, fields[4] == "rgen") << line;
  }
  EXPECT_EQ(index, backends.size()) << "the registry holds backends that backends.def does not list";
}

// The shader build compiles every tracing kernel once per backend, as <kernel>_<name>.
TEST(BackendRegistry, EveryBackendHasItsKernels) {
  for (const trace::BackendDescriptor* backend : trace::backends())
    for (const std::string kernel : {"megakernel", "wavefront_extend", "wavefront_shadow", "raycast_trace"})
      EXPECT_TRUE(embeddedShaders().contains(kernel + "_" + std::string(backend->name)))
          << "no " << kernel << " compiled for " << backend->name;
}

TEST(BackendRegistry, OptionsRoundTripThroughParseAndPrint) {
  for (const trace::BackendDescriptor* backend : trace::backends()) {
    for (const trace::BackendOption& option : backend->options) {
      // Defaults, and every value off its default; an option may print null at its default.
      for (const TraceTarget& target :
           {TraceTarget(backend->id), TraceTarget(backend->id, BvhLayout::Bvh2, BvhBuilder::Gpu)}) {
        const nlohmann::json printed = option.print(target);
        if (printed.is_null()) continue;
        TraceTarget parsed(backend->id);
        EXPECT_TRUE(option.parse(printed, parsed)) << option.name << " " << printed;
        EXPECT_EQ(option.print(parsed), printed) << option.name;
      }
      TraceTarget parsed(backend->id, BvhLayout::Bvh2);
      EXPECT_FALSE(option.parse(nlohmann::json(12345), parsed)) << option.name << " took 12345";
      EXPECT_FALSE(option.accepted.empty() || option.description.empty()) << option.name;
    }
  }
  const auto& software = trace::descriptor(Backend::Software).options;
  ASSERT_EQ(software.size(), 2u);
  TraceTarget target(Backend::Software);
  EXPECT_TRUE(software[0].parse("bvh2", target));
  EXPECT_EQ(target.softwareBvh, BvhLayout::Bvh2);
  EXPECT_FALSE(software[0].parse("bvh4", target));
  EXPECT_EQ(target.softwareBvh, BvhLayout::Bvh2) << "a refused value leaves the target as it was";
  // software_builder: reports name only the GPU builder, so that CPU runs keep their old keys.
  EXPECT_TRUE(software[1].print(target).is_null());
  EXPECT_TRUE(software[1].parse("gpu", target));
  EXPECT_EQ(target.softwareBuilder, BvhBuilder::Gpu);
  EXPECT_EQ(software[1].print(target), "gpu");
  EXPECT_FALSE(software[1].parse("cuda", target));
  EXPECT_EQ(target.softwareBuilder, BvhBuilder::Gpu);
}

// The help and messages name the backends as they did when the names were written out.
TEST(BackendRegistry, NamesTheBackendsInMessagesAndHelp) {
  EXPECT_EQ(trace::backendNameList(" or "), "rayquery, pipeline or software");
  EXPECT_EQ(trace::backendNameList(", "), "rayquery, pipeline, software");
  EXPECT_EQ(trace::backendChoicesHelp(),
            "auto, rayquery, pipeline or software (auto: rayquery where supported, else pipeline, else software; on a "
            "CPU implementation such as lavapipe, software)");
}

}  // namespace
}  // namespace ptbench::test
