#include "io/xplane.h"

#include <fmt/format.h>

#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/proto_wire.h"
#include "model/builder.h"

namespace mlprof {

namespace {

using proto::Wire;
using proto::kVarint;
using proto::kFixed64;
using proto::kLen;
using proto::kFixed32;

struct StatValue {
  uint64_t metadata_id = 0;
  enum Kind { kNone, kInt, kUint, kDouble, kStr, kRef } kind = kNone;
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
  XPlaneReader(LoadedFile& f, RankProfile* out) : f_(f), b_(out) {}

  Status Read() {
    std::string_view all = f_.bytes.view();
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
  Status Error(uint64_t at, std::string_view expected) {
    return DataLoss(fmt::format("{}: invalid XPlane protobuf at byte {}: expected {}", f_.path, at, expected));
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
          v->kind = StatValue::kStr;
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
    std::vector<std::string_view> lines, event_meta, stat_meta;
    Wire w(f_.bytes.data(), plane);
    while (!w.done()) {
      uint32_t field, type;
      uint64_t at = w.offset();
      if (!w.Tag(&field, &type)) return Error(at, "a field tag of XPlane");
      std::string_view s;
      bool ok = true;
      if (type == kLen && (field == 2 || field == 3 || field == 4 || field == 5)) {
        ok = w.Bytes(&s);
        if (field == 2)
          name = s;
        else if (field == 3)
          lines.push_back(s);
        else if (field == 4)
          event_meta.push_back(s);
        else
          stat_meta.push_back(s);
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
    // Event metadata: id -> interned display name (or name).
    event_names_.clear();
    for (std::string_view entry : event_meta) {
      uint64_t key = 0;
      std::string_view value, ev_name, display;
      RETURN_IF_ERROR(ReadMapEntry(entry, &key, &value));
      Wire v(f_.bytes.data(), value);
      while (!v.done()) {
        uint32_t field, type;
        if (!v.Tag(&field, &type)) return Error(v.offset(), "a field tag of XEventMetadata");
        bool ok = true;
        if (field == 2 && type == kLen)
          ok = v.Bytes(&ev_name);
        else if (field == 4 && type == kLen)
          ok = v.Bytes(&display);
        else
          ok = v.Skip(type);
        if (!ok) return Error(v.offset(), "a valid XEventMetadata field");
      }
      event_names_[key] = b_.strings().Intern(display.empty() ? ev_name : display);
    }
    correlation_stat_ = 0;
    for (const auto& [id, n] : stat_names_)
      if (n == "correlation_id") correlation_stat_ = id;

    // Device index from "/device:GPU:<n>".
    gpu_device_ = -1;
    constexpr std::string_view kGpu = "/device:GPU:";
    if (name.substr(0, kGpu.size()) == kGpu) {
      int64_t n = 0;
      std::string_view digits = name.substr(kGpu.size());
      size_t k = 0;
      while (k < digits.size() && digits[k] >= '0' && digits[k] <= '9') n = n * 10 + (digits[k++] - '0');
      if (k > 0) gpu_device_ = n;
    }
    host_plane_ = name.substr(0, 6) == "/host:";
    pid_ = index;
    b_.SetProcessName(pid_, b_.strings().Intern(name));
    for (std::string_view line : lines) RETURN_IF_ERROR(ReadLine(line));
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
    uint64_t id = 0, ts_ns = 0;
    std::string_view name, display;
    std::vector<std::string_view> events;
    Wire w(f_.bytes.data(), line);
    while (!w.done()) {
      uint32_t field, type;
      uint64_t at = w.offset();
      if (!w.Tag(&field, &type)) return Error(at, "a field tag of XLine");
      bool ok = true;
      std::string_view s;
      if (field == 1 && type == kVarint)
        ok = w.Varint(&id);
      else if (field == 3 && type == kVarint)
        ok = w.Varint(&ts_ns);
      else if (field == 2 && type == kLen)
        ok = w.Bytes(&name);
      else if (field == 11 && type == kLen)
        ok = w.Bytes(&display);
      else if (field == 4 && type == kLen)
        ok = w.Bytes(&s), events.push_back(s);
      else
        ok = w.Skip(type);
      if (!ok) return Error(at, fmt::format("a valid value for XLine field {}", field));
    }
    std::string_view line_name = display.empty() ? name : display;
    auto tid = static_cast<int64_t>(id);
    b_.SetThreadName(pid_, tid, b_.strings().Intern(line_name));

    // What the line's events are.
    bool gpu_stream = gpu_device_ >= 0 && line_name.substr(0, 8) == "Stream #";
    StringId cat_default = b_.strings().Intern(gpu_stream    ? std::string_view("kernel")
                                               : host_plane_ ? std::string_view("host")
                                                             : line_name);
    StringId cat_memcpy = b_.strings().Intern("gpu_memcpy");
    StringId cat_memset = b_.strings().Intern("gpu_memset");
    StringId cat_launch = b_.strings().Intern("cuda_runtime");
    int64_t stream = tid;
    if (gpu_stream) {  // "Stream #7(Kernel)": the stream id is the number
      int64_t n = 0;
      size_t k = 8;
      while (k < line_name.size() && line_name[k] >= '0' && line_name[k] <= '9') n = n * 10 + (line_name[k++] - '0');
      if (k > 8) stream = n;
    }
    for (std::string_view ev : events) {
      EventRecord e;
      e.ph = 'X';
      e.pid = pid_;
      e.tid = tid;
      e.offset = Offset(ev);
      e.has_cat = true;
      e.cat = cat_default;
      uint64_t meta = 0, offset_ps = 0, dur_ps = 0;
      bool aggregated = false;  // num_occurrences (field 5) replaces offset_ps
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
          if (ok && correlation_stat_ != 0) {
            if (!ReadStat(s, &st)) return Error(Offset(s), "a valid XStat");
            if (st.metadata_id == correlation_stat_)
              e.correlation = st.kind == StatValue::kInt ? st.i : static_cast<int64_t>(st.u);
          }
        } else {
          ok = v.Skip(type);
        }
        if (!ok) return Error(at, fmt::format("a valid value for XEvent field {}", field));
      }
      if (aggregated) {  // no start time: placing it at the line start would be wrong
        b_.Warn(ImportStat::aggregated_event, e.offset);
        continue;
      }
      auto it = event_names_.find(meta);
      e.name = it != event_names_.end() ? it->second : 0;
      if (static_cast<int64_t>(offset_ps) < 0 || static_cast<int64_t>(dur_ps) < 0) {
        b_.Warn(ImportStat::number_out_of_range, e.offset);
        continue;
      }
      e.ts = static_cast<Ps128>(ts_ns) * kPsPerNs + static_cast<Ps128>(offset_ps);
      e.has_ts = true;
      e.dur = static_cast<Ps128>(dur_ps);
      e.has_dur = true;
      if (gpu_stream) {
        e.device = gpu_device_;
        e.stream = stream;
        std::string_view n = b_.strings().Get(e.name);
        if (n.substr(0, 6) == "Memcpy" || n.find("memcpy") != std::string_view::npos)
          e.cat = cat_memcpy;
        else if (n.substr(0, 6) == "Memset" || n.find("memset") != std::string_view::npos)
          e.cat = cat_memset;
      } else if (host_plane_ && e.correlation >= 0) {
        e.cat = cat_launch;  // a runtime API call that launched device work
      }
      b_.AddEvent(e);
    }
    return OkStatus();
  }

  LoadedFile& f_;
  ProfileBuilder b_;
  std::unordered_map<uint64_t, std::string_view> stat_names_;
  std::unordered_map<uint64_t, StringId> event_names_;
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

Status ReadXPlane(LoadedFile& file, RankProfile* out) {
  out->path = file.path;
  out->format = "xplane";
  out->compression = CompressionName(file.compression);
  out->file_bytes = file.file_size;
  out->decoded_bytes = file.bytes.size();
  if (file.truncated)
    return DataLoss(fmt::format("{}: the {} stream ends early at compressed byte {}", file.path,
                                CompressionName(file.compression), file.truncated_at));
  XPlaneReader r(file, out);
  return r.Read();
}

}  // namespace mlprof
