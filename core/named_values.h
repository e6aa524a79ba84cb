// An enumeration's values with the names that configs, reports and the command line give them:
// the one table from which its name, its parse and its list of every value come.
#pragma once
#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

namespace ptbench {

template <typename Enum, size_t N>
struct NamedValues {
  std::array<std::pair<Enum, std::string_view>, N> entries;

  constexpr std::string_view name(Enum value) const {
    for (const auto& [entry, name] : entries)
      if (entry == value) return name;
    return "?";
  }
  constexpr std::optional<Enum> parse(std::string_view text) const {
    for (const auto& [entry, name] : entries)
      if (name == text) return entry;
    return std::nullopt;
  }
  // In the table's order.
  constexpr std::array<Enum, N> values() const {
    std::array<Enum, N> all{};
    for (size_t i = 0; i < N; ++i) all[i] = entries[i].first;
    return all;
  }
};

}  // namespace ptbench
