#include "core/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/errors.h"

namespace ptbench {

namespace {

// What a path that is no regular file is, for messages; "" for a regular file or a pipe.
std::string specialKind(mode_t mode, bool pipeAllowed) {
  if (S_ISREG(mode) || (pipeAllowed && S_ISFIFO(mode))) return "";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "a device";
}

}  // namespace

int openInput(const std::filesystem::path& path, const std::string& what, int exitCode) {
  struct stat status {};
  if (::stat(path.c_str(), &status) == 0) {
    const std::string kind = specialKind(status.st_mode, true);
    if (!kind.empty()) throw UserError(path.string() + ": is " + kind + ", not " + what, exitCode);
  }
  // Non-blocking, so that a FIFO without a writer opens (and then reads as empty) instead of
  // waiting for one; then blocking again, so that a pipe's reads wait for its writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw UserError(path.string() + ": cannot read " + what + ": " + std::strerror(errno), exitCode);
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

std::string readInput(const std::filesystem::path& path, const std::string& what, int exitCode, size_t maxBytes) {
  const int fd = openInput(path, what, exitCode);
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int error = errno;
      ::close(fd);
      throw UserError(path.string() + ": cannot read " + what + ": " + std::strerror(error), exitCode);
    }
    if (got == 0) break;
    text.append(buffer, size_t(got));
    if (text.size() > maxBytes) {
      ::close(fd);
      throw UserError(
          path.string() + ": over " + std::to_string(maxBytes >> 20) + " MiB, more than " + what + " ptbench reads",
          exitCode);
    }
  }
  ::close(fd);
  return text;
}

void requireRegularFile(const std::filesystem::path& path, const std::string& what, int exitCode) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) return;
  const std::string kind = specialKind(status.st_mode, false);
  if (!kind.empty()) throw UserError(path.string() + ": is " + kind + ", not a regular file; " + what, exitCode);
}

}  // namespace ptbench
