// The number of fields in a CSV line, quotes respected: the report tests check that every row
// is as wide as the header.
#pragma once
#include <string>

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

}  // namespace ptbench::test
