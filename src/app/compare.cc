// mlprof compare RUN...: the table of runs engineers keep by hand.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "analysis/stats.h"
#include "analysis/steps.h"
#include "app/chip.h"
#include "app/commands.h"
#include "report/columns.h"
#include "report/info_tables.h"

namespace mlprof::app {

StatusOr<Report> Compare(const std::vector<const Session*>& runs, const std::vector<std::string>& paths,
                         const CompareOptions& o) {
  if (!o.labels.empty() && o.labels.size() != runs.size())
    return InvalidArgument(
        fmt::format("--label: {} labels for {} runs (give one per run, or none)", o.labels.size(), runs.size()));
  // The peak per device for MFU: given, or the chip's (given, or detected per run).
  ASSIGN_OR_RETURN(const hw::DType dtype, ParseDTypeOption(o.dtype));
  ASSIGN_OR_RETURN(hw::ChipDb db, hw::ChipDb::WithFiles({}));
  const hw::Chip* forced = nullptr;
  if (!o.chip.empty()) {
    ASSIGN_OR_RETURN(forced, FindChip(db, o.chip));
    if (!(forced->peak(dtype) > 0))
      return InvalidArgument(fmt::format("--chip {}: no {} peak in the chip database", forced->id, o.dtype));
  }
  struct Row {
    std::string label;
    std::string chip;    // the chip whose peak MFU uses ("" unknown)
    double peak = 0;     // FLOP/s per device
    std::string device;  // a device name seen, when no chip was found
    int64_t ranks = 0, steps = 0;
    int64_t slow_rank = -1;
    bool whole_trace = false;                      // a rank has no iterations: its step is its trace
    double step = NAN, p25 = NAN, p75 = NAN;       // ps
    double compute = NAN, comm = NAN, idle = NAN;  // medians, ps
  };
  std::vector<Row> rows;
  for (size_t k = 0; k < runs.size(); ++k) {
    const Session& s = *runs[k];
    Row r;
    r.label = o.labels.empty() ? std::filesystem::path(paths[k]).filename().string() : o.labels[k];
    if (r.label.empty()) r.label = paths[k];
    r.ranks = static_cast<int64_t>(s.view.ranks.size());
    for (const RankView& rv : s.view.ranks) r.whole_trace |= rv.profile->step_source == StepSource::kTrace;
    if (o.peak_tflops > 0) {
      r.peak = o.peak_tflops * 1e12;
    } else {
      const DetectedChip d = forced ? DetectedChip{forced, "", {}} : DetectChip(db, s.profile.AllDevices());
      if (d.chip) r.chip = d.chip->id, r.peak = d.chip->peak(dtype);
      if (!d.chip && !d.seen.empty()) r.device = d.seen.front();
    }
    const StepReport sr = ComputeSteps(s.view, {});
    std::map<int64_t, std::vector<const StepBreakdown*>> by_rank;
    for (const StepBreakdown& b : sr.steps) {
      const bool chosen =
          o.first_step >= 0 ? b.number >= o.first_step && b.number <= o.last_step : !b.warmup && !b.last;
      if (chosen) by_rank[b.rank].push_back(&b);
    }
    // The job's step is its slowest rank's median.
    for (const auto& [rank, steps] : by_rank) {
      std::vector<double> wall, compute, comm, idle;
      for (const StepBreakdown* b : steps) {
        wall.push_back(static_cast<double>(b->wall));
        compute.push_back(static_cast<double>(b->compute));
        comm.push_back(static_cast<double>(b->communication));
        idle.push_back(static_cast<double>(b->idle));
      }
      const double m = Median(wall);
      if (std::isnan(r.step) || m > r.step) {
        r.step = m, r.slow_rank = rank, r.steps = static_cast<int64_t>(steps.size());
        std::sort(wall.begin(), wall.end());
        r.p25 = QuantileSorted(wall, 0.25), r.p75 = QuantileSorted(wall, 0.75);
        r.compute = Median(compute), r.comm = Median(comm), r.idle = Median(idle);
      }
    }
    rows.push_back(std::move(r));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    if (std::isnan(a.step) != std::isnan(b.step)) return !std::isnan(a.step);
    return a.step < b.step;
  });
  const double best = rows.empty() ? NAN : rows.front().step;

  Report rep;
  for (size_t k = 0; k < runs.size(); ++k)
    for (const std::string& w : ImportWarnings(runs[k]->profile))
      rep.warnings.push_back(w.rfind(paths[k], 0) == 0 ? w : paths[k] + ": " + w);  // once, not twice
  bool all_whole = !rows.empty();
  for (const Row& r : rows) all_whole = all_whole && r.whole_trace;
  Table t("runs", all_whole ? "Runs, fastest trace first (no steps in any run: each is one whole trace; ms)"
                            : "Runs, fastest step first (ms)");
  t.Add(Key("run", Unit::kText, "the run's label (--label, else the path's last part)"))
      .Add(Count("ranks", "ranks in the run"))
      .Add(Count("steps", "steps measured on the slowest rank"))
      .Add(TimeMs("step", "the job's step time: the slowest rank's median"))
      .Add(TimeMs("p25", "its 25th percentile step"))
      .Add(TimeMs("p75", "its 75th percentile step"))
      .Add(TimeMs("vs_best", "step - the fastest run's step"))
      .Add(Measure("vs_best_pct", Unit::kPercent, "(step - best) / best").Decimals(1))
      .Add(Measure("compute_pct", Unit::kPercent, "median computation time per step / the step").Decimals(1))
      .Add(Measure("comm_pct", Unit::kPercent, "median communication time per step / the step").Decimals(1))
      .Add(Measure("idle_pct", Unit::kPercent, "median GPU idle per step / the step").Decimals(1));
  if (o.tokens_per_step > 0) t.Add(Measure("tokens_per_s", Unit::kRatio, "--tokens-per-step / the step").Decimals(0));
  const bool mfu = o.flops_per_step > 0;
  if (mfu) {
    if (o.peak_tflops <= 0) t.Add(Text("chip", "the chip whose peak MFU uses (--chip, else detected from the run)"));
    t.Add(Measure("mfu_pct", Unit::kPercent, "--flops-per-step / (step x ranks x peak per device)").Decimals(1));
  }
  for (const Row& r : rows) {
    std::vector<Cell> row = {Cell::Text(r.label),
                             Cell::Int(r.ranks),
                             Cell::Int(r.steps),
                             TimeCell(r.step),
                             TimeCell(r.p25),
                             TimeCell(r.p75),
                             TimeCell(r.step - best),
                             PctCell(r.step - best, best),
                             PctCell(r.compute, r.step),
                             PctCell(r.comm, r.step),
                             PctCell(r.idle, r.step)};
    const double seconds = r.step / 1e12;
    if (o.tokens_per_step > 0) row.push_back(seconds > 0 ? Cell::Real(o.tokens_per_step / seconds) : Cell::Null());
    if (mfu && o.peak_tflops <= 0) row.push_back(r.chip.empty() ? Cell::Null() : Cell::Text(r.chip));
    if (mfu)
      row.push_back(seconds > 0 && r.ranks > 0 && r.peak > 0
                        ? Cell::Real(100 * o.flops_per_step / (seconds * static_cast<double>(r.ranks) * r.peak))
                        : Cell::Null());
    t.rows.push_back(std::move(row));
  }
  for (const Row& r : rows)
    if (mfu && o.peak_tflops <= 0 && !(r.peak > 0))
      t.notes.push_back(fmt::format("{}: no MFU, {}; pass --chip or --peak-tflops.", r.label,
                                    !r.chip.empty() ? fmt::format("the chip {} has no {} peak", r.chip, o.dtype)
                                    : r.device.empty()
                                        ? std::string("its profile names no device")
                                        : fmt::format("the chip database does not know its device ({})", r.device)));
  std::string whole, stepped;
  for (const Row& r : rows)
    (r.whole_trace ? whole : stepped) += (r.whole_trace ? whole : stepped).empty() ? r.label : ", " + r.label;
  if (!whole.empty() && !stepped.empty())
    t.notes.insert(t.notes.begin(),
                   fmt::format("{}: no iterations found, so the step is the whole trace; not comparable with the steps "
                               "of {}.",
                               whole, stepped));
  if (all_whole) {
    t.notes.push_back(
        "No run has iterations (no ProfilerStep#N, serving step, Optimizer.step range, iteration annotation or "
        "repeating top-level ops): step_ms is each run's whole trace, and the runs may hold different amounts of "
        "work.");
    t.notes.push_back("Shares are of the slowest rank's trace.");
  } else {
    t.notes.push_back(
        o.first_step >= 0
            ? fmt::format("Steps {} to {} (ProfilerStep numbers).", o.first_step, o.last_step)
            : "Steps after the warm-up, as mlprof steps takes them (the last left out unless --all-steps).");
    t.notes.push_back("Shares are of the slowest rank's median step; GPU work may run past its step.");
  }
  rep.tables.push_back(std::move(t));
  return rep;
}

}  // namespace mlprof::app
