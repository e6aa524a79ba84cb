#include "core/scene/multiple_scattering.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <numbers>
#include <thread>
#include <utility>

#include "core/scene/quadrature.h"
#include "shared/render.h"

// The derivation, in short. A white single-scattering GGX lobe returns E(mu) <= 1 of what
// arrives at cosine mu; the rest met a second microfacet and is lost. Kulla and Conty add a lobe
//   f_ms(mu_o, mu_i) = (1 - E(mu_o)) (1 - E(mu_i)) / (pi (1 - E_avg)),  E_avg = 2 int E(mu) mu dmu,
// whose albedo at mu_o is (1 - E(mu_o)) 2 int (1 - E(mu_i)) mu_i dmu_i / (1 - E_avg) = 1 - E(mu_o):
// a white conductor returns all it receives. A coloured one loses F_avg = 2 int F(mu) mu dmu of
// the light at each further bounce, of which a share E_avg leaves and 1 - E_avg bounces again:
// summing that geometric series from the second bounce on scales f_ms by
//   F_ms = F_avg^2 E_avg / (1 - F_avg (1 - E_avg)),  F_avg = F0 + (1 - F0) / 21 for Schlick's F.
// ptbench gives that energy, F_ms (1 - E(mu_o)), the single-scattering lobe's own shape instead of
// f_ms's (Turquin 2019's choice): f = f_ss + F_ms (1 - E(mu_o)) / E(mu_o) f_ss(F = 1). Its albedo
// at mu_o is Kulla and Conty's exactly, and the lobe is sampled and its pdf computed as before,
// so compensation costs the rough lobe's evaluation a table lookup and no new lobe to choose and
// sample; what it gives up is reciprocity (the scale follows the view alone) and f_ms's broader
// shape.
// Rough glass reflects F and transmits 1 - F of the light at each microfacet, so that what a
// white glass loses is 1 - E_glass(mu, eta), E_glass its reflection and transmission together:
// the whole glass lobe scaled by 1 / E_glass(mu_o) returns all it receives. (Kulla and Conty's
// dielectric lobe splits f_ms between the two sides; here transmission is sampled, never
// evaluated, so a lobe of its own on the far side would need sampling code where a scale needs
// none.) E_glass depends on eta, so on the IOR and on the side the light arrives from (total
// internal reflection inside). A thin wall transmits the mirror image of what it reflects: its
// E_glass is the conductor's E. A tinted glass takes the white one's scale.
//
// Both integrals run over the visible normals' sample space (Heitz 2018), where the lobe's
// f cos / pdf is F G2 / G1: smooth but for kinks where a direction meets the horizon.
namespace ptbench {
namespace {

using std::numbers::pi;

struct Vec {
  double x, y, z;
};
Vec operator*(double s, Vec v) {
  return {s * v.x, s * v.y, s * v.z};
}
Vec operator+(Vec a, Vec b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
double dot(Vec a, Vec b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
Vec normalized(Vec v) {
  return (1 / std::sqrt(dot(v, v))) * v;
}

double smithG1(double cosTheta, double alpha) {
  const double a2 = alpha * alpha;
  return 2 * cosTheta / (cosTheta + std::sqrt(a2 + (1 - a2) * cosTheta * cosTheta));
}

double smithG2(double cosLight, double cosView, double alpha) {
  const double a2 = alpha * alpha;
  const double lambdaView = cosLight * std::sqrt(cosView * cosView * (1 - a2) + a2);
  const double lambdaLight = cosView * std::sqrt(cosLight * cosLight * (1 - a2) + a2);
  return 2 * cosLight * cosView / (lambdaView + lambdaLight);
}

// The exact Fresnel reflectance of unpolarised light, as fresnel.glsl's fresnelDielectric.
double fresnelDielectric(double cosI, double eta) {
  const double sin2T = (1 - cosI * cosI) / (eta * eta);
  if (sin2T >= 1) return 1;
  const double cosT = std::sqrt(1 - sin2T);
  const double rs = (cosI - eta * cosT) / (cosI + eta * cosT);
  const double rp = (eta * cosI - cosT) / (eta * cosI + cosT);
  return 0.5 * (rs * rs + rp * rp);
}

// The visible normal of sample (u1, u2) for view v, as bsdf.glsl's sampleGgxVisibleNormal.
Vec visibleNormal(Vec v, double alpha, double u1, double u2) {
  const Vec vh = normalized({alpha * v.x, alpha * v.y, v.z});
  const double lengthSquared = vh.x * vh.x + vh.y * vh.y;
  const Vec t1 = lengthSquared > 0 ? (1 / std::sqrt(lengthSquared)) * Vec{-vh.y, vh.x, 0} : Vec{1, 0, 0};
  const Vec t2 = {vh.y * t1.z - vh.z * t1.y, vh.z * t1.x - vh.x * t1.z, vh.x * t1.y - vh.y * t1.x};
  const double r = std::sqrt(u1), phi = 2 * pi * u2;
  const double p1 = r * std::cos(phi);
  const double s = 0.5 * (1 + vh.z);
  const double p2 = (1 - s) * std::sqrt(std::max(0.0, 1 - p1 * p1)) + s * r * std::sin(phi);
  const Vec nh = p1 * t1 + p2 * t2 + std::sqrt(std::max(0.0, 1 - p1 * p1 - p2 * p2)) * vh;
  return normalized({alpha * nh.x, alpha * nh.y, std::max(0.0, nh.z)});
}

// The mean of weight(v, h) over the visible normals h of a view at cosView in the xz plane.
// The view's plane is a mirror of the lobe: the half of the sample space with p1 <= 0
// (u2 in [1/4, 3/4]) stands for both.
// Each integral takes 16-point Gauss-Legendre rules on two intervals of each axis (a table of
// 23,552 of them must be quick); against rules of twelve intervals the table is within 0.4% of
// the albedo, its worst entries grazing or at the kink where light leaving glass starts to be
// totally reflected, and within 0.1% mostly.
template <class Weight>
double overVisibleNormals(double cosView, double alpha, const Weight& weight) {
  const Vec v = {std::sqrt(std::max(0.0, 1 - cosView * cosView)), 0, cosView};
  const auto overAzimuth = [&](double u2) {
    return integrateFixed([&](double u1) { return weight(v, visibleNormal(v, alpha, u1, u2)); }, 0, 1, 2);
  };
  return 2 * integrateFixed(overAzimuth, 0.25, 0.75, 2);
}

Vec reflected(Vec v, Vec h) {
  return 2 * dot(v, h) * h + -1 * v;
}

// Bilinear in (x, y), each in [0, 1] over `size` points, of the size x size block at `offset`;
// as bsdf.glsl's tableBilinear.
double bilinear(const std::vector<float>& table, size_t offset, double x, double y) {
  const uint32_t n = gpu::MS_ALBEDO_SIZE;
  const double fx = std::clamp(x, 0.0, 1.0) * (n - 1), fy = std::clamp(y, 0.0, 1.0) * (n - 1);
  const uint32_t row = std::min(uint32_t(fx), n - 2), column = std::min(uint32_t(fy), n - 2);
  const double dx = fx - row, dy = fy - column;
  const auto at = [&](uint32_t r, uint32_t c) { return double(table[offset + size_t{r} * n + c]); };
  const double below = at(row, column) * (1 - dy) + at(row, column + 1) * dy;
  const double above = at(row + 1, column) * (1 - dy) + at(row + 1, column + 1) * dy;
  return below * (1 - dx) + above * dx;
}

// The table's grid: row r is cos theta r / (n - 1), at least 1e-4 (the integrals degenerate at
// exactly grazing view); column c roughness c / (n - 1); IOR k has (IOR - 1) / (IOR + 1) =
// MS_GLASS_IOR_PARAMETER_MAX k / (MS_GLASS_IORS - 1).
double gridCosine(uint32_t row) {
  return std::max(double(row) / (gpu::MS_ALBEDO_SIZE - 1), 1e-4);
}
double gridAlpha(uint32_t column) {
  const double roughness = double(column) / (gpu::MS_ALBEDO_SIZE - 1);
  return roughness * roughness;
}
double gridIor(uint32_t k) {
  const double parameter = double(gpu::MS_GLASS_IOR_PARAMETER_MAX) * k / (gpu::MS_GLASS_IORS - 1);
  return (1 + parameter) / (1 - parameter);
}
size_t glassBlock(uint32_t k, bool entering) {
  return gpu::MS_GLASS_OFFSET +
         (size_t{entering ? 0u : 1u} * gpu::MS_GLASS_IORS + k) * gpu::MS_ALBEDO_SIZE * gpu::MS_ALBEDO_SIZE;
}

}  // namespace

double ggxConductorAlbedo(double cosView, double alpha) {
  if (alpha < gpu::SPECULAR_DELTA_ALPHA) return 1;
  return overVisibleNormals(cosView, alpha, [&](Vec v, Vec h) {
    const Vec l = reflected(v, h);
    return l.z > 0 ? smithG2(l.z, v.z, alpha) / smithG1(v.z, alpha) : 0.0;
  });
}

double ggxGlassAlbedo(double cosView, double alpha, double eta) {
  if (alpha < gpu::SPECULAR_DELTA_ALPHA) return 1;
  return overVisibleNormals(cosView, alpha, [&](Vec v, Vec h) {
    const double cosVH = dot(v, h);
    if (cosVH <= 0) return 0.0;
    const double fresnel = fresnelDielectric(cosVH, eta);
    const Vec l = reflected(v, h);
    double weight = l.z > 0 ? fresnel * smithG2(l.z, v.z, alpha) : 0.0;
    // Refraction into the far side (GLSL's refract with 1 / eta), where light is not totally reflected.
    const double k = 1 - (1 - cosVH * cosVH) / (eta * eta);
    if (k > 0) {
      const Vec t = (-1 / eta) * v + (cosVH / eta - std::sqrt(k)) * h;
      if (t.z < 0) weight += (1 - fresnel) * smithG2(-t.z, v.z, alpha);
    }
    return weight / smithG1(v.z, alpha);
  });
}

const std::vector<float>& conductorAlbedoTable() {
  static const std::vector<float> table = [] {
    const uint32_t n = gpu::MS_ALBEDO_SIZE;
    std::vector<float> values(gpu::MS_GLASS_OFFSET);
    for (uint32_t row = 0; row < n; ++row)
      for (uint32_t column = 0; column < n; ++column)
        values[size_t{row} * n + column] = float(ggxConductorAlbedo(gridCosine(row), gridAlpha(column)));
    // E_avg = 2 int E(mu) mu dmu, over E as the shaders interpolate it (piecewise linear in mu).
    for (uint32_t column = 0; column < n; ++column) {
      const double roughness = double(column) / (n - 1);
      values[gpu::MS_AVERAGE_OFFSET + column] =
          float(integrate([&](double mu) { return 2 * mu * bilinear(values, 0, mu, roughness); }, 0, 1, 1e-7));
    }
    return values;
  }();
  return table;
}

const std::vector<float>& multipleScatteringTable() {
  static const std::vector<float> table = [] {
    const uint32_t n = gpu::MS_ALBEDO_SIZE;
    std::vector<float> values = conductorAlbedoTable();
    values.resize(gpu::MS_TABLE_SIZE);
    // The glass's blocks, one IOR and side each, on the threads the machine has.
    std::vector<std::pair<uint32_t, bool>> blocks;
    for (const bool entering : {true, false})
      for (uint32_t k = 0; k < gpu::MS_GLASS_IORS; ++k) blocks.emplace_back(k, entering);
    std::atomic<size_t> next = 0;
    const auto fillBlocks = [&] {
      for (size_t b = next++; b < blocks.size(); b = next++) {
        const auto [k, entering] = blocks[b];
        const double eta = entering ? gridIor(k) : 1 / gridIor(k);
        for (uint32_t row = 0; row < n; ++row)
          for (uint32_t column = 0; column < n; ++column)
            values[glassBlock(k, entering) + size_t{row} * n + column] =
                float(ggxGlassAlbedo(gridCosine(row), gridAlpha(column), eta));
      }
    };
    std::vector<std::thread> threads(std::max(std::thread::hardware_concurrency(), 1u) - 1);
    for (std::thread& thread : threads) thread = std::thread(fillBlocks);
    fillBlocks();
    for (std::thread& thread : threads) thread.join();
    return values;
  }();
  return table;
}

double conductorAlbedoFromTable(double cosTheta, double roughness) {
  return bilinear(conductorAlbedoTable(), 0, cosTheta, roughness);
}

double conductorAverageAlbedoFromTable(double roughness) {
  const std::vector<float>& table = conductorAlbedoTable();
  const uint32_t n = gpu::MS_ALBEDO_SIZE;
  const double x = std::clamp(roughness, 0.0, 1.0) * (n - 1);
  const uint32_t i = std::min(uint32_t(x), n - 2);
  const double f = x - i;
  return table[gpu::MS_AVERAGE_OFFSET + i] * (1 - f) + table[gpu::MS_AVERAGE_OFFSET + i + 1] * f;
}

double glassAlbedoFromTable(double cosTheta, double roughness, double ior, bool entering) {
  const std::vector<float>& table = multipleScatteringTable();
  const double parameter = (ior - 1) / (ior + 1);
  const double x = std::clamp(parameter / gpu::MS_GLASS_IOR_PARAMETER_MAX, 0.0, 1.0) * (gpu::MS_GLASS_IORS - 1);
  const uint32_t k = std::min(uint32_t(x), gpu::MS_GLASS_IORS - 2);
  const double f = x - k;
  return bilinear(table, glassBlock(k, entering), cosTheta, roughness) * (1 - f) +
         bilinear(table, glassBlock(k + 1, entering), cosTheta, roughness) * f;
}

double conductorMultipleScattering(double f0, double cosView, double roughness) {
  const double albedo = conductorAlbedoFromTable(cosView, roughness);
  const double average = conductorAverageAlbedoFromTable(roughness);
  const double fresnelAverage = f0 + (1 - f0) / 21;
  const double tint = fresnelAverage * fresnelAverage * average / (1 - fresnelAverage * (1 - average));
  return tint * (1 - albedo) / albedo;
}

}  // namespace ptbench
