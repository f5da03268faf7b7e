// mlprof diff: what changed between two profiles, and the --fail-if gates.
#include "analysis/diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>

#include "app/commands.h"
#include "app/shards.h"
#include "report/columns.h"

namespace mlprof::app {
namespace {

struct Gate {
  std::string text, measure;
  char op = '>';
  double limit = 0;  // % when relative, else ps
  bool relative = true;
};

const char* const kMeasures[] = {"step_time", "gpu_busy", "compute", "communication", "memory", "idle"};

StatusOr<Gate> ParseGate(const std::string& text) {
  Gate g;
  g.text = text;
  const size_t op = text.find_first_of("<>");
  if (op == std::string::npos || op == 0)
    return InvalidArgument(
        fmt::format("--fail-if '{}': expected MEASURE>CHANGE or MEASURE<CHANGE, e.g. "
                    "'step_time>+5%' or 'compute>+2ms'",
                    text));
  g.measure = text.substr(0, op);
  while (!g.measure.empty() && std::isspace(static_cast<unsigned char>(g.measure.back()))) g.measure.pop_back();
  bool known = false;
  for (const char* m : kMeasures) known = known || g.measure == m;
  if (!known)
    return InvalidArgument(
        fmt::format("--fail-if '{}': unknown measure '{}' (step_time, gpu_busy, compute, "
                    "communication, memory, idle)",
                    text, g.measure));
  g.op = text[op];
  std::string v = text.substr(op + 1);
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.erase(v.begin());
  double scale = 0;
  if (v.size() > 1 && v.back() == '%') {
    v.pop_back(), g.relative = true, scale = 1;
  } else if (v.size() > 2 && v.compare(v.size() - 2, 2, "ms") == 0) {
    v.resize(v.size() - 2), g.relative = false, scale = 1e9;
  } else if (v.size() > 2 && v.compare(v.size() - 2, 2, "us") == 0) {
    v.resize(v.size() - 2), g.relative = false, scale = 1e6;
  } else {
    return InvalidArgument(fmt::format("--fail-if '{}': give the change with a unit: %, ms or us", text));
  }
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size() || !std::isfinite(x))
    return InvalidArgument(fmt::format("--fail-if '{}': '{}' is not a number", text, v));
  g.limit = x * scale;
  return g;
}

}  // namespace

Status CheckDiffGates(const DiffOptions& o) {
  for (const std::string& t : o.gates) RETURN_IF_ERROR(ParseGate(t).status());
  return OkStatus();
}

namespace {

// One side's ranks as hidden tables: `_{side}_ranks` (rank), `_{side}_steps`
// (rank and the six measures per steady step), `_{side}_ops` (rank, name,
// count, time per step), `_{side}_warnings`.
void AddSide(Report& shard, const Session& s, const mlprof::DiffOptions& d, const std::string& side) {
  Table ranks("_" + side + "_ranks", "");
  ranks.Add(RankKey()).Add(Count("whole_trace", ""));
  Table steps("_" + side + "_steps", "");
  steps.Add(RankKey());
  for (const char* m : kDiffMeasures) steps.Add(Measure(m, Unit::kTime, ""));
  Table ops("_" + side + "_ops", "");
  ops.Add(RankKey()).Add(Key("name", Unit::kText, "")).Add(Count("count", "")).Add(Measure("time", Unit::kRatio, ""));
  for (const DiffRank& r : SummarizeDiffSide(s.view, d)) {
    bool whole = false;
    for (const RankView& rv : s.view.ranks)
      if (rv.rank == r.rank) whole = rv.profile->step_source == StepSource::kTrace;
    ranks.rows.push_back({Cell::Int(r.rank), Cell::Int(whole ? 1 : 0)});
    for (const auto& x : r.steady) {
      std::vector<Cell> row{Cell::Int(r.rank)};
      for (Ps v : x) row.push_back(Cell::Int(v));
      steps.rows.push_back(std::move(row));
    }
    for (const DiffRank::Op& op : r.ops)
      ops.rows.push_back({Cell::Int(r.rank), Cell::Text(op.name), Cell::Int(op.count), Cell::Real(op.time)});
  }
  shard.tables.push_back(WarningsShard(s, "_" + side + "_warnings"));
  shard.tables.push_back(std::move(ranks));
  shard.tables.push_back(std::move(steps));
  shard.tables.push_back(std::move(ops));
}

// One side's ranks back from the shards, in rank order.
StatusOr<std::vector<DiffRank>> GatherSide(const std::vector<Report>& shards, const std::string& side) {
  ASSIGN_OR_RETURN(Table ranks, ConcatByRank(shards, "_" + side + "_ranks"));
  ASSIGN_OR_RETURN(Table steps, ConcatByRank(shards, "_" + side + "_steps"));
  ASSIGN_OR_RETURN(Table ops, ConcatByRank(shards, "_" + side + "_ops"));
  std::vector<DiffRank> out;
  std::map<int64_t, size_t> at;
  for (const auto& row : ranks.rows) {
    at[IntAt(row, 0)] = out.size();
    out.push_back({});
    out.back().rank = IntAt(row, 0);
    out.back().whole_trace = IntAt(row, 1) != 0;
  }
  auto rank_of = [&](const std::vector<Cell>& row) -> StatusOr<DiffRank*> {
    const auto it = at.find(IntAt(row, 0));
    if (it == at.end()) return DataLoss(fmt::format("diff shard: rank {} has no entry", IntAt(row, 0)));
    return &out[it->second];
  };
  for (const auto& row : steps.rows) {
    ASSIGN_OR_RETURN(DiffRank * r, rank_of(row));
    std::array<Ps, 6> x{};
    for (size_t f = 0; f < x.size(); ++f) x[f] = IntAt(row, f + 1);
    r->steady.push_back(x);
  }
  for (const auto& row : ops.rows) {
    ASSIGN_OR_RETURN(DiffRank * r, rank_of(row));
    r->ops.push_back({TextAt(row, 1), IntAt(row, 2), RealAt(row, 3)});
  }
  return out;
}

StatusOr<Report> CombineDiffShards(const std::vector<Report>& shards, const DiffOptions& o) {
  std::vector<Gate> gates;
  for (const std::string& t : o.gates) {
    ASSIGN_OR_RETURN(Gate g, ParseGate(t));
    gates.push_back(std::move(g));
  }
  ASSIGN_OR_RETURN(std::vector<DiffRank> b, GatherSide(shards, "base"));
  ASSIGN_OR_RETURN(std::vector<DiffRank> n, GatherSide(shards, "new"));
  const DiffResult r = CombineDiff(b, n);
  Report rep;
  for (const std::string& w : CombineWarnings(shards, "_base_warnings")) rep.warnings.push_back("base: " + w);
  for (const std::string& w : CombineWarnings(shards, "_new_warnings")) rep.warnings.push_back("new: " + w);

  // Neither side has iterations on any rank: the tables compare whole
  // traces, and say so rather than "step".
  bool all_whole = !b.empty() && !n.empty();
  for (const auto* side : {&b, &n})
    for (const DiffRank& d : *side) all_whole = all_whole && d.whole_trace;
  Table st("diff_steps", all_whole ? "Whole-trace time, base vs new (no steps on either side; ms)"
                                   : "Steady-state step time, base vs new (ms)");
  st.Add(RankKey())
      .Add(Count("base_steps", "steady steps in the base profile"))
      .Add(Count("new_steps", "steady steps in the new profile"))
      .Add(TimeMs("base", "median step time, base"))
      .Add(TimeMs("new", "median step time, new"))
      .Add(TimeMs("delta", "new - base"))
      .Add(Measure("delta_pct", Unit::kPercent, "(new - base) / base").Decimals(1))
      .Add(Measure("p_value", Unit::kRatio, "two-sided Mann-Whitney U test over the per-step times").Decimals(4))
      .Add(Text("test", "exact or normal (the approximation, with tie correction)"))
      .Add(Text("verdict",
                "slower / faster (p below alpha and the change at least the minimum), else no change; not comparable "
                "where one side's step is its whole trace"));
  std::vector<int64_t> incomparable;
  for (const StepDiff& s : r.steps) {
    const double pct = s.base_median > 0 ? 100 * (s.new_median - s.base_median) / s.base_median : NAN;
    std::string verdict = "no significant change";
    const auto whole = [&](const std::vector<DiffRank>& side) {
      for (const DiffRank& d : side)
        if (d.rank == s.rank) return d.whole_trace;
      return false;
    };
    const bool base_whole = whole(b), new_whole = whole(n);
    if (base_whole != new_whole) {
      verdict = "not comparable";  // the note says why
      incomparable.push_back(s.rank);
    } else if (base_whole && new_whole) {
      verdict = "one trace each: not tested";
    } else if (s.base.size() < 2 || s.neu.size() < 2)
      verdict = "too few steps to test";
    else if (s.test.p < o.alpha && std::abs(pct) >= o.min_change_pct)
      verdict = pct > 0 ? "slower" : "faster";
    st.rows.push_back({Cell::Int(s.rank), Cell::Int(static_cast<int64_t>(s.base.size())),
                       Cell::Int(static_cast<int64_t>(s.neu.size())), TimeCell(s.base_median), TimeCell(s.new_median),
                       TimeCell(s.new_median - s.base_median), PctCell(s.new_median - s.base_median, s.base_median),
                       Cell::Real(s.test.p), Cell::Text(s.test.exact ? "exact" : "normal"), Cell::Text(verdict)});
  }
  std::string which;
  for (int64_t k : incomparable) which += (which.empty() ? "" : ", ") + std::to_string(k);
  if (!incomparable.empty())
    st.notes.push_back(fmt::format(
        "{} {}: not comparable: one side has no iterations (no ProfilerStep#N, serving step, Optimizer.step range, "
        "iteration "
        "annotation or repeating top-level ops), so its one step is its whole trace: the step times and the "
        "breakdown below are not comparable.",
        incomparable.size() > 1 ? "Ranks" : "Rank", which));
  if (all_whole)
    st.notes.push_back(
        "Neither side has iterations (no ProfilerStep#N, serving step, Optimizer.step range, iteration annotation or "
        "repeating top-level ops): each is one whole trace, and every figure below is per trace, not per step; the "
        "traces may hold different amounts of work.");
  else
    st.notes.push_back(fmt::format(
        "Steps after the warm-up; slower/faster when p < {} and the change is at least {} %. With n steps on each "
        "side the exact test cannot go below p = 2 / C(2n, n): 3 steps each give at best 0.1.",
        o.alpha, o.min_change_pct));
  if (r.paired_base >= 0)
    st.notes.push_back(
        fmt::format("One rank on each side: base rank {} compared with new rank {}.", r.paired_base, r.paired_new));
  for (int64_t x : r.only_base) st.notes.push_back(fmt::format("rank {} is only in the base profile", x));
  for (int64_t x : r.only_new) st.notes.push_back(fmt::format("rank {} is only in the new profile", x));
  rep.tables.push_back(std::move(st));

  Table br("diff_breakdown", all_whole ? "The whole trace's breakdown, base vs new (ms)"
                                       : "The step's breakdown, base vs new (medians over steady steps; ms)");
  br.Add(RankKey())
      .Add(Key("measure", Unit::kText, "step_time, gpu_busy, compute, communication, memory, idle"))
      .Add(TimeMs("base", "median per step, base"))
      .Add(TimeMs("new", "median per step, new"))
      .Add(TimeMs("delta", "new - base"))
      .Add(Measure("delta_pct", Unit::kPercent, "(new - base) / base").Decimals(1));
  for (const BreakdownDiff& b : r.breakdown)
    br.rows.push_back({Cell::Int(b.rank), Cell::Text(b.measure), TimeCell(b.base), TimeCell(b.neu),
                       TimeCell(b.neu - b.base), PctCell(b.neu - b.base, b.base)});
  rep.tables.push_back(std::move(br));

  Table ops("diff_ops", all_whole ? "GPU ops by name, base vs new (time per trace, all ranks; largest change first)"
                                  : "GPU ops by name, base vs new (time per step, all ranks; largest change first)");
  ops.Add(Key("name", Unit::kText, "kernel, memcpy or memset name").Symbol())
      .Add(Count("base_count", "executions in the base profile"))
      .Add(Count("new_count", "executions in the new profile"))
      .Add(TimeMs("base", "time per step, base (each rank's total / its steps, summed)"))
      .Add(TimeMs("new", "time per step, new"))
      .Add(TimeMs("delta", "new - base"))
      .Add(Measure("delta_pct", Unit::kPercent, "(new - base) / base").Decimals(1))
      .Add(Text("status", "new (only in the new profile), vanished (only in the base), or both"));
  const size_t top = o.top > 0 ? static_cast<size_t>(o.top) : r.ops.size();
  for (size_t i = 0; i < r.ops.size() && i < top; ++i) {
    const OpDiff& x = r.ops[i];
    const char* status = x.base_count == 0 ? "new" : x.new_count == 0 ? "vanished" : "both";
    ops.rows.push_back({Cell::Text(x.name), Cell::Int(x.base_count), Cell::Int(x.new_count), TimeCell(x.base_time),
                        TimeCell(x.new_time), TimeCell(x.new_time - x.base_time),
                        PctCell(x.new_time - x.base_time, x.base_time), Cell::Text(status)});
  }
  NoteHiddenRows(ops, r.ops.size() - std::min(top, r.ops.size()));
  rep.tables.push_back(std::move(ops));

  if (!gates.empty()) {
    Table gt("diff_gates", "Gates (--fail-if)");
    gt.Add(Key("gate", Unit::kText, "the gate as given"))
        .Add(RankKey())
        .Add(Measure("change", Unit::kRatio, "the measure's change: % when the gate is relative, else ms").Decimals(3))
        .Add(Text("result", "ok, or FAILED when the change passes the limit"));
    for (const Gate& g : gates) {
      bool any = false;
      for (const BreakdownDiff& b : r.breakdown) {
        if (b.measure != g.measure) continue;
        any = true;
        const double change = g.relative ? (b.base > 0 ? 100 * (b.neu - b.base) / b.base : 0) : (b.neu - b.base);
        const bool failed = g.op == '>' ? change > g.limit : change < g.limit;
        rep.gate_failed = rep.gate_failed || failed;
        gt.rows.push_back({Cell::Text(g.text), Cell::Int(b.rank), Cell::Real(g.relative ? change : change / 1e9),
                           Cell::Text(failed ? "FAILED" : "ok")});
      }
      if (!any) {
        // Nothing to compare (no steady steps on a side): a gate cannot pass unchecked.
        rep.gate_failed = true;
        gt.rows.push_back(
            {Cell::Text(g.text), Cell::Null(), Cell::Null(), Cell::Text("FAILED: no steady steps to compare")});
      }
    }
    rep.tables.push_back(std::move(gt));
  }
  return rep;
}

}  // namespace

PairSharded DiffSharded(const DiffOptions& o) {
  PairSharded c;
  c.shard = [o](const Session& base, const Session& neu) -> StatusOr<Report> {
    mlprof::DiffOptions d;
    d.warmup = o.warmup;
    Report shard;
    AddSide(shard, base, d, "base");
    AddSide(shard, neu, d, "new");
    return shard;
  };
  c.combine = [o](std::vector<Report> shards) { return CombineDiffShards(shards, o); };
  return c;
}

StatusOr<Report> Diff(const Session& base, const Session& neu, const DiffOptions& o) {
  return RunSharded(base, neu, DiffSharded(o));
}

}  // namespace mlprof::app
