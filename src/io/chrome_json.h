// Reader for Chrome trace-event JSON: PyTorch/Kineto traces (all schema
// generations), legacy torch 1.x lists, and any other {"traceEvents":[...]} or
// bare-array trace. Uses simdjson's on-demand API over a padded buffer: no DOM,
// one pass, strings interned straight from the input.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/file_loader.h"
#include "base/status.h"
#include "io/read_options.h"
#include "model/profile.h"

namespace mlprof {

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
