// Every file ptbench writes goes through here, so that none appears half written and nothing
// that is not a regular file is ever replaced by one.
#pragma once
#include <filesystem>
#include <span>
#include <string_view>

namespace ptbench {

// Writes `contents` to `path`:
// - a regular file or a new name: under a temporary name beside it, then renamed over it, so
//   that it appears whole or not at all;
// - a symlink: followed (through every link), and its target written as above, beside the
//   target; the link stays a link;
// - a character or block device, a FIFO or a socket, and "-" (standard output): written
//   through directly, never replaced.
// Throws UserError("cannot write PATH: REASON") on any open, write, close or rename error
// (ENOSPC, EPIPE, EIO, ...); no temporary file is left behind.
void writeFileAtomically(const std::filesystem::path& path, std::string_view contents);

// Before any work, so that no finished work is lost to an output: throws UserError naming FLAG
// and PATH when the folder `path` would be written into (the target's, for a symlink) is
// missing, when `path` is a folder, or when no file can be made in that folder (no permission,
// a read-only file system). A device or FIFO passes unopened.
void requireOutputFolder(const std::filesystem::path& path, std::string_view flag);

// Before any work: throws UserError naming FLAG when the output `path` is the same file as one
// of `inputs` (by name, link or hard link), which writing it would destroy.
void requireNotAnInput(const std::filesystem::path& path, std::span<const std::string> inputs, std::string_view flag);

// Held while a run or a resume writes into a results folder, so that two processes never run
// one sweep's runs at once: an exclusive flock(2) on the folder, released when the lock is
// destroyed or the process ends however it ends (no stale lock file). Throws UserError naming
// the folder when another process holds it, or when the folder cannot be opened.
class FolderLock {
 public:
  explicit FolderLock(const std::filesystem::path& folder);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int descriptor_;
};

// At exit: flushes standard output and throws UserError("cannot write standard output:
// REASON") when what was printed could not all be written (a full disk, a closed pipe).
void flushStandardOutput();

}  // namespace ptbench
