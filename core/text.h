// Small text helpers the whole tool shares.
#pragma once
#include <algorithm>
#include <cctype>
#include <string>

namespace ptbench {

// `text` in lower case, byte by byte (ASCII letters; device names, file extensions).
inline std::string lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return text;
}

}  // namespace ptbench
