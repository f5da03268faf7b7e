// Counted problems met while reading input. Each kind is declared once, with
// its severity and help text; `mlprof info` and every report print the ones
// that occurred with their count and the byte offset of the first occurrence.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace mlprof {

enum class Severity : uint8_t { kInfo, kWarning, kError };

//  X(id, severity, help)
#define MLPROF_IMPORT_STATS(X)                                                                                      \
  X(truncated_json, kWarning,                                                                                       \
    "the JSON ends early (truncated file or missing closing bracket); "                                             \
    "events before that point were kept")                                                                           \
  X(truncated_compressed, kWarning, "the compressed stream ends early; the decoded prefix was kept")                \
  X(compressed_trailing_garbage, kWarning,                                                                          \
    "bytes after the last gzip member are not gzip data (the offset is in the compressed file); ignored, "          \
    "as gzip -d does")                                                                                              \
  X(invalid_utf8, kWarning, "bytes that are not valid UTF-8 were replaced by '?'")                                  \
  X(trailing_empty_event, kInfo, "an empty {} event (old Kineto writes one at the end); skipped")                   \
  X(event_not_object, kWarning, "a traceEvents entry is not a JSON object; skipped")                                \
  X(missing_ph, kWarning, "event without \"ph\"; skipped")                                                          \
  X(missing_ts, kWarning, "event without a usable \"ts\"; skipped")                                                 \
  X(missing_dur, kWarning, "complete (X) event without \"dur\"; skipped")                                           \
  X(bad_number, kWarning, "ts/dur is not a number (NaN, Infinity, text); event skipped")                            \
  X(number_out_of_range, kWarning, "ts/dur too large to be a time; event skipped")                                  \
  X(negative_duration, kWarning, "negative duration; event skipped")                                                \
  X(unknown_phase, kInfo, "event phase mlprof does not read (e.g. P, O, N, D); skipped")                            \
  X(unmatched_end, kWarning, "E event without a matching B on its thread; skipped")                                 \
  X(unmatched_begin, kWarning, "B event never closed by an E; skipped")                                             \
  X(bad_field_type, kWarning, "a field has an unexpected JSON type; the field was ignored")                         \
  X(aggregated_event, kInfo, "XPlane event with num_occurrences instead of a start time (pre-aggregated); skipped") \
  X(trace_viewer_cap, kWarning,                                                                                     \
    "the trace-viewer JSON holds exactly xprof's export cap of complete events, so later events were "              \
    "probably dropped (TF_PROFILER_TRACE_VIEWER_MAX_EVENTS); read the .xplane.pb for the whole profile")            \
  X(flow_without_id, kInfo, "flow event (s/t/f) without an id; skipped")                                            \
  X(gpu_op_without_launch, kInfo, "GPU op whose correlation matches no launch on the host")                         \
  X(gpu_op_without_stream, kInfo,                                                                                   \
    "event of a GPU category (kernel, memcpy, ...) with no stream; kept, not as GPU work")                          \
  X(duplicate_correlation, kInfo, "several host launches share one correlation id; first kept")                     \
  X(open_range, kInfo, "a range with no end (an NVTX range never closed before the capture ended); skipped")        \
  X(bad_device_id, kWarning, "a GPU op's device id is negative or above 65535 (a damaged row); skipped")            \
  X(unknown_string_id, kWarning, "a name refers to an id missing from the strings table; named \"(string N)\"")

enum class ImportStat : uint8_t {
#define MLPROF_X(id, sev, help) id,
  MLPROF_IMPORT_STATS(MLPROF_X)
#undef MLPROF_X
      kCount
};

inline constexpr size_t kImportStatCount = static_cast<size_t>(ImportStat::kCount);

struct ImportStatInfo {
  const char* name;
  Severity severity;
  const char* help;
};

const ImportStatInfo& GetImportStatInfo(ImportStat s);
const char* SeverityName(Severity s);

struct ImportStats {
  std::array<uint64_t, kImportStatCount> count{};
  std::array<uint64_t, kImportStatCount> first_offset{};  // byte offset in the decoded input

  void Add(ImportStat s, uint64_t offset) {
    auto i = static_cast<size_t>(s);
    if (count[i]++ == 0) first_offset[i] = offset;
  }
  uint64_t Get(ImportStat s) const { return count[static_cast<size_t>(s)]; }
  uint64_t Total(Severity at_least) const;
};

}  // namespace mlprof
