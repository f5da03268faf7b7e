// mlprof critical-path: HTA's critical path per window, what bounds it, the
// ops on it, slack off it, what-if speed-ups and HTA's overlay.
#include "analysis/critical_path.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <map>

#include "analysis/kernel_class.h"
#include "app/commands.h"
#include "export/hta_overlay.h"
#include "export/perfetto.h"
#include "report/columns.h"

namespace mlprof::app {
namespace {

// A what-if: which edges get faster, and by how much (scale of their time).
struct SpeedUp {
  std::string text;
  enum Kind { kClass, kName, kCpu, kLaunch, kGap } kind = kName;
  KernelClass cls = KernelClass::kComputation;
  std::string name;
  double scale = 1;
};

StatusOr<SpeedUp> ParseSpeedUp(const std::string& spec) {
  SpeedUp u;
  u.text = spec;
  auto factor = [&](std::string_view f) -> Status {
    double v = 0;
    const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
    if (ec != std::errc() || end != f.data() + f.size() || !(v > 0) || v > 1e9)
      return InvalidArgument(
          fmt::format("--speedup {}: '{}' is not a speed-up factor (a number > 0, e.g. 2)", spec, f));
    u.scale = 1 / v;
    return OkStatus();
  };
  std::string_view s = spec;
  if (s == "launch=0" || s == "gap=0") {
    u.kind = s[0] == 'l' ? SpeedUp::kLaunch : SpeedUp::kGap;
    u.scale = 0;
    return u;
  }
  const size_t colon = s.rfind(':');
  if (colon == std::string_view::npos)
    return InvalidArgument(fmt::format(
        "--speedup {}: expected WHAT:FACTOR (class=computation:2, name~gemm:1.5, cpu:2, launch:2, gap:2) or "
        "launch=0 / gap=0",
        spec));
  const std::string_view what = s.substr(0, colon);
  RETURN_IF_ERROR(factor(s.substr(colon + 1)));
  if (what.substr(0, 6) == "class=") {
    const std::string_view c = what.substr(6);
    u.kind = SpeedUp::kClass;
    if (c == "computation")
      u.cls = KernelClass::kComputation;
    else if (c == "communication")
      u.cls = KernelClass::kCommunication;
    else if (c == "memory")
      u.cls = KernelClass::kMemory;
    else
      return InvalidArgument(
          fmt::format("--speedup {}: the class is computation, communication or memory, not '{}'", spec, c));
  } else if (what.substr(0, 5) == "name~" || what.substr(0, 6) == "name=~") {
    u.kind = SpeedUp::kName;
    u.name = std::string(what.substr(what[4] == '~' ? 5 : 6));
    if (u.name.empty()) return InvalidArgument(fmt::format("--speedup {}: no name to match", spec));
  } else if (what == "cpu") {
    u.kind = SpeedUp::kCpu;
  } else if (what == "launch") {
    u.kind = SpeedUp::kLaunch;
  } else if (what == "gap") {
    u.kind = SpeedUp::kGap;
  } else {
    return InvalidArgument(
        fmt::format("--speedup {}: '{}' is none of class=..., name~..., cpu, launch, gap", spec, what));
  }
  return u;
}

bool Matches(const RankProfile& p, const CpEdge& e, const SpeedUp& u, const CommKernelPatterns* comm_kernels) {
  switch (u.kind) {
    case SpeedUp::kLaunch:
      return e.type == CpEdgeType::kLaunchDelay;
    case SpeedUp::kGap:
      return e.type == CpEdgeType::kKernelKernel;
    default:
      break;
  }
  if (e.type != CpEdgeType::kOperator || e.op < 0) return false;
  const auto i = static_cast<size_t>(e.op);
  const bool gpu = IsGpuOp(p.ops.kind[i]);
  const std::string_view n = p.str(p.ops.name[i]);
  switch (u.kind) {
    case SpeedUp::kCpu:
      return !gpu;
    case SpeedUp::kClass:
      return gpu && ClassifyKernelName(n, comm_kernels) == u.cls;
    case SpeedUp::kName:
      return n.find(u.name) != std::string_view::npos;
    default:
      return false;
  }
}

// The largest bound other than waiting (dependency edges weigh 0).
CpBound MainBound(const Ps* by_bound) {
  int best = 0;
  for (int b = 1; b < kCpBoundCount; ++b)
    if (static_cast<CpBound>(b) != CpBound::kWait && by_bound[b] > by_bound[best]) best = b;
  return static_cast<CpBound>(best);
}

const char* BoundWords(CpBound b) {
  switch (b) {
    case CpBound::kCpu:
      return "CPU-bound";
    case CpBound::kGpuCompute:
      return "GPU-compute-bound";
    case CpBound::kGpuCommunication:
      return "communication-bound";
    case CpBound::kGpuMemory:
      return "GPU-memory-bound";
    case CpBound::kKernelKernel:
      return "bound by gaps between kernels";
    case CpBound::kLaunch:
      return "launch-bound";
    case CpBound::kWait:
      return "waiting";
  }
  return "";
}

struct Window {
  const RankProfile* p;
  int64_t rank;
  CriticalPath cp;
};

// What-if: each --speedup (and all of them together) on every window.
Table WhatIfTable(const Session& s, const std::vector<Window>& windows, const std::vector<SpeedUp>& ups) {
  Table tw("critical_whatif", "What-if: the critical path recomputed with some ops faster");
  tw.Add(RankKey())
      .Add(Key("window", Unit::kText, "the window"))
      .Add(Key("speedup", Unit::kText, "what gets faster (--speedup)"))
      .Add(TimeUs("measured", "the critical path as measured"))
      .Add(TimeUs("predicted", "the longest path with those edges scaled"))
      .Add(Pct("saving_pct", "shorter by, of the measured path", 2))
      .Add(Key("bound_before", Unit::kText, "what bounded it"))
      .Add(Key("bound_after", Unit::kText, "what bounds it then"));
  std::vector<std::pair<std::string, std::vector<const SpeedUp*>>> sets;
  for (const SpeedUp& u : ups) sets.push_back({u.text, {&u}});
  if (ups.size() > 1) {
    std::vector<const SpeedUp*> all;
    for (const SpeedUp& u : ups) all.push_back(&u);
    sets.push_back({"all of the above", all});
  }
  for (const Window& w : windows) {
    for (const auto& [label, set] : sets) {
      std::vector<double> scale(w.cp.edges.size(), 1.0);
      for (size_t e = 0; e < w.cp.edges.size(); ++e)
        for (const SpeedUp* u : set)
          if (Matches(*w.p, w.cp.edges[e], *u, s.view.comm_kernels.get())) scale[e] *= u->scale;
      const CpWhatIf wi = RecomputeCriticalPath(*w.p, w.cp, scale);
      const CpBound before = MainBound(w.cp.by_bound), after = MainBound(wi.by_bound);
      const double saving =
          w.cp.length > 0 ? 100.0 * static_cast<double>(w.cp.length - wi.length) / static_cast<double>(w.cp.length) : 0;
      tw.rows.push_back({Cell::Int(w.rank), Cell::Text(w.cp.window), Cell::Text(label), Cell::Int(w.cp.length),
                         Cell::Int(wi.length), Cell::Real(saving), Cell::Text(CpBoundName(before)),
                         Cell::Text(CpBoundName(after))});
      if (&w == &windows.front())
        tw.notes.push_back(fmt::format("{} shortens {} (rank {}) by {:.1f} %: it is then {}.", label, w.cp.window,
                                       w.rank, saving, BoundWords(after)));
    }
  }
  tw.notes.push_back(
      "The graph keeps its edges; the chosen edges' time is divided by the factor (launch=0 / gap=0 remove launch "
      "delays / kernel gaps) and the longest path is found again.");
  return tw;
}

// The Perfetto export with the windows' paths marked (--perfetto).
StatusOr<Table> WritePerfettoWithPath(const Session& s, const std::vector<Window>& windows,
                                      const CriticalPathOptions& o) {
  PerfettoMarks marks;
  marks.critical.resize(s.profile.ranks.size());
  marks.flows.resize(s.profile.ranks.size());
  size_t marked = 0, flows = 0;
  for (const Window& w : windows) {
    size_t ri = 0;
    while (ri < s.profile.ranks.size() && &s.profile.ranks[ri] != w.p) ++ri;
    if (ri == s.profile.ranks.size()) continue;
    std::vector<uint8_t>& crit = marks.critical[ri];
    if (crit.empty()) crit.assign(w.p->ops.size(), 0);
    for (uint32_t op : w.cp.critical_ops)
      if (!crit[op]) crit[op] = 1, ++marked;
    for (uint32_t e : w.cp.path_edges) {
      const CpEdge& edge = w.cp.edges[e];
      // As HTA's overlay: dependency, launch and sync edges (operator
      // edges lie within an op, kernel-kernel ones along a stream).
      if (edge.type != CpEdgeType::kDependency && edge.type != CpEdgeType::kLaunchDelay &&
          edge.type != CpEdgeType::kSync)
        continue;
      const uint32_t a = w.cp.nodes[edge.from].op, b = w.cp.nodes[edge.to].op;
      if (a == b) continue;
      marks.flows[ri].push_back({a, b});
      ++flows;
    }
  }
  std::FILE* f = std::fopen(o.perfetto.c_str(), "wb");
  if (!f) return InvalidArgument(fmt::format("--perfetto {}: cannot be written: {}", o.perfetto, std::strerror(errno)));
  auto w = WritePerfetto(s.profile, f, o.perfetto, &marks);
  const bool closed = std::fclose(f) == 0;
  if (!w.ok()) return w.status();
  if (!closed) return DataLoss(fmt::format("--perfetto {}: write failed", o.perfetto));
  Table tp("perfetto", "Perfetto trace written (the path's ops marked critical = 1, flows along the path)");
  tp.Add(Key("file", Unit::kText, "written"))
      .Add(Count("marked", "ops given the arg critical = 1"))
      .Add(Count("flows", "flows for the path's dependency, launch and sync edges"))
      .Add(Measure("bytes", Unit::kBytes, "written"));
  tp.rows.push_back({Cell::Text(o.perfetto), Cell::Int(static_cast<int64_t>(marked)),
                     Cell::Int(static_cast<int64_t>(flows)), Cell::Int(static_cast<int64_t>(w->bytes))});
  return tp;
}

// HTA's overlay of the one window's trace (--overlay).
StatusOr<Table> WriteOverlay(const std::vector<Window>& windows, const CriticalPathOptions& o) {
  if (windows.size() != 1) {
    return InvalidArgument(fmt::format(
        "--overlay writes one window of one rank, and there are {}: pick one with --step N, --annotation NAME "
        "[--instance K] or --whole, and --rank R",
        windows.size()));
  }
  auto st = WriteHtaOverlay(*windows[0].p, windows[0].cp, o.overlay);
  if (!st.ok()) return st.status();
  Table tv("overlay", "HTA overlay written (the input trace, critical events and flows marked)");
  tv.Add(Key("file", Unit::kText, "written"))
      .Add(Count("marked", "events given args.critical = 1"))
      .Add(Count("flows", "flow pairs (cat critical_path) for the path's dependency, launch and sync edges"))
      .Add(Measure("bytes", Unit::kBytes, "JSON written (before gzip)"));
  tv.rows.push_back({Cell::Text(o.overlay), Cell::Int(static_cast<int64_t>(st->marked)),
                     Cell::Int(static_cast<int64_t>(st->flows)), Cell::Int(static_cast<int64_t>(st->bytes))});
  return tv;
}

}  // namespace

StatusOr<Report> CriticalPathReport(const Session& s, const CriticalPathOptions& o) {
  Report r = WithImportWarnings(s);
  std::vector<SpeedUp> ups;
  for (const std::string& spec : o.speedups) {
    auto u = ParseSpeedUp(spec);
    if (!u.ok()) return u.status();
    ups.push_back(*u);
  }
  std::vector<Window> windows;
  std::vector<std::string> failures;
  for (size_t ri = 0; ri < s.profile.ranks.size(); ++ri) {
    const RankProfile& p = s.profile.ranks[ri];
    if (!s.Selected(p)) continue;
    const int64_t rank = p.rank_or(static_cast<int64_t>(ri));
    std::vector<CpOptions> opts;
    CpOptions base;
    base.zero_weight_launch_edges = o.zero_weight_launch_edges;
    if (o.whole) {
      opts.push_back(base);
    } else if (o.step >= 0) {
      base.annotation = fmt::format("ProfilerStep#{}", o.step);
      base.exact = true;
      opts.push_back(base);
    } else if (!o.annotation.empty()) {
      base.annotation = o.annotation;
      base.first = o.first;
      base.last = o.last;
      opts.push_back(base);
    } else {
      for (CpOptions w : DefaultCpWindows(p)) {
        w.zero_weight_launch_edges = o.zero_weight_launch_edges;
        opts.push_back(w);
      }
    }
    for (CpResult& res : ComputeCriticalPaths(p, rank, opts)) {
      if (!res.error.empty()) {
        failures.push_back(fmt::format("rank {}: {}", rank, res.error));
        continue;
      }
      windows.push_back({&p, rank, std::move(res.path)});
    }
  }
  if (windows.empty()) {
    return InvalidArgument(failures.empty() ? std::string("no rank selected")
                                            : fmt::format("no critical path: {}", failures.front()));
  }

  // --- per window -------------------------------------------------------------------------
  Table t("critical_path", "Critical path per window (HTA's critical path analysis; what bounds it)");
  t.Add(RankKey())
      .Add(Key("window", Unit::kText, "the step or annotation instance analysed"))
      .Add(TimeUs("window", "the window's span").Show("window_us", 1e6, 3))
      .Add(TimeUs("length", "the critical path's length (its edges' time)"))
      .Add(Count("nodes", "start and end points on the path"))
      .Add(Count("ops", "events with a point on the path"))
      .Add(Key("bound", Unit::kText, "the largest share below"));
  static constexpr CpBound kShown[] = {CpBound::kCpu,       CpBound::kGpuCompute,   CpBound::kGpuCommunication,
                                       CpBound::kGpuMemory, CpBound::kKernelKernel, CpBound::kLaunch};
  static constexpr const char* kShownNames[] = {"cpu_pct",     "gpu_compute_pct", "gpu_comm_pct",
                                                "gpu_mem_pct", "kernel_gap_pct",  "launch_pct"};
  for (size_t b = 0; b < 6; ++b)
    t.Add(Pct(kShownNames[b], fmt::format("share of the path that is {}", CpBoundName(kShown[b])), 1));
  t.columns[2].name = "span";
  for (const Window& w : windows) {
    const CriticalPath& cp = w.cp;
    std::vector<Cell> row{Cell::Int(w.rank),
                          Cell::Text(cp.window),
                          Cell::Int(cp.end - cp.start),
                          Cell::Int(cp.length),
                          Cell::Int(static_cast<int64_t>(cp.path.size())),
                          Cell::Int(static_cast<int64_t>(cp.critical_ops.size())),
                          Cell::Text(CpBoundName(MainBound(cp.by_bound)))};
    for (CpBound b : kShown)
      row.push_back(PctCell(static_cast<double>(cp.by_bound[static_cast<size_t>(b)]), static_cast<double>(cp.length)));
    t.rows.push_back(std::move(row));
  }
  t.notes.push_back(
      "Edges: each op's own time (CPU or GPU), the launch delay when a kernel waited for its call, the gap to the "
      "previous kernel on its stream, and waits for syncs (weight 0). Shares are of the path's length.");
  for (const std::string& f : failures) t.notes.push_back("Skipped: " + f);
  r.tables.push_back(std::move(t));

  // --- ops on the path (all windows) ---------------------------------------------------------
  struct OpAcc {
    int64_t rank;
    bool gpu;
    std::string name;
    int64_t count = 0;
    Ps time = 0;
  };
  std::map<std::tuple<int64_t, bool, std::string>, OpAcc> on_path;
  std::map<std::pair<int64_t, std::string>, std::tuple<int64_t, Ps, Ps>> slack;  // count, time, min slack
  std::map<int64_t, Ps> total;
  for (const Window& w : windows) {
    const RankProfile& p = *w.p;
    const CriticalPath& cp = w.cp;
    total[w.rank] += cp.length;
    std::vector<char> counted(p.ops.size(), 0);
    for (uint32_t e : cp.path_edges) {
      const CpEdge& x = cp.edges[e];
      if (x.type != CpEdgeType::kOperator || x.op < 0) continue;
      const auto i = static_cast<size_t>(x.op);
      const bool gpu = IsGpuOp(p.ops.kind[i]);
      std::string name(p.str(p.ops.name[i]));
      OpAcc& a = on_path[{w.rank, gpu, name}];
      a.rank = w.rank, a.gpu = gpu, a.name = name;
      if (!counted[i]) counted[i] = 1, a.count++;
      a.time += std::max<Ps>(0, x.weight);
    }
    // GPU ops off the path: their slack (how much longer they could run
    // before the path changes).
    std::vector<char> on(p.ops.size(), 0);
    for (uint32_t op : cp.critical_ops) on[op] = 1;
    std::vector<int64_t> snode(p.ops.size(), -1), enode(p.ops.size(), -1);
    for (uint32_t n = 0; n < cp.nodes.size(); ++n) (cp.nodes[n].start ? snode : enode)[cp.nodes[n].op] = n;
    for (size_t i = 0; i < p.ops.size(); ++i) {
      if (on[i] || snode[i] < 0 || enode[i] < 0 || !IsGpuOp(p.ops.kind[i])) continue;
      const auto sn = static_cast<size_t>(snode[i]), en = static_cast<size_t>(enode[i]);
      const Ps through = cp.to[sn] + (cp.nodes[en].ts - cp.nodes[sn].ts) + cp.from[en];
      const Ps sl = std::max<Ps>(0, cp.length - through);
      auto [it, fresh] = slack.try_emplace({w.rank, std::string(p.str(p.ops.name[i]))}, 0, 0, sl);
      auto& [count, time, min_slack] = it->second;
      count++;
      time += p.ops.dur[i];
      min_slack = std::min(min_slack, sl);
    }
  }
  std::vector<OpAcc> ops;
  for (auto& [k, a] : on_path) ops.push_back(a);
  std::stable_sort(ops.begin(), ops.end(),
                   [](const OpAcc& a, const OpAcc& b) { return a.rank != b.rank ? a.rank < b.rank : a.time > b.time; });
  Table to("critical_ops", "Ops on the critical path (their own time on it, all windows)");
  to.Add(RankKey())
      .Add(Key("side", Unit::kText, "cpu (host op or runtime call) or gpu"))
      .Add(Count("count", "instances on the path"))
      .Add(TimeUs("time", "their time on the path"))
      .Add(Pct("pct", "of the path's length", 2))
      .Add(Key("name", Unit::kText, "the op").Symbol());
  std::map<int64_t, int> shown;
  size_t hidden = 0;
  for (const OpAcc& a : ops) {
    if (o.top > 0 && shown[a.rank]++ >= o.top) {
      ++hidden;
      continue;
    }
    to.rows.push_back({Cell::Int(a.rank), Cell::Text(a.gpu ? "gpu" : "cpu"), Cell::Int(a.count), Cell::Int(a.time),
                       PctCell(static_cast<double>(a.time), static_cast<double>(total[a.rank])), Cell::Text(a.name)});
  }
  NoteHiddenRows(to, hidden);
  r.tables.push_back(std::move(to));

  Table ts("critical_slack", "GPU ops off the critical path: how much longer they could run (slack)");
  ts.Add(RankKey())
      .Add(Count("count", "instances off the path"))
      .Add(TimeUs("time", "their GPU time"))
      .Add(TimeUs("min_slack", "the least slack of an instance: how much longer it could run before it is critical"))
      .Add(Key("name", Unit::kText, "the GPU op").Symbol());
  std::vector<std::pair<std::pair<int64_t, std::string>, std::tuple<int64_t, Ps, Ps>>> sl(slack.begin(), slack.end());
  std::stable_sort(sl.begin(), sl.end(), [](const auto& a, const auto& b) {
    return a.first.first != b.first.first ? a.first.first < b.first.first
                                          : std::get<1>(a.second) > std::get<1>(b.second);
  });
  shown.clear();
  hidden = 0;
  for (const auto& [k, v] : sl) {
    if (o.top > 0 && shown[k.first]++ >= o.top) {
      ++hidden;
      continue;
    }
    ts.rows.push_back({Cell::Int(k.first), Cell::Int(std::get<0>(v)), Cell::Int(std::get<1>(v)),
                       Cell::Int(std::get<2>(v)), Cell::Text(k.second)});
  }
  NoteHiddenRows(ts, hidden);
  if (ts.rows.empty()) ts.notes.push_back("Every GPU op in the windows is on the critical path.");
  r.tables.push_back(std::move(ts));

  if (!ups.empty()) r.tables.push_back(WhatIfTable(s, windows, ups));
  if (!o.perfetto.empty()) {
    ASSIGN_OR_RETURN(Table tp, WritePerfettoWithPath(s, windows, o));
    r.tables.push_back(std::move(tp));
  }
  if (!o.overlay.empty()) {
    ASSIGN_OR_RETURN(Table tv, WriteOverlay(windows, o));
    r.tables.push_back(std::move(tv));
  }
  return r;
}

}  // namespace mlprof::app
