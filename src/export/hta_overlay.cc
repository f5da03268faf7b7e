#include "export/hta_overlay.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <string_view>

#include "base/file_loader.h"

namespace mlprof {
namespace {

// The end (one past the closing brace) of the JSON object starting at `at`,
// or npos.
size_t ObjectEnd(std::string_view s, size_t at) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = at; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
  }
  return std::string_view::npos;
}

// Where to insert the critical mark in the event object [at, end): after the
// opening brace of its top-level "args" object (and whether that object is
// empty), or npos when it has none.
size_t ArgsOpen(std::string_view s, size_t at, size_t end, bool* empty) {
  int depth = 0;
  for (size_t i = at; i < end; ++i) {
    const char c = s[i];
    if (c == '"') {
      size_t j = i + 1;
      while (j < end && s[j] != '"') j += s[j] == '\\' ? 2 : 1;
      if (depth == 1 && s.substr(i, j + 1 - i) == "\"args\"") {
        size_t k = j + 1;
        while (k < end && (s[k] == ' ' || s[k] == '\n' || s[k] == '\r' || s[k] == '\t' || s[k] == ':')) ++k;
        if (k < end && s[k] == '{') {
          size_t m = k + 1;
          while (m < end && (s[m] == ' ' || s[m] == '\n' || s[m] == '\r' || s[m] == '\t')) ++m;
          *empty = m < end && s[m] == '}';
          return k + 1;
        }
        return std::string_view::npos;
      }
      i = j;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return std::string_view::npos;
}

class Sink {
 public:
  explicit Sink(const std::string& path) : gz_(path.size() > 3 && path.ends_with(".gz")) {
    if (gz_)
      z_ = gzopen(path.c_str(), "wb6");
    else
      f_ = std::fopen(path.c_str(), "wb");
  }
  ~Sink() { Close(); }
  bool ok() const { return gz_ ? z_ != nullptr : f_ != nullptr; }
  void Write(std::string_view s) {
    bytes_ += s.size();
    if (!good_ || s.empty()) return;
    if (gz_)
      good_ = gzwrite(z_, s.data(), static_cast<unsigned>(s.size())) == static_cast<int>(s.size());
    else
      good_ = std::fwrite(s.data(), 1, s.size(), f_) == s.size();
  }
  bool Close() {
    if (gz_ && z_) good_ = gzclose(z_) == Z_OK && good_, z_ = nullptr;
    if (!gz_ && f_) good_ = std::fclose(f_) == 0 && good_, f_ = nullptr;
    return good_;
  }
  uint64_t bytes() const { return bytes_; }

 private:
  bool gz_;
  gzFile z_ = nullptr;
  std::FILE* f_ = nullptr;
  bool good_ = true;
  uint64_t bytes_ = 0;
};

}  // namespace

StatusOr<OverlayStats> WriteHtaOverlay(const RankProfile& p, const CriticalPath& cp, const std::string& out) {
  if (!IsChromeJson(p.format))
    return InvalidArgument(
        fmt::format("--overlay annotates a Chrome/Kineto JSON trace; {} is {}", p.path, TraceFormatName(p.format)));
  auto file = LoadFile(p.path);
  if (!file.ok()) return file.status();
  const std::string_view s = file->bytes.view();
  if (s.size() != p.decoded_bytes) return InvalidArgument(fmt::format("{} changed since it was read", p.path));
  const OpTable& o = p.ops;
  std::vector<uint64_t> marks;
  for (uint32_t op : cp.critical_ops) marks.push_back(o.offset[op]);
  std::sort(marks.begin(), marks.end());
  uint64_t last_end = 0;
  for (size_t i = 0; i < o.size(); ++i) last_end = std::max(last_end, o.offset[i]);
  const size_t last_obj = ObjectEnd(s, last_end);
  if (last_obj == std::string_view::npos)
    return DataLoss(fmt::format("{}: the event at byte {} does not end", p.path, last_end));
  size_t close = last_obj;
  while (close < s.size() && s[close] != ']') ++close;
  if (close >= s.size()) return DataLoss(fmt::format("{}: no end of traceEvents after byte {}", p.path, last_obj));

  Sink sink(out);
  if (!sink.ok()) return InvalidArgument(fmt::format("cannot write {}", out));
  OverlayStats st;
  size_t pos = 0;
  for (uint64_t at : marks) {
    if (at >= s.size() || s[at] != '{') continue;
    const size_t end = ObjectEnd(s, at);
    if (end == std::string_view::npos) continue;
    bool empty = false;
    const size_t ins = ArgsOpen(s, at, end, &empty);
    if (ins != std::string_view::npos) {
      sink.Write(s.substr(pos, ins - pos));
      sink.Write(empty ? "\"critical\": 1" : "\"critical\": 1, ");
      pos = ins;
    } else {
      sink.Write(s.substr(pos, at + 1 - pos));
      sink.Write("\"args\": {\"critical\": 1}, ");
      pos = at + 1;
    }
    ++st.marked;
  }
  // The flows, appended after the last event (HTA appends them at the end).
  size_t tail = close;
  while (tail > pos && (s[tail - 1] == ' ' || s[tail - 1] == '\n' || s[tail - 1] == '\r' || s[tail - 1] == '\t'))
    --tail;
  sink.Write(s.substr(pos, tail - pos));
  auto raw_pid = [&](int64_t pid) {
    return pid >= kStringIdBase ? fmt::format("\"{}\"", p.str(static_cast<StringId>(pid - kStringIdBase)))
                                : std::to_string(pid);
  };
  uint64_t id = 0;
  for (uint32_t e : cp.path_edges) {
    const CpEdge& x = cp.edges[e];
    if (x.type != CpEdgeType::kDependency && x.type != CpEdgeType::kLaunchDelay && x.type != CpEdgeType::kSync)
      continue;
    const std::string args = fmt::format("{{\"weight\": {}, \"critical\": true, \"type\": \"{}\"}}",
                                         x.weight / kPsPerUs, CpEdgeTypeName(x.type));
    for (int side = 0; side < 2; ++side) {
      const CpNode& n = cp.nodes[side == 0 ? x.from : x.to];
      const Track& t = p.tracks[o.track[n.op]];
      // HTA's time of a node: the event's start; its end, less 1 us on the GPU.
      Ps ts =
          n.start ? o.ts[n.op] : o.end(n.op) - (t.kind == TrackKind::kGpuStream ? std::min(kPsPerUs, o.dur[n.op]) : 0);
      const Ps128 abs = p.origin_abs_ps + ts;
      const auto us = static_cast<int64_t>((abs >= 0 ? abs : abs - (kPsPerUs - 1)) / kPsPerUs);
      sink.Write(fmt::format(
          ",\n  {{\"ph\": \"{}\", \"id\": {}, \"pid\": {}, \"tid\": {}, \"ts\": {}, \"cat\": \"critical_path\", "
          "\"name\": \"critical_path\", \"args\": {}{}}}",
          side == 0 ? "s" : "f", id, raw_pid(t.pid), t.tid, us, args, side == 0 ? "" : ", \"bp\": \"e\""));
    }
    ++id;
    ++st.flows;
  }
  sink.Write(s.substr(tail));
  st.bytes = sink.bytes();
  if (!sink.Close()) return Internal(fmt::format("error writing {}", out));
  return st;
}

}  // namespace mlprof
