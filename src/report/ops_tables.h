// Typed tables of ops: GPU time by op (and how it was attributed), host ops.
#pragma once

#include <string>
#include <vector>

#include "analysis/attribution.h"
#include "analysis/host_ops.h"
#include "analysis/ops.h"
#include "report/table.h"

namespace mlprof {

// `attribution`: each rank's AttributionSummary, for a note about what the
// table rests on where some GPU time was not attributed by a verified
// External id.
Table OpsTable(const std::vector<OpGpuTime>& ops, int top,
               const std::vector<std::pair<int64_t, AttributionSummary>>& attribution = {});
// "Rank 0: ..." about how a rank's GPU time was attributed to ops; "" when
// all of it came through verified External ids, or by time on a trace that
// records none.
std::string AttributionNote(int64_t rank, const AttributionSummary& s);
Table HostOpsTable(const std::vector<HostOpRow>& rows, bool by_shape, int top, const std::vector<HostFlops>& flops = {},
                   int stack_frames = 0);

}  // namespace mlprof
