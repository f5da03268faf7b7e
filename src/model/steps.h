// A rank's iterations (RankProfile::steps) and which ops belong to each
// (OpTable::step), from the first source that has them:
//   profiler     ProfilerStep#N ranges (torch.profiler's schedule), or the
//                names a reader marks as steps (an NVTX range "step 3")
//   serving      serving engines' step annotations (vLLM execute_..., SGLang
//                step[...], base/serving_step.h)
//   optimizer    Optimizer.step#... ranges: each step runs from the end of one
//                optimizer step to the end of the next
//   annotation   user-annotated iterations: two or more top-level annotations
//                whose names say iteration, step or batch ("train_step",
//                "iteration 3", "## batch ##")
//   repeat       a repeating sequence of top-level ops on the thread that
//                launches the most GPU work, covering at least half of it
//   trace        the whole trace as one step ("per trace", never "per step")
// XLA profiles keep their own steps (analysis/xla.cc) and get none here.
// Host ops belong to the step whose interval holds their start; GPU ops to
// their launch's step.
#pragma once

#include <cstdint>
#include <string_view>

#include "model/profile.h"

namespace mlprof {

// "profiler", "serving", "optimizer", "annotation", "repeat", "trace",
// "none", "auto": the --steps-from values.
const char* StepSourceName(StepSource s);
// What the steps are, for notes: "ProfilerStep#N ranges", ...
const char* StepSourceDescription(StepSource s);
bool ParseStepSource(std::string_view name, StepSource* out);

// Finds the steps of `p` (after its ops are sorted and nested) from `from`
// (kAuto: the first source above that has any) and assigns every op to its
// step; replaces steps found before. A source asked for is named in
// `p.step_note`; one that finds none leaves the whole trace as the step, and
// the note says so.
void FindSteps(RankProfile& p, StepSource from);

}  // namespace mlprof
