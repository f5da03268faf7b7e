// `--merge`: one timeline from a host-side trace and device profiles of the
// same run taken by other tools (a Kineto/Chrome trace of a serving engine,
// an Nsight Systems export or XPlane of its GPUs).
//
// The first input gives the host side: every op of it that is not GPU work,
// its steps, counters and flows. Every other input gives its GPU work
// (kernels, copies, fills, syncs on streams) and its devices, moved onto the
// first input's clock by an offset: given (`offset_us`), or measured from
// the launch calls both record (the CUDA runtime/driver calls a Kineto trace
// and an nsys export both carry, matched by CUPTI correlation id, its low 32
// bits, as nsys keeps the process in the high ones): the median of the
// differences of their start times. The residual (how far the matched calls
// are from that offset: median and largest) is stated in the note, so a
// user sees how well the clocks agree. GPU ops keep their correlation's low
// 32 bits, so they link to the host's launches. A device input of several
// processes gives the GPU work of the one whose launch calls match the
// host's most; a device input's counters (nsys GPU metrics) come along. Not
// carried over: a device input's XLA op descriptions (its ops stay, their
// HLO links go), host ops and flows; its reading problems are notes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/profile.h"

namespace mlprof {

struct MergeOptions {
  std::optional<double> offset_us;  // device clock + offset = host clock
};

// `inputs` in the order given (host first). `note` receives how each device
// input was aligned.
StatusOr<RankProfile> MergeHostAndDevice(std::vector<RankProfile> inputs, const MergeOptions& options,
                                         std::vector<std::string>* notes);

}  // namespace mlprof
