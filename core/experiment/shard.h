// Sweeps beyond one GPU: a sweep split into N disjoint shards (`run --shard K/N`), each run by
// its own process on its own device, and put back together by `merge`.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/experiment/sweep.h"

namespace ptbench {

struct Shard {
  uint32_t index = 1;  // 1 to count
  uint32_t count = 1;
};

// The most parts a sweep is split into.
inline constexpr uint32_t maxShards = 100000;

// Whether K/N names a part of a sweep: 1 <= K <= N <= maxShards.
constexpr bool validShard(uint64_t index, uint64_t count) {
  return count >= 1 && count <= maxShards && index >= 1 && index <= count;
}

// "K/N" with 1 <= K <= N <= maxShards; nothing for anything else.
std::optional<Shard> parseShard(std::string_view text);

// The relative cost of a run: pixels x samples x max depth.
double runCost(const RunSpec& spec);

// The indices into `specs` (expandSweep's order) of shard `shard`, ascending. Deterministic: a
// scene's runs form one unit (so that a shard loads each scene once) unless there are fewer units
// than shards, when the costliest units are halved until there are enough (or none can be);
// units then go, costliest first (ties: the earlier), to the shard with the least cost so far
// (ties: the lower index). Every run lands in exactly one shard.
std::vector<size_t> shardSpecs(const std::vector<RunSpec>& specs, Shard shard);

// FNV-1a (64-bit, hex) of the resolved config: the shards of one sweep share it.
std::string configHash(const ExperimentConfig& config);

}  // namespace ptbench
