// What several commands' shards and combines share (summary, kernels,
// diagnose, info). Internal to src/app.
#pragma once

#include <optional>
#include <vector>

#include "analysis/gpu_time.h"
#include "app/session.h"
#include "base/status.h"
#include "report/table.h"

namespace mlprof::app {

// The time each set of kernel types runs, summed over the shard's ranks, as a
// hidden table (kernel_types is a share of the job's total: computed at the
// combine, KernelTypeTableOfShards).
Table KernelTypeTimeShard(const KernelBreakdown& kb);
Table KernelTypeTableOfShards(const std::vector<Report>& shards);

// Every selected rank's grade (analysis/grade.h), as a hidden table a
// combine can lead with (LeadingGrade: the job's grade, or none).
Table GradeShard(const Session& s);
StatusOr<std::optional<Table>> LeadingGrade(const std::vector<Report>& shards);

}  // namespace mlprof::app
