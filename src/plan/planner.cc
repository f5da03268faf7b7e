#include "plan/planner.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "base/collective.h"
#include "plan/step_model.h"

namespace mlprof::plan {

// ---- parameters and FLOPs ------------------------------------------------------

double AttentionParams(const ModelSpec& m) {
  const double d = static_cast<double>(m.hidden), nq = static_cast<double>(m.heads);
  if (m.mla()) {
    // DeepSeek MLA (Megatron theoretical_memory_usage.py): the query through
    // a low-rank bottleneck (or directly), keys/values from a shared
    // latent, a decoupled RoPE key, the output projection; +1 per rank for
    // the bottleneck norms.
    const double nope = static_cast<double>(m.qk_nope_dim), rope = static_cast<double>(m.qk_rope_dim),
                 dv = static_cast<double>(m.v_head_dim), ql = static_cast<double>(m.q_lora_rank),
                 kvl = static_cast<double>(m.kv_lora_rank);
    const double q = ql > 0 ? ql * (d + nq * (nope + rope) + 1) : d * nq * (nope + rope);
    return q + kvl * (d + nq * (nope + dv) + 1) + d * rope + nq * dv * d;
  }
  const double dh = static_cast<double>(m.head_dim), nkv = static_cast<double>(m.kv_heads);
  return d * nq * dh + 2 * d * nkv * dh + nq * dh * d;
}

double DenseMlpParams(const ModelSpec& m, int64_t ffn) {
  return (m.gated ? 3.0 : 2.0) * static_cast<double>(m.hidden) * static_cast<double>(ffn);
}

double MoeParams(const ModelSpec& m, bool active) {
  const double d = static_cast<double>(m.hidden),
               per_expert = (m.gated ? 3.0 : 2.0) * d * static_cast<double>(m.expert_ffn);
  const double routed = static_cast<double>(active ? m.top_k : m.experts) * per_expert;
  const double shared =
      static_cast<double>(m.shared_experts) * (m.gated ? 3.0 : 2.0) * d * static_cast<double>(m.shared_ffn);
  return routed + shared + d * static_cast<double>(m.experts);  // + router
}

double NormParams(const ModelSpec& m) { return (m.layernorm ? 4.0 : 2.0) * static_cast<double>(m.hidden); }

ParamCounts CountParams(const ModelSpec& m) {
  ParamCounts p;
  const double d = static_cast<double>(m.hidden), v = static_cast<double>(m.vocab);
  const double attn = AttentionParams(m), norm = NormParams(m);
  for (const LayerGroup& g : m.groups) {
    const double n = static_cast<double>(g.count);
    double mlp_all, mlp_active;
    if (g.moe) {
      mlp_all = MoeParams(m, false), mlp_active = MoeParams(m, true);
      p.experts += n * static_cast<double>(m.experts) * (m.gated ? 3.0 : 2.0) * d * static_cast<double>(m.expert_ffn);
    } else {
      mlp_all = mlp_active = DenseMlpParams(m, g.ffn > 0 ? g.ffn : m.ffn);
    }
    p.layers += n * (attn + mlp_all + norm);
    p.active += n * (attn + mlp_active + norm);
    p.matmul_active += n * (attn + mlp_active);
  }
  p.embedding = v * d + static_cast<double>(m.position_embeddings) * d;
  p.output = m.tied_embeddings ? 0 : v * d;
  const double final_norm = (m.layernorm ? 2.0 : 1.0) * d;
  p.total = p.layers + p.embedding + p.output + final_norm;
  p.active += p.embedding + p.output + final_norm;
  p.matmul_active += v * d;  // the unembedding multiplies every token, tied or not
  return p;
}

double AttnWidths(const ModelSpec& m, double* dqk, double* dv) {
  if (m.mla()) {
    *dqk = static_cast<double>(m.qk_nope_dim + m.qk_rope_dim);
    *dv = static_cast<double>(m.v_head_dim);
  } else {
    *dqk = *dv = static_cast<double>(m.head_dim);
  }
  return static_cast<double>(m.heads);
}

double AttentionScoreFlops(const ModelSpec& m, const LayerGroup& g, int64_t seq, bool causal_half) {
  double dqk, dv;
  const double nq = AttnWidths(m, &dqk, &dv);
  double ctx = static_cast<double>(g.window > 0 ? std::min(seq, g.window) : seq);
  if (causal_half) ctx /= 2;
  return 2 * ctx * nq * (dqk + dv);
}

double TrainFlopsPerToken(const ModelSpec& m, int64_t seq, bool causal_half) {
  double f = 6 * CountParams(m).matmul_active;
  for (const LayerGroup& g : m.groups)
    f += 3 * static_cast<double>(g.count) * AttentionScoreFlops(m, g, seq, causal_half);
  return f;
}

// ---- names -------------------------------------------------------------------------

const char* RematName(Remat r) {
  switch (r) {
    case Remat::kNone:
      return "none";
    case Remat::kSaveDots:
      return "save_dots";
    case Remat::kSelective:
      return "selective";
    case Remat::kMinimalWithContext:
      return "minimal_with_context";
    case Remat::kSaveDotExceptMlp:
      return "save_dot_except_mlp";
    case Remat::kSaveQkvProj:
      return "save_qkv_proj";
    case Remat::kSaveOutProj:
      return "save_out_proj";
    case Remat::kMinimalOffloaded:
      return "minimal_offloaded";
    case Remat::kFull:
      return "full";
    default:
      return "?";
  }
}

bool ParseRemat(std::string_view s, Remat* out) {
  for (int i = 0; i < static_cast<int>(Remat::kCount); ++i)
    if (s == RematName(static_cast<Remat>(i))) return *out = static_cast<Remat>(i), true;
  if (s == "minimal" || s == "selective-op") return *out = Remat::kSaveDots, true;
  return false;
}

bool ParseRemat(std::string_view s, RematSpec* out) {
  RematSpec r;
  auto positive = [](std::string_view t, int64_t* n) {
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), *n);
    return ec == std::errc() && end == t.data() + t.size() && *n > 0;
  };
  if (s.substr(0, 16) == "selective-layer:") {
    int64_t n = 0;
    if (!positive(s.substr(16), &n)) return false;
    r.policy = Remat::kFull, r.fraction = 1.0 / static_cast<double>(n);
    return *out = r, true;
  }
  if (s.substr(0, 5) == "full:") {
    if (!positive(s.substr(5), &r.per_stage)) return false;
    r.policy = Remat::kFull;
    return *out = r, true;
  }
  const size_t at = s.find('@');
  if (at != std::string_view::npos) {
    const std::string frac(s.substr(at + 1));
    char* end = nullptr;
    const double f = frac.empty() ? 0 : std::strtod(frac.c_str(), &end);
    if (frac.empty() || end != frac.c_str() + frac.size() || !(f > 0 && f <= 1)) return false;
    if (!ParseRemat(s.substr(0, at), &r.policy) || r.policy == Remat::kNone) return false;
    r.fraction = f;
    return *out = r, true;
  }
  if (!ParseRemat(s, &r.policy)) return false;
  return *out = r, true;
}

std::string RematLabel(Remat r, double fraction, int64_t per_stage) {
  if (per_stage > 0) return std::string(RematName(r)) + ":" + std::to_string(per_stage);
  if (fraction < 1) return fmt::format("{}@{:g}", RematName(r), fraction);
  return RematName(r);
}

const char* ScheduleName(Schedule s) {
  switch (s) {
    case Schedule::kAuto:
      return "auto";
    case Schedule::k1F1B:
      return "1f1b";
    case Schedule::kInterleaved:
      return "interleaved";
    case Schedule::kZeroBubble:
      return "zb";
    case Schedule::kDualPipe:
      return "dualpipe";
  }
  return "?";
}

bool ParseSchedule(std::string_view s, Schedule* out) {
  for (Schedule x :
       {Schedule::kAuto, Schedule::k1F1B, Schedule::kInterleaved, Schedule::kZeroBubble, Schedule::kDualPipe})
    if (s == ScheduleName(x)) return *out = x, true;
  return false;
}

bool ParseMemoryConvention(std::string_view s, MemoryConvention* out) {
  if (s == "megatron") return *out = {"megatron", 2, 4, 12}, true;
  if (s == "zero") return *out = {"zero", 2, 2, 12}, true;
  if (s == "maxtext") return *out = {"maxtext", 4, 4, 8}, true;
  return false;
}

Cluster MakeCluster(const hw::Chip& chip, int64_t chips, int64_t node_size, std::vector<int64_t> axes) {
  Cluster c;
  c.chip = chip;
  c.chips = chips;
  c.tpu = chip.kind == "tpu";
  c.node_size = node_size > 0 ? node_size : (c.tpu ? chips : 8);
  if (!c.tpu && chips > 0 && chips < c.node_size) c.node_size = chips;  // part of one node
  c.axes = std::move(axes);
  for (const auto& l : chip.interconnect) {
    if (l.scope == "scale-up" && c.fast_bw == 0)
      c.fast_bw = l.bytes_per_s_per_dir_per_axis > 0 ? l.bytes_per_s_per_dir_per_axis : l.bytes_per_s_per_dir();
    if (l.scope == "scale-out" && c.slow_bw == 0) c.slow_bw = l.bytes_per_s_per_dir();  // per chip (its NIC)
    if (l.scope == "host" && c.host_bw == 0) c.host_bw = l.bytes_per_s_per_dir();
  }
  if (c.slow_bw == 0) c.slow_bw = c.fast_bw / 8;  // not stated: an order below the scale-up link
  return c;
}

GemmFigure GemmEfficiency(const Knobs& k, const hw::Chip& chip) {
  if (k.gemm > 0) return {k.gemm, GemmSource::kGiven};
  // Fitted by scripts/calibrate_planner.sh on the calibration half of
  // MaxText's published MFU table (docs/PLANNER.md).
  struct Fit {
    const char* chip;
    double gemm;
  };
  static constexpr Fit kFits[] = {{"tpu-v6e", 0.46}, {"tpu-v5p", 0.65}, {"h100-sxm", 0.73}};
  double sum = 0;
  for (const Fit& f : kFits) {
    sum += f.gemm;
    if (chip.id == f.chip) return {f.gemm, GemmSource::kCalibrated};
  }
  return {sum / static_cast<double>(std::size(kFits)), GemmSource::kMeanOfCalibrated};
}

double GemmKernelEfficiency(const Knobs& k, const hw::Chip& chip, double gemm) {
  if (k.gemm_kernel > 0) return std::max(k.gemm_kernel, gemm);
  // Matmul kernels' FLOPs / time / peak in the H100 training traces of
  // tests/data/h100 (0.796 and 0.781: the median of their size classes 0.79).
  if (k.gemm <= 0 && chip.id == "h100-sxm") return std::max(0.79, gemm);
  return gemm;
}

double GemmSeconds(double m, double n, double k, double peak, double hbm, bool gpu) {
  const double compute = 2 * m * n * k / (0.8 * peak);
  const double bytes = 2 * (m * k + k * n + m * n);
  return std::max(compute, bytes / (0.85 * hbm)) + (gpu ? 4e-6 : 0);
}

double GemmShapeFactor(double m, double n, double k, double peak, double hbm, bool gpu) {
  double compute = 0, time = 0;
  const double shapes[3][3] = {{m, n, k}, {m, k, n}, {k, n, m}};  // forward, input and weight gradients
  for (const auto& sh : shapes) {
    compute += 2 * sh[0] * sh[1] * sh[2] / (0.8 * peak);
    time += GemmSeconds(sh[0], sh[1], sh[2], peak, hbm, gpu);
  }
  return time > 0 ? compute / time : 1;
}

const char* BottleneckName(Bottleneck b) {
  switch (b) {
    case Bottleneck::kCompute:
      return "compute";
    case Bottleneck::kTp:
      return "TP";
    case Bottleneck::kEp:
      return "EP";
    case Bottleneck::kFsdpDp:
      return "FSDP+DP";
    case Bottleneck::kCp:
      return "CP";
    case Bottleneck::kPpBubble:
      return "PP+bubble";
    case Bottleneck::kOptimizer:
      return "optimizer";
    case Bottleneck::kHost:
      return "host";
    case Bottleneck::kMemory:
      return "memory";
    default:
      return "?";
  }
}

// ---- one plan -----------------------------------------------------------------------

namespace {

// Derived, Derive, ComputePlan and PlanGemmShape: plan/step_model.cc.

std::vector<int64_t> Divisors(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t i = 1; i * i <= n; ++i)
    if (n % i == 0) {
      out.push_back(i);
      if (i != n / i) out.push_back(n / i);
    }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::optional<RunProblem> CheckRun(const ModelSpec& m, const Cluster& c, const TrainSpec& t, const PlanFilter& f) {
  using K = RunProblem::Kind;
  using F = RunProblem::Field;
  auto problem = [](K kind, int64_t value = 0, int64_t limit = 0, F axis = F::kNone, F of = F::kNone) {
    return RunProblem{kind, axis, of, value, limit, 0, {}};
  };
  if (c.chips <= 0) return problem(K::kNoChips);
  if (c.node_size <= 0 || c.chips % c.node_size != 0) return problem(K::kChipsNotWholeNodes, c.chips, c.node_size);
  if (!(c.chip.peak(hw::DType::kBf16) > 0)) return problem(K::kNoPeak);
  if (!(c.chip.hbm_bytes > 0)) return problem(K::kNoHbm);
  if (c.chips > 1 && !(c.fast_bw > 0)) return problem(K::kNoLink);
  if (f.vpp > 0 && t.schedule != Schedule::kAuto && (t.schedule == Schedule::kInterleaved ? f.vpp == 1 : f.vpp > 1)) {
    RunProblem p = problem(K::kScheduleVpp, f.vpp);
    p.schedule = t.schedule;
    return p;
  }
  if (t.schedule == Schedule::kDualPipe && f.pp > 1 && f.pp % 2 != 0) return problem(K::kDualPipeOddPp, f.pp);
  if (t.precision != hw::DType::kBf16 && !(c.chip.peak(t.precision) > 0)) {
    RunProblem p = problem(K::kNoLowPeak);
    p.low = t.precision;
    return p;
  }
  if (t.global_batch <= 0) return problem(K::kNoBatch);
  if (t.seq <= 0) return problem(K::kNoSeq);
  if (!c.axes.empty()) {
    int64_t prod = 1;
    for (int64_t a : c.axes) prod *= a;
    if (prod != c.node_size) return problem(K::kAxesProduct, prod, c.node_size);
  }
  if (f.tp > 0 && m.heads % f.tp != 0) return problem(K::kNotDivide, f.tp, m.heads, F::kTp, F::kHeads);
  if (f.tp > 0 && m.kv_heads % f.tp != 0 && f.tp % m.kv_heads != 0)
    return problem(K::kTpKvHeads, f.tp, m.kv_heads, F::kTp);
  if (f.cp > 0 && t.seq % f.cp != 0) return problem(K::kNotDivide, f.cp, t.seq, F::kCp, F::kSeq);
  if (f.ep > 1 && !m.moe()) return problem(K::kNoExperts, f.ep, 0, F::kEp);
  if (f.ep > 0 && m.experts % f.ep != 0) return problem(K::kNotDivide, f.ep, m.experts, F::kEp, F::kExperts);
  if (f.pp > 0 && f.pp > m.layers) return problem(K::kPpTooDeep, f.pp, m.layers, F::kPp);
  // The pinned degrees must divide the chips together (divided out one by
  // one: no product that could overflow).
  int64_t rest = c.chips;
  for (auto [axis, v] :
       {std::pair<F, int64_t>{F::kTp, f.tp}, {F::kPp, f.pp}, {F::kCp, f.cp}, {F::kFsdp, f.fsdp}, {F::kDp, f.dp}}) {
    if (v <= 0) continue;
    if (rest % v != 0) return problem(K::kPinnedNotDivide, v, c.chips, axis);
    rest /= v;
  }
  if (f.dp > 0 && f.fsdp > 0) {
    const double replicas =
        static_cast<double>(f.dp) * static_cast<double>(f.fsdp) * static_cast<double>(std::max<int64_t>(1, f.mb));
    if (replicas > static_cast<double>(t.global_batch) ||
        t.global_batch % (f.dp * f.fsdp * std::max<int64_t>(1, f.mb)) != 0) {
      RunProblem p = problem(K::kBatchNotDivide, t.global_batch);
      p.replicas = replicas;
      return p;
    }
  }
  if (!f.remat.empty()) {
    RematSpec r;
    if (!ParseRemat(f.remat, &r)) {
      RunProblem p = problem(K::kBadRemat);
      p.text = f.remat;
      return p;
    }
  }
  return std::nullopt;
}

Plan Evaluate(const ModelSpec& m, const Cluster& c, const TrainSpec& t, const Knobs& k, const Plan& split) {
  Plan p = split;
  const Derived d = Derive(m, t);
  ComputePlan(m, c, t, k, d, &p, nullptr);
  return p;
}

Explanation Explain(const ModelSpec& m, const Cluster& c, const TrainSpec& t, const Knobs& k, const Plan& split) {
  Explanation e;
  e.plan = split;
  const Derived d = Derive(m, t);
  e.params = d.p;
  e.flops_per_token = d.flops_per_token;
  ComputePlan(m, c, t, k, d, &e.plan, &e);
  return e;
}

PlanSearch SearchPlans(const ModelSpec& m, const Cluster& c, const TrainSpec& t, const Knobs& k, const PlanFilter& f) {
  PlanSearch out;
  const Derived d = Derive(m, t);
  out.params = d.p;
  out.flops_per_token = d.flops_per_token;
  Remat only = Remat::kCount;
  RematSpec only_spec;
  if (!f.remat.empty() && ParseRemat(f.remat, &only_spec)) only = only_spec.policy;
  const auto chips_div = Divisors(c.chips);
  std::vector<Plan> oom;
  for (int64_t tp : chips_div) {
    if (f.tp && tp != f.tp) continue;
    if (m.heads % tp != 0 || (m.kv_heads % tp != 0 && tp % m.kv_heads != 0)) continue;
    if (!c.tpu && tp > c.node_size) continue;  // TP stays inside an NVLink domain
    for (int64_t cp : Divisors(c.chips / tp)) {
      if (f.cp && cp != f.cp) continue;
      if (t.seq % cp != 0 || (cp > 1 && t.seq / cp < 128)) continue;
      for (int64_t pp : Divisors(c.chips / (tp * cp))) {
        if (f.pp && pp != f.pp) continue;
        if (pp > m.layers) continue;
        const int64_t D = c.chips / (tp * cp * pp);  // data-parallel ranks: DP x FSDP
        for (int64_t fsdp : Divisors(D)) {
          if (f.fsdp && fsdp != f.fsdp) continue;
          const int64_t dp = D / fsdp;
          if (f.dp && dp != f.dp) continue;
          if (t.global_batch % D != 0) continue;
          const int64_t per_replica = t.global_batch / D;
          std::vector<int64_t> eps = m.moe() ? Divisors(D) : std::vector<int64_t>{1};
          // A pinned EP larger than the data-parallel ranks folds over TP.
          if (m.moe() && f.ep > 0 && D % f.ep != 0 && (D * tp) % f.ep == 0 && f.ep % tp == 0) eps.push_back(f.ep);
          for (int64_t ep : eps) {
            if (f.ep && ep != f.ep) continue;
            if (m.moe() && m.experts % ep != 0) continue;
            if (fsdp % ep != 0 && ep % fsdp != 0) continue;
            // Virtual stages (at least one layer each): 2, 4 and 8, and
            // every degree that divides the layers per stage (rounded up:
            // first and last stages may hold a layer less), as Megatron
            // recipes use 3, 5 and 12 as often as 2, 4 and 8; --vpp pins any.
            std::vector<int64_t> vpps = {1};
            if (pp > 1) {
              const int64_t per_stage = (m.layers + pp - 1) / pp;
              for (int64_t v = 2; v <= m.layers / pp; ++v)
                if (per_stage % v == 0 || v == 2 || v == 4 || v == 8 || v == f.vpp) vpps.push_back(v);
            }
            for (int64_t vpp : vpps) {
              if (f.vpp && vpp != f.vpp) continue;
              // Interleaving is its own schedule; the others run one chunk a stage.
              if (t.schedule == Schedule::kInterleaved ? vpp == 1 : (t.schedule != Schedule::kAuto && vpp > 1))
                continue;
              if (t.schedule == Schedule::kDualPipe && pp > 1 && pp % 2 != 0) continue;
              ++out.layouts;
              for (int64_t mb : Divisors(per_replica)) {
                if (f.mb && mb != f.mb) continue;
                const int64_t ga = per_replica / mb;
                if (vpp > 1 && ga % pp != 0) continue;  // interleaving needs whole rounds of micro-batches
                // DualPipe feeds micro-batches from both ends: an even number, at least 2 x PP.
                if (t.schedule == Schedule::kDualPipe && pp > 1 && (ga < 2 * pp || ga % 2 != 0)) continue;
                Plan layout;
                layout.tp = tp, layout.cp = cp, layout.pp = pp, layout.vpp = vpp, layout.fsdp = fsdp, layout.dp = dp,
                layout.ep = ep, layout.mb = mb, layout.ga = ga;
                const double shape = PlanGemmShape(m, c, t, d, layout);
                // ZeRO-2 over DP saves gradient memory for more
                // communication: tried only where ZeRO-1 does not fit.
                const int zeros[2] = {f.zero >= 0 ? f.zero : 1, 2};
                const int n_zeros = f.zero >= 0 || dp == 1 ? 1 : 2;
                int cheapest_fit = kRematCount;  // the cheapest policy that fits with a less sharded stage
                bool smallest_oom = false;
                for (int zi = 0; zi < n_zeros; ++zi) {
                  bool fitted = false;
                  double kept_act = INFINITY;
                  smallest_oom = false;
                  for (int r = 0; r < kRematCount; ++r) {
                    const Remat remat = static_cast<Remat>(r);
                    if (only != Remat::kCount && remat != only) continue;
                    // Offloading is searched on TPUs (MaxText's policies); a
                    // GPU's PCIe link is shared with its NICs: pin it to try.
                    if (remat == Remat::kMinimalOffloaded && only != remat && !c.tpu) continue;
                    // A cheaper policy fits (more recompute cannot help), or
                    // this one or a cheaper one fits with less communication.
                    if ((fitted || r >= cheapest_fit) && !f.include_dominated) {
                      ++out.dominated;
                      continue;
                    }
                    Plan p = layout;
                    p.remat = remat;
                    if (only != Remat::kCount)
                      p.remat_fraction = only_spec.fraction, p.remat_per_stage = only_spec.per_stage;
                    p.zero = zeros[zi];
                    ComputePlan(m, c, t, k, d, &p, nullptr, shape);
                    ++out.evaluated;
                    if (f.max_mem_bytes > 0 && p.total > f.max_mem_bytes)
                      p.fits = false, p.bottleneck = Bottleneck::kMemory;
                    if (p.activations >= kept_act && !f.include_dominated && remat != Remat::kNone) {
                      ++out.dominated;  // more recompute for no memory saved
                      continue;
                    }
                    kept_act = std::min(kept_act, p.activations);
                    if (p.fits) {
                      fitted = true;
                      cheapest_fit = std::min(cheapest_fit, r);
                      out.plans.push_back(p);
                    } else {
                      ++out.oom;
                      // The most sharded stage's plans are the only ones
                      // kept when nothing fits.
                      if (f.include_oom && (f.include_dominated || zi == n_zeros - 1)) oom.push_back(p);
                      smallest_oom = remat == Remat::kFull && p.remat_fraction >= 1 && p.remat_per_stage == 0;
                    }
                  }
                }
                // Larger micro-batches need more memory: past one whose
                // smallest footprint does not fit, stop.
                if (smallest_oom && !f.include_oom && only == Remat::kCount) break;
              }
            }
          }
        }
      }
    }
  }
  auto by_mfu = [](const Plan& a, const Plan& b) {
    const double ma = std::isfinite(a.mfu) ? a.mfu : -1, mb = std::isfinite(b.mfu) ? b.mfu : -1;
    if (ma != mb) return ma > mb;
    return a.total < b.total;
  };
  std::sort(out.plans.begin(), out.plans.end(), by_mfu);
  std::sort(oom.begin(), oom.end(), by_mfu);
  out.plans.insert(out.plans.end(), oom.begin(), oom.end());
  return out;
}

}  // namespace mlprof::plan
