// ProfileBuilder: the one writer of a RankProfile. Readers hand it decoded
// events; it interns, assigns tracks, pairs B/E, and in Finish() sorts once,
// computes nesting, GPU-op -> launch links and step membership.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "model/profile.h"

namespace mlprof {

struct EventRecord {
  char ph = 0;
  StringId name = 0;
  StringId cat = 0;
  bool has_cat = false;
  bool has_ts = false;
  bool has_dur = false;
  Ps128 ts = 0;  // absolute on the trace clock
  Ps128 dur = 0;
  int64_t pid = 0;
  int64_t tid = 0;
  int64_t correlation = -1;
  int64_t external_id = -1;
  int64_t stream = -1;
  int64_t device = -1;
  StringId input_dims = 0;
  StringId input_types = 0;
  StringId concrete_inputs = 0;
  StringId comm = 0;  // ["allreduce", in nelems, out nelems, group size, "Float"]
  StringId grid = 0;
  StringId block = 0;
  int64_t bytes = -1;
  StringId stack = 0;            // args["Call stack"]
  float blocks_per_sm = -1;      // kernel args["blocks per SM"]
  float occupancy = -1;          // kernel args["est. achieved occupancy %"]
  int32_t xla = -1;              // index into RankProfile::xla_ops
  OpKind kind = OpKind::kOther;  // what the reader's vocabulary says the event is
  // Args the reader keeps in the sparse args table (valid during AddEvent).
  const ArgValue* args = nullptr;
  uint32_t arg_count = 0;
  bool has_id = false;
  int64_t id = 0;
  uint64_t offset = 0;
};

class ProfileBuilder {
 public:
  explicit ProfileBuilder(RankProfile* out);

  StringPool& strings() { return out_->strings; }
  // Reserves room for the ops of an input of `bytes` bytes. Over-reserving
  // costs address space only: untouched pages are not resident.
  void ReserveForInput(size_t bytes);
  // Reserves room for exactly `n` more ops (readers that can count first).
  // kineto_columns = false: not the Kineto-only columns (an XPlane has none).
  void ReserveOps(size_t n, bool kineto_columns = true);
  // Reserves room for `n` more args (readers that give every op many args).
  void ReserveArgs(size_t n) { out_->args.rows.reserve(out_->args.rows.size() + n); }
  TraceMetadata& meta() { return out_->meta; }
  void Warn(ImportStat s, uint64_t offset) { out_->stats.Add(s, offset); }

  // X, B, E, i/I and s/t/f events. Others are counted as unknown_phase.
  void AddEvent(const EventRecord& e);
  uint32_t TrackFor(int64_t pid, int64_t tid);

  // The binary readers' hot path (XPlane). A line's events share a track and
  // a time base: the reader makes the base relative once (LineBase) and adds
  // each event with AddLean, which writes only the columns such an event has
  // (no EventRecord, no 128-bit arithmetic, no Kineto-only columns; those
  // stay empty unless another path fills them, see OpTable). Same checks,
  // counts and warnings as an 'X' event through AddEvent.
  struct LeanLine {
    uint32_t track = 0;
    int64_t device = -1;  // for a GPU-stream track: device and stream
    int64_t stream = -1;
    bool base_ok = false;  // `base` is the line start relative to the builder's base
    Ps base = 0;
  };
  // Makes `abs` (the line's start) relative; false if it cannot be, in which
  // case AddLean falls back to exact 128-bit arithmetic per event.
  bool LineBase(Ps128 abs, LeanLine* line);
  // Sizes the lean columns for up to `n` more AddLean events (a reader that
  // counted them first); AddLean then writes in place. More than `n` still
  // works (the window grows). Closed by the next AppendOp or by Finish.
  void BeginLean(size_t n);
  void AddLean(const LeanLine& line, Ps128 line_abs, StringId name, StringId cat, OpKind kind, uint64_t offset_ps,
               uint64_t dur_ps, int64_t correlation, int32_t xla, uint64_t offset);
  // Counts an event by phase and category (AddEvent does this itself; readers
  // call it for events they consume otherwise, like M and C).
  void CountEvent(const EventRecord& e);
  void AddCounter(const EventRecord& e, StringId series, double value);
  // An arg of meta().devices[device] (deviceProperties fields, plane stats).
  void AddDeviceArg(uint32_t device, const ArgValue& v) { out_->args.rows.push_back({ArgOwner::kDevice, device, v}); }
  void SetProcessName(int64_t pid, StringId name);
  void SetThreadName(int64_t pid, int64_t tid, StringId name);
  // The device a non-stream track belongs to (a GPU's counter track).
  void SetTrackDevice(int64_t pid, int64_t tid, int32_t device);
  // Interns an XLA op description; equal descriptions share one index.
  int32_t AddXlaOp(const XlaOp& op);
  void AddHloProto(std::string key, std::string bytes) {
    out_->hlo_protos.push_back({std::move(key), std::move(bytes)});
  }

  // A reader's second look at what it added, before Finish (the trace-viewer
  // JSON's XSpace conventions, io/xspace_conventions.h): the profile so far,
  // the process name given to a pid, and the few changes such a pass makes.
  const RankProfile& partial() const { return *out_; }
  std::string_view ProcessName(int64_t pid) const;  // "" when none was given
  void MakeGpuStream(uint32_t track, int32_t device, int64_t stream);
  void SetOpKind(size_t op, OpKind kind, StringId cat);
  void UnlinkXla(size_t op) { out_->ops.xla[op] = -1; }
  // A vocabulary's name for an op (rocprof's "CopyHostToDevice" as
  // "Memcpy HtoD (CopyHostToDevice)"), the bytes it moved, and the
  // correlation id that joins it to its launch at Finish (a link the trace
  // gives otherwise, by flow events: io/rocprof_conventions.h).
  void SetOpName(size_t op, StringId name) { out_->ops.name[op] = name; }
  void SetOpBytes(size_t op, int64_t bytes);
  void SetCorrelation(size_t op, int64_t correlation) { out_->ops.correlation[op] = correlation; }
  // Moves an op (or a flow event) to another track; Finish re-sorts.
  void MoveOp(size_t op, uint32_t track) {
    out_->ops.track[op] = track;
    in_order_ = false;
  }
  void MoveFlow(size_t flow, uint32_t track) { out_->flows[flow].track = track; }
  // What a sidecar file adds (io/ascend_files.h): start times are partial
  // (ToPartialTime) and shifted with the ops at Finish.
  uint32_t AddCommOp(const CommOpStat& c) {
    out_->comm_ops.push_back(c);
    return static_cast<uint32_t>(out_->comm_ops.size() - 1);
  }
  void AddLinkTransfer(const LinkTransfer& l) { out_->links.push_back(l); }
  void NoteSidecar(std::string line) { out_->sidecars.push_back(std::move(line)); }
  void WarnSidecar(std::string line) { out_->sidecar_warnings.push_back(std::move(line)); }
  void SetUnreadDeviceLanes(int64_t events, std::string processes) {
    out_->unread_device_lane_events = events;
    out_->unread_device_lanes = std::move(processes);
  }
  // An arg of op `op` (a sidecar file's fields for the op: io/ascend_files.h).
  void AddOpArg(size_t op, const ArgValue& v) {
    out_->args.rows.push_back({ArgOwner::kOp, static_cast<uint32_t>(op), v});
  }
  // An absolute time on the trace clock as the ops so far hold it (relative
  // to the builder's base until Finish); false before any op or out of range.
  bool ToPartialTime(Ps128 abs, Ps* out) const {
    if (!have_base_) return false;
    const Ps128 rel = abs - base_;
    if (rel > (Ps128{1} << 62) || rel < -(Ps128{1} << 62)) return false;
    *out = static_cast<Ps>(rel);
    return true;
  }
  // A name that marks a step besides "ProfilerStep#N" (an NVTX range
  // "step 3"): host ops of that name become step `number`.
  void AddStepName(StringId name, int64_t number) { out_->step_names.push_back({name, number}); }
  void DropXlaOps();  // every XLA op description and link

  // Completes the profile. After this the builder must not be used.
  Status Finish();

 private:
  struct PendingBegin {
    EventRecord rec;
    std::vector<ArgValue> args;  // rec.args points into the reader's scratch
  };
  uint32_t LookupTrack(int64_t pid, int64_t tid);
  bool ToRelative(Ps128 abs, uint64_t offset, Ps* out);
  void AppendOp(const EventRecord& e, uint32_t track, Ps ts, Ps dur, OpKind kind);
  // Brings the columns AddLean leaves out up to the op count (defaults).
  void CatchUp(bool kineto_columns);
  void EndLean();  // trims the lean columns to what AddLean wrote
  void ResizeLean(size_t n);

  RankProfile* out_;
  bool lagging_ = false;    // AddLean ran since the last CatchUp
  bool any_gpu_ = false;    // some op is a GPU op (Finish joins launches only then)
  bool lean_open_ = false;  // BeginLean sized the lean columns to lean_end_
  size_t lean_next_ = 0, lean_end_ = 0;
  // Kept as ops are appended, so that Finish needs no pass for them: the
  // earliest start, and whether the ops come grouped by track in ascending
  // order and in (ts asc, dur desc) order within a track.
  void NoteOrder(uint32_t track, Ps ts, Ps dur) {
    if (ts < min_ts_) min_ts_ = ts;
    if (in_order_ && have_last_)
      in_order_ = track != last_op_track_ ? track > last_op_track_
                                          : ts > last_op_ts_ || (ts == last_op_ts_ && dur <= last_op_dur_);
    have_last_ = true, last_op_track_ = track, last_op_ts_ = ts, last_op_dur_ = dur;
  }
  Ps min_ts_ = INT64_MAX;
  bool in_order_ = true, have_last_ = false;
  uint32_t last_op_track_ = 0;
  Ps last_op_ts_ = 0, last_op_dur_ = 0;
  bool have_base_ = false;
  Ps128 base_ = 0;
  std::unordered_map<uint64_t, uint32_t> track_index_;  // hash of (pid, tid)
  std::vector<std::pair<int64_t, int64_t>> track_keys_;
  int64_t last_pid_ = 0, last_tid_ = 0;  // cache of the last TrackFor lookup
  uint32_t last_track_ = UINT32_MAX;
  std::unordered_map<uint32_t, std::vector<PendingBegin>> open_begins_;  // by track
  std::unordered_map<int64_t, StringId> process_names_;
  std::unordered_map<uint64_t, std::vector<int32_t>> xla_index_;  // hash -> candidates
};

// Inline: it runs once per XPlane event, and as a call its ten arguments
// went through the stack.
__attribute__((always_inline)) inline void ProfileBuilder::AddLean(const LeanLine& line, Ps128 line_abs, StringId name,
                                                                   StringId cat, OpKind kind, uint64_t offset_ps,
                                                                   uint64_t dur_ps, int64_t correlation, int32_t xla,
                                                                   uint64_t offset) {
  // Counted as CountEvent counts an 'X' event with a category.
  out_->phase_counts['X']++;
  if (cat >= out_->cat_counts.size()) out_->cat_counts.resize(cat + 64, 0);
  out_->cat_counts[cat]++;
  Ps ts, end;
  constexpr Ps kLimit = Ps{1} << 62;
  // |base| <= 2^62 and both addends checked <= 2^62 before adding: the same
  // range check ToRelative makes, with overflow ruled out.
  if (line.base_ok && offset_ps <= static_cast<uint64_t>(kLimit) && dur_ps <= static_cast<uint64_t>(kLimit) &&
      !__builtin_add_overflow(line.base, static_cast<Ps>(offset_ps), &ts) && ts <= kLimit &&
      !__builtin_add_overflow(ts, static_cast<Ps>(dur_ps), &end) && end <= kLimit) {
    if (!out_->meta.has_float_ts && ts % kPsPerUs != 0) out_->meta.has_float_ts = true;  // base_ is whole us
  } else {
    const Ps128 abs = line_abs + static_cast<Ps128>(offset_ps);
    if (!out_->meta.has_float_ts && abs % kPsPerUs != 0) out_->meta.has_float_ts = true;
    if (!ToRelative(abs, offset, &ts) || !ToRelative(abs + static_cast<Ps128>(dur_ps), offset, &end)) return;
  }
  if (IsGpuOp(kind)) {
    if (kind == OpKind::kCudaSync && line.stream < 0) kind = OpKind::kDeviceSync;
    any_gpu_ = any_gpu_ || IsGpuOp(kind);
    Track& t = out_->tracks[line.track];
    if (IsGpuOp(kind) && t.kind != TrackKind::kGpuStream) {
      t.kind = TrackKind::kGpuStream;
      const int64_t pid = track_keys_[line.track].first, tid = track_keys_[line.track].second;
      t.device = static_cast<int32_t>(line.device >= 0 ? line.device : (pid < kStringIdBase ? pid : -1));
      t.stream = line.stream >= 0 ? line.stream : tid;
    }
  }
  OpTable& o = out_->ops;
  NoteOrder(line.track, ts, end - ts);
  if (!lean_open_ || lean_next_ == lean_end_) BeginLean(std::max<size_t>(1024, lean_end_ / 2));
  const size_t i = lean_next_++;
  o.ts[i] = ts;
  o.dur[i] = end - ts;
  o.name[i] = name;
  o.cat[i] = cat;
  o.kind[i] = kind;
  o.track[i] = line.track;
  o.correlation[i] = correlation;
  o.xla[i] = xla;
  o.offset[i] = offset;
  lagging_ = true;
}

}  // namespace mlprof
