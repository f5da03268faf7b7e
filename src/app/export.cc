// mlprof export: the profile in other tools' formats.
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "app/commands.h"
#include "export/perfetto.h"
#include "report/columns.h"
#include "report/tables.h"

namespace mlprof::app {
namespace {

// Runs `write` on a temporary file beside `path` and renames it to `path`
// when it succeeds; removes it otherwise.
template <class Fn>
Status WriteAtomically(const std::string& path, bool force, Fn&& write) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) return DataLoss(fmt::format("{}: is a directory; give a file name", path));
  if (!force && fs::exists(path, ec)) return InvalidArgument(fmt::format("{}: exists; --force overwrites it", path));
  const std::string tmp = fmt::format("{}.tmp-{}", path, ::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return DataLoss(fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
  Status st = write(f);
  if (std::fclose(f) != 0 && st.ok()) st = DataLoss(fmt::format("{}: write failed: {}", path, std::strerror(errno)));
  if (st.ok() && std::rename(tmp.c_str(), path.c_str()) != 0)
    st = DataLoss(fmt::format("{}: cannot rename the finished file into place: {}", path, std::strerror(errno)));
  if (!st.ok()) std::remove(tmp.c_str());
  return st;
}

}  // namespace

StatusOr<Report> Export(const Session& s, const ExportOptions& o) {
  if (o.perfetto.empty()) return InvalidArgument("export: say what to write: --perfetto FILE");
  PerfettoStats stats;
  RETURN_IF_ERROR(WriteAtomically(o.perfetto, o.force, [&](std::FILE* f) -> Status {
    auto r = WritePerfetto(s.profile, f, o.perfetto);
    if (!r.ok()) return r.status();
    stats = *r;
    return OkStatus();
  }));
  Report r;
  r.warnings = ImportWarnings(s.profile);
  Table t("export", "Written");
  t.Add(Key("file", Unit::kText, "the file written"))
      .Add(Text("format", "its format"))
      .Add(Measure("bytes", Unit::kBytes, "its size").Whole())
      .Add(Count("packets", "TracePackets"))
      .Add(Count("tracks", "track descriptors: processes (ranks), threads, streams, overlap lanes, counters"))
      .Add(Count("slices", "ops written as slices"))
      .Add(Count("instants", "ops written as instant events"))
      .Add(Count("flows", "flows from a launch to the GPU work it launched"))
      .Add(Count("counters", "counter values"));
  t.rows.push_back({Cell::Text(o.perfetto), Cell::Text("perfetto"), Cell::Int(static_cast<int64_t>(stats.bytes)),
                    Cell::Int(static_cast<int64_t>(stats.packets)), Cell::Int(static_cast<int64_t>(stats.tracks)),
                    Cell::Int(static_cast<int64_t>(stats.slices)), Cell::Int(static_cast<int64_t>(stats.instants)),
                    Cell::Int(static_cast<int64_t>(stats.flows)), Cell::Int(static_cast<int64_t>(stats.counters))});
  t.notes.push_back("Open it at ui.perfetto.dev (Open trace file), or query it with trace_processor.");
  r.tables.push_back(std::move(t));
  return r;
}

}  // namespace mlprof::app
