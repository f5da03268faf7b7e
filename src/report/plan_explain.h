// `mlprof plan --explain N`: one plan's arithmetic, term by term, in words.
#pragma once

#include "plan/planner.h"
#include "report/table.h"

namespace mlprof {

// The figures of plan::Explain as one line per term (the model, the split,
// parameters, memory, each time term, the step), numbered, for the plan in
// row `row` of the plans table.
Table PlanExplainTable(int row, const plan::ModelSpec& m, const plan::Cluster& c, const plan::TrainSpec& t,
                       const plan::Knobs& k, const plan::Explanation& e);

}  // namespace mlprof
