#include "export/perfetto.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <unordered_map>
#include <vector>

#include "analysis/counters.h"
#include "analysis/launches.h"
#include "base/proto_writer.h"

namespace mlprof {
namespace {

// Field numbers of perfetto/trace/trace.proto and its messages.
namespace f {
constexpr uint32_t kTracePacket = 1;  // Trace.packet
// TracePacket
constexpr uint32_t kTimestamp = 8, kSequenceId = 10, kTrackEvent = 11, kInternedData = 12, kSequenceFlags = 13,
                   kTrackDescriptor = 60;
// TrackDescriptor
constexpr uint32_t kUuid = 1, kName = 2, kProcess = 3, kThread = 4, kParentUuid = 5, kCounter = 8;
// ProcessDescriptor / ThreadDescriptor
constexpr uint32_t kPid = 1, kProcessName = 6, kTid = 2, kThreadName = 5;
// TrackEvent
constexpr uint32_t kCategoryIids = 3, kDebugAnnotations = 4, kType = 9, kNameIid = 10, kTrackUuid = 11,
                   kDoubleCounterValue = 44, kFlowIds = 47, kTerminatingFlowIds = 48;
// DebugAnnotation
constexpr uint32_t kAnnNameIid = 1, kAnnInt = 4, kAnnDouble = 5, kAnnString = 6, kAnnName = 10;
// InternedData and its entries (iid = 1, name = 2)
constexpr uint32_t kEventCategories = 1, kEventNames = 2, kDebugAnnotationNames = 3, kIid = 1, kIidName = 2;
}  // namespace f

enum EventType : uint64_t { kSliceBegin = 1, kSliceEnd = 2, kInstant = 3, kCounter = 4 };
enum SequenceFlags : uint64_t { kIncrementalStateCleared = 1, kNeedsIncrementalState = 2 };

// The debug annotations an op may carry, interned by position.
enum Ann : uint32_t {
  kCategory,
  kCorrelation,
  kExternalId,
  kInputDims,
  kInputTypes,
  kConcreteInputs,
  kGrid,
  kBlock,
  kBytes,
  kBlocksPerSm,
  kOccupancy,
  kStep,
  kHloOp,
  kHloModule,
  kHloCategory,
  kLongName,
  kScope,
  kSource,
  kFlops,
  kBytesAccessed,
  kCritical,
  kAnnCount
};
constexpr const char* kAnnNames[kAnnCount] = {
    "category",     "correlation", "external_id",   "input_dims", "input_types", "concrete_inputs", "grid",
    "block",        "bytes",       "blocks_per_sm", "occupancy",  "step",        "hlo_op",          "hlo_module",
    "hlo_category", "long_name",   "scope",         "source",     "flops",       "bytes_accessed",  "critical"};

class Exporter {
 public:
  Exporter(const Profile& p, std::FILE* out, const std::string& path, const PerfettoMarks* marks)
      : p_(p), out_(out), path_(path), marks_(marks) {
    buf_.reserve(kFlushBytes + (1 << 16));
  }

  StatusOr<PerfettoStats> Run() {
    // One clock for every rank: the traces' own, shifted only if negative.
    for (const RankProfile& r : p_.ranks) shift_ps_ = std::max<Ps128>(shift_ps_, -r.origin_abs_ps);
    for (size_t i = 0; i < p_.ranks.size(); ++i) {
      RETURN_IF_ERROR(Rank(p_.ranks[i], i));
    }
    RETURN_IF_ERROR(Flush(true));
    return stats_;
  }

 private:
  static constexpr size_t kFlushBytes = size_t{4} << 20;

  uint64_t Ns(const RankProfile& r, Ps ps) const {
    const Ps128 abs = r.origin_abs_ps + ps + shift_ps_;
    return abs <= 0 ? 0 : static_cast<uint64_t>(abs / 1000);
  }
  static uint64_t Uuid(size_t rank, uint64_t local) { return (static_cast<uint64_t>(rank + 1) << 40) | local; }
  static uint64_t FlowId(size_t rank, uint32_t launch) { return (static_cast<uint64_t>(rank + 1) << 40) | launch; }

  Status Flush(bool all) {
    if (buf_.empty() || (!all && buf_.size() < kFlushBytes)) return OkStatus();
    if (std::fwrite(buf_.data(), 1, buf_.size(), out_) != buf_.size())
      return DataLoss(fmt::format("{}: write failed: {}", path_, std::strerror(errno)));
    stats_.bytes += buf_.size();
    buf_.clear();
    return OkStatus();
  }

  // --- descriptors ------------------------------------------------------------
  void Descriptor(uint64_t uuid, uint64_t parent, std::string_view name, int64_t pid, int64_t tid, bool process,
                  bool counter) {
    proto::Writer w(&buf_);
    const size_t pk = w.Begin(f::kTracePacket);
    const size_t td = w.Begin(f::kTrackDescriptor);
    w.UInt(f::kUuid, uuid);
    if (parent) w.UInt(f::kParentUuid, parent);
    if (process) {
      const size_t pd = w.Begin(f::kProcess);
      w.Int(f::kPid, pid);
      w.Bytes(f::kProcessName, name);
      w.End(pd);
    } else if (tid >= 0) {
      const size_t th = w.Begin(f::kThread);
      w.Int(f::kPid, pid);
      w.Int(f::kTid, tid);
      w.Bytes(f::kThreadName, name);
      w.End(th);
    } else {
      w.Bytes(f::kName, name);
    }
    if (counter) w.End(w.Begin(f::kCounter));
    w.End(td);
    w.End(pk);
    ++stats_.packets, ++stats_.tracks;
  }

  // --- sequences ----------------------------------------------------------------
  // Each track lane is one packet sequence; names interned per sequence.
  void NewSequence(const RankProfile& r) {
    ++seq_;
    first_in_seq_ = true;
    if (name_gen_.size() < r.strings.size()) name_gen_.resize(r.strings.size(), 0), name_iid_.resize(r.strings.size());
    std::fill(std::begin(ann_interned_), std::end(ann_interned_), false);
    next_iid_ = 1;
  }
  uint64_t NameIid(const RankProfile& r, StringId s, std::string* interned_names) {
    if (name_gen_[s] == seq_) return name_iid_[s];
    name_gen_[s] = seq_;
    name_iid_[s] = next_iid_++;
    proto::Writer w(interned_names);
    const size_t e = w.Begin(f::kEventNames);
    w.UInt(f::kIid, name_iid_[s]);
    w.Bytes(f::kIidName, r.str(s));
    w.End(e);
    return name_iid_[s];
  }
  void AnnName(Ann a, std::string* interned) {
    if (ann_interned_[a]) return;
    ann_interned_[a] = true;
    proto::Writer w(interned);
    const size_t e = w.Begin(f::kDebugAnnotationNames);
    w.UInt(f::kIid, a + 1);
    w.Bytes(f::kIidName, kAnnNames[a]);
    w.End(e);
  }
  uint64_t CategoryIid(const RankProfile& r, StringId cat, std::string* interned) {
    if (cat_seq_ != seq_) cat_iid_.clear(), cat_seq_ = seq_;
    auto it = cat_iid_.find(cat);
    if (it != cat_iid_.end()) return it->second;
    const uint64_t iid = cat_iid_.size() + 1;
    cat_iid_[cat] = iid;
    proto::Writer w(interned);
    const size_t e = w.Begin(f::kEventCategories);
    w.UInt(f::kIid, iid);
    w.Bytes(f::kIidName, r.str(cat));
    w.End(e);
    return iid;
  }

  // One event packet: the TrackEvent is written into `ev_` first (it may
  // intern names into `interned_`), then the packet around both.
  void EmitPacket(uint64_t ts_ns, uint64_t seq_id) {
    proto::Writer w(&buf_);
    const size_t pk = w.Begin(f::kTracePacket);
    w.UInt(f::kTimestamp, ts_ns);
    w.UInt(f::kSequenceId, seq_id);
    if (!interned_.empty()) {
      const size_t id = w.Begin(f::kInternedData);
      buf_.append(interned_);
      w.End(id);
      interned_.clear();
    }
    w.UInt(f::kSequenceFlags, first_in_seq_ ? kIncrementalStateCleared : kNeedsIncrementalState);
    first_in_seq_ = false;
    const size_t te = w.Begin(f::kTrackEvent);
    buf_.append(ev_);
    w.End(te);
    w.End(pk);
    ev_.clear();
    ++stats_.packets;
  }

  void Annotations(const RankProfile& r, uint32_t i) {
    const OpTable& o = r.ops;
    proto::Writer w(&ev_);
    // One DebugAnnotation: its interned name, then the value `put` writes.
    auto ann = [&](Ann a, auto&& put) {
      AnnName(a, &interned_);
      const size_t d = w.Begin(f::kDebugAnnotations);
      w.UInt(f::kAnnNameIid, a + 1);
      put();
      w.End(d);
    };
    auto ann_int = [&](Ann a, int64_t v) { ann(a, [&] { w.Int(f::kAnnInt, v); }); };
    auto ann_double = [&](Ann a, double v) { ann(a, [&] { w.Double(f::kAnnDouble, v); }); };
    auto ann_str = [&](Ann a, StringId s) {
      if (s) ann(a, [&] { w.Bytes(f::kAnnString, r.str(s)); });
    };
    if (o.correlation[i] >= 0) ann_int(kCorrelation, o.correlation[i]);
    if (o.external_id_of(i) >= 0) ann_int(kExternalId, o.external_id_of(i));
    ann_str(kInputDims, o.input_dims_of(i));
    ann_str(kInputTypes, o.input_types_of(i));
    ann_str(kConcreteInputs, o.concrete_inputs_of(i));
    ann_str(kGrid, o.grid_of(i));
    if (!o.block.empty()) ann_str(kBlock, o.block[i]);
    if (o.bytes_of(i) >= 0) ann_int(kBytes, o.bytes_of(i));
    if (o.blocks_per_sm_of(i) >= 0) ann_double(kBlocksPerSm, o.blocks_per_sm_of(i));
    if (o.occupancy_of(i) >= 0) ann_double(kOccupancy, o.occupancy_of(i));
    if (o.step[i] >= 0) ann_int(kStep, r.steps[static_cast<size_t>(o.step[i])].number);
    if (critical_ && i < critical_->size() && (*critical_)[i]) ann_int(kCritical, 1);
    if (o.xla[i] >= 0) {
      const XlaOp& x = r.xla_ops[static_cast<size_t>(o.xla[i])];
      ann_str(kHloOp, x.hlo_op);
      ann_str(kHloModule, x.module);
      ann_str(kHloCategory, x.category);
      ann_str(kLongName, x.expression);
      ann_str(kScope, x.tf_op);
      ann_str(kSource, x.source);
      if (x.flops >= 0) ann_double(kFlops, x.flops);
      if (x.bytes_accessed >= 0) ann_double(kBytesAccessed, x.bytes_accessed);
    }
    // The trace's other args (ReadOptions::all_args), named as in the trace.
    for (const Arg& a : r.args.Of(ArgOwner::kOp, i)) {
      const size_t d = w.Begin(f::kDebugAnnotations);
      w.Bytes(f::kAnnName, r.str(a.value.key));
      switch (a.value.type) {
        case ArgType::kInt:
          w.Int(f::kAnnInt, a.value.i);
          break;
        case ArgType::kReal:
          w.Double(f::kAnnDouble, a.value.r);
          break;
        case ArgType::kString:
          w.Bytes(f::kAnnString, r.str(a.value.s));
          break;
      }
      w.End(d);
    }
  }

  void Event(const RankProfile& r, uint32_t i, EventType type, uint64_t track_uuid, size_t rank, uint64_t seq_id,
             const std::vector<uint8_t>& flow_out) {
    const OpTable& o = r.ops;
    proto::Writer w(&ev_);
    w.UInt(f::kType, type);
    w.UInt(f::kTrackUuid, track_uuid);
    if (type != kSliceEnd) {
      if (o.cat[i]) w.UInt(f::kCategoryIids, CategoryIid(r, o.cat[i], &interned_));
      w.UInt(f::kNameIid, NameIid(r, o.name[i], &interned_));
      Annotations(r, i);
      if (flow_out[i]) {
        w.Fixed64(f::kFlowIds, FlowId(rank, i));
        ++stats_.flows;
      }
      const int32_t l = o.launch[i];
      if (l >= 0 && IsGpuOp(o.kind[i]) && flow_out[static_cast<size_t>(l)] &&
          first_target_[static_cast<size_t>(l)] == i)
        w.Fixed64(f::kTerminatingFlowIds, FlowId(rank, static_cast<uint32_t>(l)));
      if (auto it = mark_out_.find(i); it != mark_out_.end())
        for (uint64_t id : it->second) w.Fixed64(f::kFlowIds, id), ++stats_.flows;
      if (auto it = mark_in_.find(i); it != mark_in_.end())
        for (uint64_t id : it->second) w.Fixed64(f::kTerminatingFlowIds, id);
    }
    EmitPacket(Ns(r, type == kSliceEnd ? o.end(i) : o.ts[i]), seq_id);
  }

  std::string TrackName(const RankProfile& r, const Track& t) const {
    std::string name(r.str(t.name));
    if (t.kind == TrackKind::kGpuStream) {
      std::string s = fmt::format("GPU {} stream {}", t.device, t.stream);
      return name.empty() || name == s ? s : fmt::format("{} ({})", s, name);
    }
    const std::string_view proc = r.str(t.process_name);
    if (t.kind == TrackKind::kHostThread) return name.empty() ? fmt::format("thread {}", t.tid) : name;
    if (!proc.empty() && !name.empty()) return fmt::format("{} / {}", proc, name);
    if (!name.empty()) return name;
    if (!proc.empty()) return std::string(proc);
    return fmt::format("track {}:{}", t.pid, t.tid);
  }

  Status Rank(const RankProfile& r, size_t rank) {
    const OpTable& o = r.ops;
    const int64_t pid = static_cast<int64_t>(rank) + 1;
    const uint64_t proc_uuid = Uuid(rank, 0);
    Descriptor(proc_uuid, 0, fmt::format("rank {} ({})", r.rank_or(static_cast<int64_t>(rank)), r.path), pid, -1, true,
               false);

    // Marks from the caller (the critical path): ids apart from the launch
    // flows' (bit 63 set).
    critical_ = nullptr;
    mark_out_.clear();
    mark_in_.clear();
    if (marks_ != nullptr) {
      if (rank < marks_->critical.size() && !marks_->critical[rank].empty()) critical_ = &marks_->critical[rank];
      if (rank < marks_->flows.size()) {
        uint64_t k = 0;
        for (const auto& [from, to] : marks_->flows[rank]) {
          if (from >= o.size() || to >= o.size()) continue;
          const uint64_t id = (uint64_t{1} << 63) | (static_cast<uint64_t>(rank + 1) << 40) | k++;
          mark_out_[from].push_back(id);
          mark_in_[to].push_back(id);
        }
      }
    }
    // Flows: each launch with GPU work; the first GPU op it launched ends it.
    std::vector<uint8_t> flow_out(o.size(), 0);
    first_target_.assign(o.size(), UINT32_MAX);
    for (size_t i = 0; i < o.size(); ++i) {
      const int32_t l = o.launch[i];
      if (l < 0 || !IsGpuOp(o.kind[i])) continue;
      flow_out[static_cast<size_t>(l)] = 1;
      first_target_[static_cast<size_t>(l)] =
          std::min<uint32_t>(first_target_[static_cast<size_t>(l)], static_cast<uint32_t>(i));
    }
    // The first GPU op in time ends the flow (the lowest index is the
    // earliest on its track, not across tracks): take the earliest.
    for (size_t i = 0; i < o.size(); ++i) {
      const int32_t l = o.launch[i];
      if (l < 0 || !IsGpuOp(o.kind[i])) continue;
      uint32_t& t = first_target_[static_cast<size_t>(l)];
      if (o.ts[i] < o.ts[t] || (o.ts[i] == o.ts[t] && i < t)) t = static_cast<uint32_t>(i);
    }

    // Ops by track, in (ts, dur desc) order.
    std::vector<std::vector<uint32_t>> by_track(r.tracks.size());
    for (size_t i = 0; i < o.size(); ++i) by_track[o.track[i]].push_back(static_cast<uint32_t>(i));
    for (auto& v : by_track)
      if (!std::is_sorted(v.begin(), v.end(), [&](uint32_t a, uint32_t b) {
            return o.ts[a] != o.ts[b] ? o.ts[a] < o.ts[b] : o.dur[a] > o.dur[b];
          }))
        std::stable_sort(v.begin(), v.end(), [&](uint32_t a, uint32_t b) {
          return o.ts[a] != o.ts[b] ? o.ts[a] < o.ts[b] : o.dur[a] > o.dur[b];
        });

    uint64_t local = 1;
    for (size_t t = 0; t < r.tracks.size(); ++t) {
      if (by_track[t].empty()) continue;
      const Track& tr = r.tracks[t];
      // Lanes: a slice goes to the first lane where it nests.
      std::vector<std::vector<Ps>> open;  // per lane: ends of the open slices
      std::vector<std::vector<uint32_t>> lanes;
      for (uint32_t i : by_track[t]) {
        const bool instant = o.kind[i] == OpKind::kInstant;
        size_t k = 0;
        for (;; ++k) {
          if (k == lanes.size()) open.emplace_back(), lanes.emplace_back();
          auto& st = open[k];
          while (!st.empty() && st.back() <= o.ts[i]) st.pop_back();
          if (instant || st.empty() || o.end(i) <= st.back()) break;
        }
        if (!instant) open[k].push_back(o.end(i));
        lanes[k].push_back(i);
      }
      const std::string name = TrackName(r, tr);
      for (size_t k = 0; k < lanes.size(); ++k) {
        const uint64_t uuid = Uuid(rank, local++);
        const std::string lane_name = k == 0 ? name : fmt::format("{} (overlap {})", name, k);
        if (tr.kind == TrackKind::kHostThread && k == 0)
          Descriptor(uuid, proc_uuid, lane_name, pid, pid * 100000 + static_cast<int64_t>(t % 100000), false, false);
        else
          Descriptor(uuid, proc_uuid, lane_name, pid, -1, false, false);
        NewSequence(r);
        const uint64_t seq_id = ++seq_ids_;
        std::vector<uint32_t> stack;
        for (uint32_t i : lanes[k]) {
          while (!stack.empty() && o.end(stack.back()) <= o.ts[i]) {
            Event(r, stack.back(), kSliceEnd, uuid, rank, seq_id, flow_out);
            stack.pop_back();
          }
          if (o.kind[i] == OpKind::kInstant) {
            Event(r, i, kInstant, uuid, rank, seq_id, flow_out);
            ++stats_.instants;
          } else {
            Event(r, i, kSliceBegin, uuid, rank, seq_id, flow_out);
            stack.push_back(i);
            ++stats_.slices;
          }
          RETURN_IF_ERROR(Flush(false));
        }
        while (!stack.empty()) {
          Event(r, stack.back(), kSliceEnd, uuid, rank, seq_id, flow_out);
          stack.pop_back();
        }
      }
    }

    // Counters: one counter track per (track, name, series).
    std::map<std::tuple<uint32_t, StringId, StringId>, std::vector<const CounterSample*>> series;
    for (const CounterSample& c : r.counters) series[{c.track, c.name, c.series}].push_back(&c);
    for (auto& [key, samples] : series) {
      const auto& [track, cname, sname] = key;
      const uint64_t uuid = Uuid(rank, local++);
      const std::string_view n = r.str(cname), s = r.str(sname);
      Descriptor(uuid, proc_uuid, s.empty() || s == n ? std::string(n) : fmt::format("{}.{}", n, s), pid, -1, false,
                 true);
      NewSequence(r);
      const uint64_t seq_id = ++seq_ids_;
      std::stable_sort(samples.begin(), samples.end(),
                       [](const CounterSample* a, const CounterSample* b) { return a->ts < b->ts; });
      for (const CounterSample* c : samples) {
        proto::Writer w(&ev_);
        w.UInt(f::kType, kCounter);
        w.UInt(f::kTrackUuid, uuid);
        w.Double(f::kDoubleCounterValue, c->value);
        EmitPacket(Ns(r, c->ts), seq_id);
        ++stats_.counters;
        RETURN_IF_ERROR(Flush(false));
      }
    }
    RETURN_IF_ERROR(MemoryCounters(r, rank, proc_uuid, pid, local));
    RETURN_IF_ERROR(DerivedCounters(r, rank, proc_uuid, pid, local));
    return OkStatus();
  }

  // Counters mlprof derives (analysis/launches.h, analysis/counters.h): the
  // launch queue length per stream and the memory bandwidth per copy kind.
  Status DerivedCounters(const RankProfile& r, size_t rank, uint64_t proc_uuid, int64_t pid, uint64_t& local) {
    auto track = [&](const std::string& name, auto&& points, double scale) -> Status {
      const uint64_t uuid = Uuid(rank, local++);
      Descriptor(uuid, proc_uuid, name, pid, -1, false, true);
      NewSequence(r);
      const uint64_t seq_id = ++seq_ids_;
      for (const auto& [ts, v] : points) {
        proto::Writer w(&ev_);
        w.UInt(f::kType, kCounter);
        w.UInt(f::kTrackUuid, uuid);
        w.Double(f::kDoubleCounterValue, static_cast<double>(v) / scale);
        EmitPacket(Ns(r, ts), seq_id);
        ++stats_.counters;
        RETURN_IF_ERROR(Flush(false));
      }
      return OkStatus();
    };
    for (const QueueSeries& q : QueueLengthSeriesOf(r))
      RETURN_IF_ERROR(track(fmt::format("launch queue (GPU {} stream {})", q.device, q.stream), q.points, 1));
    for (const MemoryBwSeries& m : MemoryBwSeriesOf(r, 0))
      RETURN_IF_ERROR(track(fmt::format("{} bandwidth, GB/s", m.kind), m.points, 1e9));
    return OkStatus();
  }

  // Kineto's memory events ("[memory]" instants with Total Allocated and
  // Total Reserved) as counter tracks per device: the allocator's timeline.
  Status MemoryCounters(const RankProfile& r, size_t rank, uint64_t proc_uuid, int64_t pid, uint64_t& local) {
    const StringId mem = r.strings.Find("[memory]");
    if (mem == StringPool::kNotFound) return OkStatus();
    const StringId k_alloc = r.strings.Find("Total Allocated"), k_res = r.strings.Find("Total Reserved"),
                   k_dev = r.strings.Find("Device Id");
    struct Sample {
      Ps ts;
      double v;
    };
    std::map<std::pair<int64_t, int>, std::vector<Sample>> series;  // (device, 0 allocated / 1 reserved)
    const OpTable& o = r.ops;
    for (size_t i = 0; i < o.size(); ++i) {
      if (o.name[i] != mem) continue;
      int64_t device = -1;
      double alloc = -1, res = -1;
      for (const Arg& a : r.args.Of(ArgOwner::kOp, static_cast<uint32_t>(i))) {
        const double v = a.value.type == ArgType::kInt ? static_cast<double>(a.value.i) : a.value.r;
        if (a.value.type == ArgType::kString) continue;
        if (a.value.key == k_dev) device = static_cast<int64_t>(v);
        if (a.value.key == k_alloc) alloc = v;
        if (a.value.key == k_res) res = v;
      }
      if (alloc >= 0) series[{device, 0}].push_back({o.ts[i], alloc});
      if (res >= 0) series[{device, 1}].push_back({o.ts[i], res});
    }
    for (auto& [key, samples] : series) {
      const uint64_t uuid = Uuid(rank, local++);
      const std::string where = key.first < 0 ? std::string("CPU") : fmt::format("device {}", key.first);
      Descriptor(uuid, proc_uuid, fmt::format("memory {} ({}), bytes", key.second ? "reserved" : "allocated", where),
                 pid, -1, false, true);
      NewSequence(r);
      const uint64_t seq_id = ++seq_ids_;
      std::stable_sort(samples.begin(), samples.end(), [](const Sample& a, const Sample& b) { return a.ts < b.ts; });
      for (const Sample& s : samples) {
        proto::Writer w(&ev_);
        w.UInt(f::kType, kCounter);
        w.UInt(f::kTrackUuid, uuid);
        w.Double(f::kDoubleCounterValue, s.v);
        EmitPacket(Ns(r, s.ts), seq_id);
        ++stats_.counters;
        RETURN_IF_ERROR(Flush(false));
      }
    }
    return OkStatus();
  }

  const Profile& p_;
  std::FILE* out_;
  std::string path_;
  std::string buf_, ev_, interned_;
  PerfettoStats stats_;
  Ps128 shift_ps_ = 0;
  uint64_t seq_ids_ = 0;
  // Interning state of the current sequence.
  uint32_t seq_ = 0, cat_seq_ = 0;
  bool first_in_seq_ = true;
  uint64_t next_iid_ = 1;
  std::vector<uint32_t> name_gen_;
  std::vector<uint64_t> name_iid_;
  std::map<StringId, uint64_t> cat_iid_;
  bool ann_interned_[kAnnCount] = {};
  std::vector<uint32_t> first_target_;
  const PerfettoMarks* marks_ = nullptr;
  // This rank's marks: critical ops, and the flows each op starts and ends.
  const std::vector<uint8_t>* critical_ = nullptr;
  std::unordered_map<uint32_t, std::vector<uint64_t>> mark_out_, mark_in_;
};

}  // namespace

StatusOr<PerfettoStats> WritePerfetto(const Profile& p, std::FILE* out, const std::string& path,
                                      const PerfettoMarks* marks) {
  Exporter e(p, out, path, marks);
  return e.Run();
}

}  // namespace mlprof
