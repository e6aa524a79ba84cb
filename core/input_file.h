// Files ptbench reads. A file named on the command line or in a config (a config, a report, a
// camera path) may be a regular file or a pipe (`<(gzip -dc r.json.gz)`), never a folder, a
// device or a socket; a named FIFO that no one writes reads as empty instead of blocking for
// ever. What a file names in turn (a glTF's buffers and images, reference images) must be a
// regular file.
#pragma once
#include <filesystem>
#include <string>

namespace ptbench {

// A descriptor open for reading `path`, blocking reads; `what` names it in messages ("the
// config file"). Throws UserError("PATH: is a folder, not WHAT", "PATH: cannot read WHAT:
// REASON", ...) with `exitCode`.
int openInput(const std::filesystem::path& path, const std::string& what, int exitCode);
// The whole of `path`, opened as openInput does, refused (exit `exitCode`) past `maxBytes`.
std::string readInput(const std::filesystem::path& path, const std::string& what, int exitCode,
                      size_t maxBytes = size_t(1) << 30);
// Before `path` is opened: a UserError("PATH: not a regular file (...); WHAT") unless it is
// one, links followed. Does nothing where `path` does not exist: the caller says it is missing.
void requireRegularFile(const std::filesystem::path& path, const std::string& what, int exitCode = 1);

}  // namespace ptbench
