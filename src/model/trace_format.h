// The format a rank's file was read as: one value per dialect a reader tells
// apart, named as `mlprof info` prints it. Code that depends on the format
// (the overlay writes only Chrome JSON; PyTorch's op names only in torch
// traces) asks the predicates here, never a string.
#pragma once

#include <cstdint>
#include <string_view>

namespace mlprof {

enum class TraceFormat : uint8_t {
  kUnknown,
  kChromeJson,           // Chrome trace-event JSON, {"traceEvents": [...]}
  kChromeJsonArray,      // Chrome trace-event JSON, a bare array of events
  kKineto,               // torch.profiler / Kineto's JSON (schemaVersion, distributedInfo)
  kXprofTraceJson,       // xprof's trace viewer JSON (JAX *.trace.json.gz)
  kRocprofJson,          // rocprof's Chrome JSON
  kAscendTraceView,      // torch_npu's trace_view.json
  kXPlane,               // an XSpace (*.xplane.pb)
  kNsys,                 // an Nsight Systems SQLite export
  kAscendDb,             // torch_npu's / msprof's SQLite database
  kAscendKernelDetails,  // torch_npu's kernel_details.csv
  kTorchMemoryTimeline,  // torch.profiler's raw memory timeline
  kMerged,               // several files merged into one rank (io/merge.h)
};

// As `mlprof info` names it: "kineto", "chrome-json (array)", "xplane", ...
constexpr std::string_view TraceFormatName(TraceFormat f) {
  switch (f) {
    case TraceFormat::kUnknown:
      return "unknown";
    case TraceFormat::kChromeJson:
      return "chrome-json";
    case TraceFormat::kChromeJsonArray:
      return "chrome-json (array)";
    case TraceFormat::kKineto:
      return "kineto";
    case TraceFormat::kXprofTraceJson:
      return "xprof-trace-json";
    case TraceFormat::kRocprofJson:
      return "rocprof-json";
    case TraceFormat::kAscendTraceView:
      return "ascend-trace-view";
    case TraceFormat::kXPlane:
      return "xplane";
    case TraceFormat::kNsys:
      return "nsys";
    case TraceFormat::kAscendDb:
      return "ascend-db";
    case TraceFormat::kAscendKernelDetails:
      return "ascend-kernel-details";
    case TraceFormat::kTorchMemoryTimeline:
      return "torch-memory-timeline";
    case TraceFormat::kMerged:
      return "merged";
  }
  return "unknown";
}

// A file of Chrome trace-event JSON, in any of its dialects.
constexpr bool IsChromeJson(TraceFormat f) {
  return f == TraceFormat::kChromeJson || f == TraceFormat::kChromeJsonArray || f == TraceFormat::kKineto ||
         f == TraceFormat::kXprofTraceJson || f == TraceFormat::kRocprofJson || f == TraceFormat::kAscendTraceView;
}

// PyTorch's trace (Kineto, or the Chrome JSON of torch.profiler's legacy
// exporter): op names are ATen's.
constexpr bool IsTorchTrace(TraceFormat f) {
  return f == TraceFormat::kKineto || f == TraceFormat::kChromeJson || f == TraceFormat::kChromeJsonArray;
}

}  // namespace mlprof
