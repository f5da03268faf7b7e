// Deterministic synthetic Kineto (PyTorch profiler) traces for benchmarks and
// the bundled example. A transformer-like training loop per rank: per step an
// input copy, forward and backward layers (GEMMs, attention, norms,
// elementwise), NCCL all-reduce buckets on a second stream overlapping the
// backward pass, and an optimizer. Kernel times are physically plausible for
// an H100 (GEMMs at ~70 % of the bf16 peak, flash attention at ~450
// TFLOP/s, norms and elementwise at ~80 % of HBM bandwidth, the input batch
// of token ids over PCIe), so rooflines and MFU of the example stay below
// 100 %. Same options, same bytes.
#pragma once

#include <cstdint>
#include <string>

namespace mlprof::synth {

struct SynthOptions {
  int rank = 0;
  int world_size = 2;
  int steps = 4;
  int layers = 4;
  uint64_t seed = 1;
  // If > 0, keep adding steps until the JSON reaches this many bytes.
  uint64_t target_bytes = 0;
};

struct SynthStats {
  uint64_t events = 0;  // entries of traceEvents
  int steps = 0;
};

// Returns the trace JSON ({"schemaVersion":1, ..., "traceEvents":[...]}).
std::string MakeKinetoTrace(const SynthOptions& opt, SynthStats* stats = nullptr);

}  // namespace mlprof::synth
