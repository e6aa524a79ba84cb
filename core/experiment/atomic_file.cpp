#include "core/experiment/atomic_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "core/errors.h"

namespace ptbench {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const fs::path& path, const std::string& reason) {
  throw UserError("cannot write " + path.string() + ": " + reason);
}

std::string lastError() {
  return std::strerror(errno);
}

// The path a write to `path` lands on: `path` itself unless it is a symlink, else the end of
// its chain of links (which need not exist yet). Relative links are relative to their folder.
fs::path resolveLinks(const fs::path& path) {
  fs::path at = path;
  for (int hops = 0;; ++hops) {
    struct stat status {};
    if (::lstat(at.c_str(), &status) != 0 || !S_ISLNK(status.st_mode)) return at;
    if (hops == 40) fail(path, "too many levels of symbolic links");
    const fs::path target = fs::read_symlink(at);
    at = target.is_absolute() ? target : at.parent_path() / target;
  }
}

// Writes all of `contents` to the open descriptor; false (errno set) on the first error.
bool writeAll(int descriptor, std::string_view contents) {
  while (!contents.empty()) {
    const ssize_t written = ::write(descriptor, contents.data(), contents.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    contents.remove_prefix(size_t(written));
  }
  return true;
}

// A device, FIFO or socket: opened as it is (no O_CREAT, no O_TRUNC) and written through.
void writeThrough(const fs::path& shown, const fs::path& target, std::string_view contents) {
  const int descriptor = ::open(target.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (descriptor < 0) fail(shown, lastError());
  if (!writeAll(descriptor, contents)) {
    const std::string reason = lastError();
    ::close(descriptor);
    fail(shown, reason);
  }
  if (::close(descriptor) != 0) fail(shown, lastError());
}

// A hidden name beside the target, so that the rename stays within one file system; never
// opened through a link, so that a link planted at that name redirects nothing.
void writeReplacing(const fs::path& shown, const fs::path& target, std::string_view contents) {
  std::string name = target.filename().string();
  name.insert(0, 1, '.');
  name.append(".tmp").append(std::to_string(::getpid()));
  const fs::path temporary = target.parent_path() / name;
  const int descriptor = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (descriptor < 0) fail(shown, lastError());
  const auto abandon = [&](const std::string& reason) {
    ::unlink(temporary.c_str());
    fail(shown, reason);
  };
  if (!writeAll(descriptor, contents)) {
    const std::string reason = lastError();
    ::close(descriptor);
    abandon(reason);
  }
  if (::close(descriptor) != 0) abandon(lastError());
  if (::rename(temporary.c_str(), target.c_str()) != 0) abandon(lastError());
}

}  // namespace

void writeFileAtomically(const fs::path& path, std::string_view contents) {
  if (path == "-") {
    std::cout.flush();
    if (std::fwrite(contents.data(), 1, contents.size(), stdout) != contents.size() || std::fflush(stdout) != 0)
      throw UserError("cannot write standard output: " + lastError());
    return;
  }
  const fs::path target = resolveLinks(path);
  struct stat status {};
  if (::stat(target.c_str(), &status) == 0) {
    if (S_ISDIR(status.st_mode)) fail(path, "a folder, not a file");
    if (!S_ISREG(status.st_mode)) return writeThrough(path, target, contents);
  }
  writeReplacing(path, target, contents);
}

void requireOutputFolder(const fs::path& path, std::string_view flag) {
  if (path == "-") return;
  const fs::path target = fs::absolute(resolveLinks(path));
  const std::string named = std::string(flag) + " " + path.string();
  std::error_code error;
  const fs::file_status status = fs::status(target, error);
  if (fs::is_directory(status)) throw UserError(named + ": a folder, not a file");
  const auto folder = target.parent_path();
  if (!fs::is_directory(folder)) throw UserError(named + ": the folder " + folder.string() + " does not exist");
  // A device or FIFO is written through (opening a FIFO would wait for its reader); anything
  // else is written beside its name and renamed, so a file must be creatable in its folder.
  if (fs::exists(status) && !fs::is_regular_file(status)) return;
  const fs::path probe = folder / ("." + target.filename().string() + ".probe" + std::to_string(::getpid()));
  const int descriptor = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (descriptor < 0) throw UserError(named + ": cannot write into " + folder.string() + ": " + lastError());
  ::close(descriptor);
  ::unlink(probe.c_str());
}

void requireNotAnInput(const fs::path& path, std::span<const std::string> inputs, std::string_view flag) {
  for (const std::string& input : inputs) {
    std::error_code ignored;
    if (fs::equivalent(path, input, ignored))
      throw UserError(std::string(flag) + " " + path.string() + " is the input " + input +
                      ": writing it would destroy it; name another file");
  }
}

void flushStandardOutput() {
  std::cout.flush();
  const bool failed = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout);
  if (failed) throw UserError("cannot write standard output: " + lastError());
}

FolderLock::FolderLock(const fs::path& folder) : descriptor_(open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
  if (descriptor_ < 0)
    throw UserError("cannot open the results folder " + folder.string() + ": " + std::strerror(errno));
  if (flock(descriptor_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    close(descriptor_);
    if (error == EWOULDBLOCK)
      throw UserError(folder.string() +
                      ": another ptbench is running or resuming this folder's sweep; wait for it to end, or stop it "
                      "(Ctrl-C keeps its finished runs) and resume once");
    throw UserError("cannot lock the results folder " + folder.string() + ": " + std::strerror(error));
  }
}

FolderLock::~FolderLock() {
  close(descriptor_);  // releases the lock
}

}  // namespace ptbench
