#include "core/experiment/atomic_file.h"

#include <unistd.h>

#include <fstream>

#include "core/errors.h"

namespace ptbench {

void writeAtomically(const std::filesystem::path& path,
                     const std::function<void(const std::filesystem::path&)>& write) {
  // A hidden name beside the target, so that the rename stays within one file system.
  std::string name = path.filename().string();
  name.insert(0, 1, '.');
  name.append(".tmp").append(std::to_string(::getpid()));
  const auto temporary = path.parent_path() / name;
  try {
    write(temporary);
    std::filesystem::rename(temporary, path);
  } catch (const std::exception& error) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw UserError("cannot write " + path.string() + ": " + error.what());
  }
}

void writeFileAtomically(const std::filesystem::path& path, std::string_view contents) {
  writeAtomically(path, [&](const std::filesystem::path& temporary) {
    std::ofstream out(temporary, std::ios::binary);
    out.write(contents.data(), std::streamsize(contents.size()));
    out.close();
    if (!out) throw std::runtime_error("write failed (disk full or no permission?)");
  });
}

void requireOutputFolder(const std::filesystem::path& path, std::string_view flag) {
  const auto folder = std::filesystem::absolute(path).parent_path();
  if (!std::filesystem::is_directory(folder))
    throw UserError(std::string(flag) + " " + path.string() + ": the folder " + folder.string() + " does not exist");
}

}  // namespace ptbench
