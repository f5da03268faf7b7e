// mlprof diagnose.
#include "analysis/diagnose.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "analysis/ops.h"
#include "analysis/roofline.h"
#include "analysis/steps.h"
#include "analysis/xla.h"
#include "app/chip.h"
#include "app/command_parts.h"
#include "app/commands.h"
#include "app/shards.h"
#include "report/columns.h"
#include "report/diagnose_tables.h"

namespace mlprof::app {

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

}  // namespace mlprof::app
