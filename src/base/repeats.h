// Repeating runs in a sequence of symbols: the period of a block of kernels
// (analysis/layers.cc) or of a trace's top-level ops (model/steps.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/time.h"

namespace mlprof {

// The maximal run of back-to-back repeats of a period P >= 2 in `seq` that
// covers the most weight (ties: smaller P, then earlier). Candidate periods
// are the most frequent distances between equal symbols; O(n) per candidate.
struct RepeatingRun {
  size_t start = 0, period = 0, repeats = 0;  // repeats = 0: none
};
RepeatingRun FindRepeatingRun(const std::vector<uint32_t>& seq, const std::vector<Ps>& weight);

}  // namespace mlprof
