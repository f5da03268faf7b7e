// For the Chrome-trace JSON that rocprof (v1/v2, `--hip-trace` / `--hsa-trace`,
// ROCm's tblextr.py) writes: its events carry no "cat", and what they are is
// said by the process they sit in. Processes named "GPU<n>" hold device n's
// kernels; "COPY" holds the copies (device from the event's "dev-id" arg);
// both go on GPU stream tracks (device, HIP stream from "stream-id"), so a
// stream's kernels and copies share one track as in a Kineto trace of the same
// program. Copies get Kineto's names from their direction ("CopyHostToDevice"
// -> "Memcpy HtoD (CopyHostToDevice)"; "FillBuffer" -> a memset); "CPU HIP
// API" calls are runtime calls, "CPU HSA API" and "KFD API" calls driver
// calls, "Markers and Ranges" (roctx) user annotations. rocprof links a call
// to the GPU op it issued by a flow ("s" inside the call, "t" at the op's
// start, category DataFlow), not by a correlation arg: each linked pair gets
// a correlation id, so Finish joins them as launches; ops without a flow stay
// unlinked (counted as gpu_op_without_launch). "GPU Barriers<n>" lanes (barrier
// packets) are left as they are: waits, not work. Returns false (nothing
// changed) when no "GPU<n>" or "COPY" process holds events, or when any
// event has a category mlprof reads (rocprof writes none).
// Called by the Chrome JSON reader before Finish; warnings (copies with no
// device) go to RankProfile::sidecar_warnings, naming `path`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "model/builder.h"

namespace mlprof {

bool AdoptRocprofConventions(ProfileBuilder& b, std::string_view path);

// For a trace that no convention understood: when it holds no GPU op, but
// processes whose names say device lanes ("GPU<n>", "COPY", names with
// "GPU", "HSA", "device" and no "CPU", "API" or "host") hold events the
// reader could not classify, says so in RankProfile::sidecar_warnings (a
// warning on every command), naming the processes and their event counts:
// such a trace is never a silent host-only profile.
void WarnUnreadDeviceLanes(ProfileBuilder& b, std::string_view path);

// rocprof's copy names as Kineto's ("CopyHostToDevice" -> kMemcpy, "Memcpy
// HtoD (CopyHostToDevice)"; "FillBuffer" -> kMemset, "Memset (Device)
// (FillBuffer)"); a name it does not know stays a memcpy of that name.
struct RocprofCopy {
  OpKind kind = OpKind::kMemcpy;
  std::string name;
};
RocprofCopy RocprofCopyOf(std::string_view name);

// "GPU<n>" (n decimal) -> n; else -1.
int64_t RocprofGpuLane(std::string_view process_name);

// The byte count in a HIP call's args text ("( dst(0x..) src(0x..)
// sizeBytes(24) kind(1) stream(1))"), or -1.
int64_t HipArgsSizeBytes(std::string_view args);

}  // namespace mlprof
