// Serving steps: a serving engine's model steps (vLLM execute_..., SGLang
// step[...]; base/serving_step.h), which the builder makes the profile's
// steps when it has no ProfilerStep#N. Per step the batch read from the name
// and, from the trace: the host time the step's range took (issuing the
// step), the GPU work it launched (busy, span), its latency (range start to
// the later of the range's end and its last GPU op's end), the gap to the
// next step, tokens/s and, for decode, the time per output token. The
// steady state per kind of step (prefill / decode / mixed) over the steps
// after the warm-up.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/steps.h"
#include "analysis/view.h"
#include "base/serving_step.h"

namespace mlprof {

struct ServingStepRow {
  int64_t rank = 0;
  int64_t number = 0;
  std::string engine, kind;  // "vllm", "decode"
  int64_t requests = -1, tokens = -1, prefill_tokens = -1, decode_tokens = -1, kv_tokens = -1;
  int64_t output_tokens = -1;  // one per decode request (-1 unknown)
  Ps host = 0;                 // the step range on the host
  Ps blocked = 0;              // of it, in blocking calls (syncs, synchronous copies) on its thread
  Ps gpu_busy = 0, gpu_span = 0;
  Ps latency = 0;  // range start to max(range end, last GPU end)
  Ps gap = -1;     // to the next step's start after this step's latency ends (-1: last step)
  int64_t gpu_ops = 0;
  bool host_bound = false;  // host - blocked > gpu_busy: the GPU waits for the host to issue the step
  bool warmup = false, last = false;
};

struct ServingKindSummary {
  int64_t rank = 0;
  std::string kind;
  int64_t steps = 0, steady_steps = 0, host_bound_steps = 0;
  double median_latency_us = 0, p90_latency_us = 0, median_host_us = 0, median_gpu_busy_us = 0;
  double median_gap_us = -1;  // -1: no gap (one step)
  double tokens_per_s = -1;   // steady steps' tokens / their latency
  double output_tokens_per_s = -1;
  double median_tpot_us = -1;  // decode steps: median latency (one token per request per step)
  double mean_requests = -1;
};

struct ServingReport {
  std::vector<ServingStepRow> steps;
  std::vector<ServingKindSummary> summary;
};

// Empty when no rank's steps are serving steps.
ServingReport ComputeServingSteps(const ProfileView& view, const StepOptions& opt);

}  // namespace mlprof
