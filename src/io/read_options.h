// Options every reader takes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace mlprof {

struct ReadOptions {
  // Called now and then with (bytes done, bytes total) while parsing.
  std::function<void(uint64_t, uint64_t)> progress;
  // Chrome JSON: inputs of at least `windowed_min_bytes` parse their events
  // in windows of about `window_bytes`, which bounds the parser's index
  // memory (tests set both small to exercise the windowing on small traces).
  size_t windowed_min_bytes = size_t{64} << 20;
  size_t window_bytes = size_t{8} << 20;
  // Event caps of xprof's trace-viewer export (GetTraceViewerMaxEvents: 1 M,
  // 5 M in newer XLA): an XSpace JSON with exactly this many complete events
  // was probably cut there, and is reported as such.
  std::vector<uint64_t> trace_viewer_caps = {1'000'000, 5'000'000};
  // Chrome JSON: keep every arg of every op in the args table (scalars typed,
  // arrays as compact JSON text), not only the fields mlprof analyses: for
  // SQL and the exports. Off by default: it costs memory per arg.
  bool all_args = false;
};

}  // namespace mlprof
