#include "base/atomic_file.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace mlprof {

Status CheckOutputPath(const std::string& path, bool force) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) return DataLoss(fmt::format("{}: is a directory; give a file name", path));
  if (!force && fs::exists(path, ec)) return InvalidArgument(fmt::format("{}: exists; --force overwrites it", path));
  return OkStatus();
}

std::string TempPathFor(const std::string& path) { return fmt::format("{}.tmp-{}", path, ::getpid()); }

Status WriteFileAtomically(const std::string& path, bool force,
                           const std::function<Status(const std::string&)>& write) {
  RETURN_IF_ERROR(CheckOutputPath(path, force));
  const std::string tmp = TempPathFor(path);
  std::remove(tmp.c_str());
  Status st = write(tmp);
  if (st.ok() && std::rename(tmp.c_str(), path.c_str()) != 0)
    st = DataLoss(fmt::format("{}: cannot rename the finished file into place: {}", path, std::strerror(errno)));
  if (!st.ok()) std::remove(tmp.c_str());
  return st;
}

Status WriteStreamAtomically(const std::string& path, bool force, const std::function<Status(std::FILE*)>& write) {
  return WriteFileAtomically(path, force, [&](const std::string& tmp) -> Status {
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f) return DataLoss(fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
    Status st = write(f);
    if (std::fclose(f) != 0 && st.ok()) st = DataLoss(fmt::format("{}: write failed: {}", path, std::strerror(errno)));
    return st;
  });
}

}  // namespace mlprof
