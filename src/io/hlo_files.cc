#include "io/hlo_files.h"

#include <fmt/format.h>

#include "base/file_loader.h"
#include "hlo/proto_reader.h"
#include "hlo/text_parser.h"
#include "io/xplane.h"

namespace mlprof {

StatusOr<std::vector<hlo::Module>> LoadHloModules(const std::string& path) {
  ASSIGN_OR_RETURN(LoadedFile f, LoadFile(path));
  std::string_view bytes = f.bytes.view();
  std::vector<hlo::Module> out;
  if (hlo::LooksLikeHloText(bytes.substr(0, 1 << 16)) || path.ends_with(".hlo") || path.ends_with(".txt")) {
    ASSIGN_OR_RETURN(out, hlo::ParseHloText(bytes, path));
    return out;
  }
  if (hlo::LooksLikeHloProto(bytes)) {
    ASSIGN_OR_RETURN(hlo::Module m, hlo::ReadHloProto(bytes, path));
    out.push_back(std::move(m));
    return out;
  }
  if (LooksLikeXSpace(bytes)) {
    RankProfile r;
    RETURN_IF_ERROR(ReadXPlane(f, &r));
    for (const auto& blob : r.hlo_protos) {
      ASSIGN_OR_RETURN(hlo::Module m, hlo::ReadHloProto(blob.bytes, path + " [" + blob.key + "]"));
      out.push_back(std::move(m));
    }
    if (out.empty())
      return NotFound(fmt::format("{}: this XPlane carries no HloProtos (no /host:metadata plane); dump HLO with "
                                  "XLA_FLAGS=--xla_dump_to=DIR and pass the files",
                                  path));
    return out;
  }
  return WrongFormat(fmt::format("{}: not HLO text, an HloProto or an XPlane (first bytes do not match any)", path));
}

}  // namespace mlprof
