// `ptbench flip`: FLIP of a test image against a reference (core/experiment/flip.h), the
// metric reports give beside relMSE, for images on disk.
#include "core/experiment/flip.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/options.h"
#include "core/errors.h"
#include "core/experiment/image_output.h"

namespace ptbench::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::map<std::string, ToneMapper> toneMappers{
    {"aces", ToneMapper::Aces}, {"hable", ToneMapper::Hable}, {"reinhard", ToneMapper::Reinhard}};

bool isPng(const fs::path& path) {
  std::string extension = path.extension().string();
  for (char& c : extension) c = char(std::tolower(static_cast<unsigned char>(c)));
  return extension == ".png";
}

std::string sizeText(uint32_t width, uint32_t height) {
  return std::to_string(width) + "x" + std::to_string(height);
}

}  // namespace

void addFlipCommand(CLI::App& app, const GlobalOptions&) {
  auto* command = app.add_subcommand(
      "flip",
      "FLIP of a test image against a reference: HDR-FLIP of two EXRs or PFMs (linear, as renders are), "
      "LDR-FLIP of two PNGs (sRGB); 0 to 1, lower is better");
  command->footer("Exit 1: an image cannot be read, or the two differ in size or kind.");
  auto reference = std::make_shared<std::string>();
  auto test = std::make_shared<std::string>();
  auto ppd = std::make_shared<double>(defaultPixelsPerDegree);
  auto toneMapper = std::make_shared<std::string>("aces");
  auto asJson = std::make_shared<bool>(false);
  command->add_option("reference", *reference, "the reference image: .exr, .pfm or .png")->required();
  command->add_option("test", *test, "the image compared to it, of the same size and kind")->required();
  command
      ->add_option("--ppd", *ppd,
                   "pixels per degree of visual angle (67.02: 0.7 m from a 0.7 m wide monitor of 3840 pixels)")
      ->check(numberIn(NumberRange{0, 10000, true}, "pixels per degree"));
  command->add_option("--tone-mapper", *toneMapper, "HDR-FLIP's tone mapper: aces, hable or reinhard")
      ->capture_default_str()
      ->check(CLI::IsMember({"aces", "hable", "reinhard"}));
  command->add_flag("--json", *asJson, "print one JSON object: flip, kind, pixels_per_degree and, for HDR, exposures");
  command->callback([=] {
    const bool ldr = isPng(*reference);
    if (ldr != isPng(*test))
      throw UserError(*reference + " and " + *test + ": compare two PNGs (LDR-FLIP) or two EXRs or PFMs (HDR-FLIP)");
    json out = {{"kind", ldr ? "ldr" : "hdr"}, {"pixels_per_degree", *ppd}};
    std::optional<FlipResult> flip;
    std::string sizes;
    if (ldr) {
      const SrgbImage referenceImage = readSrgbPng(*reference), testImage = readSrgbPng(*test);
      flip = ldrFlip(testImage, referenceImage, float(*ppd));
      sizes =
          sizeText(referenceImage.width, referenceImage.height) + " and " + sizeText(testImage.width, testImage.height);
    } else {
      const LinearImage referenceImage = readLinearImage(*reference), testImage = readLinearImage(*test);
      for (const auto& [path, image] : {std::pair{reference.get(), &referenceImage}, std::pair{test.get(), &testImage}})
        if (const size_t bad = nonFiniteValues(*image); bad > 0)
          throw UserError(*path + ": " + std::to_string(bad) +
                          " of its values are NaN or infinite; FLIP compares finite radiance");
      const ToneMapper mapper = toneMappers.at(*toneMapper);
      const ExposureRange exposures = automaticExposures(referenceImage, mapper);
      flip = hdrFlip(testImage, referenceImage,
                     {.pixelsPerDegree = float(*ppd), .toneMapper = mapper, .exposures = exposures});
      out["tone_mapper"] = *toneMapper;
      out["exposures"] = {{"start", exposures.start}, {"stop", exposures.stop}, {"count", exposures.count}};
      sizes =
          sizeText(referenceImage.width, referenceImage.height) + " and " + sizeText(testImage.width, testImage.height);
    }
    if (!flip) throw UserError(*reference + " and " + *test + ": the images differ in size (" + sizes + ")");
    out["flip"] = flip->mean;
    if (*asJson) {
      std::cout << out.dump() << "\n";
      return;
    }
    std::cout << fmt::format("{}-FLIP of {} against {}: {:.6f} (0 to 1, lower is better; {:.2f} pixels per degree",
                             ldr ? "LDR" : "HDR", *test, *reference, flip->mean, *ppd);
    if (!ldr)
      std::cout << fmt::format(", {}, exposures {:.4f} to {:.4f}, {} of them", *toneMapper,
                               out["exposures"]["start"].get<double>(), out["exposures"]["stop"].get<double>(),
                               out["exposures"]["count"].get<int>());
    std::cout << ")\n";
  });
}

}  // namespace ptbench::cli
