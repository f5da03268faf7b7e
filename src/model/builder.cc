#include "model/builder.h"

#include <algorithm>
#include <numeric>

#include "base/serving_step.h"
#include "model/steps.h"

namespace mlprof {

namespace {

uint64_t MixKey(int64_t pid, int64_t tid) {
  uint64_t h = static_cast<uint64_t>(pid) * 0x9E3779B97F4A7C15ULL;
  h ^= static_cast<uint64_t>(tid) + 0x632BE59BD9B4E019ULL + (h << 6) + (h >> 2);
  return h;
}

}  // namespace

ProfileBuilder::ProfileBuilder(RankProfile* out) : out_(out) {}

void ProfileBuilder::ReserveForInput(size_t bytes) {
  // Kineto events take 150-400 bytes of JSON each.
  out_->ops.Reserve(bytes / 128 + 16);
  out_->flows.reserve(bytes / 512 + 16);
}

void ProfileBuilder::ReserveOps(size_t n, bool kineto_columns) {
  out_->ops.Reserve(out_->ops.size() + n, kineto_columns);
}

uint32_t ProfileBuilder::TrackFor(int64_t pid, int64_t tid) {
  // Events of one thread tend to come in runs.
  if (last_track_ != UINT32_MAX && pid == last_pid_ && tid == last_tid_) return last_track_;
  uint32_t t = LookupTrack(pid, tid);
  last_pid_ = pid, last_tid_ = tid, last_track_ = t;
  return t;
}

uint32_t ProfileBuilder::LookupTrack(int64_t pid, int64_t tid) {
  uint64_t key = MixKey(pid, tid);
  auto it = track_index_.find(key);
  // Collisions of the 64-bit mix are resolved by probing the next key.
  while (it != track_index_.end()) {
    if (track_keys_[it->second] == std::make_pair(pid, tid)) return it->second;
    ++key;
    it = track_index_.find(key);
  }
  auto idx = static_cast<uint32_t>(out_->tracks.size());
  Track t;
  t.pid = pid;
  t.tid = tid;
  t.kind = TrackKind::kHostThread;
  out_->tracks.push_back(t);
  track_keys_.emplace_back(pid, tid);
  track_index_.emplace(key, idx);
  return idx;
}

bool ProfileBuilder::ToRelative(Ps128 abs, uint64_t offset, Ps* out) {
  if (!have_base_) {
    // Base: the first timestamp, floored to a whole microsecond.
    Ps128 q = abs / kPsPerUs;
    if (abs < 0 && q * kPsPerUs != abs) --q;
    base_ = q * kPsPerUs;
    have_base_ = true;
  }
  Ps128 rel = abs - base_;
  constexpr Ps128 kLimit = Ps128{1} << 62;
  if (rel > kLimit || rel < -kLimit) {
    Warn(ImportStat::number_out_of_range, offset);
    return false;
  }
  *out = static_cast<Ps>(rel);
  return true;
}

void ProfileBuilder::CatchUp(bool kineto_columns) {
  EndLean();
  OpTable& o = out_->ops;
  const size_t n = o.size();
  o.parent.resize(n, -1);
  o.depth.resize(n, 0);
  o.launch.resize(n, -1);
  o.step.resize(n, -1);
  if (kineto_columns) {
    o.external_id.resize(n, -1);
    o.input_dims.resize(n, 0);
    o.input_types.resize(n, 0);
    o.concrete_inputs.resize(n, 0);
    o.comm.resize(n, 0);
    o.grid.resize(n, 0);
    o.block.resize(n, 0);
    o.bytes.resize(n, -1);
    // The sparse columns stay empty until an event has a value for them.
    if (!o.stack.empty()) o.stack.resize(n, 0);
    if (!o.blocks_per_sm.empty()) o.blocks_per_sm.resize(n, -1);
    if (!o.occupancy.empty()) o.occupancy.resize(n, -1);
  }
  lagging_ = false;
}

bool ProfileBuilder::LineBase(Ps128 abs, LeanLine* line) {
  line->base_ok = false;
  if (!have_base_) return false;  // the first event sets the base (ToRelative)
  const Ps128 rel = abs - base_;
  constexpr Ps128 kLimit = Ps128{1} << 62;
  if (rel > kLimit || rel < -kLimit) return false;
  line->base = static_cast<Ps>(rel);
  line->base_ok = true;
  return true;
}

void ProfileBuilder::ResizeLean(size_t n) {
  OpTable& o = out_->ops;
  o.ts.resize(n), o.dur.resize(n), o.name.resize(n), o.cat.resize(n), o.kind.resize(n), o.track.resize(n);
  o.correlation.resize(n), o.xla.resize(n), o.offset.resize(n);
}

void ProfileBuilder::BeginLean(size_t n) {
  if (!lean_open_) lean_next_ = out_->ops.size();
  lean_open_ = true;
  lean_end_ = lean_next_ + n;
  ResizeLean(lean_end_);  // default-initialised: nothing is zeroed (HugePageAllocator)
}

void ProfileBuilder::EndLean() {
  if (!lean_open_) return;
  ResizeLean(lean_next_);
  lean_open_ = false;
}

void ProfileBuilder::AppendOp(const EventRecord& e, uint32_t track, Ps ts, Ps dur, OpKind kind) {
  OpTable& o = out_->ops;
  if (lagging_ || lean_open_) CatchUp(true);
  if (kind == OpKind::kCudaSync && e.stream < 0) kind = OpKind::kDeviceSync;
  if (IsGpuOp(kind)) {
    Track& t = out_->tracks[track];
    if (e.stream < 0 && t.kind != TrackKind::kGpuStream) {
      // GPU ops are ops on a stream (as in HTA): an event of a GPU category
      // with no stream (MTIA's dma_request on its DMA_REQUEST thread) is
      // kept, but not as GPU work on a stream made up from its thread id.
      kind = OpKind::kOther;
      Warn(ImportStat::gpu_op_without_stream, e.offset);
    } else {
      any_gpu_ = true;
      if (t.kind != TrackKind::kGpuStream) {
        t.kind = TrackKind::kGpuStream;
        t.device = static_cast<int32_t>(e.device >= 0 ? e.device : (e.pid < kStringIdBase ? e.pid : -1));
        t.stream = e.stream >= 0 ? e.stream : e.tid;
      }
    }
  }
  NoteOrder(track, ts, dur);
  o.ts.push_back(ts);
  o.dur.push_back(dur);
  o.name.push_back(e.name);
  o.cat.push_back(e.cat);
  o.kind.push_back(kind);
  o.track.push_back(track);
  o.correlation.push_back(e.correlation);
  o.external_id.push_back(e.external_id);
  o.parent.push_back(-1);
  o.depth.push_back(0);
  o.launch.push_back(-1);
  o.step.push_back(-1);
  o.input_dims.push_back(e.input_dims);
  o.input_types.push_back(e.input_types);
  o.concrete_inputs.push_back(e.concrete_inputs);
  o.comm.push_back(e.comm);
  o.grid.push_back(e.grid);
  o.block.push_back(e.block);
  o.bytes.push_back(e.bytes);
  // Sparse columns (most traces have none of these): allocated, with every
  // earlier op at the default, on the first event that has a value.
  const size_t before = o.ts.size() - 1;
  auto sparse = [before](auto& col, auto v, auto none) {
    if (!col.empty()) {
      col.push_back(v);
    } else if (v != none) {
      col.resize(before, none);
      col.push_back(v);
    }
  };
  sparse(o.stack, e.stack, StringId{0});
  sparse(o.blocks_per_sm, e.blocks_per_sm, -1.0f);
  sparse(o.occupancy, e.occupancy, -1.0f);
  o.xla.push_back(e.xla);
  o.offset.push_back(e.offset);
  const uint32_t op = static_cast<uint32_t>(o.size() - 1);
  for (uint32_t k = 0; k < e.arg_count; ++k) out_->args.rows.push_back({ArgOwner::kOp, op, e.args[k]});
}

void ProfileBuilder::CountEvent(const EventRecord& e) {
  // HTA rounds timestamps when any event's ts has a fraction (its ts column
  // is float then), whatever the event's kind.
  if (e.has_ts && !out_->meta.has_float_ts) {
    // 64-bit remainder when it fits (a 128-bit one is a libgcc call).
    const bool frac =
        e.ts >= INT64_MIN && e.ts <= INT64_MAX ? static_cast<int64_t>(e.ts) % kPsPerUs != 0 : e.ts % kPsPerUs != 0;
    if (frac) out_->meta.has_float_ts = true;
  }
  auto ph = static_cast<unsigned char>(e.ph);
  if (ph < 128) out_->phase_counts[ph]++;
  if (e.has_cat) {
    if (e.cat >= out_->cat_counts.size()) out_->cat_counts.resize(e.cat + 64, 0);
    out_->cat_counts[e.cat]++;
  }
}

void ProfileBuilder::AddEvent(const EventRecord& e) {
  CountEvent(e);
  switch (e.ph) {
    case 'X': {
      if (!e.has_ts) return Warn(ImportStat::missing_ts, e.offset);
      if (!e.has_dur) return Warn(ImportStat::missing_dur, e.offset);
      if (e.dur < 0) return Warn(ImportStat::negative_duration, e.offset);
      Ps ts, end;
      if (!ToRelative(e.ts, e.offset, &ts) || !ToRelative(e.ts + e.dur, e.offset, &end)) return;
      AppendOp(e, TrackFor(e.pid, e.tid), ts, end - ts, e.kind);
      return;
    }
    case 'B': {
      if (!e.has_ts) return Warn(ImportStat::missing_ts, e.offset);
      open_begins_[TrackFor(e.pid, e.tid)].push_back({e, std::vector<ArgValue>(e.args, e.args + e.arg_count)});
      return;
    }
    case 'E': {
      if (!e.has_ts) return Warn(ImportStat::missing_ts, e.offset);
      auto it = open_begins_.find(TrackFor(e.pid, e.tid));
      if (it == open_begins_.end() || it->second.empty()) return Warn(ImportStat::unmatched_end, e.offset);
      PendingBegin begin = std::move(it->second.back());
      it->second.pop_back();
      EventRecord& b = begin.rec;
      b.args = begin.args.data();
      if (e.ts < b.ts) return Warn(ImportStat::negative_duration, e.offset);
      Ps ts, end;
      if (!ToRelative(b.ts, b.offset, &ts) || !ToRelative(e.ts, e.offset, &end)) return;
      AppendOp(b, TrackFor(b.pid, b.tid), ts, end - ts, b.kind);
      return;
    }
    case 'i':
    case 'I':
    case 'R': {
      if (!e.has_ts) return Warn(ImportStat::missing_ts, e.offset);
      Ps ts;
      if (!ToRelative(e.ts, e.offset, &ts)) return;
      AppendOp(e, TrackFor(e.pid, e.tid), ts, 0, OpKind::kInstant);
      return;
    }
    case 's':
    case 't':
    case 'f': {
      if (!e.has_id) return Warn(ImportStat::flow_without_id, e.offset);
      if (!e.has_ts) return Warn(ImportStat::missing_ts, e.offset);
      Ps ts;
      if (!ToRelative(e.ts, e.offset, &ts)) return;
      out_->flows.push_back({e.id, e.cat, e.ph, ts, TrackFor(e.pid, e.tid)});
      return;
    }
    default:
      Warn(ImportStat::unknown_phase, e.offset);
  }
}

void ProfileBuilder::AddCounter(const EventRecord& e, StringId series, double value) {
  if (!e.has_ts) return Warn(ImportStat::missing_ts, e.offset);
  Ps ts;
  if (!ToRelative(e.ts, e.offset, &ts)) return;
  out_->counters.push_back({e.name, series, TrackFor(e.pid, e.tid), ts, value});
}

void ProfileBuilder::SetProcessName(int64_t pid, StringId name) { process_names_[pid] = name; }

void ProfileBuilder::SetThreadName(int64_t pid, int64_t tid, StringId name) {
  out_->tracks[TrackFor(pid, tid)].name = name;
}

void ProfileBuilder::SetTrackDevice(int64_t pid, int64_t tid, int32_t device) {
  out_->tracks[TrackFor(pid, tid)].device = device;
}

std::string_view ProfileBuilder::ProcessName(int64_t pid) const {
  auto it = process_names_.find(pid);
  return it == process_names_.end() ? std::string_view() : out_->strings.Get(it->second);
}

void ProfileBuilder::MakeGpuStream(uint32_t track, int32_t device, int64_t stream) {
  Track& t = out_->tracks[track];
  t.kind = TrackKind::kGpuStream;
  t.device = device;
  t.stream = stream;
}

void ProfileBuilder::SetOpKind(size_t op, OpKind kind, StringId cat) {
  out_->ops.kind[op] = kind;
  out_->ops.cat[op] = cat;
  any_gpu_ = any_gpu_ || IsGpuOp(kind);
}

void ProfileBuilder::SetOpBytes(size_t op, int64_t bytes) {
  OpTable& o = out_->ops;
  if (lagging_ || lean_open_) CatchUp(true);
  if (o.bytes.size() < o.size()) o.bytes.resize(o.size(), -1);
  o.bytes[op] = bytes;
}

void ProfileBuilder::DropXlaOps() {
  out_->xla_ops.clear();
  xla_index_.clear();
  std::fill(out_->ops.xla.begin(), out_->ops.xla.end(), -1);
}

Status ProfileBuilder::Finish() {
  RankProfile& p = *out_;
  OpTable& o = p.ops;
  for (auto& [track, stack] : open_begins_)
    for (auto& b : stack) Warn(ImportStat::unmatched_begin, b.rec.offset);
  open_begins_.clear();
  for (Track& t : p.tracks) {
    auto it = process_names_.find(t.pid);
    if (it != process_names_.end()) t.process_name = it->second;
  }

  // Columns AddLean left out: the derived ones get their defaults, the
  // Kineto-only ones too unless they were never written (then they stay
  // empty, meaning "all default").
  CatchUp(!o.external_id.empty());

  // 1. Origin: the earliest time, floored to a whole microsecond, becomes 0.
  const size_t n = o.size();
  Ps min_ts = min_ts_;  // over the ops, kept by NoteOrder
  for (const Flow& f : p.flows) min_ts = std::min(min_ts, f.ts);
  for (const CounterSample& c : p.counters) min_ts = std::min(min_ts, c.ts);
  if (min_ts == INT64_MAX) min_ts = 0;
  Ps shift = FloorToUs(min_ts);
  for (size_t i = 0; i < n; ++i) o.ts[i] -= shift;
  for (Flow& f : p.flows) f.ts -= shift;
  for (CounterSample& c : p.counters) c.ts -= shift;
  for (CommOpStat& c : p.comm_ops)
    if (c.has_start) c.start -= shift;
  p.origin_abs_ps = base_ + shift;

  // 2. Group ops by track (counting sort), then order each track by
  //    (ts asc, dur desc) so that parents precede their children.
  // Readers usually write each track's ops together and in time order
  // (XPlane lines): NoteOrder saw whether they did, and the sort is skipped.
  if (!in_order_) {
    std::vector<uint32_t> order(n);
    std::vector<uint32_t> start(p.tracks.size() + 1, 0);
    for (size_t i = 0; i < n; ++i) start[o.track[i] + 1]++;
    for (size_t t = 0; t < p.tracks.size(); ++t) start[t + 1] += start[t];
    std::vector<uint32_t> fill(start.begin(), start.end() - 1);
    for (size_t i = 0; i < n; ++i) order[fill[o.track[i]]++] = static_cast<uint32_t>(i);
    auto less = [&o](uint32_t a, uint32_t b) {
      if (o.ts[a] != o.ts[b]) return o.ts[a] < o.ts[b];
      if (o.dur[a] != o.dur[b]) return o.dur[a] > o.dur[b];
      return a < b;
    };
    for (size_t t = 0; t < p.tracks.size(); ++t) {
      auto b = order.begin() + start[t], e = order.begin() + start[t + 1];
      if (!std::is_sorted(b, e, less)) std::sort(b, e, less);
    }
    bool identity = true;
    for (size_t i = 0; i < n && identity; ++i) identity = order[i] == i;
    if (!identity) {
      o.Permute(order);
      std::vector<uint32_t> moved_to(n);
      for (size_t i = 0; i < n; ++i) moved_to[order[i]] = static_cast<uint32_t>(i);
      for (Arg& a : p.args.rows)
        if (a.owner_kind == ArgOwner::kOp) a.owner = moved_to[a.owner];
      for (CommOpStat& c : p.comm_ops)
        if (c.op >= 0) c.op = static_cast<int32_t>(moved_to[c.op]);
    }
  }
  // Readers add most args in op order (a sidecar's rows, kernel_details.csv):
  // then the sort is a scan.
  auto by_owner = [](const Arg& a, const Arg& b) {
    return a.owner_kind != b.owner_kind ? a.owner_kind < b.owner_kind : a.owner < b.owner;
  };
  if (!std::is_sorted(p.args.rows.begin(), p.args.rows.end(), by_owner))
    std::stable_sort(p.args.rows.begin(), p.args.rows.end(), by_owner);

  // 3. Nesting per track: a stack of open ops; an op is a child of the top of
  //    the stack if it starts before that op ends.
  {
    struct Open {
      uint32_t op;
      Ps end;  // kept here: no reload of the top's ts and dur per op
    };
    std::vector<Open> stack;
    uint32_t cur_track = UINT32_MAX;
    for (size_t i = 0; i < n; ++i) {
      if (o.track[i] != cur_track) {
        stack.clear();
        cur_track = o.track[i];
      }
      const Ps ts = o.ts[i], end = ts + o.dur[i];
      while (!stack.empty() && stack.back().end <= ts) stack.pop_back();
      // Ops that only partly overlap the top (bad nesting) are not its children.
      while (!stack.empty() && end > stack.back().end) stack.pop_back();
      if (!stack.empty()) {
        o.parent[i] = static_cast<int32_t>(stack.back().op);
        o.depth[i] = static_cast<uint16_t>(std::min<size_t>(stack.size(), UINT16_MAX));
      }
      if (end > ts) stack.push_back({static_cast<uint32_t>(i), end});
    }
  }

  // 4. GPU op -> host launch, joined on correlation (first launch wins).
  if (any_gpu_) {  // kept as ops were added (and by SetOpKind)
    std::unordered_map<int64_t, int32_t> launch_of;
    launch_of.reserve(n / 4 + 16);
    for (size_t i = 0; i < n; ++i) {
      OpKind k = o.kind[i];
      // A sync op carries its sync call's correlation, but launches nothing.
      if (o.correlation[i] < 0 || IsGpuOp(k) || k == OpKind::kGpuUserAnnotation || k == OpKind::kDeviceSync) continue;
      auto [it, inserted] = launch_of.emplace(o.correlation[i], static_cast<int32_t>(i));
      if (!inserted) Warn(ImportStat::duplicate_correlation, o.offset[i]);
    }
    for (size_t i = 0; i < n; ++i) {
      if (!IsGpuOp(o.kind[i])) continue;
      auto it = o.correlation[i] >= 0 ? launch_of.find(o.correlation[i]) : launch_of.end();
      if (it == launch_of.end()) {
        Warn(ImportStat::gpu_op_without_launch, o.offset[i]);
        continue;
      }
      o.launch[i] = it->second;
    }
  }

  // 5. Steps (model/steps.h): ProfilerStep#N, else serving steps, else the
  //    iterations the host side shows, else the whole trace.
  FindSteps(p, StepSource::kAuto);
  return OkStatus();
}

int32_t ProfileBuilder::AddXlaOp(const XlaOp& op) {
  auto same = [](const XlaOp& a, const XlaOp& b) {
    return a.hlo_op == b.hlo_op && a.module == b.module && a.program_id == b.program_id && a.category == b.category &&
           a.expression == b.expression && a.tf_op == b.tf_op && a.source == b.source && a.flops == b.flops &&
           a.model_flops == b.model_flops && a.bytes_accessed == b.bytes_accessed;
  };
  uint64_t h = op.hlo_op;
  for (uint64_t v : {uint64_t{op.module}, static_cast<uint64_t>(op.program_id), uint64_t{op.category},
                     uint64_t{op.expression}, uint64_t{op.tf_op}})
    h = h * 0x9E3779B97F4A7C15ull + v;
  auto& bucket = xla_index_[h];
  for (int32_t i : bucket)
    if (same(out_->xla_ops[static_cast<size_t>(i)], op)) return i;
  out_->xla_ops.push_back(op);
  bucket.push_back(static_cast<int32_t>(out_->xla_ops.size() - 1));
  return bucket.back();
}

}  // namespace mlprof
