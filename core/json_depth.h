// The bound on JSON nesting that every JSON ptbench reads is held to.
#pragma once
#include <cstddef>
#include <optional>
#include <string_view>

namespace ptbench {

// The deepest nesting of arrays and objects ptbench reads in a config, a --set value, a report
// or a glTF file: writing, copying and comparing JSON recurse once a level, and so does
// tinygltf's parser, so a bound keeps them off the end of the stack.
inline constexpr int maxJsonDepth = 256;

// The byte at which `text` first opens an array or object deeper than maxJsonDepth, if it does;
// for text that a recursive parser is to read. Brackets inside strings are not counted; text
// that is not JSON is left for the parser to refuse.
inline std::optional<size_t> jsonNestedTooDeepAt(std::string_view text) {
  int depth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > maxJsonDepth) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::nullopt;
}

}  // namespace ptbench
