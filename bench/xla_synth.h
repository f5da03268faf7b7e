// Deterministic synthetic XLA inputs for benchmarks: an XSpace (`*.xplane.pb`)
// shaped like a JAX TPU profile, and a large after-optimisation HLO module in
// text. Same options, same bytes.
//
// XSpace: `devices` planes "/device:TPU:<n>" with lines "XLA Modules" (one
// execution per step), "XLA Ops" (every op of the step, back to back) and
// "Steps"; event metadata carry the full HLO text as name, the short name as
// display name and the stats the TPU runtime writes (hlo_category,
// program_id, flops, bytes_accessed, tf_op, source); plus a "/host:CPU" plane
// with TraceMe-like events on `host_threads` lines. Steps are added until the
// file reaches `target_bytes`.
//
// HLO: a transformer-like module of `layers` layers, each a few dozen
// instructions with TPU layouts, metadata and fusions, until `target_bytes`.
#pragma once

#include <cstdint>
#include <string>

namespace mlprof::synth {

struct XSpaceOptions {
  int devices = 4;
  int host_threads = 4;
  int ops_per_step = 400;  // distinct HLO ops of the program
  uint64_t seed = 1;
  uint64_t target_bytes = 8 << 20;
};

struct XSpaceStats {
  uint64_t device_events = 0;  // events on the device planes (all lines)
  uint64_t xla_op_events = 0;  // events on "XLA Ops" lines
  uint64_t host_events = 0;
  int steps = 0;
};

std::string MakeXSpace(const XSpaceOptions& opt, XSpaceStats* stats = nullptr);

// The same profile (same options, same events) as xprof's trace viewer
// exports it to `*.trace.json`: pid 1 + plane id for devices and 701 for the
// host, tid = line id, name = display name with the HLO text in
// args.long_name, every stat a string arg, the internal stats (flops,
// program_id) left out, and no Async XLA Ops line.
std::string MakeTraceViewerJson(const XSpaceOptions& opt, XSpaceStats* stats = nullptr);

struct HloTextOptions {
  uint64_t target_bytes = 8 << 20;
};

struct HloTextStats {
  uint64_t instructions = 0;
  uint64_t computations = 0;
};

std::string MakeHloText(const HloTextOptions& opt, HloTextStats* stats = nullptr);

}  // namespace mlprof::synth
