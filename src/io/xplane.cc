#include "io/xplane.h"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/proto_wire.h"
#include "base/utf8.h"
#include "io/readers.h"
#include "io/xprof_names.h"
#include "model/builder.h"

namespace mlprof {

namespace {

using proto::kFixed32;
using proto::kFixed64;
using proto::kLen;
using proto::kVarint;
using proto::Wire;

struct StatValue {
  uint64_t metadata_id = 0;
  enum Kind { kNone, kInt, kUint, kDouble, kStr, kBytes, kRef } kind = kNone;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  std::string_view s;
};

struct EventMeta {
  StringId name = 0;
};

class XPlaneReader {
 public:
  XPlaneReader(LoadedFile& f, const ReadOptions& options, RankProfile* out) : f_(f), options_(options), b_(out) {}

  Status Read() {
    std::string_view all = f_.bytes.view();
    const size_t events = ScanLines(all);
    b_.ReserveOps(events, /*kineto_columns=*/false);
    b_.BeginLean(events);
    Wire w(all.data(), all);
    int plane_index = 0;
    while (!w.done()) {
      uint32_t field, type;
      uint64_t at = w.offset();
      if (!w.Tag(&field, &type)) return Error(at, "a field tag of XSpace");
      if (field == 1 && type == kLen) {
        std::string_view plane;
        if (!w.Bytes(&plane)) return Error(at, "an XPlane of the stated length (the file may be truncated)");
        RETURN_IF_ERROR(ReadPlane(plane, plane_index++));
      } else if (!w.Skip(type)) {
        return Error(at, fmt::format("a valid value for XSpace field {} (wire type {})", field, type));
      }
    }
    if (plane_index == 0)
      return WrongFormat(fmt::format("{}: an XSpace without planes: not an XPlane profile", f_.path));
    return b_.Finish();
  }

 private:
  // The lines' own fields, read in the same walk that counts the events.
  struct LineHeader {
    const char* start = nullptr;  // the line message, to match it in ReadLine
    uint64_t id = 0, ts_ns = 0;
    std::string_view name, display;
  };

  // Walks XSpace.planes.lines once, skipping over the events by their length
  // prefixes: counts the events (so the op columns are allocated once) and
  // keeps each well-formed line's header fields (display_name, 11, comes
  // after the events, so ReadLine would otherwise walk every line twice).
  // Malformed input just stops the walk; ReadLine then reads the line
  // itself and reports the problem.
  size_t ScanLines(std::string_view all) {
    size_t n = 0;
    auto each = [](std::string_view msg, uint32_t want, auto&& f) {
      Wire w(msg.data(), msg);
      while (!w.done()) {
        uint32_t field, type;
        if (!w.Tag(&field, &type)) return;
        if (field == want && type == kLen) {
          std::string_view s;
          if (!w.Bytes(&s)) return;
          f(s);
        } else if (!w.Skip(type)) {
          return;
        }
      }
    };
    each(all, 1, [&](std::string_view plane) {
      each(plane, 3, [&](std::string_view line) {
        LineHeader h;
        h.start = line.data();
        Wire w(line.data(), line);
        while (!w.done()) {
          uint32_t field, type;
          bool ok;
          if (!w.Tag(&field, &type)) return;
          if (field == 4 && type == kLen) {
            std::string_view ev;
            ok = w.Bytes(&ev), ++n;
          } else if (field == 1 && type == kVarint) {
            ok = w.Varint(&h.id);
          } else if (field == 3 && type == kVarint) {
            ok = w.Varint(&h.ts_ns);
          } else if (field == 2 && type == kLen) {
            ok = w.Bytes(&h.name);
          } else if (field == 11 && type == kLen) {
            ok = w.Bytes(&h.display);
          } else {
            ok = w.Skip(type);
          }
          if (!ok) return;
        }
        headers_.push_back(h);
      });
    });
    return n;
  }

  Status Error(uint64_t at, std::string_view expected) {
    return DataLoss(fmt::format("{}: invalid XPlane protobuf at {}byte {}: expected {}", f_.path,
                                f_.compression == Compression::kNone ? "" : "decompressed ", at, expected));
  }
  uint64_t Offset(std::string_view s) const { return static_cast<uint64_t>(s.data() - f_.bytes.data()); }

  bool ReadStat(std::string_view msg, StatValue* v) {
    Wire w(f_.bytes.data(), msg);
    while (!w.done()) {
      uint32_t field, type;
      if (!w.Tag(&field, &type)) return false;
      uint64_t x;
      switch (field) {
        case 1:
          if (type != kVarint || !w.Varint(&v->metadata_id)) return false;
          break;
        case 2:
          if (type != kFixed64 || !w.Fixed64(&x)) return false;
          std::memcpy(&v->d, &x, 8);
          v->kind = StatValue::kDouble;
          break;
        case 3:
          if (type != kVarint || !w.Varint(&v->u)) return false;
          v->kind = StatValue::kUint;
          break;
        case 4:
          if (type != kVarint || !w.Varint(&x)) return false;
          v->i = static_cast<int64_t>(x);
          v->kind = StatValue::kInt;
          break;
        case 5:
        case 6:
          if (type != kLen || !w.Bytes(&v->s)) return false;
          v->kind = field == 5 ? StatValue::kStr : StatValue::kBytes;
          break;
        case 7:
          if (type != kVarint || !w.Varint(&v->u)) return false;
          v->kind = StatValue::kRef;
          break;
        default:
          if (!w.Skip(type)) return false;
      }
    }
    return true;
  }

  Status ReadPlane(std::string_view plane, int index) {
    // Protobuf writes fields in number order, so lines (3) come before the
    // metadata maps (4, 5): collect first, then emit.
    std::string_view name;
    std::vector<std::string_view> lines, event_meta, stat_meta, plane_stats;
    Wire w(f_.bytes.data(), plane);
    while (!w.done()) {
      uint32_t field, type;
      uint64_t at = w.offset();
      if (!w.Tag(&field, &type)) return Error(at, "a field tag of XPlane");
      std::string_view s;
      bool ok = true;
      if (type == kLen && field >= 2 && field <= 6) {
        ok = w.Bytes(&s);
        if (field == 2)
          name = s;
        else if (field == 3)
          lines.push_back(s);
        else if (field == 4)
          event_meta.push_back(s);
        else if (field == 5)
          stat_meta.push_back(s);
        else
          plane_stats.push_back(s);
      } else {
        ok = w.Skip(type);
      }
      if (!ok) return Error(at, fmt::format("a valid value for XPlane field {}", field));
    }
    // Stat metadata: id -> name (stat names; ref_value strings).
    stat_names_.clear();
    for (std::string_view entry : stat_meta) {
      uint64_t key = 0;
      std::string_view value, stat_name;
      RETURN_IF_ERROR(ReadMapEntry(entry, &key, &value));
      Wire v(f_.bytes.data(), value);
      while (!v.done()) {
        uint32_t field, type;
        if (!v.Tag(&field, &type)) return Error(v.offset(), "a field tag of XStatMetadata");
        if (field == 2 && type == kLen) {
          if (!v.Bytes(&stat_name)) return Error(v.offset(), "an XStatMetadata name");
        } else if (!v.Skip(type)) {
          return Error(v.offset(), "a valid XStatMetadata field");
        }
      }
      stat_names_[key] = stat_name;
    }
    correlation_stat_ = 0;
    ids_ = StatIds{};
    for (const auto& [id, n] : stat_names_) {
      if (n == "correlation_id") correlation_stat_ = id;
      ids_.Note(id, n);
    }
    host_plane_ = name.substr(0, 6) == "/host:";
    const bool metadata_plane = name == "/host:metadata";
    // Event metadata: id -> interned display name (or name), and the XLA op
    // it describes (TPU: full HLO text as name, costs as stats).
    event_names_.clear();
    meta_xla_.clear();
    dense_names_.clear();
    dense_xla_.clear();
    for (std::string_view entry : event_meta) {
      uint64_t key = 0;
      std::string_view value, ev_name, display;
      RETURN_IF_ERROR(ReadMapEntry(entry, &key, &value));
      Wire v(f_.bytes.data(), value);
      XlaOp op;
      bool xla = false;
      while (!v.done()) {
        uint32_t field, type;
        if (!v.Tag(&field, &type)) return Error(v.offset(), "a field tag of XEventMetadata");
        bool ok = true;
        std::string_view st_bytes;
        if (field == 2 && type == kLen) {
          ok = v.Bytes(&ev_name);
        } else if (field == 4 && type == kLen) {
          ok = v.Bytes(&display);
        } else if (field == 5 && type == kLen) {
          ok = v.Bytes(&st_bytes);
          StatValue st;
          if (ok && !ReadStat(st_bytes, &st)) return Error(Offset(st_bytes), "a valid XStat");
          if (ok && metadata_plane && st.metadata_id == ids_.hlo_proto &&
              (st.kind == StatValue::kStr || st.kind == StatValue::kBytes))
            b_.AddHloProto(std::string(ev_name), std::string(st.s));
          else if (ok && !host_plane_)
            xla |= ApplyStat(st, &op);
        } else {
          ok = v.Skip(type);
        }
        if (!ok) return Error(v.offset(), "a valid XEventMetadata field");
      }
      StringId shown = b_.strings().Intern(display.empty() ? ev_name : display);
      event_names_[key] = shown;
      if (key < kDenseIds) {
        if (key >= dense_names_.size()) dense_names_.resize(key + 1, 0);
        dense_names_[key] = shown;
      }
      if (!host_plane_ && !ev_name.empty() && ev_name[0] == '%') {
        op.expression = b_.strings().Intern(ev_name);
        op.hlo_op = shown;
        xla = true;
      }
      if (xla) meta_xla_[key] = op;
    }
    if (!host_plane_) RETURN_IF_ERROR(ReadPlaneStats(name, plane_stats));

    gpu_device_ = GpuPlaneIndex(name);
    pid_ = index;
    b_.SetProcessName(pid_, b_.strings().Intern(name));
    for (std::string_view line : lines) {
      ReportProgress(line.data());
      RETURN_IF_ERROR(ReadLine(line));
      // A line's bytes are never read again (names are interned, the
      // metadata the next lines need lies after the lines): give its pages
      // back, so that the file and the model are not both resident at the
      // end (a private file map reads back from the file, a decoded buffer
      // as zeros: neither is read again).
      ReleasePages(line);
    }
    return OkStatus();
  }

  Status ReadMapEntry(std::string_view entry, uint64_t* key, std::string_view* value) {
    Wire w(f_.bytes.data(), entry);
    while (!w.done()) {
      uint32_t field, type;
      uint64_t at = w.offset();
      if (!w.Tag(&field, &type)) return Error(at, "a map entry tag");
      bool ok = true;
      if (field == 1 && type == kVarint)
        ok = w.Varint(key);
      else if (field == 2 && type == kLen)
        ok = w.Bytes(value);
      else
        ok = w.Skip(type);
      if (!ok) return Error(at, "a valid metadata map entry");
    }
    return OkStatus();
  }

  Status ReadLine(std::string_view line) {
    // Pass 1: the line's own fields (display_name, 11, comes after the
    // events); events are skipped over. Pass 2 below reads the events.
    uint64_t id = 0, ts_ns = 0;
    std::string_view name, display;
    Wire w(f_.bytes.data(), line);
    if (next_header_ < headers_.size() && headers_[next_header_].start == line.data()) {
      const LineHeader& h = headers_[next_header_++];  // ScanLines read it already
      id = h.id, ts_ns = h.ts_ns, name = h.name, display = h.display;
      w = Wire(f_.bytes.data(), std::string_view());
    }
    while (!w.done()) {
      uint32_t field, type;
      uint64_t at = w.offset();
      if (!w.Tag(&field, &type)) return Error(at, "a field tag of XLine");
      bool ok = true;
      if (field == 1 && type == kVarint)
        ok = w.Varint(&id);
      else if (field == 3 && type == kVarint)
        ok = w.Varint(&ts_ns);
      else if (field == 2 && type == kLen)
        ok = w.Bytes(&name);
      else if (field == 11 && type == kLen)
        ok = w.Bytes(&display);
      else
        ok = w.Skip(type);
      if (!ok) return Error(at, fmt::format("a valid value for XLine field {}", field));
    }
    std::string_view line_name = display.empty() ? name : display;
    auto tid = static_cast<int64_t>(id);
    b_.SetThreadName(pid_, tid, b_.strings().Intern(line_name));

    // What the line's events are.
    const int64_t stream_number = gpu_device_ >= 0 ? StreamLineNumber(line_name) : -1;
    const bool gpu_stream = stream_number >= 0;
    // Lines whose events are HLO op executions (Async XLA Ops spans and
    // module executions overlap them and are not ops).
    const bool op_line = !host_plane_ && (gpu_stream || line_name == "XLA Ops");
    const bool want_stats = correlation_stat_ != 0 || op_line;
    StringId cat_default = b_.strings().Intern(gpu_stream    ? std::string_view("kernel")
                                               : host_plane_ ? std::string_view("host")
                                                             : line_name);
    StringId cat_memcpy = b_.strings().Intern("gpu_memcpy");
    StringId cat_memset = b_.strings().Intern("gpu_memset");
    StringId cat_launch = b_.strings().Intern("cuda_runtime");
    const OpKind kind_memcpy = OpKind::kMemcpy, kind_memset = OpKind::kMemset, kind_launch = OpKind::kRuntime;
    ProfileBuilder::LeanLine lean;
    lean.track = b_.TrackFor(pid_, tid);
    if (gpu_stream) lean.device = gpu_device_, lean.stream = stream_number;  // "Stream #7(Kernel)": stream 7
    const Ps128 line_abs = static_cast<Ps128>(ts_ns) * kPsPerNs;
    const OpKind kind_default = gpu_stream ? OpKind::kKernel : OpKind::kOther;
    XlaOp event_op;  // per-event XLA stats; reset after each use
    Wire lw(f_.bytes.data(), line);
    while (!lw.done()) {
      uint32_t lfield, ltype;
      std::string_view ev;
      if (!lw.Tag(&lfield, &ltype)) break;  // checked in pass 1
      if (lfield != 4 || ltype != kLen) {
        lw.Skip(ltype);
        continue;
      }
      if (!lw.Bytes(&ev)) break;
      const uint64_t ev_offset = Offset(ev);
      int64_t correlation = -1;
      int32_t xla = -1;
      StringId cat = cat_default;
      uint64_t meta = 0, offset_ps = 0, dur_ps = 0;
      bool aggregated = false;  // num_occurrences (field 5) replaces offset_ps
      bool event_xla = false;
      Wire v(f_.bytes.data(), ev);
      while (!v.done()) {
        uint32_t field, type;
        uint64_t at = v.offset();
        if (!v.Tag(&field, &type)) return Error(at, "a field tag of XEvent");
        bool ok = true;
        std::string_view s;
        if (field == 1 && type == kVarint)
          ok = v.Varint(&meta);
        else if (field == 2 && type == kVarint)
          ok = v.Varint(&offset_ps);
        else if (field == 3 && type == kVarint)
          ok = v.Varint(&dur_ps);
        else if (field == 5 && type == kVarint)
          ok = v.Varint(&offset_ps), aggregated = true;
        else if (field == 4 && type == kLen) {
          ok = v.Bytes(&s);
          StatValue st;
          if (ok && want_stats) {
            if (!ReadStat(s, &st)) return Error(Offset(s), "a valid XStat");
            if (st.metadata_id == correlation_stat_)
              correlation = st.kind == StatValue::kInt ? st.i : static_cast<int64_t>(st.u);
            else if (op_line)
              event_xla |= ApplyStat(st, &event_op);
          }
        } else {
          ok = v.Skip(type);
        }
        if (!ok) return Error(at, fmt::format("a valid value for XEvent field {}", field));
      }
      if (aggregated) {  // no start time: placing it at the line start would be wrong
        b_.Warn(ImportStat::aggregated_event, ev_offset);
        continue;
      }
      StringId name;
      if (meta < dense_names_.size()) {
        name = dense_names_[meta];
      } else {
        auto it = event_names_.find(meta);
        name = it != event_names_.end() ? it->second : 0;
      }
      if (op_line) {
        if (!event_xla && meta < kDenseIds) {
          // Same metadata, same op: deduplicated once per metadata id.
          if (meta >= dense_xla_.size()) dense_xla_.resize(meta + 1, kUnresolved);
          int32_t& cached = dense_xla_[meta];
          if (cached == kUnresolved) {
            auto mx = meta_xla_.find(meta);
            cached = mx != meta_xla_.end() ? b_.AddXlaOp(mx->second) : -1;
          }
          xla = cached;
        } else {
          auto mx = meta_xla_.find(meta);
          if (mx != meta_xla_.end() || event_xla) {
            XlaOp op = mx != meta_xla_.end() ? mx->second : XlaOp{};
            if (event_xla) Overlay(event_op, &op), event_op = XlaOp{};
            xla = b_.AddXlaOp(op);
          }
        }
      }
      if (static_cast<int64_t>(offset_ps) < 0 || static_cast<int64_t>(dur_ps) < 0) {
        b_.Warn(ImportStat::number_out_of_range, ev_offset);
        continue;
      }
      OpKind kind = kind_default;
      if (gpu_stream) {
        // Copies and fills by name, decided once per distinct name.
        if (name >= gpu_name_kind_.size()) gpu_name_kind_.resize(name + 64, -1);
        int8_t& k = gpu_name_kind_[name];
        if (k < 0) {
          OpKind by_name = GpuOpKindFromName(b_.strings().Get(name));
          k = by_name == OpKind::kMemcpy ? 1 : by_name == OpKind::kMemset ? 2 : 0;
        }
        if (k == 1) cat = cat_memcpy, kind = kind_memcpy;
        if (k == 2) cat = cat_memset, kind = kind_memset;
      } else if (host_plane_ && correlation >= 0) {
        cat = cat_launch, kind = kind_launch;  // a runtime API call that launched device work
      }
      if (!lean.base_ok) b_.LineBase(line_abs, &lean);  // once the builder has its base
      b_.AddLean(lean, line_abs, name, cat, kind, offset_ps, dur_ps, correlation, xla, ev_offset);
    }
    return OkStatus();
  }

  // Stat ids of the stats mlprof keeps, per plane.
  struct StatIds {
    uint64_t hlo_op = 0, hlo_module = 0, program_id = 0, hlo_category = 0, flops = 0, model_flops = 0,
             bytes_accessed = 0, tf_op = 0, source = 0, hlo_proto = 0, device_type = 0, peak_tflops = 0, peak_hbm = 0,
             memory_bandwidth = 0, vendor = 0, cc_major = 0, cc_minor = 0, core_count = 0, clock_rate = 0,
             memory_size = 0;
    void Note(uint64_t id, std::string_view n) {
      if (n == "hlo_op")
        hlo_op = id;
      else if (n == "hlo_module")
        hlo_module = id;
      else if (n == "program_id")
        program_id = id;
      else if (n == "hlo_category")
        hlo_category = id;
      else if (n == "flops")
        flops = id;
      else if (n == "model_flops")
        model_flops = id;
      else if (n == "bytes_accessed")
        bytes_accessed = id;
      else if (n == "tf_op")
        tf_op = id;
      else if (n == "source")
        source = id;
      else if (n == "Hlo Proto")
        hlo_proto = id;
      else if (n == "device_type_string")
        device_type = id;
      else if (n == "peak_teraflops_per_second")
        peak_tflops = id;
      else if (n == "peak_hbm_bw_gigabytes_per_second")
        peak_hbm = id;
      else if (n == "memory_bandwidth")
        memory_bandwidth = id;
      else if (n == "device_vendor")
        vendor = id;
      else if (n == "compute_cap_major")
        cc_major = id;
      else if (n == "compute_cap_minor")
        cc_minor = id;
      else if (n == "core_count")
        core_count = id;
      else if (n == "clock_rate")
        clock_rate = id;
      else if (n == "memory_size")
        memory_size = id;
    }
  };

  std::string_view StatString(const StatValue& st) {
    if (st.kind == StatValue::kStr || st.kind == StatValue::kBytes) return st.s;
    if (st.kind == StatValue::kRef) {
      auto it = stat_names_.find(st.u);
      return it == stat_names_.end() ? std::string_view() : it->second;
    }
    return {};
  }
  static double StatNumber(const StatValue& st) {
    switch (st.kind) {
      case StatValue::kDouble:
        return st.d;
      case StatValue::kInt:
        return static_cast<double>(st.i);
      case StatValue::kUint:
        return static_cast<double>(st.u);
      default:
        return -1;
    }
  }
  static int64_t StatInt(const StatValue& st) {
    switch (st.kind) {
      case StatValue::kInt:
        return st.i;
      case StatValue::kUint:
        return static_cast<int64_t>(st.u);
      case StatValue::kDouble:
        return static_cast<int64_t>(st.d);
      default:
        return -1;
    }
  }

  // Applies one stat to an XLA op description; true if it was one of ours.
  bool ApplyStat(const StatValue& st, XlaOp* op) {
    const uint64_t id = st.metadata_id;
    if (id == 0) return false;
    auto str = [&](StringId* field) {
      std::string_view v = StatString(st);
      if (!v.empty()) *field = b_.strings().Intern(v);
      return true;
    };
    if (id == ids_.hlo_op) return str(&op->hlo_op);
    if (id == ids_.hlo_module) return str(&op->module);
    if (id == ids_.hlo_category) return str(&op->category);
    if (id == ids_.tf_op) return str(&op->tf_op);
    if (id == ids_.source) return str(&op->source);
    if (id == ids_.program_id) {
      std::string_view v = StatString(st);
      op->program_id = v.empty() ? StatInt(st) : std::atoll(std::string(v).c_str());
      return true;
    }
    if (id == ids_.flops) return op->flops = StatNumber(st), true;
    if (id == ids_.model_flops) return op->model_flops = StatNumber(st), true;
    if (id == ids_.bytes_accessed) return op->bytes_accessed = StatNumber(st), true;
    return false;
  }
  static void Overlay(const XlaOp& e, XlaOp* op) {
    if (e.hlo_op) op->hlo_op = e.hlo_op;
    if (e.module) op->module = e.module;
    if (e.program_id >= 0) op->program_id = e.program_id;
    if (e.category) op->category = e.category;
    if (e.tf_op) op->tf_op = e.tf_op;
    if (e.source) op->source = e.source;
    if (e.flops >= 0) op->flops = e.flops;
    if (e.model_flops >= 0) op->model_flops = e.model_flops;
    if (e.bytes_accessed >= 0) op->bytes_accessed = e.bytes_accessed;
  }

  Status ReadPlaneStats(std::string_view plane_name, const std::vector<std::string_view>& stats) {
    if (stats.empty()) return OkStatus();
    DeviceProperties d;
    d.name = ValidUtf8(plane_name);
    bool any = false;
    std::vector<ArgValue> args;  // every named stat, typed, kept if the plane is a device
    for (std::string_view sv : stats) {
      StatValue st;
      if (!ReadStat(sv, &st)) return Error(Offset(sv), "a valid XStat");
      if (st.metadata_id == 0) continue;
      if (st.metadata_id == ids_.device_type) d.device_type = ValidUtf8(StatString(st)), any = true;
      if (st.metadata_id == ids_.peak_tflops) d.peak_tflops = StatNumber(st), any = true;
      if (st.metadata_id == ids_.peak_hbm) d.peak_hbm_gbps = StatNumber(st), any = true;
      if (st.metadata_id == ids_.memory_bandwidth) d.memory_bandwidth_bps = StatNumber(st), any = true;
      // A GPU plane's description of its device (no name): what chip
      // detection by signature reads.
      if (st.metadata_id == ids_.vendor) d.vendor = ValidUtf8(StatString(st)), any = true;
      if (st.metadata_id == ids_.cc_major) d.compute_major = static_cast<int64_t>(StatNumber(st)), any = true;
      if (st.metadata_id == ids_.cc_minor) d.compute_minor = static_cast<int64_t>(StatNumber(st)), any = true;
      if (st.metadata_id == ids_.core_count) d.num_sms = static_cast<int64_t>(StatNumber(st)), any = true;
      if (st.metadata_id == ids_.clock_rate) d.clock_khz = static_cast<int64_t>(StatNumber(st)), any = true;
      if (st.metadata_id == ids_.memory_size) d.total_global_mem = static_cast<int64_t>(StatNumber(st)), any = true;
      auto name = stat_names_.find(st.metadata_id);
      if (name == stat_names_.end()) continue;
      const StringId key = b_.strings().Intern(name->second);
      switch (st.kind) {
        case StatValue::kInt:
          args.push_back(ArgValue::Int(key, st.i));
          break;
        case StatValue::kUint:
          args.push_back(st.u <= static_cast<uint64_t>(INT64_MAX) ? ArgValue::Int(key, static_cast<int64_t>(st.u))
                                                                  : ArgValue::Real(key, static_cast<double>(st.u)));
          break;
        case StatValue::kDouble:
          args.push_back(ArgValue::Real(key, st.d));
          break;
        case StatValue::kStr:
        case StatValue::kRef:
          args.push_back(ArgValue::String(key, b_.strings().Intern(StatString(st))));
          break;
        case StatValue::kBytes:  // serialized protos (core_details): not text
        case StatValue::kNone:
          break;
      }
    }
    if (!any) return OkStatus();
    size_t colon = plane_name.rfind(':');
    if (colon != std::string_view::npos) d.id = std::atoll(std::string(plane_name.substr(colon + 1)).c_str());
    const auto device = static_cast<uint32_t>(b_.meta().devices.size());
    for (const ArgValue& v : args) b_.AddDeviceArg(device, v);
    b_.meta().devices.push_back(std::move(d));
    return OkStatus();
  }

  static void ReleasePages(std::string_view s) {
    static const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    const uintptr_t b = (reinterpret_cast<uintptr_t>(s.data()) + page - 1) & ~(page - 1);
    const uintptr_t e = (reinterpret_cast<uintptr_t>(s.data()) + s.size()) & ~(page - 1);
    if (e > b) ::madvise(reinterpret_cast<void*>(b), e - b, MADV_DONTNEED);
  }

  // Progress at line starts, at most once per MiB read.
  void ReportProgress(const char* at) {
    if (!options_.progress) return;
    const uint64_t done = static_cast<uint64_t>(at - f_.bytes.data());
    if (done < next_progress_) return;
    next_progress_ = done + (uint64_t{1} << 20);
    options_.progress(done, f_.bytes.size());
  }

  LoadedFile& f_;
  const ReadOptions& options_;
  uint64_t next_progress_ = 0;
  ProfileBuilder b_;
  std::vector<LineHeader> headers_;  // from ScanLines, in file order
  size_t next_header_ = 0;
  StatIds ids_;
  std::unordered_map<uint64_t, XlaOp> meta_xla_;
  std::unordered_map<uint64_t, std::string_view> stat_names_;
  std::unordered_map<uint64_t, StringId> event_names_;
  // Metadata ids are small and dense in practice: direct-indexed copies of
  // the name and the resolved XLA op (per plane).
  static constexpr uint64_t kDenseIds = 1 << 20;
  static constexpr int32_t kUnresolved = -2;
  std::vector<StringId> dense_names_;
  std::vector<int32_t> dense_xla_;
  std::vector<int8_t> gpu_name_kind_;  // by StringId: 0 kernel, 1 memcpy, 2 memset, -1 not yet seen
  uint64_t correlation_stat_ = 0;
  int64_t gpu_device_ = -1;
  bool host_plane_ = false;
  int64_t pid_ = 0;
};

}  // namespace

bool LooksLikeXSpace(std::string_view h) {
  // XSpace field 1 (planes, length-delimited), whose first field is an XPlane
  // id (varint 1), name (2), lines (3), metadata maps (4, 5) or stats (6).
  if (h.size() < 3 || static_cast<uint8_t>(h[0]) != 0x0a) return false;
  size_t i = 1;
  while (i < h.size() && (static_cast<uint8_t>(h[i]) & 0x80)) ++i;
  if (++i >= h.size()) return false;
  auto t = static_cast<uint8_t>(h[i]);
  return t == 0x08 || t == 0x12 || t == 0x1a || t == 0x22 || t == 0x2a || t == 0x32;
}

Status ReadXPlane(LoadedFile& file, const ReadOptions& options, RankProfile* out) {
  DescribeFile(file, TraceFormat::kXPlane, out);
  RETURN_IF_ERROR(RefuseTruncated(file));
  XPlaneReader r(file, options, out);
  RETURN_IF_ERROR(r.Read());
  if (options.progress) options.progress(file.bytes.size(), file.bytes.size());
  return OkStatus();
}

}  // namespace mlprof
