#include "model/import_stats.h"

namespace mlprof {

namespace {
constexpr ImportStatInfo kInfos[] = {
#define MLPROF_X(id, sev, help) {#id, Severity::sev, help},
    MLPROF_IMPORT_STATS(MLPROF_X)
#undef MLPROF_X
};
}  // namespace

const ImportStatInfo& GetImportStatInfo(ImportStat s) { return kInfos[static_cast<size_t>(s)]; }

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kError:
      return "error";
  }
  return "?";
}

uint64_t ImportStats::Total(Severity at_least) const {
  uint64_t t = 0;
  for (size_t i = 0; i < kImportStatCount; ++i)
    if (kInfos[i].severity >= at_least) t += count[i];
  return t;
}

}  // namespace mlprof
