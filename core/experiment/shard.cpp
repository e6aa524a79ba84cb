#include "core/experiment/shard.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <numeric>

namespace ptbench {

std::optional<Shard> parseShard(std::string_view text) {
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  Shard shard;
  const auto parse = [](std::string_view part, uint32_t& value) {
    const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), value);
    return error == std::errc() && end == part.data() + part.size() && !part.empty();
  };
  if (!parse(text.substr(0, slash), shard.index) || !parse(text.substr(slash + 1), shard.count)) return std::nullopt;
  if (!validShard(shard.index, shard.count)) return std::nullopt;
  return shard;
}

double runCost(const RunSpec& spec) {
  const RenderSettings& s = spec.settings;
  return double(s.width) * s.height * s.samplesPerPixel * s.maxDepth;
}

std::vector<size_t> shardSpecs(const std::vector<RunSpec>& specs, Shard shard) {
  struct Unit {
    std::vector<size_t> specs;
    double cost = 0;
  };
  auto costOf = [&](const std::vector<size_t>& indices) {
    double cost = 0;
    for (size_t i : indices) cost += runCost(specs[i]);
    return cost;
  };
  std::vector<Unit> units;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (units.empty() || specs[units.back().specs.front()].scene != specs[i].scene) units.emplace_back();
    units.back().specs.push_back(i);
  }
  // Scene runs are contiguous in expandSweep's order; regroup in case they are not.
  std::stable_sort(units.begin(), units.end(),
                   [&](const Unit& a, const Unit& b) { return specs[a.specs[0]].scene < specs[b.specs[0]].scene; });
  for (size_t u = 1; u < units.size();)
    if (specs[units[u].specs[0]].scene == specs[units[u - 1].specs[0]].scene) {
      units[u - 1].specs.insert(units[u - 1].specs.end(), units[u].specs.begin(), units[u].specs.end());
      units.erase(units.begin() + long(u));
    } else {
      ++u;
    }
  for (Unit& unit : units) unit.cost = costOf(unit.specs);
  // Fewer units than shards: halve the costliest divisible unit, by cost, keeping run order.
  while (units.size() < shard.count) {
    auto largest = units.end();
    for (auto unit = units.begin(); unit != units.end(); ++unit)
      if (unit->specs.size() > 1 && (largest == units.end() || unit->cost > largest->cost)) largest = unit;
    if (largest == units.end()) break;
    double prefix = 0;
    size_t cut = 0;
    while (cut + 1 < largest->specs.size() && prefix + runCost(specs[largest->specs[cut]]) <= largest->cost / 2) {
      prefix += runCost(specs[largest->specs[cut]]);
      ++cut;
    }
    cut = std::max<size_t>(cut, 1);
    Unit second{.specs = std::vector<size_t>(largest->specs.begin() + long(cut), largest->specs.end())};
    largest->specs.resize(cut);
    largest->cost = costOf(largest->specs);
    second.cost = costOf(second.specs);
    units.insert(largest + 1, std::move(second));
  }
  std::vector<size_t> order(units.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return units[a].cost > units[b].cost; });
  std::vector<double> load(shard.count, 0.0);
  std::vector<size_t> mine;
  for (size_t u : order) {
    const size_t target = size_t(std::min_element(load.begin(), load.end()) - load.begin());
    load[target] += units[u].cost;
    if (target + 1 == shard.index) mine.insert(mine.end(), units[u].specs.begin(), units[u].specs.end());
  }
  std::sort(mine.begin(), mine.end());
  return mine;
}

std::string configHash(const ExperimentConfig& config) {
  uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : config.resolved.dump()) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return fmt::format("{:016x}", hash);
}

}  // namespace ptbench
