// `mlprof plan`: the parallelism planner over a model, a chip and a cluster.
#include <fmt/format.h>

#include <cstdlib>

#include "analysis/calibration.h"
#include "analysis/collectives.h"
#include "app/chip.h"
#include "app/commands.h"
#include "app/session.h"
#include "plan/planner.h"
#include "report/plan_explain.h"
#include "report/plan_tables.h"

namespace mlprof::app {

namespace {

// The planner's run problems, in the CLI's words (its flags and the model
// file's keys).
std::string FieldName(plan::RunProblem::Field f) {
  using F = plan::RunProblem::Field;
  switch (f) {
    case F::kTp:
      return "--tp";
    case F::kPp:
      return "--pp";
    case F::kCp:
      return "--cp";
    case F::kEp:
      return "--ep";
    case F::kFsdp:
      return "--fsdp";
    case F::kDp:
      return "--dp";
    case F::kSeq:
      return "--seq";
    case F::kHeads:
      return "model.heads";
    case F::kExperts:
      return "moe.experts";
    case F::kNone:
      break;
  }
  return "?";
}

Status RunProblemStatus(const plan::RunProblem& p, const plan::Cluster& c) {
  using K = plan::RunProblem::Kind;
  switch (p.kind) {
    case K::kNoChips:
      return InvalidArgument("--chips: need at least one chip");
    case K::kChipsNotWholeNodes:
      return InvalidArgument(fmt::format("--chips = {} is not a whole number of {} ({} chips each)", p.value,
                                         c.tpu ? "slices" : "nodes", p.limit));
    case K::kNoPeak:
      return InvalidArgument(fmt::format("chip '{}' has no bf16 peak", c.chip.id));
    case K::kNoLink:
      return InvalidArgument(
          fmt::format("chip '{}' states no scale-up link bandwidth: plans over {} chips need it (--chip-file with an "
                      "\"interconnect\" entry of scope \"scale-up\")",
                      c.chip.id, c.chips));
    case K::kNoHbm:
      return InvalidArgument(fmt::format("chip '{}' has no HBM size", c.chip.id));
    case K::kNoBatch:
      return InvalidArgument("--global-batch: need at least one sequence per step");
    case K::kNoSeq:
      return InvalidArgument("--seq: the sequence length must be positive");
    case K::kAxesProduct:
      return InvalidArgument(
          fmt::format("--ici-axes: the axes multiply to {}, not the {} chips of a slice", p.value, p.limit));
    case K::kNotDivide:
      return InvalidArgument(
          fmt::format("{} = {} does not divide {} = {}", FieldName(p.axis), p.value, FieldName(p.of), p.limit));
    case K::kTpKvHeads:
      return InvalidArgument(
          fmt::format("--tp = {} neither divides nor is a multiple of model.kv_heads = {}", p.value, p.limit));
    case K::kNoExperts:
      return InvalidArgument("--ep: the model has no experts ([moe] table)");
    case K::kPpTooDeep:
      return InvalidArgument(fmt::format("--pp = {} is more than model.layers = {}", p.value, p.limit));
    case K::kPinnedNotDivide:
      return InvalidArgument(
          fmt::format("--chips = {} is not divisible by the pinned degrees (TP x PP x CP x FSDP x DP): {} = {} does "
                      "not fit",
                      p.limit, FieldName(p.axis), p.value));
    case K::kBatchNotDivide:
      return InvalidArgument(
          fmt::format("--global-batch = {} is not divisible by DP x FSDP x micro-batch = {:.0f}", p.value, p.replicas));
    case K::kNoLowPeak:
      return InvalidArgument(
          fmt::format("--precision: chip '{}' has no {} peak in the chip database", c.chip.id, hw::DTypeName(p.low)));
    case K::kScheduleVpp:
      return InvalidArgument(
          fmt::format("--vpp = {} does not go with --schedule {}: interleaved needs V > 1, the "
                      "others run one chunk per stage (V = 1)",
                      p.value, plan::ScheduleName(p.schedule)));
    case K::kDualPipeOddPp:
      return InvalidArgument(
          fmt::format("--pp = {}: DualPipe needs an even number of pipeline stages (two directions)", p.value));
    case K::kBadRemat: {
      const size_t at = p.text.find('@');
      if (at != std::string::npos) {
        const std::string policy = p.text.substr(0, at), frac = p.text.substr(at + 1);
        char* end = nullptr;
        const double f = frac.empty() ? 0 : std::strtod(frac.c_str(), &end);
        if (policy == "none")
          return InvalidArgument(
              fmt::format("--remat '{}': none saves everything already; a fraction goes with a policy that "
                          "recomputes (full@0.5, selective@0.25, ...)",
                          p.text));
        if (!frac.empty() && end == frac.c_str() + frac.size() && !(f > 0 && f <= 1))
          return InvalidArgument(
              fmt::format("--remat '{}': the fraction of layers must be in (0, 1]{}", p.text,
                          f >= 1 && f == static_cast<double>(static_cast<int64_t>(f)) && policy == "full"
                              ? fmt::format("; for {} layers per stage (Megatron --recompute-num-layers) write full:{}",
                                            static_cast<int64_t>(f), static_cast<int64_t>(f))
                              : ""));
      }
      return InvalidArgument(fmt::format(
          "--remat '{}': expected none, save_dots (minimal, selective-op), selective, minimal_with_context, "
          "save_dot_except_mlp, save_qkv_proj, save_out_proj, minimal_offloaded, full, full:N (N layers per "
          "stage), selective-layer:N (every N-th layer) or POLICY@F (a fraction 0 < F <= 1 of the layers)",
          p.text));
    }
  }
  return Internal("unknown run problem");
}

// The profile's own plan: the pinned degrees, DP the rest of the chips,
// the micro-batch pinned or the whole per-replica batch (one micro-batch a
// step), the remat policy pinned or none.
StatusOr<plan::Plan> RunPlan(const plan::ModelSpec& model, const plan::Cluster& c, const plan::TrainSpec& t,
                             const plan::PlanFilter& f) {
  plan::Plan p;
  p.tp = f.tp ? f.tp : 1, p.pp = f.pp ? f.pp : 1, p.cp = f.cp ? f.cp : 1, p.ep = f.ep ? f.ep : 1;
  p.fsdp = f.fsdp ? f.fsdp : 1, p.vpp = f.vpp ? f.vpp : 1;
  const int64_t inner = p.tp * p.pp * p.cp * p.fsdp;
  if (c.chips % inner != 0)
    return InvalidArgument(
        fmt::format("--this-run: TP x PP x CP x FSDP = {} does not divide the {} chips", inner, c.chips));
  p.dp = f.dp ? f.dp : c.chips / inner;
  const int64_t replicas = p.dp * p.fsdp;
  if (t.global_batch % replicas != 0)
    return InvalidArgument(
        fmt::format("--this-run: --global-batch = {} is not divisible by DP x FSDP = {}", t.global_batch, replicas));
  p.mb = f.mb ? f.mb : t.global_batch / replicas;
  if ((t.global_batch / replicas) % p.mb != 0)
    return InvalidArgument(fmt::format("--this-run: --mb = {} does not divide the {} sequences per replica", p.mb,
                                       t.global_batch / replicas));
  p.ga = t.global_batch / replicas / p.mb;
  p.zero = f.zero >= 0 ? f.zero : 1;
  plan::RematSpec remat;
  if (!f.remat.empty() && plan::ParseRemat(f.remat, &remat))
    p.remat = remat.policy, p.remat_fraction = remat.fraction, p.remat_per_stage = remat.per_stage;
  plan::PlanFilter pinned = f;
  pinned.tp = p.tp, pinned.pp = p.pp, pinned.cp = p.cp, pinned.ep = p.ep, pinned.fsdp = p.fsdp, pinned.dp = p.dp;
  pinned.mb = p.mb, pinned.vpp = p.vpp;
  if (std::optional<plan::RunProblem> problem = plan::CheckRun(model, c, t, pinned))
    return RunProblemStatus(*problem, c);
  return p;
}

}  // namespace

StatusOr<Report> Plan(PlanOptions o) {
  ASSIGN_OR_RETURN(hw::ChipDb db, hw::ChipDb::WithFiles(o.chip_files));
  const bool calibrating = !o.calibrate.paths.empty();
  if (o.this_run && !calibrating) return InvalidArgument("--this-run needs --calibrate PROFILE");
  std::optional<Session> run;
  RunMeasurement measured;
  if (calibrating) {
    ASSIGN_OR_RETURN(Session s, OpenSession(o.calibrate, nullptr));
    CollectiveOptions co;
    co.gpus_per_node = static_cast<int>(o.node);
    const CollectiveReport coll = ComputeCollectives(s.view, co);
    measured = MeasureRun(s.view, &coll);
    if (measured.ranks == 0) measured = MeasureXlaRun(s.profile);
    if (measured.ranks == 0)
      return InvalidArgument(fmt::format(
          "--calibrate {}: nothing to measure: no rank has a steady step (ProfilerStep#N after the warm-up; record at "
          "least two) and there are no XLA ops",
          o.calibrate.paths.front()));
    if (o.chips == 0) o.chips = measured.world_size > 0 ? measured.world_size : measured.ranks;
    run = std::move(s);
  }
  if (o.chips == 0) return InvalidArgument("--chips: required (or --calibrate a profile that records its world size)");
  const hw::Chip* chip = nullptr;
  if (!o.chip.empty() || !run) {
    if (o.chip.empty()) return InvalidArgument("--chip: required (or --calibrate a profile that names its GPU)");
    ASSIGN_OR_RETURN(chip, FindChip(db, o.chip));
  } else {
    DetectedChip detected = DetectChip(db, run->profile.AllDevices());
    if (!detected.chip)
      return InvalidArgument(fmt::format("--calibrate: cannot tell the chip from the profile ({}){}; pass --chip",
                                         detected.seen.empty() ? "no device named" : detected.seen.front(),
                                         detected.ClosestHint(db)));
    chip = detected.chip;
  }
  const bool is_file =
      o.model.find('/') != std::string::npos || (o.model.size() > 5 && o.model.substr(o.model.size() - 5) == ".toml");
  ASSIGN_OR_RETURN(plan::ModelSpec model, is_file ? plan::LoadModelFile(o.model) : plan::BuiltInModel(o.model));
  std::vector<int64_t> axes;
  if (!o.ici_axes.empty()) {
    ASSIGN_OR_RETURN(axes, ParseAxes(o.ici_axes));
  }
  int64_t node = o.node;
  if (o.slices > 0) {
    if (chip->kind != "tpu") return InvalidArgument("--slices: TPU chips only (GPUs: --gpus-per-node)");
    if (o.chips % o.slices != 0)
      return InvalidArgument(fmt::format("--slices = {} does not divide --chips = {}", o.slices, o.chips));
    node = o.chips / o.slices;
  }
  plan::Cluster cluster = plan::MakeCluster(*chip, o.chips, node, axes);
  plan::TrainSpec& t = o.train;
  if (t.seq == 0) t.seq = model.seq_len;
  if (t.seq == 0) return InvalidArgument("--seq: the model file has no seq_len; give --seq");
  if (!o.precision.empty()) {
    hw::DType d;
    if (!hw::ParseDType(o.precision, &d) || (d != hw::DType::kBf16 && d != hw::DType::kFp8 && d != hw::DType::kInt8))
      return InvalidArgument(fmt::format("--precision '{}': expected bf16, fp8 or int8", o.precision));
    t.precision = d;
  }
  if (!o.schedule.empty() && !plan::ParseSchedule(o.schedule, &t.schedule))
    return InvalidArgument(
        fmt::format("--schedule '{}': expected auto, 1f1b, interleaved, zb or dualpipe", o.schedule));
  const std::string mem = o.memory.empty() ? (cluster.tpu ? "maxtext" : "megatron") : o.memory;
  if (!plan::ParseMemoryConvention(mem, &t.memory))
    return InvalidArgument(fmt::format("--memory '{}': expected megatron, zero or maxtext", mem));
  o.filter.max_mem_bytes = o.max_mem_gb * 1e9;
  o.knobs.latency = o.latency_us * 1e-6;
  std::optional<plan::Calibration> cal;
  if (run) {
    // With --this-run the pins describe the profile's run (and the search is
    // free); else they only filter the search, and the run is taken as
    // data-parallel over every chip, one micro-batch a step, no remat.
    plan::PlanFilter described;
    if (o.this_run) described = o.filter;
    ASSIGN_OR_RETURN(plan::Plan own, RunPlan(model, cluster, t, described));
    cal = plan::Calibrate(measured, model, cluster, t, o.knobs, own);
    o.knobs = cal->knobs;
    // The search is for the same job: the pins described this run.
    if (o.this_run) {
      plan::PlanFilter free;
      free.max_mem_bytes = o.filter.max_mem_bytes, free.include_oom = o.filter.include_oom;
      free.include_dominated = o.filter.include_dominated;
      o.filter = free;
    }
  }
  if (std::optional<plan::RunProblem> problem = plan::CheckRun(model, cluster, t, o.filter))
    return RunProblemStatus(*problem, cluster);
  plan::PlanSearch search = plan::SearchPlans(model, cluster, t, o.knobs, o.filter);
  Report r;
  r.tables.push_back(PlanSettingTable(model, cluster, t, o.knobs, o.filter, search, cal.has_value()));
  if (cal) {
    r.tables.push_back(CalibrationTable(measured, *cal, run->inputs.paths));
    if (o.this_run) r.tables.push_back(ThisRunTable(measured, *cal, search.plans.empty() ? nullptr : &search.plans[0]));
  }
  if (o.explain > 0) {
    if (static_cast<size_t>(o.explain) > search.plans.size())
      return InvalidArgument(fmt::format("--explain {}: there are {} plans", o.explain, search.plans.size()));
    r.tables.push_back(PlansTable({search.plans[o.explain - 1]}, 0, o.explain));
    r.tables.push_back(PlanExplainTable(o.explain, model, cluster, t, o.knobs,
                                        plan::Explain(model, cluster, t, o.knobs, search.plans[o.explain - 1])));
  } else {
    r.tables.push_back(PlansTable(search.plans, o.top));
  }
  return r;
}

}  // namespace mlprof::app
