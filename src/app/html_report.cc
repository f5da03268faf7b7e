// report.html's content: which tables and charts the page holds, built from
// the commands' own Reports (so the page shows the figures the tables
// show) and the engines' busy timeline. Charts are in display units (ms,
// FLOP/s); the page is rendered by report/html.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analysis/engines.h"
#include "analysis/serving.h"
#include "app/commands.h"
#include "report/html.h"

namespace mlprof::app {
namespace {

// Raw cell values by column name (NaN / "" when missing).
double Num(const Table& t, size_t row, std::string_view col) {
  const int c = t.ColumnIndex(col);
  if (c < 0 || row >= t.rows.size() || static_cast<size_t>(c) >= t.rows[row].size()) return NAN;
  const Cell& cell = t.rows[row][static_cast<size_t>(c)];
  if (const auto* i = std::get_if<int64_t>(&cell.value)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&cell.value)) return *d;
  return NAN;
}
std::string Text(const Table& t, size_t row, std::string_view col) {
  const int c = t.ColumnIndex(col);
  if (c < 0 || row >= t.rows.size() || static_cast<size_t>(c) >= t.rows[row].size()) return "";
  const Cell& cell = t.rows[row][static_cast<size_t>(c)];
  if (const auto* s = std::get_if<std::string>(&cell.value)) return *s;
  if (const auto* i = std::get_if<int64_t>(&cell.value)) return std::to_string(*i);
  return "";
}
const Table* Find(const Report& r, std::string_view id) {
  for (const Table& t : r.tables)
    if (t.id == id) return &t;
  return nullptr;
}
constexpr double kPsPerMs = 1e9;
double Ms(double ps) { return ps / kPsPerMs; }

// One stacked-bar chart from a table: a bar per row, a stack part per
// `parts` column (ps, shown in ms).
Chart StackedBars(const Table& t, std::string id, std::string title, const std::vector<std::string>& parts,
                  const std::function<std::string(size_t)>& label, std::string x_name) {
  Chart c;
  c.kind = Chart::Kind::kStackedBar;
  c.id = std::move(id);
  c.title = std::move(title);
  c.x_name = std::move(x_name);
  c.y_name = "ms";
  for (size_t r = 0; r < t.rows.size(); ++r) c.categories.push_back(label(r));
  for (const std::string& p : parts) {
    ChartSeries s;
    s.name = p;
    bool any = false;
    for (size_t r = 0; r < t.rows.size(); ++r) {
      const double v = Num(t, r, p);
      s.values.push_back(std::isnan(v) ? NAN : Ms(v));
      any = any || (!std::isnan(v) && v != 0);
    }
    if (any) c.series.push_back(std::move(s));
  }
  return c;
}

// Rows grouped into bars by `bar`, stacked by `part`, valued by `value` (ps).
Chart Pivot(const Table& t, std::string id, std::string title, const std::function<std::string(size_t)>& bar,
            std::string_view part, std::string_view value, std::string x_name) {
  Chart c;
  c.kind = Chart::Kind::kStackedBar;
  c.id = std::move(id);
  c.title = std::move(title);
  c.x_name = std::move(x_name);
  c.y_name = "ms";
  std::map<std::string, size_t> bars;
  std::map<std::string, size_t> parts;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    const std::string b = bar(r), p = Text(t, r, part);
    if (bars.emplace(b, c.categories.size()).second) c.categories.push_back(b);
    if (parts.emplace(p, c.series.size()).second) c.series.push_back({p, {}});
  }
  for (ChartSeries& s : c.series) s.values.assign(c.categories.size(), 0.0);
  for (size_t r = 0; r < t.rows.size(); ++r) {
    const double v = Num(t, r, value);
    if (!std::isnan(v)) c.series[parts[Text(t, r, part)]].values[bars[bar(r)]] += Ms(v);
  }
  return c;
}

std::string FormatMs(double ps) { return fmt::format("{:.3f} ms", Ms(ps)); }

// Adds the tables of `r` named in `ids` (all when empty) that have rows and
// are not on the page yet (`shown`: ids already added).
void AddTables(HtmlSection& sec, const Report& r, std::set<std::string>& shown, const std::set<std::string>& ids = {}) {
  for (const Table& t : r.tables)
    if ((ids.empty() || ids.count(t.id)) && !t.rows.empty() && shown.insert(t.id).second) sec.tables.push_back(t);
}

}  // namespace

ReportExtras ComputeReportRanks(const Session& s) {
  ReportExtras x;
  for (const RankProfile& rp : s.profile.ranks)
    x.inputs.push_back(
        fmt::format("rank {}: {} ({}, {} ops)", rp.rank_or(-1), rp.path, TraceFormatName(rp.format), rp.ops.size()));
  if (!s.profile.ranks.empty()) x.first_format = TraceFormatName(s.profile.ranks.front().format);
  x.timeline.bins = 200;
  if (const auto& w = s.inputs.job.engine_window) {
    x.timeline.given = true;
    x.timeline.start = w->first <= w->second ? w->first : 0;
    x.timeline.end = w->first <= w->second ? w->second : 0;
  }
  x.engines = ComputeEngines(s.view, &x.timeline);
  x.step_summary = ComputeSteps(s.view, {}).summary;
  return x;
}

ReportExtras ComputeReportExtras(const Session& s, bool page) {
  ReportExtras x = ComputeReportRanks(s);
  x.engines_top10 = Engines(s, TableOptions{});
  if (!page) return x;
  RooflineOptions ro;
  ro.top = 200;
  auto rl = Roofline(s, ro);
  if (rl.ok())
    x.roofline = std::move(rl->report);
  else
    x.roofline = rl.status();
  ScopesOptions sco;
  sco.top = 20;
  sco.depth = 4;
  x.scopes = Scopes(s, sco);
  x.memory = Memory(s, TableOptions{10});
  x.counters = Counters(s, TableOptions{20});
  x.modules = Modules(s, TableOptions{20});
  return x;
}

HtmlReport BuildHtmlReport(const ReportTables& tables, const ReportExtras& extras,
                           const std::vector<std::string>& warnings) {
  HtmlReport h;
  h.title = "mlprof report";
  h.inputs = extras.inputs;
  h.warnings = warnings;
  std::set<std::string> shown;  // table ids on the page (each table once)
  const bool multi_rank = extras.inputs.size() > 1;
  auto rank_label = [&](const Table& t, size_t r) { return "rank " + Text(t, r, "rank"); };

  const Report& summary = tables.summary;
  const Report& steps = tables.steps;
  const Report& overlap = tables.overlap;

  // --- overview -------------------------------------------------------------------
  HtmlSection overview{"overview", "Overview", {}, {}, {}};
  h.cards.push_back({"Ranks", std::to_string(extras.inputs.size()), extras.first_format});
  if (const Table* st = Find(steps, "steady_state"); st && !st->rows.empty()) {
    double worst = 0;
    std::string at;
    for (size_t r = 0; r < st->rows.size(); ++r)
      if (Num(*st, r, "median_wall") > worst) worst = Num(*st, r, "median_wall"), at = Text(*st, r, "rank");
    h.cards.push_back({"Steady-state step", FormatMs(worst),
                       multi_rank ? "median step, slowest rank (" + at + ")" : "median over the steps after warm-up"});
  }
  const EngineTimeline& timeline = extras.timeline;
  const std::vector<EngineRow>& engines = extras.engines;
  {
    double busy = 0, window = 0;
    for (const EngineRow& e : engines)
      if (e.kind == "all") busy += static_cast<double>(e.busy), window += static_cast<double>(e.window);
    if (window > 0)
      h.cards.push_back({"Device busy", fmt::format("{:.1f} %", 100 * busy / window),
                         fmt::format("idle {:.1f} % of the window from the first op to the last (all ranks)",
                                     100 - 100 * busy / window)});
  }
  if (const Table* f = Find(tables.diagnose, "findings"); f && !f->rows.empty()) {
    // Findings come largest saving first: the first is what to fix first.
    h.cards.push_back({"Fix first", Text(*f, 0, "rule"),
                       fmt::format("{} ({}): about {:.3f} ms per step ({:.1f} % of the step)", Text(*f, 0, "subject"),
                                   Text(*f, 0, "confidence"), Ms(Num(*f, 0, "saving")), Num(*f, 0, "saving_pct"))});
  }
  overview.text.push_back(
      "MFU needs the model's throughput, which a profile does not hold: mlprof mfu PATH --tokens-per-step N "
      "--model NAME prints it. The roofline below gives each op's efficiency against the chip.");
  AddTables(overview, tables.diagnose, shown, {"findings"});
  AddTables(overview, summary, shown, {"ranks"});
  AddTables(overview, steps, shown, {"steady_state"});
  h.sections.push_back(std::move(overview));

  // --- where the time goes ----------------------------------------------------------
  HtmlSection time{"time", "Where the time goes", {}, {}, {}};
  const Report& ov = tables.overview;
  if (const Table* t = Find(ov, "overview_steps"); t && !t->rows.empty()) {
    time.charts.push_back(StackedBars(
        *t, "step-roles", "Time per step by role (TensorBoard overview)",
        {"kernel", "memcpy", "memset", "comm", "runtime", "dataloader", "cpu_exec", "other"},
        [&](size_t r) {
          return multi_rank ? fmt::format("r{} s{}", Text(*t, r, "rank"), Text(*t, r, "step")) : Text(*t, r, "step");
        },
        multi_rank ? "rank, step" : "step"));
  }
  if (const Table* t = Find(summary, "temporal"); t && !t->rows.empty())
    time.charts.push_back(StackedBars(
        *t, "temporal", "GPU time per rank: compute, other GPU work, idle", {"compute", "non_compute", "idle"},
        [&](size_t r) { return rank_label(*t, r); }, "rank"));
  if (const Table* t = Find(summary, "xla_breakdown"); t && !t->rows.empty())
    time.charts.push_back(Pivot(
        *t, "xla-categories", "Device time by XLA op category", [&](size_t r) { return rank_label(*t, r); }, "category",
        "time", "rank"));
  AddTables(time, summary, shown, {"kernel_types", "xla_breakdown", "xla_attribution"});
  AddTables(time, ov, shown, {"overview_mean"});
  AddTables(time, steps, shown, {"steps"});
  h.sections.push_back(std::move(time));

  // --- timeline ---------------------------------------------------------------------
  HtmlSection tl{"timeline", "Timeline", {}, {}, {}};
  {
    // The busiest engines, at most 64 rows, in the engines' order.
    std::vector<size_t> keep;
    for (size_t i = 0; i < engines.size(); ++i) keep.push_back(i);
    constexpr size_t kMaxRows = 64;
    if (keep.size() > kMaxRows) {
      std::stable_sort(keep.begin(), keep.end(), [&](size_t a, size_t b) { return engines[a].busy > engines[b].busy; });
      keep.resize(kMaxRows);
      std::sort(keep.begin(), keep.end());
      tl.text.push_back(fmt::format("The {} busiest of {} engines.", kMaxRows, engines.size()));
    }
    if (!keep.empty() && timeline.end > timeline.start) {
      Chart c;
      c.kind = Chart::Kind::kHeatmap;
      c.id = "busy-timeline";
      c.title = "How busy each engine was over the trace";
      c.x_name = "ms from the trace start";
      const double bin_ms = Ms(static_cast<double>(timeline.end - timeline.start)) / timeline.bins;
      for (int b = 0; b < timeline.bins; ++b) c.categories.push_back(fmt::format("{:.3f}", b * bin_ms));
      for (size_t i : keep) {
        const EngineRow& e = engines[i];
        c.rows.push_back(multi_rank ? fmt::format("r{} {}", e.rank, e.engine) : e.engine);
        ChartSeries row;
        row.name = c.rows.back();
        for (float f : e.busy_bins) row.values.push_back(std::round(f * 1000) / 1000);
        c.series.push_back(std::move(row));
      }
      tl.text.push_back(fmt::format(
          "Each cell is the fraction of {:.3f} ms that the engine was busy (the union of its ops); the window "
          "runs from the first op to the last over all ranks.",
          bin_ms));
      tl.charts.push_back(std::move(c));
    }
  }
  AddTables(tl, tables.engines, shown);
  h.sections.push_back(std::move(tl));

  // --- ops and kernels ----------------------------------------------------------------
  HtmlSection ops{"ops", "Top ops and kernels", {}, {}, {}};
  AddTables(ops, summary, shown, {"xla_ops"});
  AddTables(ops, tables.kernels, shown);
  AddTables(ops, tables.ops, shown);
  h.sections.push_back(std::move(ops));

  // --- roofline -------------------------------------------------------------------------
  HtmlSection roof{"roofline", "Roofline", {}, {}, {}};
  const StatusOr<Report>& rl = extras.roofline;
  if (!rl.ok()) {
    roof.text.push_back("No roofline: " + rl.status().message());
  } else {
    const Report& rr = *rl;
    const Table* sum = Find(rr, "roofline_summary");
    const Table* t = Find(rr, "roofline_ops");
    if (sum && !sum->rows.empty() && t && Num(*sum, 0, "peak") > 0 && Num(*sum, 0, "hbm_bandwidth") > 0) {
      Chart c;
      c.kind = Chart::Kind::kRoofline;
      c.id = "roofline";
      c.title = fmt::format("Ops against the {} roofline ({})", Text(*sum, 0, "chip"), Text(*sum, 0, "dtype"));
      c.x_name = "arithmetic intensity (FLOP/byte)";
      c.y_name = "achieved TFLOP/s";
      c.roof = {Num(*sum, 0, "peak"), Num(*sum, 0, "hbm_bandwidth"), Text(*sum, 0, "chip") + " roof"};
      for (size_t r = 0; r < t->rows.size(); ++r) {
        const double x = Num(*t, r, "intensity"), y = Num(*t, r, "flops_per_s");
        if (!(x > 0) || !(y > 0)) continue;
        c.points.push_back({x, y,
                            multi_rank ? "rank " + Text(*t, r, "rank") + ": " + Text(*t, r, "op") : Text(*t, r, "op"),
                            Text(*t, r, "category")});
      }
      roof.text.push_back(
          "Each point is an op: its FLOPs per byte of memory traffic against the FLOP/s it achieved. Ops under the "
          "slanted roof are memory-bound, under the flat roof compute-bound; the distance to the roof is what is "
          "left to gain.");
      if (!c.points.empty()) roof.charts.push_back(std::move(c));
    }
    AddTables(roof, rr, shown);
  }
  h.sections.push_back(std::move(roof));

  // --- scopes (XLA) ---------------------------------------------------------------------
  const Report& scopes = extras.scopes;
  if (const Table* t = Find(scopes, "scopes"); t && t->rows.size() > 1) {
    HtmlSection sec{"scopes", "Named scopes", {}, {}, {}};
    Chart c;
    c.kind = Chart::Kind::kTreemap;
    c.id = "scopes";
    c.title = "Device time by named scope";
    c.y_name = "ms";
    // Rows come depth-first; a row's parent is the nearest earlier row one
    // level up on the same rank. Time is inclusive: a node's own value is
    // what its children leave.
    std::vector<int> stack;  // node index per depth
    std::string rank;
    for (size_t r = 0; r < t->rows.size(); ++r) {
      const int depth = static_cast<int>(Num(*t, r, "depth"));
      if (Text(*t, r, "rank") != rank) stack.clear(), rank = Text(*t, r, "rank");
      if (depth < 0) continue;
      stack.resize(static_cast<size_t>(std::min<int>(depth, static_cast<int>(stack.size()))));
      ChartNode n;
      std::string name = Text(*t, r, "scope");  // the last name, indented by depth
      name.erase(0, name.find_first_not_of(' '));
      n.name = multi_rank && depth == 0 ? "rank " + rank + " " + name : name;
      n.value = Ms(Num(*t, r, "time"));
      n.parent = stack.empty() ? -1 : stack.back();
      stack.push_back(static_cast<int>(c.nodes.size()));
      c.nodes.push_back(std::move(n));
    }
    sec.text.push_back("Inclusive device time of each JAX/TF name scope; click a box to zoom into it.");
    sec.charts.push_back(std::move(c));
    AddTables(sec, scopes, shown);
    h.sections.push_back(std::move(sec));
  }

  // --- idle and overlap ------------------------------------------------------------------
  HtmlSection idle{"idle", "Idle and overlap", {}, {}, {}};
  const Report& id = tables.idle;
  if (const Table* t = Find(id, "idle"); t && !t->rows.empty())
    idle.charts.push_back(Pivot(
        *t, "idle", "GPU idle time per stream, by cause",
        [&](size_t r) {
          return multi_rank ? fmt::format("r{} stream {}", Text(*t, r, "rank"), Text(*t, r, "stream"))
                            : "stream " + Text(*t, r, "stream");
        },
        "category", "idle", "stream"));
  AddTables(idle, overlap, shown);
  AddTables(idle, id, shown);
  h.sections.push_back(std::move(idle));

  // --- memory (only where the trace has allocator events) -------------------------------
  const Report& mem = extras.memory;
  if (const Table* t = Find(mem, "memory"); t && !t->rows.empty()) {
    HtmlSection sec{"memory", "Memory", {}, {}, {}};
    sec.text.push_back(
        "The allocator's peak per device, the blocks alive then by the op that allocated them, and the allocations "
        "by op (`mlprof memory`).");
    AddTables(sec, mem, shown);
    h.sections.push_back(std::move(sec));
  }

  // --- counters (only where the trace has launches, copies or CUPTI ranges) -------------
  const Report& counters = extras.counters;
  HtmlSection csec{"counters", "Counters", {}, {}, {}};
  csec.text.push_back(
      "The launch queue per stream, memory bandwidth per copy kind and the CUPTI range profiler's counters "
      "(`mlprof counters`; the queue and bandwidth series are counter tracks in the Perfetto export).");
  AddTables(csec, counters, shown);
  if (!csec.tables.empty()) h.sections.push_back(std::move(csec));

  // --- modules and annotations (only where the trace has module frames or annotations) ---
  const Report& mods = extras.modules;
  const Table* tree = Find(mods, "module_tree");
  const Table* anns = Find(mods, "annotations");
  if ((tree && !tree->rows.empty()) || (anns && !anns->rows.empty())) {
    HtmlSection sec{"modules", "Modules and annotations", {}, {}, {}};
    sec.text.push_back(
        "GPU time up the nn.Module tree and per class, per user annotation, and which ops and modules launch each "
        "kernel (`mlprof modules`).");
    AddTables(sec, mods, shown);
    if (!sec.tables.empty()) h.sections.push_back(std::move(sec));
  }

  // --- serving steps (vLLM, SGLang) ----------------------------------------------------------
  // The serving tables of `mlprof steps` (the same steps, same warm-up).
  const Table* serving_summary = Find(steps, "serving_steady_state");
  const Table* serving_steps = Find(steps, "serving_steps");
  if (serving_summary && serving_steps) {
    HtmlSection sec{"serving", "Serving steps", {}, {}, {}};
    sec.text.push_back(
        "The serving engine's steps: batch, host time to issue each, GPU time, latency, tokens/s; the steady state "
        "per kind of step (`mlprof steps`).");
    Report sr;
    sr.tables.push_back(*serving_summary);
    sr.tables.push_back(*serving_steps);
    AddTables(sec, sr, shown);
    if (!sec.tables.empty()) h.sections.push_back(std::move(sec));
  }
  return h;
}

}  // namespace mlprof::app
