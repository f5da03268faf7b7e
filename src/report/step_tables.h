// Typed tables of steps: training steps, serving steps, layers and phases.
#pragma once

#include <string>
#include <vector>

#include "analysis/layers.h"
#include "analysis/serving.h"
#include "analysis/steps.h"
#include "report/table.h"

namespace mlprof {

// mlprof layers: forward / backward / optimizer per step, repeated modules,
// and the repeating block's parts (analysis/layers.h).
Table PhasesTable(const LayerReport& r);
Table LayersTable(const LayerReport& r);
Table BlockTable(const LayerReport& r);
Table KernelBlocksTable(const LayerReport& r);
Table KernelBlockPartsTable(const LayerReport& r);
Table StepTable(const StepReport& s);
Table StepSummaryTable(const StepReport& s);
Table ServingStepTable(const ServingReport& s);
Table ServingSummaryTable(const ServingReport& s);

}  // namespace mlprof
