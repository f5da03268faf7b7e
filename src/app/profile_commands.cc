// The commands over a loaded profile: summary, info, kernels, ops, idle,
// overlap, steps, launches, scopes.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "analysis/collectives.h"
#include "analysis/diagnose.h"
#include "analysis/engines.h"
#include "analysis/gpu_time.h"
#include "analysis/grade.h"
#include "analysis/host_ops.h"
#include "analysis/idle.h"
#include "analysis/kernel_class.h"
#include "analysis/launches.h"
#include "analysis/layers.h"
#include "analysis/memory.h"
#include "analysis/modules.h"
#include "analysis/ops.h"
#include "analysis/overview.h"
#include "analysis/roofline.h"
#include "analysis/serving.h"
#include "analysis/steps.h"
#include "analysis/xla.h"
#include "app/chip.h"
#include "app/commands.h"
#include "app/shards.h"
#include "report/collective_tables.h"
#include "report/columns.h"
#include "report/diagnose_tables.h"
#include "report/gpu_tables.h"
#include "report/info_tables.h"
#include "report/memory_tables.h"
#include "report/module_tables.h"
#include "report/ops_tables.h"
#include "report/step_tables.h"
#include "report/xla_tables.h"

namespace mlprof::app {

Report WithImportWarnings(const Session& s) {
  Report r;
  r.warnings = ImportWarnings(s.profile);
  for (const RankView& rv : s.view.ranks)
    if (rv.rounding_refused)
      r.warnings.push_back(rv.profile->path +
                           ": --hta-rounding not applied: the trace clock passes 2^53 us, where float64 "
                           "microseconds (HTA's arithmetic) no longer hold every whole microsecond; times are exact");
  return r;
}

namespace {
// The time each set of kernel types runs, summed over the shard's ranks
// (kernel_types is a share of the job's total: computed at the combine).
Table KernelTypeTimeShard(const KernelBreakdown& kb) {
  Table types("_kernel_type_time", "");
  types.Add(Key("mask", Unit::kId, "")).Add(Measure("time", Unit::kTime, ""));
  for (const KernelTypeShare& t : kb.types) types.rows.push_back({Cell::Int(t.mask), Cell::Int(t.time)});
  return types;
}
Table KernelTypeTableOfShards(const std::vector<Report>& shards) {
  std::map<int, Ps> by_mask;
  for (const Table* t : TablesWithId(shards, "_kernel_type_time"))
    for (const auto& row : t->rows) by_mask[static_cast<int>(IntAt(row, 0))] += IntAt(row, 1);
  KernelBreakdown types;
  types.types = KernelTypeShares(by_mask);
  return KernelTypeTable(types);
}
}  // namespace

// Every selected rank's grade (analysis/grade.h), as a hidden table a
// combine can lead with.
Table GradeShard(const Session& s) {
  std::vector<GradeItem> items;
  for (const RankProfile& rank : s.profile.ranks)
    if (s.Selected(rank))
      for (GradeItem& g : GradeRank(rank, rank.rank_or(0))) items.push_back(std::move(g));
  Table t = GradeTable(items);
  t.id = "_grade";
  return t;
}

Table FullGrade(const Session& s) {
  Table t = GradeShard(s);
  t.id = "grade";
  return t;
}

Table FullGrade(const std::vector<const Session*>& runs, const std::vector<std::string>& labels) {
  std::vector<Table> grades;
  for (const Session* s : runs) grades.push_back(FullGrade(*s));
  return RunsGrade(grades, labels);
}

Table RunsGrade(const std::vector<Table>& grades, const std::vector<std::string>& labels) {
  Table t("grade", "");
  for (size_t k = 0; k < grades.size(); ++k) {
    const Table& one = grades[k];
    const std::string label = k < labels.size() ? labels[k] : std::to_string(k);
    if (k == 0) {
      t.title = one.title;
      t.Add(Key("run", Unit::kText, "the run (diff: base or new; compare: its path)"));
      for (const Column& c : one.columns) t.columns.push_back(c);
    }
    for (size_t i = 0; i < one.rows.size(); ++i) {
      std::vector<Cell> row{Cell::Text(label)};
      for (const Cell& c : one.rows[i]) row.push_back(c);
      t.rows.push_back(std::move(row));
      if (i < one.notes.size()) t.notes.push_back(label + ": " + one.notes[i]);
    }
  }
  return t;
}

// The grade's warnings and errors over every shard, as the table a command
// leads with (`mlprof info` shows every item); none when all is well.
StatusOr<std::optional<Table>> LeadingGrade(const std::vector<Report>& shards) {
  ASSIGN_OR_RETURN(Table all, ConcatByRank(shards, "_grade"));
  Table t = all;
  t.id = "grade";
  t.title = "Before the numbers: what the profile holds that they rest on (`mlprof info` lists every item)";
  t.rows.clear();
  t.notes.clear();
  for (size_t k = 0; k < all.rows.size(); ++k)
    if (TextAt(all.rows[k], 2) != "info") {
      t.rows.push_back(all.rows[k]);
      if (k < all.notes.size()) t.notes.push_back(all.notes[k]);
    }
  if (t.rows.empty()) return std::optional<Table>();
  return std::optional<Table>(std::move(t));
}

// summary's shard: the per-rank tables, the XLA tables of its ranks (three
// each), and the kernel-type times summed over its ranks.
StatusOr<Report> SummaryShard(const Session& s, const SummaryOptions& o) {
  Report r;
  Table warnings = WarningsShard(s);
  const Profile& p = s.profile;
  const ProfileView& v = s.view;
  r.tables.push_back(RanksTable(p));
  Table xla_ranks("_xla_ranks", "");
  xla_ranks.Add(RankKey());
  for (const auto& rank : p.ranks) {
    if (!s.Selected(rank) || rank.xla_ops.empty()) continue;
    XlaOps x = ResolveXlaOps(rank);
    XlaBreakdown b = BreakdownXla(rank, x);
    r.tables.push_back(XlaSummaryTable(rank.rank_or(0), b));
    r.tables.push_back(XlaAttributionTable(rank.rank_or(0), b));
    r.tables.push_back(XlaTopOpsTable(rank.rank_or(0), x, XlaOpsByTime(rank, x), o.top_ops));
    for (const auto& problem : x.problems) AddRankWarning(warnings, rank.rank_or(0), problem);
    xla_ranks.rows.push_back({Cell::Int(rank.rank_or(0))});
  }
  r.tables.push_back(std::move(xla_ranks));
  bool any_gpu = false;
  for (const auto& rv : v.ranks) any_gpu |= !rv.gpu.empty();
  Table facts("_facts", "");
  facts.Add(Measure("any_gpu", Unit::kCount, "")).Add(Measure("multi_step", Unit::kCount, ""));
  facts.rows.push_back({Cell::Int(any_gpu), Cell::Int(v.multi_step)});
  r.tables.push_back(std::move(facts));
  r.tables.push_back(TemporalTable(ComputeTemporalBreakdown(v)));
  r.tables.push_back(OverlapTable(ComputeOverlap(v)));
  // The top names per class and the rest folded into "others": every class's
  // rows add up to its total.
  KernelBreakdownOptions ko;
  ko.top = o.top > 0 ? o.top : 1 << 30;
  KernelBreakdown kb = ComputeKernelBreakdown(v, ko);
  r.tables.push_back(KernelTypeTimeShard(kb));
  r.tables.push_back(KernelStatTable(kb));
  StepReport steps = ComputeSteps(v, {o.warmup});
  if (!steps.summary.empty()) r.tables.push_back(StepSummaryTable(steps));
  r.tables.push_back(std::move(warnings));
  r.tables.push_back(GradeShard(s));
  return r;
}

StatusOr<Report> SummaryCombine(std::vector<Report> shards, const SummaryOptions& o, bool all_steps) {
  Report r;
  r.warnings = CombineWarnings(shards);
  ASSIGN_OR_RETURN(std::optional<Table> grade, LeadingGrade(shards));
  const bool gpu_lost = grade && std::any_of(grade->rows.begin(), grade->rows.end(), [](const auto& row) {
                          return TextAt(row, 1) == "gpu_activity_lost" && TextAt(row, 2) == "error";
                        });
  const bool lanes_unread = grade && std::any_of(grade->rows.begin(), grade->rows.end(), [](const auto& row) {
                              return TextAt(row, 1) == "device_lanes_unread";
                            });
  if (grade) r.tables.push_back(std::move(*grade));
  ASSIGN_OR_RETURN(Table ranks, ConcatByRank(shards, "ranks"));
  r.tables.push_back(std::move(ranks));
  // Each rank's XLA tables, in rank order.
  std::vector<std::pair<int64_t, const Table*>> xla;  // rank, its first table
  bool any_gpu = false, multi_step = false;
  for (const Report& shard : shards) {
    size_t at = 1;  // after "ranks"
    for (const Table& t : shard.tables)
      if (t.id == "_xla_ranks")
        for (const auto& row : t.rows) xla.push_back({IntAt(row, 0), &shard.tables[at]}), at += 3;
      else if (t.id == "_facts")
        any_gpu |= IntAt(t.rows.at(0), 0) != 0, multi_step |= IntAt(t.rows.at(0), 1) != 0;
  }
  std::stable_sort(xla.begin(), xla.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [rank, first] : xla)
    for (int k = 0; k < 3; ++k) r.tables.push_back(first[k]);
  if (!any_gpu) {
    if (xla.empty())
      r.tables[grade ? 1 : 0].notes.push_back(
          gpu_lost ? "No GPU stream activity in these inputs although the host launched GPU work: its records are "
                     "missing (the grade above); there is no GPU time to break down."
          : lanes_unread
              ? "No GPU work read: the lanes named like devices are in a layout mlprof does not read (the "
                "grade above); there is no GPU time to break down."
              : "No GPU stream activity in these inputs (a TPU, CPU-only or host-side profile?): there is no GPU "
                "time to break down. `mlprof info` lists what the profile holds.");
    return r;
  }
  ASSIGN_OR_RETURN(Table temporal, ConcatByRank(shards, "temporal"));
  r.tables.push_back(std::move(temporal));
  ASSIGN_OR_RETURN(Table overlap, ConcatByRank(shards, "overlap"));
  r.tables.push_back(std::move(overlap));
  r.tables.push_back(KernelTypeTableOfShards(shards));
  ASSIGN_OR_RETURN(Table kernels, ConcatByRank(shards, "kernels"));
  r.tables.push_back(std::move(kernels));
  if (!TablesWithId(shards, "steady_state").empty()) {
    ASSIGN_OR_RETURN(Table steady, ConcatByRank(shards, "steady_state"));
    r.tables.push_back(std::move(steady));
  }
  if (multi_step && !all_steps)
    r.tables[grade ? 1 : 0].notes.push_back(
        "The last ProfilerStep is left out of the GPU tables (as HTA does); --all-steps keeps it.");
  return r;
}

Sharded SummarySharded(const SummaryOptions& o, bool all_steps) {
  return {[o](const Session& s) { return SummaryShard(s, o); },
          [o, all_steps](std::vector<Report> shards) { return SummaryCombine(std::move(shards), o, all_steps); }};
}

StatusOr<Report> Summary(const Session& s, const SummaryOptions& o) {
  return RunSharded(s, SummarySharded(o, s.inputs.all_steps));
}

Report Info(const Session& s) {
  Report r = WithImportWarnings(s);
  r.tables = InfoTables(SummarizeRanks(s.profile));
  Table grade = GradeShard(s);
  grade.id = "grade";
  r.tables.insert(r.tables.begin() + 1, std::move(grade));
  return r;
}

const std::vector<std::string>& StatsReportNames() {
  static const std::vector<std::string> kNames = {"cuda_gpu_kern_sum",     "cuda_api_sum", "cuda_gpu_mem_time_sum",
                                                  "cuda_gpu_mem_size_sum", "nvtx_sum",     "cuda_kern_exec_sum",
                                                  "op_statistic",          "hccl_ops",     "hccl_links"};
  return kNames;
}

Report Stats(const Session& s, const StatsOptions& o) {
  Report r = WithImportWarnings(s);
  const Summaries sm = ComputeSummaries(s.profile);
  // The first `top` rows of each rank.
  auto keep = [&](auto rows) {
    if (o.top <= 0) return std::pair{rows, size_t{0}};
    std::map<int64_t, int> seen;
    decltype(rows) kept;
    for (auto& row : rows)
      if (seen[row.rank]++ < o.top) kept.push_back(std::move(row));
    const size_t hidden = rows.size() - kept.size();
    return std::pair{std::move(kept), hidden};
  };
  for (const std::string& name : StatsReportNames()) {
    if (!o.reports.empty() && std::find(o.reports.begin(), o.reports.end(), name) == o.reports.end()) continue;
    size_t hidden = 0;
    // torch_npu's reports: by default only where an Ascend run's files gave rows.
    const bool ascend = name == "op_statistic" || name == "hccl_ops" || name == "hccl_links";
    if (ascend && o.reports.empty() &&
        (name == "op_statistic" ? sm.op_statistic.empty()
         : name == "hccl_ops"   ? sm.hccl_ops.empty()
                                : sm.hccl_links.empty()))
      continue;
    if (name == "op_statistic") {
      auto [rows, h] = keep(sm.op_statistic);
      r.tables.push_back(OpStatisticTable(rows)), hidden = h;
    } else if (name == "hccl_ops") {
      auto [rows, h] = keep(sm.hccl_ops);
      r.tables.push_back(HcclOpsTable(rows)), hidden = h;
    } else if (name == "hccl_links") {
      auto [rows, h] = keep(sm.hccl_links);
      r.tables.push_back(HcclLinksTable(rows)), hidden = h;
    } else if (name == "cuda_kern_exec_sum") {
      auto [rows, h] = keep(sm.kern_exec);
      r.tables.push_back(KernExecTable(rows)), hidden = h;
    } else {
      const auto& src = name == "cuda_gpu_kern_sum"       ? sm.kernels
                        : name == "cuda_api_sum"          ? sm.api
                        : name == "cuda_gpu_mem_time_sum" ? sm.mem_time
                        : name == "cuda_gpu_mem_size_sum" ? sm.mem_size
                                                          : sm.nvtx;
      auto [rows, h] = keep(src);
      r.tables.push_back(SummaryTable(name, rows)), hidden = h;
    }
    NoteHiddenRows(r.tables.back(), hidden);
  }
  return r;
}

Sharded KernelsSharded(const TableOptions& o) {
  return PerRankSharded(
      [o](const Session& s) {
        Report r;
        KernelBreakdownOptions ko;
        ko.top = o.top > 0 ? o.top : 1 << 30;
        KernelBreakdown kb = ComputeKernelBreakdown(s.view, ko);
        r.tables.push_back(KernelTypeTimeShard(kb));
        r.tables.push_back(KernelStatTable(kb));
        return r;
      },
      [](Report& r, const std::vector<Report>& shards) {
        r.tables.insert(r.tables.begin(), KernelTypeTableOfShards(shards));
        return OkStatus();
      });
}

Report Kernels(const Session& s, const TableOptions& o) { return RunShardedReport(s, KernelsSharded(o)); }

Sharded OpsSharded(const OpsOptions& o) {
  return PerRankSharded(
      [o](const Session& s) {
        Report r;
        HostOpsOptions ho;
        ho.by_shape = !o.by_name;
        ho.stack_frames = o.by_stack;
        const std::vector<HostFlops> flops = ComputeHostFlops(s.view);
        r.tables.push_back(HostOpsTable(ComputeHostOps(s.view, ho), ho.by_shape, o.top, flops, ho.stack_frames));
        // The per-rank FLOP notes ("Rank N: ..."), put in rank order at the combine.
        Table rank_notes("_rank_notes", "");
        rank_notes.Add(RankKey()).Add(Measure("text", Unit::kText, ""));
        for (const HostFlops& f : flops)
          if (f.costed_calls > 0) {
            auto& notes = r.tables.front().notes;
            auto it = std::find_if(notes.begin(), notes.end(), [&](const std::string& n) {
              return n.starts_with(fmt::format("Rank {}: ", f.rank));
            });
            if (it != notes.end()) rank_notes.rows.push_back({Cell::Int(f.rank), Cell::Text(*it)}), notes.erase(it);
          }
        r.tables.push_back(std::move(rank_notes));
        bool any_stack = false, any_gpu = false;
        for (const auto& rv : s.view.ranks) {
          const OpTable& ops = rv.profile->ops;
          for (size_t i = 0; o.by_stack > 0 && i < ops.size() && !any_stack; ++i)
            any_stack = ops.stack_of(i) != 0 || ops.kind[i] == OpKind::kPythonFunction;
          any_gpu |= !rv.gpu.empty();
        }
        Table facts("_ops", "");
        facts.Add(Measure("any_stack", Unit::kCount, "")).Add(Measure("any_gpu", Unit::kCount, ""));
        facts.rows.push_back({Cell::Int(any_stack), Cell::Int(any_gpu)});
        r.tables.push_back(std::move(facts));
        r.tables.push_back(UncostedShard(s.view));
        if (any_gpu)
          r.tables.push_back(OpsTable(ComputeOpGpuTime(s.view, {!o.by_name}), o.top, SummarizeAttribution(s.view)));
        return r;
      },
      [o](Report& r, const std::vector<Report>& shards) {
        Table& host = r.tables.front();
        std::vector<std::pair<int64_t, std::string>> notes;
        for (const Table* t : TablesWithId(shards, "_rank_notes"))
          for (const auto& row : t->rows) notes.push_back({IntAt(row, 0), TextAt(row, 1)});
        std::stable_sort(notes.begin(), notes.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        for (auto& [rank, text] : notes) host.notes.push_back(std::move(text));
        bool any_stack = false, any_gpu = false;
        for (const Table* t : TablesWithId(shards, "_ops"))
          any_stack |= IntAt(t->rows.at(0), 0) != 0, any_gpu |= IntAt(t->rows.at(0), 1) != 0;
        if (o.by_stack > 0 && !any_stack)
          r.warnings.push_back(
              "--by-stack: these traces record no Python stacks (no \"Call stack\" args, no python_function events); "
              "record with torch.profiler.profile(with_stack=True)");
        for (std::string& w : UncostedWarnings(shards)) r.warnings.push_back(std::move(w));
        if (!any_gpu) host.notes.push_back("No GPU work in these inputs: the GPU time per op is left out.");
        return OkStatus();
      });
}

Report Ops(const Session& s, const OpsOptions& o) { return RunShardedReport(s, OpsSharded(o)); }

Report Idle(const Session& s, const IdleOptions& o) {
  Report r = WithImportWarnings(s);
  mlprof::IdleOptions io;
  io.kernel_wait_threshold = static_cast<Ps>(o.kernel_wait_us) * kPsPerUs;
  auto idle = ComputeIdleBreakdown(s.view, io);
  r.tables.push_back(IdleTable(idle));
  if (o.intervals) r.tables.push_back(IdleStatsTable(idle));
  return r;
}

namespace {
mlprof::DiagnoseOptions RuleOptions(const DiagnoseOptions& o) {
  mlprof::DiagnoseOptions d;
  d.min_share = o.min_share_pct / 100;
  d.min_saving = static_cast<Ps>(std::llround(o.min_saving_us * static_cast<double>(kPsPerUs)));
  d.kernel_wait_threshold = static_cast<Ps>(o.kernel_wait_us) * kPsPerUs;
  d.warmup = o.warmup;
  d.matmul_efficiency = o.matmul_efficiency_pct / 100;
  return d;
}
}  // namespace

// diagnose's shard: the per-rank rules' findings, notes and ranks with no
// chip, and each rank's step summary (the cross-rank rules run on all of them).
StatusOr<Report> DiagnoseShard(const Session& s, const DiagnoseOptions& o) {
  Report r;
  mlprof::DiagnoseOptions d = RuleOptions(o);
  d.cross_rank = false;
  // What the XLA and matmul rules read: each rank's resolved XLA ops, and
  // its roofline where the chip is known (given, or detected).
  ASSIGN_OR_RETURN(hw::ChipDb db, hw::ChipDb::WithFiles({}));
  const hw::Chip* forced = nullptr;
  if (!o.chip.empty()) {
    ASSIGN_OR_RETURN(forced, FindChip(db, o.chip, s.JobDevices()));
  }
  std::map<int64_t, XlaOps> xla;
  std::map<int64_t, RooflineResult> roof;
  std::vector<OpGpuTime> framework_ops;
  bool framework_done = false;
  Table no_chip("_no_chip", "");
  no_chip.Add(RankKey());
  for (const RankView& rv : s.view.ranks) {
    const RankProfile& rank = *rv.profile;
    const hw::Chip* chip = forced ? forced : DetectChip(db, rank.meta.devices).chip;
    if (!rank.xla_ops.empty()) {
      XlaOps& x = xla[rv.rank] = ResolveXlaOps(rank);
      if (chip && chip->peak(DefaultPeakDtype(*chip)) > 0)
        roof[rv.rank] = RooflineXla(rank, x, *chip, DefaultPeakDtype(*chip));
    } else if (!rv.gpu.empty()) {
      if (!chip || !(chip->peak(DefaultPeakDtype(*chip)) > 0)) {
        no_chip.rows.push_back({Cell::Int(rv.rank)});
        continue;
      }
      if (!framework_done) {
        // The steady steps' GPU work where every rank of the job has steps
        // (what the other rules measure), else all of it.
        bool steps = true;
        for (const RankView& x : s.view.ranks) steps = steps && !x.profile->steps.empty();
        if (s.inputs.job.every_rank_has_steps >= 0) steps = s.inputs.job.every_rank_has_steps == 1;
        mlprof::OpsOptions oo{true, steps};
        oo.warmup = o.warmup;
        framework_ops = ComputeOpGpuTime(s.view, oo);
        framework_done = true;
      }
      roof[rv.rank] = RooflineFrameworkOps(framework_ops, rv.rank, *chip, DefaultPeakDtype(*chip), true);
    }
    if (!rank.xla_ops.empty() && !roof.count(rv.rank)) no_chip.rows.push_back({Cell::Int(rv.rank)});
  }
  mlprof::DiagnoseInputs in;
  for (const auto& [rank, x] : xla) in.xla[rank] = &x;
  for (const auto& [rank, rr] : roof) in.roofline[rank] = &rr;
  std::vector<DiagnoseNote> seen;
  std::vector<StepSummary> step_summary;
  std::vector<CommArrival> arrivals;
  std::vector<RankBasis> bases;
  const std::vector<Finding> found = mlprof::Diagnose(s.view, d, in, &seen, &step_summary, &arrivals, &bases);
  // What the wait split needs of each rank (SplitCommunicationWait, in the
  // combine: it matches every rank's collectives).
  Table arrivals_t("_arrivals", "");
  arrivals_t.Add(RankKey());
  for (const char* c : {"kind", "seq", "ts_high", "ts_low", "dur", "exposed"})
    arrivals_t.Add(Measure(c, Unit::kText, ""));
  for (const CommArrival& a : arrivals) {
    std::string exposed;
    for (const Interval& iv : a.exposed)
      exposed += fmt::format("{}{}:{}", exposed.empty() ? "" : ",", iv.start, iv.end);
    arrivals_t.rows.push_back({Cell::Int(a.rank), Cell::Text(a.kind), Cell::Int(a.seq),
                               Cell::Int(static_cast<int64_t>(a.ts >> 64)),
                               Cell::Int(static_cast<int64_t>(static_cast<uint64_t>(a.ts))), Cell::Int(a.dur),
                               Cell::Text(std::move(exposed))});
  }
  r.tables.push_back(std::move(arrivals_t));
  Table bases_t("_bases", "");
  bases_t.Add(RankKey())
      .Add(Measure("step", Unit::kText, ""))
      .Add(Measure("window", Unit::kText, ""))
      .Add(Measure("world_size", Unit::kText, ""));
  for (const RankBasis& b : bases)
    bases_t.rows.push_back({Cell::Int(b.rank), Cell::Int(b.step), Cell::Int(b.window), Cell::Int(b.world_size)});
  r.tables.push_back(std::move(bases_t));
  Table findings("_findings", "");
  for (const char* c : {"rule", "rank", "subject", "evidence", "saving", "step", "formula", "confidence", "per_trace"})
    findings.Add(Measure(c, Unit::kText, ""));
  for (const Finding& f : found)
    findings.rows.push_back({Cell::Int(static_cast<int64_t>(f.rule)), Cell::Int(f.rank), Cell::Text(f.subject),
                             Cell::Text(f.evidence), Cell::Int(f.saving), Cell::Int(f.step), Cell::Text(f.formula),
                             Cell::Int(static_cast<int64_t>(f.confidence)), Cell::Int(f.per_trace ? 1 : 0)});
  r.tables.push_back(std::move(findings));
  Table notes("_notes", "");
  notes.Add(RankKey()).Add(Measure("text", Unit::kText, ""));
  for (DiagnoseNote& n : seen) notes.rows.push_back({Cell::Int(n.rank), Cell::Text(std::move(n.text))});
  r.tables.push_back(std::move(notes));
  r.tables.push_back(std::move(no_chip));
  // The cross-rank rules' input: each rank's steady state, as the rules see it.
  Table steps("_steps", "");
  steps.Add(RankKey());
  for (const char* c : {"steps", "steady_steps", "wall", "span", "busy", "compute", "source"})
    steps.Add(Measure(c, Unit::kRatio, ""));
  for (const StepSummary& x : step_summary)
    steps.rows.push_back({Cell::Int(x.rank), Cell::Int(x.steps), Cell::Int(x.steady_steps),
                          Cell::Real(x.median_wall_us), Cell::Real(x.median_gpu_span_us), Cell::Real(x.median_busy_us),
                          Cell::Real(x.median_compute_us), Cell::Int(static_cast<int64_t>(x.source))});
  r.tables.push_back(std::move(steps));
  r.tables.push_back(WarningsShard(s));
  r.tables.push_back(GradeShard(s));
  return r;
}

StatusOr<Report> DiagnoseCombine(std::vector<Report> shards, const DiagnoseOptions& o) {
  Report r;
  r.warnings = CombineWarnings(shards);
  std::vector<Finding> found;
  for (const Table* t : TablesWithId(shards, "_findings"))
    for (const auto& row : t->rows) {
      Finding f;
      f.rule = static_cast<Rule>(IntAt(row, 0));
      f.rank = IntAt(row, 1);
      f.subject = TextAt(row, 2);
      f.evidence = TextAt(row, 3);
      f.saving = IntAt(row, 4);
      f.step = IntAt(row, 5);
      f.formula = TextAt(row, 6);
      f.confidence = static_cast<Confidence>(IntAt(row, 7));
      f.per_trace = IntAt(row, 8) != 0;
      found.push_back(std::move(f));
    }
  ASSIGN_OR_RETURN(Table steps, ConcatByRank(shards, "_steps"));
  std::vector<StepSummary> summary;
  for (const auto& row : steps.rows)
    summary.push_back({IntAt(row, 0), IntAt(row, 1), IntAt(row, 2), RealAt(row, 3), RealAt(row, 4), RealAt(row, 5),
                       RealAt(row, 6), static_cast<StepSource>(IntAt(row, 7)), ""});
  for (Finding& f : CrossRankFindings(summary, RuleOptions(o))) found.push_back(std::move(f));
  std::vector<CommArrival> arrivals;
  for (const Table* t : TablesWithId(shards, "_arrivals"))
    for (const auto& row : t->rows) {
      CommArrival a;
      a.rank = IntAt(row, 0);
      a.kind = TextAt(row, 1);
      a.seq = IntAt(row, 2);
      a.ts = static_cast<Ps128>(static_cast<unsigned __int128>(static_cast<uint64_t>(IntAt(row, 3))) << 64 |
                                static_cast<uint64_t>(IntAt(row, 4)));
      a.dur = IntAt(row, 5);
      std::string_view e = TextAt(row, 6);
      while (!e.empty()) {
        const size_t comma = std::min(e.find(','), e.size());
        const std::string_view part = e.substr(0, comma);
        const size_t colon = part.find(':');
        if (colon != std::string_view::npos)
          a.exposed.push_back(
              {std::stoll(std::string(part.substr(0, colon))), std::stoll(std::string(part.substr(colon + 1)))});
        e.remove_prefix(std::min(e.size(), comma + 1));
      }
      arrivals.push_back(std::move(a));
    }
  std::vector<RankBasis> bases;
  for (const Table* t : TablesWithId(shards, "_bases"))
    for (const auto& row : t->rows) bases.push_back({IntAt(row, 0), IntAt(row, 1), IntAt(row, 2), IntAt(row, 3)});
  std::sort(bases.begin(), bases.end(), [](const RankBasis& a, const RankBasis& b) { return a.rank < b.rank; });
  std::vector<std::string> split_notes;
  SplitCommunicationWait(found, arrivals, bases, RuleOptions(o), &split_notes);
  SortFindings(found);
  r.tables.push_back(FindingsTable(found));
  Table& t = r.tables.back();
  ASSIGN_OR_RETURN(Table notes, ConcatByRank(shards, "_notes"));
  for (const auto& row : notes.rows) t.notes.push_back(TextAt(row, 1));
  for (std::string& n : split_notes) t.notes.push_back(std::move(n));
  ASSIGN_OR_RETURN(Table no_chip, ConcatByRank(shards, "_no_chip"));
  std::vector<std::string> ranks;
  for (const auto& row : no_chip.rows) ranks.push_back(fmt::format("rank {}", IntAt(row, 0)));
  if (!ranks.empty())
    t.notes.push_back(fmt::format(
        "Not checked on {}: the matmul rules (matmul_efficiency, memory_bound_matmul) need the chip, which is "
        "not known from the profile's device names (or has no peak at all); pass --chip (`mlprof chips` lists them).",
        fmt::join(ranks, ", ")));
  t.notes.push_back(
      "Not checked: hardware-unit bound (scalar or vector units busy while the matrix unit idles) needs per-unit "
      "counters, which none of the profiles mlprof reads carries yet.");
  if (o.rules) r.tables.push_back(RulesTable());
  ASSIGN_OR_RETURN(std::optional<Table> grade, LeadingGrade(shards));
  if (grade) r.tables.insert(r.tables.begin(), std::move(*grade));
  return r;
}

Sharded DiagnoseSharded(const DiagnoseOptions& o) {
  return {[o](const Session& s) { return DiagnoseShard(s, o); },
          [o](std::vector<Report> shards) { return DiagnoseCombine(std::move(shards), o); }};
}

StatusOr<Report> Diagnose(const Session& s, const DiagnoseOptions& o) { return RunSharded(s, DiagnoseSharded(o)); }

Report Layers(const Session& s, int warmup) {
  Report r = WithImportWarnings(s);
  const LayerReport lr = ComputeLayers(s.view, warmup);
  r.tables.push_back(PhasesTable(lr));
  r.tables.push_back(LayersTable(lr));
  r.tables.push_back(BlockTable(lr));
  r.tables.push_back(KernelBlocksTable(lr));
  r.tables.push_back(KernelBlockPartsTable(lr));
  bool xla = false;
  for (const RankView& rv : s.view.ranks) xla = xla || !rv.profile->xla_ops.empty();
  if (xla)
    r.tables.front().notes.push_back(
        "XLA profiles: `mlprof summary` splits device time by forward, backward, remat and optimizer, and "
        "`mlprof scopes` by named scope.");
  return r;
}

Report Overlap(const Session& s) {
  Report r = WithImportWarnings(s);
  r.tables.push_back(OverlapTable(ComputeOverlap(s.view)));
  return r;
}

// steps' shard: each XLA rank's two step tables (listed in `_xla_ranks`,
// in order), the ProfilerStep and serving tables of its ranks, and what the
// notes need over every rank.
Report StepsShard(const Session& s, const StepsOptions& o) {
  Report r;
  Table xla_ranks("_xla_ranks", "");
  xla_ranks.Add(RankKey());
  for (const auto& rank : s.profile.ranks) {
    if (!s.Selected(rank) || rank.xla_ops.empty()) continue;
    XlaOps x = ResolveXlaOps(rank);
    XlaSteps xs = ComputeXlaSteps(rank, BreakdownXla(rank, x), o.warmup);
    if (xs.steps.empty()) continue;
    xla_ranks.rows.push_back({Cell::Int(rank.rank_or(0))});
    for (Table& t : XlaStepTables(rank.rank_or(0), xs)) r.tables.push_back(std::move(t));
  }
  const size_t per_rank = xla_ranks.rows.empty() ? 0 : r.tables.size() / xla_ranks.rows.size();
  r.tables.push_back(std::move(xla_ranks));
  StepReport steps = ComputeSteps(s.view, {o.warmup});
  r.tables.push_back(StepTable(steps));
  r.tables.push_back(StepSummaryTable(steps));
  const ServingReport serving = ComputeServingSteps(s.view, {o.warmup});
  if (!serving.steps.empty()) {
    r.tables.push_back(ServingStepTable(serving));
    r.tables.push_back(ServingSummaryTable(serving));
  }
  Table facts("_steps_facts", "");
  facts.Add(Measure("xla_tables_per_rank", Unit::kCount, "")).Add(Measure("any_steps", Unit::kCount, ""));
  facts.rows.push_back({Cell::Int(static_cast<int64_t>(per_rank)), Cell::Int(!steps.steps.empty())});
  r.tables.push_back(std::move(facts));
  r.tables.push_back(WarningsShard(s));
  return r;
}

StatusOr<Report> StepsCombine(const std::vector<Report>& shards) {
  Report r;
  r.warnings = CombineWarnings(shards);
  // Each XLA rank's tables, in rank order.
  std::vector<std::pair<int64_t, const Table*>> xla;  // rank, its first table
  bool any_steps = false;
  size_t per_rank = 0;
  for (const Report& shard : shards) {
    const Table* facts = nullptr;
    for (const Table& t : shard.tables)
      if (t.id == "_steps_facts") facts = &t;
    if (!facts || facts->rows.empty()) return DataLoss("steps shard: no facts");
    const size_t n = static_cast<size_t>(IntAt(facts->rows[0], 0));
    any_steps |= IntAt(facts->rows[0], 1) != 0;
    size_t at = 0;
    for (const Table& t : shard.tables)
      if (t.id == "_xla_ranks") {
        if (t.rows.size() * n > shard.tables.size()) return DataLoss("steps shard: XLA tables missing");
        for (const auto& row : t.rows) xla.push_back({IntAt(row, 0), &shard.tables[at]}), at += n;
        per_rank = std::max(per_rank, n);
      }
  }
  std::stable_sort(xla.begin(), xla.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [rank, first] : xla)
    for (size_t k = 0; k < per_rank; ++k) r.tables.push_back(first[k]);
  if (!xla.empty() && !any_steps) return r;
  for (const char* id : {"steps", "steady_state"}) {
    ASSIGN_OR_RETURN(Table t, ConcatByRank(shards, id));
    r.tables.push_back(std::move(t));
  }
  if (!TablesWithId(shards, "serving_steps").empty()) {
    r.tables.front().notes.push_back(
        "No ProfilerStep#N: the steps are the serving engine's step ranges (vLLM execute_..., SGLang step[...]), "
        "numbered from 0 in time order.");
    for (const char* id : {"serving_steps", "serving_steady_state"}) {
      ASSIGN_OR_RETURN(Table t, ConcatByRank(shards, id));
      r.tables.push_back(std::move(t));
    }
  }
  if (!any_steps)
    r.tables.front().notes.push_back(
        "No ProfilerStep#N in these inputs (record with torch.profiler's schedule and prof.step()), and no XLA "
        "module executions or Steps line: no steps to show.");
  return r;
}

Sharded StepsSharded(const StepsOptions& o) {
  return {[o](const Session& s) -> StatusOr<Report> { return StepsShard(s, o); },
          [](std::vector<Report> shards) { return StepsCombine(shards); }};
}

Report Steps(const Session& s, const StepsOptions& o) { return RunShardedReport(s, StepsSharded(o)); }

Sharded EnginesSharded(const TableOptions& o) {
  return PerRankSharded(
      [o](const Session& s) {
        Report r;
        r.tables.push_back(EngineTable(ComputeEngines(s.view)));
        // Per-kernel hardware counters, where the profile has them (Ascend PMU).
        // Device counters sampled over time (nsys GPU metrics), where present.
        const std::vector<MetricRow> metrics = ComputeGpuMetrics(s.profile, o.top > 0 ? o.top : 0);
        if (!metrics.empty()) r.tables.push_back(GpuMetricsTable(metrics));
        const UnitReport units = ComputeUnitUtilisation(s.profile);
        if (!units.rows.empty()) {
          size_t hidden = 0;
          r.tables.push_back(UnitsTable(units, o.top, &hidden));
          NoteHiddenRows(r.tables.back(), hidden);
        }
        return r;
      },
      [](Report& r, const std::vector<Report>& shards) {
        // "No op records the bytes" only when no rank's op does.
        bool any_bytes = false;
        for (const Table* t : TablesWithId(shards, "engines"))
          any_bytes |= std::find(t->notes.begin(), t->notes.end(), kNoBytesNote) == t->notes.end();
        if (any_bytes) std::erase(r.tables.front().notes, std::string(kNoBytesNote));
        return OkStatus();
      });
}

Report Engines(const Session& s, const TableOptions& o) { return RunShardedReport(s, EnginesSharded(o)); }

Sharded MemorySharded(const TableOptions& o) {
  return PerRankSharded(
      [o](const Session& s) {
        Report r;
        const std::vector<DeviceMemory> m = ComputeMemory(s.profile);
        const std::vector<CategoryMemory> categories = ComputeMemoryCategories(s.profile);
        if (!categories.empty()) r.tables.push_back(MemoryCategoriesTable(categories));
        r.tables.push_back(MemoryTable(m));
        for (bool at_peak : {true, false}) {
          size_t hidden = 0;
          r.tables.push_back(MemorySitesTable(m, at_peak, o.top, &hidden));
          NoteHiddenRows(r.tables.back(), hidden);
        }
        Table facts("_memory", "");
        facts.Add(Measure("allocator", Unit::kCount, ""));
        facts.rows.push_back({Cell::Int(!m.empty())});
        r.tables.push_back(std::move(facts));
        return r;
      },
      [](Report& r, const std::vector<Report>& shards) {
        // A memory timeline alone (no rank has allocator events): its table only.
        bool any_alloc = false;
        for (const Table* t : TablesWithId(shards, "_memory")) any_alloc |= IntAt(t->rows.at(0), 0) != 0;
        if (!any_alloc && !r.tables.empty() && r.tables.front().id == "memory_categories") r.tables.resize(1);
        return OkStatus();
      });
}

Report Memory(const Session& s, const TableOptions& o) { return RunShardedReport(s, MemorySharded(o)); }

Sharded OverviewSharded() {
  return PerRankSharded(
      [](const Session& s) {
        Report r;
        std::vector<RankOverview> o;
        for (const RankView& rv : s.view.ranks) {
          if (rv.profile->ops.size() == 0) continue;
          o.push_back(ComputeRankOverview(*rv.profile, rv.rank, s.view.comm_kernels.get()));
        }
        r.tables.push_back(OverviewStepTable(o));
        r.tables.push_back(OverviewMeanTable(o));
        r.tables.push_back(GpuSummaryTable(o));
        // What the notes say over every rank.
        Table facts("_overview", "");
        for (const char* c : {"any_steps", "adjusted", "dropped", "host_span", "sources"})
          facts.Add(Measure(c, Unit::kCount, ""));
        for (const RankOverview& x : o)
          facts.rows.push_back({Cell::Int(!x.steps.empty()), Cell::Int(x.gpu_adjusted), Cell::Int(x.dropped_tail_steps),
                                Cell::Int(x.host_span_step), Cell::Int(OverviewSourceBit(x.source))});
        r.tables.push_back(std::move(facts));
        return r;
      },
      [](Report& r, const std::vector<Report>& shards) {
        bool any = false, adjusted = false, host_span = false;
        int64_t dropped = 0;
        uint32_t sources = 0;
        for (const Table* t : TablesWithId(shards, "_overview"))
          for (const auto& row : t->rows)
            any |= IntAt(row, 0) != 0, adjusted |= IntAt(row, 1) != 0, dropped += IntAt(row, 2),
                host_span |= IntAt(row, 3) != 0, sources |= static_cast<uint32_t>(IntAt(row, 4));
        r.tables.front().notes = OverviewStepNotes(adjusted, dropped, host_span, sources);
        if (!any) {
          r.tables.resize(1);
          r.tables.front().notes = {
              "No host ops in these inputs: the overview reads PyTorch (Kineto) traces; for XLA profiles see `mlprof "
              "steps` and `mlprof summary`."};
        }
        return OkStatus();
      });
}

Report Overview(const Session& s) { return RunShardedReport(s, OverviewSharded()); }

Report Launches(const Session& s) {
  Report r = WithImportWarnings(s);
  r.tables.push_back(LaunchSummaryTable(ComputeLaunchStats(s.view, {})));
  std::vector<QueueLengthRow> q = ComputeQueueLength(s.profile);
  std::erase_if(q, [&](const QueueLengthRow& row) { return s.inputs.rank >= 0 && row.rank != s.inputs.rank; });
  if (!q.empty()) r.tables.push_back(QueueLengthTable(q, 1024));
  return r;
}

Sharded CountersSharded(const TableOptions& o) {
  return PerRankSharded(
      [o](const Session& s) {
        Report r;
        auto selected = [&](int64_t rank) { return s.inputs.rank < 0 || rank == s.inputs.rank; };
        std::vector<QueueLengthRow> q = ComputeQueueLength(s.profile);
        std::erase_if(q, [&](const QueueLengthRow& row) { return !selected(row.rank); });
        r.tables.push_back(QueueLengthTable(q, 1024));
        if (q.empty()) r.tables.back().notes = {"No kernel, memcpy or memset launched by a host call in these inputs."};
        std::vector<MemoryBwRow> bw = ComputeMemoryBw(s.profile);
        std::erase_if(bw, [&](const MemoryBwRow& row) { return !selected(row.rank); });
        r.tables.push_back(MemoryBwTable(bw));
        if (bw.empty()) r.tables.back().notes = {"No memcpy or memset with a byte count in these inputs."};
        // Each rank's CUPTI tables (their columns are its counters): a group.
        for (const CuptiRanks& c : ComputeCuptiRanges(s.profile)) {
          if (!selected(c.rank)) continue;
          const size_t first = r.tables.size();
          size_t hidden = 0;
          r.tables.push_back(CuptiRangesTable(c, o.top, &hidden));
          NoteHiddenRows(r.tables.back(), hidden);
          r.tables.push_back(CuptiByOpTable(c, CuptiByOp(c)));
          MarkRankGroup(r, c.rank, first, 2);
        }
        return r;
      },
      [](Report& r, const std::vector<Report>& shards) {
        bool any_ranges = false;
        for (const Table* t : TablesWithId(shards, "_groups")) any_ranges |= !t->rows.empty();
        if (!any_ranges)
          r.tables.back().notes.push_back(
              "No CUPTI range-profiler counters (cuda_profiler_range events): record them with torch.profiler's "
              "_ExperimentalConfig(profiler_metrics=[...], profiler_measure_per_kernel=True).");
        return OkStatus();
      });
}

Report Counters(const Session& s, const TableOptions& o) { return RunShardedReport(s, CountersSharded(o)); }

Report Collectives(const Session& s, const TableOptions& o, int gpus_per_node) {
  Report r = WithImportWarnings(s);
  CollectiveOptions co;
  co.gpus_per_node = gpus_per_node;
  const CollectiveReport c = ComputeCollectives(s.view, co);
  size_t hidden = 0;
  r.tables.push_back(CollectiveSummaryTable(c, o.top, &hidden));
  NoteHiddenRows(r.tables.back(), hidden);
  if (c.kernels == 0)
    r.tables.back().notes.push_back("No collective kernels (nccl, rccl, cross_device_reduce) in these inputs.");
  // Communication kernels of other libraries (DeepEP, NVSHMEM, ...) or of
  // --comm-kernel: communication in every other table, but with no
  // collective description to match across ranks.
  std::map<std::string, std::pair<int64_t, Ps>> other;
  for (const RankView& rv : s.view.ranks)
    for (const GpuOpRef& g : rv.gpu) {
      if (g.cls != KernelClass::kCommunication) continue;
      const std::string_view name = rv.profile->str(rv.profile->ops.name[g.op]);
      std::string_view lib = CommLibraryOf(name);
      if (lib.empty() && ClassifyKernelName(name) == KernelClass::kCommunication) continue;  // NCCL and kin
      auto& [n, t] = other[lib.empty() ? std::string("--comm-kernel") : std::string(lib)];
      ++n, t += g.end - g.ts;
    }
  if (!other.empty()) {
    std::string what;
    for (const auto& [lib, nt] : other)
      what += fmt::format("{}{} ({} kernels, {:.3f} ms)", what.empty() ? "" : ", ", lib, nt.first,
                          static_cast<double>(nt.second) / 1e9);
    r.tables.back().notes.push_back(
        fmt::format("Communication kernels not matched here: {}. They count as communication in summary, overlap and "
                    "diagnose, but record no collective (kind, size, group) to match across ranks.",
                    what));
  }
  // gloo runs its collectives on host threads (CPU tensors, or CUDA tensors
  // staged through the host): no kernel to match, so say what is not here.
  {
    int64_t n = 0, ranks = 0;
    Ps t = 0;
    for (const RankView& rv : s.view.ranks) {
      const OpTable& o = rv.profile->ops;
      int64_t here = 0;
      for (size_t i = 0; i < o.size(); ++i)
        if (IsGlooHostOp(*rv.profile, i)) ++here, t += o.dur[i];
      n += here;
      ranks += here > 0;
    }
    if (n > 0)
      r.tables.back().notes.push_back(fmt::format(
          "Host-side collectives not analysed: {} gloo ops on {} ranks ({:.3f} ms): gloo runs them on host threads, "
          "and the tables above match GPU collective kernels only; `mlprof ops` lists their times.",
          n, ranks, static_cast<double>(t) / 1e9));
  }
  if (c.kernels_without_args > 0)
    r.tables.back().notes.push_back(fmt::format(
        "{} of {} collective kernels carry no collective args (nor does an op above them): no name, size or group; "
        "matched by call order",
        c.kernels_without_args, c.kernels));
  if (c.mismatched > 0)
    r.tables.back().notes.push_back(fmt::format(
        "{} instances whose ranks disagree on the collective, its size or dtype: a rank may have skipped or added "
        "one, which shifts the call-order matching",
        c.mismatched));
  r.tables.back().notes.push_back(fmt::format("GPUs per node: {} (--gpus-per-node).", c.gpus_per_node));
  if (c.world_size > c.ranks && c.kernels > 0)
    r.tables.back().notes.push_back(fmt::format(
        "These inputs hold {} of the job's {} ranks (distributedInfo.world_size): arrivals, skews and the last rank "
        "are among these only.",
        c.ranks, c.world_size));
  hidden = 0;
  r.tables.push_back(LastArrivalTable(c, o.top, &hidden));
  NoteHiddenRows(r.tables.back(), hidden);
  hidden = 0;
  r.tables.push_back(CollectiveInstanceTable(c, o.top, &hidden));
  NoteHiddenRows(r.tables.back(), hidden);
  hidden = 0;
  r.tables.push_back(CollectiveLongTable(c, o.top, &hidden));
  NoteHiddenRows(r.tables.back(), hidden);
  if (!c.alltoall.empty()) r.tables.push_back(AllToAllTable(c));
  return r;
}

// modules' --top keeps the first rows of the job (rank order), not of each
// rank: each shard sends its first `top` rows and how many it left out; the
// combine keeps the job's first `top` and writes the notes.
Sharded ModulesSharded(const TableOptions& o) {
  return PerRankSharded(
      [o](const Session& s) {
        Report r;
        const ModuleReport m = ComputeModules(s.view);
        Table facts("_modules", "");
        facts.Add(Key("table", Unit::kText, "")).Add(Count("hidden", ""));
        // Each table built first, then its count of rows left out.
        auto add = [&](auto build) {
          size_t hidden = 0;
          Table t = build(&hidden);
          facts.rows.push_back({Cell::Text(t.id), Cell::Int(static_cast<int64_t>(hidden))});
          r.tables.push_back(std::move(t));
        };
        add([&](size_t* h) { return ModuleTreeTable(m, o.top, h); });
        add([&](size_t* h) { return ModuleClassTable(m, o.top, h); });
        add([&](size_t* h) { return AnnotationTable(m, o.top, h); });
        if (!m.annotation_steps.empty()) add([&](size_t* h) { return AnnotationStepTable(m, o.top, h); });
        add([&](size_t* h) { return KernelLaunchersTable(m, o.top, h); });
        facts.rows.push_back({Cell::Text("_any_module"), Cell::Int(m.any_module)});
        facts.rows.push_back({Cell::Text("_any_annotation"), Cell::Int(!m.annotations.empty())});
        r.tables.push_back(std::move(facts));
        return r;
      },
      [o](Report& r, const std::vector<Report>& shards) {
        std::map<std::string, int64_t> sums;
        for (const Table* t : TablesWithId(shards, "_modules"))
          for (const auto& row : t->rows) {
            int64_t& v = sums[TextAt(row, 0)];
            v = TextAt(row, 0).starts_with("_any") ? std::max(v, IntAt(row, 1)) : v + IntAt(row, 1);
          }
        for (Table& t : r.tables) {
          auto hidden = static_cast<size_t>(sums[t.id]);
          if (o.top > 0 && t.rows.size() > static_cast<size_t>(o.top)) {
            hidden += t.rows.size() - static_cast<size_t>(o.top);
            t.rows.resize(static_cast<size_t>(o.top));
          }
          NoteHiddenRows(t, hidden);
          if (t.id == "module_tree")
            t.notes.push_back(sums["_any_module"]
                                  ? "(no module): GPU time launched outside every module frame: the backward pass "
                                    "(the autograd thread runs outside the frames), the optimizer, ops called outside "
                                    "the model."
                                  : "No nn.Module frames in these inputs: record with torch.profiler's with_stack=True "
                                    "(and with_modules=True) to have the module tree.");
          if (t.id == "annotations" && !sums["_any_annotation"])
            t.notes.push_back("No user annotations (record_function, gpu_user_annotation) in these inputs.");
        }
        return OkStatus();
      });
}

Report Modules(const Session& s, const TableOptions& o) { return RunShardedReport(s, ModulesSharded(o)); }

Sharded ScopesSharded(const ScopesOptions& o) {
  return PerRankSharded(
      [o](const Session& s) {
        Report r;
        for (const auto& rank : s.profile.ranks) {
          if (!s.Selected(rank) || rank.xla_ops.empty()) continue;
          XlaOps x = ResolveXlaOps(rank);
          XlaBreakdown b = BreakdownXla(rank, x);
          r.tables.push_back(XlaScopesTable(rank.rank_or(0), XlaScopes(rank, x, o.depth), b.total, o.top));
          MarkRankGroup(r, rank.rank_or(0), r.tables.size() - 1, 1);
        }
        return r;
      },
      [](Report& r, const std::vector<Report>&) {
        if (r.tables.empty())
          r.warnings.push_back(
              "no XLA ops in these inputs: `mlprof scopes` reads JAX/XLA profiles (*.xplane.pb, *.trace.json.gz); for "
              "PyTorch traces use `mlprof ops`");
        return OkStatus();
      });
}

Report Scopes(const Session& s, const ScopesOptions& o) { return RunShardedReport(s, ScopesSharded(o)); }

namespace {
std::string CallsList(const std::vector<std::pair<std::string, int64_t>>& ops) {
  std::string list;
  for (const auto& [name, n] : ops) list += fmt::format("{}{} ({} calls)", list.empty() ? "" : ", ", name, n);
  return list;
}
}  // namespace

Table UncostedShard(const ProfileView& v) {
  Table t("_uncosted", "");
  t.Add(Key("why", Unit::kId, "")).Add(Key("op", Unit::kText, "")).Add(Count("calls", ""));
  for (const auto& [name, n] : CostableOpsWithoutShapes(v))
    t.rows.push_back({Cell::Int(0), Cell::Text(name), Cell::Int(n)});
  for (const auto& [name, n] : ConvolutionsWithoutStride(v))
    t.rows.push_back({Cell::Int(1), Cell::Text(name), Cell::Int(n)});
  return t;
}

std::vector<std::string> UncostedWarnings(const std::vector<Report>& shards) {
  std::map<std::string, int64_t> by[2];
  for (const Table* t : TablesWithId(shards, "_uncosted"))
    for (const auto& row : t->rows) by[IntAt(row, 0) != 0][TextAt(row, 1)] += IntAt(row, 2);
  return UncostedWarnings({by[0].begin(), by[0].end()}, {by[1].begin(), by[1].end()});
}

std::vector<std::string> UncostedWarnings(const std::vector<std::pair<std::string, int64_t>>& without_shapes,
                                          const std::vector<std::pair<std::string, int64_t>>& without_stride) {
  std::vector<std::string> out;
  const std::string no_shapes = CallsList(without_shapes);
  if (!no_shapes.empty())
    out.push_back(
        fmt::format("no input shapes for {}: their FLOPs cannot be computed; record the trace with "
                    "torch.profiler.profile(record_shapes=True)",
                    no_shapes));
  const std::string no_stride = CallsList(without_stride);
  if (!no_stride.empty())
    out.push_back(fmt::format(
        "not costed, stride unknown: {}: the trace records no stride, padding or dilation (torch 1.13 writes \"\", "
        "or no Concrete Inputs), and assuming stride 1 could be 4x wrong",
        no_stride));
  return out;
}

}  // namespace mlprof::app
