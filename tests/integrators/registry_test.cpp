#include "core/integrators/registry.h"

#include <gtest/gtest.h>

#include <set>

namespace ptbench::test {
namespace {

using json = nlohmann::json;

// Every option of every integrator: what it prints is what it parses back, and its label and the
// report's options come from the same entry.
TEST(IntegratorRegistry, EveryIntegratorsOptionsRoundTripThroughParsePrintAndLabel) {
  for (IntegratorKind kind : allIntegrators) {
    SCOPED_TRACE(integratorName(kind));
    const IntegratorEntry& entry = integratorEntry(kind);
    EXPECT_EQ(entry.kind, kind);
    EXPECT_TRUE(entry.create);
    const RenderSettings defaults;
    const json printed = optionsJson(kind, defaults);
    EXPECT_EQ(printed.size(), entry.options.size());
    std::set<std::string> names;
    for (const IntegratorOption& option : entry.options) {
      SCOPED_TRACE(option.info.name);
      EXPECT_TRUE(names.insert(option.info.name).second) << "an option named twice";
      EXPECT_FALSE(option.info.accepted.empty());
      EXPECT_FALSE(option.info.description.empty());
      ASSERT_TRUE(printed.contains(option.info.name));
      const json value = printed[option.info.name];
      RenderSettings parsed;
      EXPECT_EQ(applyOption(kind, option.info.name, value, parsed), "");
      EXPECT_EQ(option.print(parsed), value);
      EXPECT_NO_THROW(option.label(value));
      // A value of the wrong type is refused, saying what is accepted.
      RenderSettings refused;
      EXPECT_EQ(applyOption(kind, option.info.name, json::array(), refused), "expected " + option.info.accepted);
    }
    RenderSettings unknown;
    EXPECT_NE(applyOption(kind, "no_such_option", true, unknown), "");
  }
}

// Non-default values travel from a config's JSON to the settings, back into a report, and into
// the summary's label, each through the one entry.
TEST(IntegratorRegistry, NonDefaultValuesReachSettingsReportsAndLabels) {
  RenderSettings settings;
  ASSERT_EQ(applyOption(IntegratorKind::Wavefront, "schedule", "pool", settings), "");
  ASSERT_EQ(applyOption(IntegratorKind::Wavefront, "compaction", false, settings), "");
  ASSERT_EQ(applyOption(IntegratorKind::Wavefront, "material_queues", true, settings), "");
  ASSERT_EQ(applyOption(IntegratorKind::Wavefront, "pool_size", 1u << 20, settings), "");
  ASSERT_EQ(applyOption(IntegratorKind::Wavefront, "shadow_overlap", false, settings), "");
  EXPECT_EQ(settings.wavefront.schedule, WavefrontSchedule::Pool);
  EXPECT_FALSE(settings.wavefront.shadowOverlap);
  EXPECT_FALSE(settings.wavefront.compaction);
  EXPECT_TRUE(settings.wavefront.materialQueues);
  EXPECT_EQ(settings.wavefront.poolSize, 1u << 20);
  const json options = optionsJson(IntegratorKind::Wavefront, settings);
  EXPECT_EQ(options, (json{{"schedule", "pool"},
                           {"compaction", false},
                           {"material_queues", true},
                           {"pool_size", 1u << 20},
                           {"shadow_overlap", false},
                           {"ms_compensation", true},
                           {"restir", "off"},
                           {"restir_candidates", 32},
                           {"restir_neighbours", 3},
                           {"restir_history_cap", 20.0},
                           {"restir_gi_jacobian", 0.0},
                           {"restir_bsdf_candidate", false}}));
  EXPECT_EQ(optionsLabel(IntegratorKind::Wavefront, options), " pool 1.05M -compact +matq -overlap");

  ASSERT_EQ(applyOption(IntegratorKind::MegakernelSer, "hint", "none", settings), "");
  ASSERT_EQ(applyOption(IntegratorKind::MegakernelSer, "reorder_from", 2u, settings), "");
  EXPECT_EQ(optionsLabel(IntegratorKind::MegakernelSer, optionsJson(IntegratorKind::MegakernelSer, settings)),
            " hint=none from=2");
  ASSERT_EQ(applyOption(IntegratorKind::Raycast, "rays", "shadow", settings), "");
  EXPECT_EQ(settings.raycast.rays, RaycastRays::Shadow);
  EXPECT_EQ(applyOption(IntegratorKind::Megakernel, "schedule", "pool", settings),
            "unknown option of megakernel; it has ms_compensation, restir, restir_candidates, restir_neighbours, "
            "restir_history_cap, restir_gi_jacobian, restir_bsdf_candidate");
  EXPECT_EQ(applyOption(IntegratorKind::MegakernelRegen, "restir", "di", settings),
            "unknown option of megakernel-regen; it has ms_compensation");
  EXPECT_EQ(applyOption(IntegratorKind::Megakernel, "restir", "pt", settings), "expected off, di, gi or di+gi");
  ASSERT_EQ(applyOption(IntegratorKind::Megakernel, "restir", "di", settings), "");
  EXPECT_EQ(settings.restir, Restir::Di);
  EXPECT_EQ(optionsLabel(IntegratorKind::Megakernel, optionsJson(IntegratorKind::Megakernel, settings)), " restir=di");
  for (Restir restir : {Restir::Gi, Restir::DiGi}) {
    ASSERT_EQ(applyOption(IntegratorKind::Wavefront, "restir", std::string(restirName(restir)), settings), "");
    EXPECT_EQ(settings.restir, restir);
  }
  EXPECT_EQ(optionsLabel(IntegratorKind::Wavefront, json{{"restir", "di+gi"}}), " restir=di+gi");
  EXPECT_EQ(optionsLabel(IntegratorKind::Megakernel, json{{"restir", "off"}}), "");
}

// Every path tracer takes ms_compensation, on by default; off, its label says so.
TEST(IntegratorRegistry, EveryPathTracerTakesMsCompensation) {
  for (IntegratorKind kind : {IntegratorKind::Megakernel, IntegratorKind::MegakernelRegen,
                              IntegratorKind::MegakernelSer, IntegratorKind::Wavefront}) {
    RenderSettings settings;
    EXPECT_EQ(optionsJson(kind, settings)["ms_compensation"], true) << integratorName(kind);
    ASSERT_EQ(applyOption(kind, "ms_compensation", false, settings), "") << integratorName(kind);
    EXPECT_FALSE(settings.msCompensation);
    EXPECT_NE(optionsLabel(kind, optionsJson(kind, settings)).find("-ms"), std::string::npos) << integratorName(kind);
    EXPECT_EQ(applyOption(kind, "ms_compensation", "off", settings), "expected true or false");
  }
  RenderSettings raycast;
  EXPECT_NE(applyOption(IntegratorKind::Raycast, "ms_compensation", false, raycast), "")
      << "the raycast shades nothing";
}

// The options that choose kernels are fixed when the integrator is created; the others a frame takes.
TEST(IntegratorRegistry, OptionsThatChooseKernelsAreFixedAtCreation) {
  std::set<std::string> fixed, perFrame;
  for (IntegratorKind kind : allIntegrators)
    for (const IntegratorOption& option : integratorEntry(kind).options)
      (option.fixedAtCreation ? fixed : perFrame).insert(std::string(integratorName(kind)) + "." + option.info.name);
  EXPECT_EQ(fixed, (std::set<std::string>{"wavefront.compaction", "wavefront.material_queues", "megakernel-ser.hint",
                                          "megakernel-ser.reorder_from", "megakernel.ms_compensation",
                                          "megakernel-regen.ms_compensation", "megakernel-ser.ms_compensation",
                                          "wavefront.ms_compensation", "megakernel.restir", "wavefront.restir"}));
  std::set<std::string> expectedPerFrame = {"wavefront.schedule", "wavefront.pool_size", "wavefront.shadow_overlap",
                                            "raycast.rays"};
  for (const char* integrator : {"megakernel", "wavefront"})
    for (const char* option : {"restir_candidates", "restir_neighbours", "restir_history_cap", "restir_gi_jacobian",
                               "restir_bsdf_candidate"})
      expectedPerFrame.insert(std::string(integrator) + "." + option);
  EXPECT_EQ(perFrame, expectedPerFrame) << "ReSTIR's sizes reach the shaders in each frame's uniforms";
}

}  // namespace
}  // namespace ptbench::test
