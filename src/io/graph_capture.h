// `--capture FILE|DIR`: kernels replayed by CUDA/HIP graph launches,
// attributed to the ops recorded while the graph was captured.
//
// A graph replay records one launch call (cudaGraphLaunch / hipGraphLaunch)
// and the kernels it ran, all with the launch's correlation: no op, shape or
// module says what each kernel was for. The trace recorded while the graph
// was captured has that: between cudaStreamBeginCapture and
// cudaStreamEndCapture every captured kernel appears as a launch call (its
// `kernel` arg names it) under the ops and modules that issued it, but no
// kernel ran. As TraceLens's trace_capture_merge (see docs/ANALYSES.md):
//  * capture windows (BeginCapture end .. EndCapture start, per thread) are
//    the captured graphs in order; their launch calls (cuda_runtime /
//    cuda_driver calls named *Launch*, *Memcpy*, *Memset*; the outermost of
//    nested ones) the graph's nodes in order;
//  * in the replay, per iteration (step; the whole trace when it has no
//    steps) its graph launches in time order: the i-th is the i-th window of
//    the capture chosen for the iteration: from TraceLens's
//    execution_details.json ([{file, batch_size, mode}]) the smallest
//    batch size >= the step's (vLLM: prefill + decode query tokens; SGLang:
//    bs) of mode FULL (one launch in the step) or PIECEWISE (several); a
//    single capture file serves every iteration;
//  * the launch's replayed GPU ops (by correlation, in time order) pair with
//    the window's launch calls in order when the counts are equal and each
//    kernel's name equals the call's `kernel` (copies with Memcpy calls,
//    fills with Memset calls; a call with no `kernel` arg, as CUPTI writes
//    them on CUDA, with any kernel); else by the k-th occurrence of each
//    name when the per-name counts agree; else the launch is left as it is
//    (counted).
// Matched, the window's ops that enclose the calls (cpu_ops, python
// functions such as nn.Module frames) are copied into the replay: one copy
// per graph launch, on a track "graph replay: ops recorded at capture" of the
// launching process, each spanning the GPU time of the kernels under it;
// copied cpu_ops have kind kCapturedOp (they took no host time in this
// trace: host-time analyses leave them out), python functions (nn.Module
// frames) stay kPythonFunction (only walks up from a kernel reach them), the
// other copies are kOther with their category kept. Each replayed kernel's RankProfile::captured_launch is
// the copy of its launch call; its `launch` stays the graph launch (launch
// delay, queue length and steps are about that call).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/profile.h"

namespace mlprof {

struct CaptureEntry {
  std::string path;
  int64_t batch_size = -1;  // -1: serves every iteration (a single capture)
  std::string mode;         // "FULL", "PIECEWISE" or "" (any)
};

// --capture FILE: one entry. DIR: its execution_details.json (TraceLens's
// capture_traces/ layout; files relative to DIR), else its one trace file.
StatusOr<std::vector<CaptureEntry>> FindCaptures(const std::string& path);

struct CaptureMergeStats {
  int64_t graph_launches = 0;  // graph launch calls in the replay
  int64_t matched = 0;         // of them, attributed
  int64_t kernels = 0;         // GPU ops attributed
  int64_t unmatched = 0;       // launches whose kernels did not pair (or had no window / capture)
  int64_t ops_added = 0;       // copies made
};

// `captures[i]` read from `entries[i]` (with ReadOptions::all_args, for the
// calls' `kernel` arg). Appends the copies to `replay` and fills its
// captured_launch. Notes say what was matched and what was not.
Status ApplyGraphCaptures(RankProfile& replay, const std::vector<CaptureEntry>& entries,
                          const std::vector<const RankProfile*>& captures, CaptureMergeStats* stats,
                          std::vector<std::string>* notes);

}  // namespace mlprof
