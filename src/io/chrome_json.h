// Reader for Chrome trace-event JSON: PyTorch/Kineto traces (all schema
// generations), legacy torch 1.x lists, and any other {"traceEvents":[...]} or
// bare-array trace. Uses simdjson's on-demand API over a padded buffer: no DOM,
// one pass, strings interned straight from the input.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>
#include <string>

#include "base/file_loader.h"
#include "base/status.h"
#include "model/profile.h"

namespace mlprof {

struct ReadOptions {
  // Called now and then with (bytes done, bytes total) while parsing.
  std::function<void(uint64_t, uint64_t)> progress;
  // Inputs of at least `windowed_min_bytes` parse their events in windows of
  // about `window_bytes`, which bounds the parser's index memory (tests set
  // both small to exercise the windowing on small traces).
  size_t windowed_min_bytes = size_t{64} << 20;
  size_t window_bytes = size_t{8} << 20;
  // Event caps of xprof's trace-viewer export (GetTraceViewerMaxEvents: 1 M,
  // 5 M in newer XLA): an XSpace JSON with exactly this many complete events
  // was probably cut there, and is reported as such.
  std::vector<uint64_t> trace_viewer_caps = {1'000'000, 5'000'000};
};

// Parses `file` (already decompressed; its buffer may be modified to repair
// invalid UTF-8) into `out` through a ProfileBuilder. Hard errors (not JSON,
// not a trace, corrupt in the middle) name the file and the byte offset;
// recoverable problems are counted in out->stats.
Status ReadChromeTrace(LoadedFile& file, const ReadOptions& options, RankProfile* out);

// True if this build's JSON reader uses AVX2/BMI2 instructions (x86-64 GCC
// builds with MLPROF_JSON_HASWELL): callers check the CPU first.
bool ChromeJsonNeedsAvx2();

// True if the bytes look like a Chrome trace (used by format sniffing).
bool LooksLikeChromeJson(std::string_view head);

}  // namespace mlprof
