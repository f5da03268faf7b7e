// Tables for `mlprof plan`: the ranked plans and the setting they were
// computed for (one plan's arithmetic, --explain: report/plan_explain.h).
#pragma once

#include <string>
#include <vector>

#include "analysis/planner.h"
#include "report/table.h"

namespace mlprof {

// The model, the cluster, the run and the efficiency knobs, as key/value rows.
Table PlanSettingTable(const plan::ModelSpec& m, const plan::Cluster& c, const plan::TrainSpec& t, const plan::Knobs& k,
                       const plan::PlanFilter& f, const plan::PlanSearch& s);
// One row per plan (best MFU first), `top` of them (0: all), numbered from
// `first`.
Table PlansTable(const std::vector<plan::Plan>& plans, int top, int first = 1);

}  // namespace mlprof
