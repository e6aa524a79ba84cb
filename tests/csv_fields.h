// The number of fields in a CSV line, quotes respected: the report tests check that every row
// is as wide as the header.
#pragma once
#include <string>
#include <vector>

namespace ptbench::test {

inline size_t csvFieldCount(const std::string& line) {
  size_t count = 1;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    if (c == ',' && !quoted) ++count;
  }
  return count;
}

// The cell of `row` in the column `name` of `header` (quotes kept off); empty where there is none.
inline std::string csvCell(const std::string& header, const std::string& row, const std::string& name) {
  auto split = [](const std::string& line) {
    std::vector<std::string> cells(1);
    bool quoted = false;
    for (char c : line) {
      if (c == '"')
        quoted = !quoted;
      else if (c == ',' && !quoted)
        cells.emplace_back();
      else
        cells.back() += c;
    }
    return cells;
  };
  const std::vector<std::string> names = split(header), cells = split(row);
  for (size_t i = 0; i < names.size() && i < cells.size(); ++i)
    if (names[i] == name) return cells[i];
  return "";
}

}  // namespace ptbench::test
