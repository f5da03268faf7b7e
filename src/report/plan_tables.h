// Tables for `mlprof plan`: the ranked plans and the setting they were
// computed for (one plan's arithmetic, --explain: report/plan_explain.h).
#pragma once

#include <string>
#include <vector>

#include "analysis/calibration.h"
#include "plan/planner.h"
#include "report/table.h"

namespace mlprof {

// The model, the cluster, the run and the efficiency knobs, as key/value rows.
Table PlanSettingTable(const plan::ModelSpec& m, const plan::Cluster& c, const plan::TrainSpec& t, const plan::Knobs& k,
                       const plan::PlanFilter& f, const plan::PlanSearch& s, bool calibrated = false);
// One row per plan (best MFU first), `top` of them (0: all), numbered from
// `first`.
Table PlansTable(const std::vector<plan::Plan>& plans, int top, int first = 1);
// `--calibrate`: each measured figure beside the default, whether it was
// applied, and the measurement behind it; the matmuls by size per call.
Table CalibrationTable(const RunMeasurement& m, const plan::Calibration& c, const std::vector<std::string>& paths);
// `--this-run`: the run's measured step time against the planner's
// prediction of its own plan (default and calibrated knobs), and the best
// plan found for the same job (null: none fits).
Table ThisRunTable(const RunMeasurement& m, const plan::Calibration& c, const plan::Plan* best);

}  // namespace mlprof
