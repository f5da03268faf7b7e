// The input trace with a critical path overlaid as HTA's
// overlay_critical_path_analysis writes it: every event on the path gets
// args "critical": 1, and each dependency, launch-delay and sync edge of the
// path becomes a flow pair ("s" at its source, "f" with "bp": "e" at its
// target; cat and name "critical_path"; args weight in us, critical true,
// type), so HTA users keep their workflow. The rest of the file is copied as
// it is. Gzip when `out` ends in ".gz".
#pragma once

#include <string>

#include "analysis/critical_path.h"
#include "base/status.h"
#include "model/profile.h"

namespace mlprof {

struct OverlayStats {
  uint64_t marked = 0;  // events given "critical": 1
  uint64_t flows = 0;   // flow pairs
  uint64_t bytes = 0;   // written (uncompressed)
};

StatusOr<OverlayStats> WriteHtaOverlay(const RankProfile& p, const CriticalPath& cp, const std::string& out);

}  // namespace mlprof
