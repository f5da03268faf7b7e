// Perfetto export: the model as a native Perfetto trace (TracePacket protobuf
// with TrackEvent), for ui.perfetto.dev and trace_processor. Written by
// mlprof's own encoder (base/proto_writer.h), streamed: peak memory is the
// model plus a bounded buffer.
//
// Layout: one process per rank (pid = its position + 1, named "rank R");
// host threads as thread tracks (a synthetic tid, the trace's own tid in the
// name when it has no name), GPU streams and XLA lines as named tracks under
// the process. Ops that overlap without nesting on one track go to extra
// lanes ("... (overlap N)"), since a track's slices must nest. Every op is a
// slice (begin and end event) or an instant, with its args as debug
// annotations (category, correlation, shapes, grid, bytes, HLO op and
// expression, scope, step, ...); a flow runs from each launch to the GPU
// work it launched; counter events become counter tracks. Each track (lane)
// is its own packet sequence, in time order, with interned names. Times are
// nanoseconds on the traces' own clock (ranks share it), shifted only if it
// would be negative.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "model/profile.h"

namespace mlprof {

struct PerfettoStats {
  uint64_t bytes = 0;     // written
  uint64_t packets = 0;   // TracePackets
  uint64_t tracks = 0;    // track descriptors (processes, threads, streams, lanes, counters)
  uint64_t slices = 0;    // begin/end pairs
  uint64_t instants = 0;  // instant events
  uint64_t flows = 0;     // launch -> GPU work
  uint64_t counters = 0;  // counter values
};

// What a caller may overlay on the export (`mlprof critical-path
// --perfetto`), per rank in Profile order: ops marked with the arg
// critical = 1, and flows from one op's slice to another's (the critical
// path's edges between different ops).
struct PerfettoMarks {
  std::vector<std::vector<uint8_t>> critical;                     // [rank][op], empty: none
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> flows;  // [rank]: (from op, to op)
};

// Writes `p` to `out` (binary). Errors are write errors, naming `path`.
StatusOr<PerfettoStats> WritePerfetto(const Profile& p, std::FILE* out, const std::string& path,
                                      const PerfettoMarks* marks = nullptr);

}  // namespace mlprof
