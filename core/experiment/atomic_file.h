// Files appear whole or not at all: written under a temporary name, then renamed.
#pragma once
#include <filesystem>
#include <functional>
#include <string_view>

namespace ptbench {

// Calls write(temporaryPath), then renames the result to `path`. Throws UserError naming the
// path if writing or renaming fails; no partial file is left behind.
void writeAtomically(const std::filesystem::path& path, const std::function<void(const std::filesystem::path&)>& write);
void writeFileAtomically(const std::filesystem::path& path, std::string_view contents);

// Before any work: throws UserError("FLAG PATH: the folder ... does not exist") when the
// folder `path` would be written into is missing, so that no finished work is lost to it.
void requireOutputFolder(const std::filesystem::path& path, std::string_view flag);

}  // namespace ptbench
