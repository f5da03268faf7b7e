// Reader for XPlane profiles (*.xplane.pb: a serialized tensorflow.profiler
// XSpace, written by jax.profiler / TensorFlow / xprof). A hand-written
// protobuf wire reader: no generated code, no copies; strings are interned
// straight from the buffer. Field numbers: ../shared/reference/
// xla-profiles-hlo.md section 1.2.
//
// Mapping into the model: each XLine is a track (process = plane, thread =
// line). Events become ops with ts = line.timestamp_ns * 1000 + offset_ps and
// their duration_ps, named by the event metadata's display name when it has
// one (TPU ops: the op name; the full HLO text is the metadata name). On GPU
// planes, `Stream #N(...)` lines are GPU streams and their events kernels,
// memcpys or memsets; host events with a correlation_id stat are launches, so
// GPU ops link to them as in Kineto traces. Other lines keep their line name
// as category (e.g. "XLA Ops", "XLA Modules" on TPU planes).
#pragma once

#include <string_view>

#include "base/file_loader.h"
#include "base/status.h"
#include "io/read_options.h"
#include "model/profile.h"

namespace mlprof {

// True if the bytes look like a serialized XSpace (and not, say, an HloProto).
bool LooksLikeXSpace(std::string_view head);

Status ReadXPlane(LoadedFile& file, const ReadOptions& options, RankProfile* out);

}  // namespace mlprof
