// GPU time per framework op: each GPU op is attributed to the cpu_op that
// launched it. Launch -> cpu_op by the launch's External id (the innermost
// cpu_op with that id); when the id is absent or unmatched, by nesting (the
// nearest enclosing cpu_op on the launching thread). Grouped by (op name,
// input shapes).
#pragma once

#include <string>
#include <vector>

#include "analysis/view.h"

namespace mlprof {

struct OpGpuTime {
  int64_t rank = 0;
  std::string name;        // cpu_op name, or "(no cpu_op)"
  std::string input_dims;  // compact JSON, "" when not recorded
  std::string input_types;
  int64_t calls = 0;    // distinct cpu_op instances that launched GPU work
  int64_t gpu_ops = 0;  // kernels/memcpys/memsets attributed
  Ps gpu_time = 0;      // sum of their durations
  Ps cpu_time = 0;      // sum of the cpu_op instances' durations
  double pct_gpu = 0;   // of all attributed GPU time of the rank
};

struct OpsOptions {
  bool by_shape = true;  // group by (name, input dims/types) or by name only
};

std::vector<OpGpuTime> ComputeOpGpuTime(const ProfileView& view, const OpsOptions& opt);

}  // namespace mlprof
