#include "io/hlo_files.h"

#include <fmt/format.h>

#include "base/file_loader.h"
#include "io/readers.h"

namespace mlprof {

StatusOr<std::vector<hlo::Module>> LoadHloModules(const std::string& path) {
  ASSIGN_OR_RETURN(LoadedFile f, LoadFile(path));
  const Reader* r = SniffReader(f, ReadFor::kHlo);
  if (!r || !r->read_hlo)
    return WrongFormat(fmt::format("{}: not HLO text, an HloProto or an XPlane (first bytes do not match any)", path));
  return r->read_hlo(f, ReadOptions{});
}

}  // namespace mlprof
