// mlprof export: the profile in other tools' formats.
#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "analysis/steps.h"
#include "app/commands.h"
#include "app/shards.h"
#include "base/atomic_file.h"
#include "base/utf8.h"
#include "export/perfetto.h"
#include "export/sqlite.h"
#include "model/steps.h"
#include "report/columns.h"
#include "report/info_tables.h"
#include "report/table.h"
#include "report/xlsx.h"

namespace mlprof::app {
namespace {

// The reports whose tables go into the file as mlprof_* tables.
std::vector<const Report*> TypedReports(const ReportTables& t) {
  return {&t.diagnose, &t.summary, &t.engines, &t.kernels, &t.ops, &t.steps, &t.overview, &t.idle, &t.overlap};
}

}  // namespace

StatusOr<Report> Export(const Session& s, const ExportOptions& o) {
  if (o.perfetto.empty() && o.sqlite.empty())
    return InvalidArgument("export: say what to write: --perfetto FILE and/or --sqlite FILE");
  Report r;
  r.warnings = ImportWarnings(s.profile);
  Table t("export", "Written");
  t.Add(Key("file", Unit::kText, "the file written"))
      .Add(Text("format", "its format"))
      .Add(Measure("bytes", Unit::kBytes, "its size").Whole())
      .Add(Count("tracks", "tracks: threads, streams, XLA lines, overlap lanes (Perfetto), counters"))
      .Add(Count("slices", "ops written as slices (Perfetto: and instants)"))
      .Add(Count("flows", "flows from a launch to the GPU work it launched"))
      .Add(Count("counters", "counter values"))
      .Add(Count("rows", "SQLite: rows in all tables"));
  auto i64 = [](uint64_t v) { return Cell::Int(static_cast<int64_t>(v)); };
  if (!o.perfetto.empty()) {
    PerfettoStats stats;
    RETURN_IF_ERROR(WriteStreamAtomically(o.perfetto, o.force, [&](std::FILE* f) -> Status {
      auto w = WritePerfetto(s.profile, f, o.perfetto);
      if (!w.ok()) return w.status();
      stats = *w;
      return OkStatus();
    }));
    t.rows.push_back({Cell::Text(o.perfetto), Cell::Text("perfetto"), i64(stats.bytes), i64(stats.tracks),
                      i64(stats.slices + stats.instants), i64(stats.flows), i64(stats.counters), Cell::Null()});
    t.notes.push_back(
        "Open the Perfetto trace at ui.perfetto.dev (Open trace file), or query it with trace_processor.");
  }
  if (!o.sqlite.empty()) {
    const ReportTables tables = ComputeReportTables(s);
    ASSIGN_OR_RETURN(const SqliteStats stats,
                     WriteSqliteFile(s.profile, o.sqlite, o.force, [&] { return TypedReports(tables); }));
    std::error_code ec;
    const auto size = std::filesystem::file_size(o.sqlite, ec);
    t.rows.push_back({Cell::Text(o.sqlite), Cell::Text("sqlite"), ec ? Cell::Null() : i64(size), i64(stats.tracks),
                      i64(stats.slices), i64(stats.flows), i64(stats.counters), i64(stats.rows())});
    t.notes.push_back(
        "The SQLite file has Perfetto's tables (slice, track, thread, process, args, counter, flow; ts and dur in "
        "ns): `mlprof sql QUERY PATH` runs a query without writing it.");
  }
  r.tables.push_back(std::move(t));
  return r;
}

StatusOr<Report> Sql(const Session& s, const std::string& query) {
  std::optional<ReportTables> tables;
  ASSIGN_OR_RETURN(SqlQueryResult q, RunSqlQuery(s.profile, query, [&] {
                     tables = ComputeReportTables(s);
                     return TypedReports(*tables);
                   }));
  Report r;
  r.warnings = ImportWarnings(s.profile);
  const int n = static_cast<int>(q.columns.size());
  const std::vector<std::string>& names = q.columns;
  const std::vector<bool>& numeric = q.numeric;
  std::vector<std::vector<Cell>>& rows = q.rows;
  Table t("query", "");
  for (int c = 0; c < n; ++c) {
    const std::string& name = names[static_cast<size_t>(c)];
    if (numeric[static_cast<size_t>(c)]) {
      t.Add(Measure(name, Unit::kRatio, "a number the query returned"));
      // Text shows a real as it is (shortest round-trip form), not rounded
      // to the column's whole numbers.
      for (auto& row : rows) {
        Cell& cell = row[static_cast<size_t>(c)];
        if (const auto* d = std::get_if<double>(&cell.value)) cell = Cell::Real(*d).Shown(fmt::format("{}", *d));
      }
    } else {
      // A column with text turns its numbers into text too (SQLite's types
      // are per value; a table column has one).
      t.Add(Text(name, "a value the query returned"));
      for (auto& row : rows) {
        Cell& cell = row[static_cast<size_t>(c)];
        if (const auto* i = std::get_if<int64_t>(&cell.value)) cell = Cell::Text(std::to_string(*i));
        if (const auto* d = std::get_if<double>(&cell.value)) cell = Cell::Text(fmt::format("{}", *d));
      }
    }
  }
  t.rows = std::move(rows);
  r.tables.push_back(std::move(t));
  return r;
}

ReportTables ComputeReportTables(const Session& s) {
  ReportTables t;
  SummaryOptions so;
  so.top = 0;
  so.top_ops = 0;
  if (auto r = Summary(s, so); r.ok()) t.summary = std::move(*r);
  TableOptions all;
  all.top = 0;
  t.engines = Engines(s, all);
  t.kernels = Kernels(s, all);
  OpsOptions oo;
  oo.top = 0;
  t.ops = Ops(s, oo);
  t.steps = Steps(s, {});
  t.overview = Overview(s);
  t.idle = Idle(s, {});
  t.overlap = Overlap(s);
  if (auto d = Diagnose(s, {}); d.ok()) t.diagnose = std::move(*d);
  return t;
}

namespace {

Status PrepareReportDir(const ReportOptions& o) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(o.dir, ec)) {
    if (!fs::is_directory(o.dir, ec)) return DataLoss(fmt::format("{}: is a file, not a directory", o.dir));
    if (!fs::is_empty(o.dir, ec) && !o.force)
      return InvalidArgument(fmt::format("{}: exists and is not empty; --force writes the report into it", o.dir));
  } else if (!fs::create_directories(o.dir, ec) || ec) {
    return DataLoss(fmt::format("{}: cannot create the directory: {}", o.dir, ec.message()));
  }
  return OkStatus();
}

Table ReportFilesTable() {
  Table t("report", "Report written");
  t.Add(Key("file", Unit::kText, "a file of the report"))
      .Add(Measure("bytes", Unit::kBytes, "its size").Whole())
      .Add(Text("what", "what it holds"));
  return t;
}

Cell SizeOf(const std::string& f) {
  std::error_code ec;
  const auto n = std::filesystem::file_size(f, ec);
  return ec ? Cell::Null() : Cell::Int(static_cast<int64_t>(n));
}

// summary.txt, report.html and report.xlsx from the computed results; a row
// each in `t` (summary.txt first, its size filled in by the caller).
Status WritePages(const ReportOptions& o, const ReportTables& tables, const ReportExtras& extras,
                  const std::vector<std::string>& warnings, const std::function<void(const char*)>& finished,
                  Table& t) {
  namespace fs = std::filesystem;
  // summary.txt: what to fix first, the engines, the steps and the time by
  // kind, at 100 columns.
  Report summary;
  // diagnose leads with the grade when something is wrong with the profile:
  // so does summary.txt, before any number that rests on it.
  const Table* f = nullptr;
  for (const Table& x : tables.diagnose.tables) {
    if (x.id == "grade" && !x.rows.empty()) summary.tables.push_back(x);
    if (x.id == "findings") f = &x;
  }
  if (f && !f->rows.empty()) {
    // The findings, compact: the evidence and formulas are in the page, the
    // workbook and `mlprof diagnose`.
    Table ft("findings", "What to fix first (mlprof diagnose has the evidence and formulas)");
    for (const char* c : {"rule", "rank", "subject", "saving", "saving_pct", "confidence"}) {
      const int k = f->ColumnIndex(c);
      if (k >= 0) ft.Add(f->columns[static_cast<size_t>(k)]);
    }
    for (size_t r = 0; r < f->rows.size() && r < 5; ++r) {
      std::vector<Cell> row;
      for (const char* c : {"rule", "rank", "subject", "saving", "saving_pct", "confidence"}) {
        const int k = f->ColumnIndex(c);
        if (k >= 0) row.push_back(f->rows[r][static_cast<size_t>(k)]);
      }
      ft.rows.push_back(std::move(row));
    }
    if (f->rows.size() > 5) ft.notes.push_back(fmt::format("{} more findings.", f->rows.size() - 5));
    summary.tables.push_back(std::move(ft));
  }
  for (const Table& x : extras.engines_top10.tables) summary.tables.push_back(x);
  {
    // Steps, compact: the steady-state medians in ms (XLA profiles: their
    // own step tables).
    if (!extras.step_summary.empty()) {
      Table st("steps", "Steady-state step (median over steps after the first; ms)");
      st.Add(RankKey())
          .Add(Count("steps", "steps found"))
          .Add(Count("steady", "steps after the warm-up"))
          .Add(TimeMs("wall", "median host step time"))
          .Add(TimeMs("gpu_busy", "median time the step's GPU work runs"))
          .Add(TimeMs("compute", "median COMPUTATION kernel time"))
          .Add(Text("source", "where the steps come from (mlprof steps)"));
      for (const StepSummary& x : extras.step_summary)
        st.rows.push_back({Cell::Int(x.rank), Cell::Int(x.steps), Cell::Int(x.steady_steps), UsCell(x.median_wall_us),
                           UsCell(x.median_busy_us), UsCell(x.median_compute_us),
                           Cell::Text(StepSourceName(x.source))});
      summary.tables.push_back(std::move(st));
    } else {
      for (const Table& x : tables.steps.tables) summary.tables.push_back(x);
    }
  }
  // Time by kernel type (kernels' first table, whatever its --top).
  if (!tables.kernels.tables.empty() && !tables.kernels.tables.front().rows.empty())
    summary.tables.push_back(tables.kernels.tables.front());
  const std::string text = RenderText(summary, 100);
  const std::string summary_path = (fs::path(o.dir) / "summary.txt").string();
  RETURN_IF_ERROR(WriteStreamAtomically(summary_path, true, [&](std::FILE* f) -> Status {
    if (std::fwrite(text.data(), 1, text.size(), f) != text.size())
      return DataLoss(fmt::format("{}: write failed: {}", summary_path, std::strerror(errno)));
    return OkStatus();
  }));
  finished("summary.txt");
  t.rows.push_back(
      {Cell::Text(summary_path), Cell::Null(),
       Cell::Text("what to fix first, engines (busy, idle, utilisation, bytes), steps, time by kernel type")});

  if (o.html) {
    const std::string html_path = (fs::path(o.dir) / "report.html").string();
    const std::string page =
        RenderHtml(BuildHtmlReport(tables, extras, warnings), ChartLibrary(), PageScript(), PageStyle());
    RETURN_IF_ERROR(WriteStreamAtomically(html_path, true, [&](std::FILE* f) -> Status {
      if (std::fwrite(page.data(), 1, page.size(), f) != page.size())
        return DataLoss(fmt::format("{}: write failed: {}", html_path, std::strerror(errno)));
      return OkStatus();
    }));
    finished("report.html");
    t.rows.push_back({Cell::Text(html_path), Cell::Null(),
                      Cell::Text(ChartLibrary().empty() ? "one self-contained page: tables (charts not built in)"
                                                        : "one self-contained page: charts and tables")});
  }
  if (o.xlsx) {
    const std::string xlsx_path = (fs::path(o.dir) / "report.xlsx").string();
    Report book;
    std::set<std::string> ids;
    auto add = [&](const Report& x) {  // each table once (summary repeats some)
      for (const Table& tb : x.tables)
        if (ids.insert(tb.id).second) book.tables.push_back(tb);
    };
    for (const Report* x : {&tables.diagnose, &tables.summary, &tables.engines, &tables.kernels, &tables.ops,
                            &tables.steps, &tables.overview, &tables.idle, &tables.overlap})
      add(*x);
    std::vector<std::string> cover = {"mlprof report"};
    for (const std::string& x : extras.inputs) cover.push_back(x);
    for (const std::string& w : warnings) cover.push_back("warning: " + w);
    RETURN_IF_ERROR(
        WriteFileAtomically(xlsx_path, true, [&](const std::string& tmp) { return WriteXlsx(book, cover, tmp); }));
    finished("report.xlsx");
    t.rows.push_back(
        {Cell::Text(xlsx_path), Cell::Null(),
         Cell::Text(fmt::format("every table, one sheet each ({} sheets and a cover)", book.tables.size()))});
  }
  return OkStatus();
}

// The files' rows in the report's order: summary.txt, the trace files, the
// page, the workbook; sizes as written.
void OrderReportRows(Table& t, const std::vector<std::vector<Cell>>& traces) {
  std::vector<std::vector<Cell>> rows;
  rows.push_back(t.rows.front());
  for (const auto& x : traces) rows.push_back(x);
  for (size_t k = 1; k < t.rows.size(); ++k) rows.push_back(t.rows[k]);
  for (auto& row : rows) row[1] = SizeOf(std::get<std::string>(row[0].value));
  t.rows = std::move(rows);
}

}  // namespace

StatusOr<Report> WriteReport(const Session& s, const ReportOptions& o) {
  namespace fs = std::filesystem;
  RETURN_IF_ERROR(PrepareReportDir(o));
  Report r;
  r.warnings = ImportWarnings(s.profile);
  const int files = 1 + o.perfetto + o.sqlite + o.html + o.xlsx;
  int done = 0;
  std::mutex progress_mu;
  auto finished = [&](const char* name) {
    std::lock_guard<std::mutex> lock(progress_mu);
    ++done;
    if (o.progress) o.progress(name, done, files);
  };
  const std::string pftrace_path = (fs::path(o.dir) / "trace.pftrace").string();
  const std::string sqlite_path = (fs::path(o.dir) / "trace.sqlite").string();

  // The trace files need only the model: they are written on threads of
  // their own while this one computes the tables (each writer renames its
  // file into place when complete; the threads are joined on every path).
  Status perfetto_st = OkStatus(), sqlite_st = OkStatus();
  // mlprof's own tables, computed on this thread below; trace.sqlite's
  // writer waits for them after the trace tables.
  std::promise<std::optional<ReportTables>> tables_promise;
  std::shared_future<std::optional<ReportTables>> tables_ready = tables_promise.get_future().share();
  bool tables_set = false;
  struct SetTables {  // on every path, so the writer never waits forever (none: an error)
    std::promise<std::optional<ReportTables>>& p;
    bool& set;
    ~SetTables() {
      if (!set) p.set_value(std::nullopt);
    }
  };
  std::vector<std::thread> writers;
  struct Join {
    std::vector<std::thread>& t;
    ~Join() {
      for (std::thread& x : t)
        if (x.joinable()) x.join();
    }
  } join{writers};
  // Declared after `join`, so destroyed before it: a writer waiting for the
  // tables is released before it is joined.
  SetTables set_tables{tables_promise, tables_set};
  if (o.sqlite) {
    writers.emplace_back([&] {
      auto written = WriteSqliteFile(s.profile, sqlite_path, true, [&]() -> std::optional<std::vector<const Report*>> {
        const std::optional<ReportTables>& t = tables_ready.get();
        if (!t) return std::nullopt;
        return TypedReports(*t);
      });
      sqlite_st = written.ok() ? OkStatus() : written.status();
      finished("trace.sqlite");
    });
  }
  if (o.perfetto) {
    writers.emplace_back([&] {
      perfetto_st = WriteStreamAtomically(pftrace_path, true, [&](std::FILE* f) -> Status {
        auto w = WritePerfetto(s.profile, f, pftrace_path);
        return w.ok() ? OkStatus() : w.status();
      });
      finished("trace.pftrace");
    });
  }

  // The tables summary.txt, report.html, report.xlsx and trace.sqlite share,
  // computed once (the trace writers run meanwhile).
  tables_promise.set_value(ComputeReportTables(s));
  tables_set = true;
  const ReportTables& tables = *tables_ready.get();
  Table t = ReportFilesTable();
  RETURN_IF_ERROR(WritePages(o, tables, ComputeReportExtras(s, o.html), r.warnings, finished, t));
  for (std::thread& x : writers) x.join();
  RETURN_IF_ERROR(perfetto_st);
  RETURN_IF_ERROR(sqlite_st);

  std::vector<std::vector<Cell>> traces;
  if (o.perfetto)
    traces.push_back({Cell::Text(pftrace_path), Cell::Null(), Cell::Text("the timeline: open at ui.perfetto.dev")});
  if (o.sqlite)
    traces.push_back(
        {Cell::Text(sqlite_path), Cell::Null(), Cell::Text("Perfetto's tables for SQL (slice, track, args, ...)")});
  OrderReportRows(t, traces);
  r.tables.push_back(std::move(t));
  return r;
}

namespace {

// The report's parts, each a command's shard and combine: the tables
// (ComputeReportTables) and the page's sections (ComputeReportExtras), with
// the same options.
struct ReportPart {
  std::string name;
  Sharded c;
};
std::vector<ReportPart> ReportParts(bool page, bool all_steps) {
  SummaryOptions so;
  so.top = 0;
  so.top_ops = 0;
  TableOptions all;
  all.top = 0;
  OpsOptions oo;
  oo.top = 0;
  std::vector<ReportPart> parts = {
      {"summary", SummarySharded(so, all_steps)},
      {"engines", EnginesSharded(all)},
      {"kernels", KernelsSharded(all)},
      {"ops", OpsSharded(oo)},
      {"steps", StepsSharded({})},
      {"overview", OverviewSharded()},
      {"idle", PerRankSharded([](const Session& s) { return Idle(s, {}); })},
      {"overlap", PerRankSharded(Overlap)},
      {"diagnose", DiagnoseSharded({})},
      {"engines10", EnginesSharded(TableOptions{})},
  };
  if (page) {
    RooflineOptions ro;
    ro.top = 200;
    ScopesOptions sco;
    sco.top = 20;
    sco.depth = 4;
    parts.push_back({"roofline", RooflineSharded(ro)});
    parts.push_back({"scopes", ScopesSharded(sco)});
    parts.push_back({"memory", MemorySharded(TableOptions{10})});
    parts.push_back({"counters", CountersSharded(TableOptions{20})});
    parts.push_back({"modules", ModulesSharded(TableOptions{20})});
  }
  return parts;
}

// The page's inputs list, engines with their timeline and each rank's
// steady state, as hidden tables.
void AddExtrasShard(const Session& s, Report& out) {
  Table inputs("extras/_inputs", "");
  inputs.Add(RankKey()).Add(Measure("text", Unit::kText, "")).Add(Measure("format", Unit::kText, ""));
  const ReportExtras x = ComputeReportRanks(s);
  for (size_t k = 0; k < s.profile.ranks.size() && k < x.inputs.size(); ++k)
    inputs.rows.push_back({Cell::Int(s.profile.ranks[k].rank_or(-1)), Cell::Text(x.inputs[k]),
                           Cell::Text(std::string(TraceFormatName(s.profile.ranks[k].format)))});
  Table engines("extras/_engines", "");
  engines.Add(RankKey())
      .Add(Measure("engine", Unit::kText, ""))
      .Add(Measure("kind", Unit::kText, ""))
      .Add(Count("busy", ""))
      .Add(Count("window", ""))
      .Add(Measure("bins", Unit::kText, ""));
  for (const EngineRow& e : x.engines) {
    std::string bins(e.busy_bins.size() * sizeof(float), '\0');
    if (!bins.empty()) std::memcpy(bins.data(), e.busy_bins.data(), bins.size());
    engines.rows.push_back({Cell::Int(e.rank), Cell::Text(e.engine), Cell::Text(e.kind), Cell::Int(e.busy),
                            Cell::Int(e.window), Cell::Text(std::move(bins))});
  }
  Table window("extras/_window", "");
  window.Add(Count("start", "")).Add(Count("end", ""));
  window.rows.push_back({Cell::Int(x.timeline.start), Cell::Int(x.timeline.end)});
  Table steps("extras/_steps", "");
  steps.Add(RankKey());
  for (const char* c : {"steps", "steady_steps", "wall", "span", "busy", "compute", "source"})
    steps.Add(Measure(c, Unit::kRatio, ""));
  for (const StepSummary& y : x.step_summary)
    steps.rows.push_back({Cell::Int(y.rank), Cell::Int(y.steps), Cell::Int(y.steady_steps),
                          Cell::Real(y.median_wall_us), Cell::Real(y.median_gpu_span_us), Cell::Real(y.median_busy_us),
                          Cell::Real(y.median_compute_us), Cell::Int(static_cast<int64_t>(y.source))});
  out.tables.push_back(std::move(inputs));
  out.tables.push_back(std::move(engines));
  out.tables.push_back(std::move(window));
  out.tables.push_back(std::move(steps));
  out.tables.push_back(WarningsShard(s, "extras/_warnings", false));
}

// The shards' tables of one part (ids without the part's prefix), or the
// first error a shard met in it.
StatusOr<std::vector<Report>> PartOfShards(const std::vector<Report>& shards, const std::string& name) {
  const std::string prefix = name + "/";
  std::vector<Report> out(shards.size());
  for (size_t k = 0; k < shards.size(); ++k)
    for (const Table& t : shards[k].tables) {
      if (!t.id.starts_with(prefix)) continue;
      Table x = t;
      x.id = t.id.substr(prefix.size());
      if (x.id == "_status" && !x.rows.empty())
        return Status(static_cast<StatusCode>(IntAt(x.rows[0], 0)), TextAt(x.rows[0], 1));
      out[k].tables.push_back(std::move(x));
    }
  return out;
}

StatusOr<Report> ReportCombine(std::vector<Report> shards, const ReportOptions& o, bool all_steps) {
  // Process 0 writes the files: the directory is checked here (the other
  // processes may not see it).
  RETURN_IF_ERROR(PrepareReportDir(o));
  std::map<std::string, StatusOr<Report>> results;
  for (ReportPart& part : ReportParts(o.html, all_steps)) {
    StatusOr<std::vector<Report>> sub = PartOfShards(shards, part.name);
    results.emplace(part.name, sub.ok() ? part.c.combine(std::move(*sub)) : StatusOr<Report>(sub.status()));
  }
  // A part the processes' shares cannot merge (columns that differ): the
  // report fails rather than leave the part out.
  for (const auto& [name, res] : results)
    if (!res.ok() && res.status().code() == StatusCode::kUnimplemented)
      return Status(res.status().code(), name + ": " + res.status().message());
  auto take = [&](const std::string& name) -> Report {
    auto it = results.find(name);
    return it != results.end() && it->second.ok() ? std::move(*it->second) : Report{};
  };
  ReportTables tables;
  tables.summary = take("summary");
  tables.engines = take("engines");
  tables.kernels = take("kernels");
  tables.ops = take("ops");
  tables.steps = take("steps");
  tables.overview = take("overview");
  tables.idle = take("idle");
  tables.overlap = take("overlap");
  tables.diagnose = take("diagnose");
  for (Report* r : {&tables.summary, &tables.engines, &tables.kernels, &tables.ops, &tables.steps, &tables.overview,
                    &tables.idle, &tables.overlap, &tables.diagnose})
    r->warnings.clear();
  ReportExtras x;
  ASSIGN_OR_RETURN(std::vector<Report> extras, PartOfShards(shards, "extras"));
  ASSIGN_OR_RETURN(Table inputs, ConcatByRank(extras, "_inputs"));
  for (const auto& row : inputs.rows) x.inputs.push_back(TextAt(row, 1));
  if (!inputs.rows.empty()) x.first_format = TextAt(inputs.rows.front(), 2);
  ASSIGN_OR_RETURN(Table engines, ConcatByRank(extras, "_engines"));
  for (const auto& row : engines.rows) {
    EngineRow e;
    e.rank = IntAt(row, 0);
    e.engine = TextAt(row, 1);
    e.kind = TextAt(row, 2);
    e.busy = IntAt(row, 3);
    e.window = IntAt(row, 4);
    const std::string& bins = TextAt(row, 5);
    e.busy_bins.resize(bins.size() / sizeof(float));
    if (!bins.empty()) std::memcpy(e.busy_bins.data(), bins.data(), e.busy_bins.size() * sizeof(float));
    x.engines.push_back(std::move(e));
  }
  x.timeline.bins = 200;
  for (const Table* t : TablesWithId(extras, "_window"))
    if (!t->rows.empty()) x.timeline.start = IntAt(t->rows[0], 0), x.timeline.end = IntAt(t->rows[0], 1);
  ASSIGN_OR_RETURN(Table steps, ConcatByRank(extras, "_steps"));
  for (const auto& row : steps.rows)
    x.step_summary.push_back({IntAt(row, 0), IntAt(row, 1), IntAt(row, 2), RealAt(row, 3), RealAt(row, 4),
                              RealAt(row, 5), RealAt(row, 6), static_cast<StepSource>(IntAt(row, 7)), ""});
  x.engines_top10 = take("engines10");
  if (o.html) {
    x.roofline = results.at("roofline");
    x.scopes = take("scopes");
    x.memory = take("memory");
    x.counters = take("counters");
    x.modules = take("modules");
    if (x.roofline.ok()) x.roofline->warnings.clear();
    for (Report* r : {&x.scopes, &x.memory, &x.counters, &x.modules}) r->warnings.clear();
  }
  x.engines_top10.warnings.clear();
  Report r;
  r.warnings = CombineWarnings(extras);
  Table t = ReportFilesTable();
  RETURN_IF_ERROR(WritePages(
      o, tables, x, r.warnings, [](const char*) {}, t));
  OrderReportRows(t, {});
  r.tables.push_back(std::move(t));
  return r;
}

}  // namespace

Sharded ReportSharded(const ReportOptions& o, bool all_steps) {
  Sharded c;
  c.needs_engine_window = true;
  c.shard = [o, all_steps](const Session& s) -> StatusOr<Report> {
    Report out;
    for (ReportPart& part : ReportParts(o.html, all_steps)) {
      StatusOr<Report> r = part.c.shard(s);
      if (!r.ok()) {
        Table st(part.name + "/_status", "");
        st.Add(Count("code", "")).Add(Measure("message", Unit::kText, ""));
        st.rows.push_back({Cell::Int(static_cast<int64_t>(r.status().code())), Cell::Text(r.status().message())});
        out.tables.push_back(std::move(st));
        continue;
      }
      for (Table& t : r->tables) {
        t.id = part.name + "/" + t.id;
        out.tables.push_back(std::move(t));
      }
    }
    AddExtrasShard(s, out);
    return out;
  };
  c.combine = [o, all_steps](std::vector<Report> shards) { return ReportCombine(std::move(shards), o, all_steps); };
  return c;
}

}  // namespace mlprof::app
