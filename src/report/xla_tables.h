// Tables for XLA profiles and HLO modules. Times in ms (3 decimals) for
// breakdowns, us for means; flops in GFLOP.
#pragma once

#include <string>
#include <vector>

#include "analysis/hlo_summary.h"
#include "analysis/xla.h"
#include "hlo/module.h"
#include "report/table.h"

namespace mlprof {

// Step-time breakdown by mlprof category with the forward/backward/remat split.
Table XlaSummaryTable(int64_t rank, const XlaBreakdown& b);
// Efficient compute / model-specific kernels / memory-bound / overhead.
Table XlaAttributionTable(int64_t rank, const XlaBreakdown& b);
// Named-scope tree (indented).
Table XlaScopesTable(int64_t rank, const std::vector<ScopeRow>& rows, Ps total, int top);
// The heaviest HLO ops of the profile.
Table XlaTopOpsTable(int64_t rank, const XlaOps& x, const XlaOpTimes& times, int top);

// `mlprof hlo`: one row per module; per-category counts and cost of the
// entry computation; every collective with its replica groups read as a
// parallelism degree; and one instruction explained field by field.
// `mlprof steps` on XLA profiles: each device's steps and its steady state.
std::vector<Table> XlaStepTables(int64_t rank, const XlaSteps& s);
Table HloModulesTable(const std::vector<HloModuleSummary>& modules);
Table HloCategoryTable(const std::vector<HloCategoryRow>& rows);
Table HloCollectivesTable(const std::vector<HloCollectiveGroup>& groups, int top);
Table HloExplainTable(const HloInstructionFacts& facts);

}  // namespace mlprof
