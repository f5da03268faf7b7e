#include "plan/step_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "base/collective.h"

namespace mlprof::plan {

Derived Derive(const ModelSpec& m, const TrainSpec& t) {
  Derived d;
  d.p = CountParams(m);
  d.flops_per_token = TrainFlopsPerToken(m, t.seq, t.causal_half);
  d.tokens = static_cast<double>(t.global_batch) * static_cast<double>(t.seq);
  d.attn = AttentionParams(m);
  d.norm = NormParams(m);
  const double h = static_cast<double>(m.hidden);
  double dqk, dv;
  const double nq = AttnWidths(m, &dqk, &dv);
  const double q = nq * dqk, ctx = nq * dv;
  const double kv =
      m.mla() ? static_cast<double>(m.kv_lora_rank + m.qk_rope_dim) + nq * (static_cast<double>(m.qk_nope_dim) + dv)
              : 2.0 * static_cast<double>(m.kv_heads * m.head_dim);
  const double out_proj = ctx * h;
  double saved[kRematCount] = {};
  double full = 0, offloaded = 0;
  for (const LayerGroup& g : m.groups) {
    const double n = static_cast<double>(g.count);
    double mlp_active, mlp_act_elems, mlp_dots;
    if (g.moe) {
      d.moe_layers += g.count;
      d.expert_per_layer =
          static_cast<double>(m.experts) * (m.gated ? 3.0 : 2.0) * h * static_cast<double>(m.expert_ffn);
      d.moe_layer_nonexpert = d.attn + d.norm + MoeParams(m, false) - d.expert_per_layer;
      mlp_active = MoeParams(m, true);
      d.expert_train_per_token +=
          n * 6 * static_cast<double>(m.top_k) * (m.gated ? 3.0 : 2.0) * h * static_cast<double>(m.expert_ffn);
      const double k = static_cast<double>(m.top_k), fe = static_cast<double>(m.expert_ffn),
                   sh = static_cast<double>(m.shared_experts), fs = static_cast<double>(m.shared_ffn);
      const double per = m.gated ? 3 : 2;
      // Each token's k expert inputs (permuted copies) and their
      // intermediates, the shared experts', and the routing buffers.
      mlp_act_elems = 2 * h + k * (h + per * fe) + sh * (per * fs) + k * (h / 2 + 4);
      mlp_dots = k * ((per - 1) * fe + h) + sh * ((per - 1) * fs + h);
    } else {
      const double f = static_cast<double>(g.ffn > 0 ? g.ffn : m.ffn);
      d.dense_layer = std::max(d.dense_layer, d.attn + d.norm + DenseMlpParams(m, g.ffn > 0 ? g.ffn : m.ffn));
      mlp_active = DenseMlpParams(m, g.ffn > 0 ? g.ffn : m.ffn);
      mlp_act_elems = 2 * h + (m.gated ? 3 : 2) * f;
      mlp_dots = (m.gated ? 2 : 1) * f + h;
    }
    d.score_fwd_per_token += n * AttentionScoreFlops(m, g, t.seq, t.causal_half);
    d.qkv_fwd_per_token += n * 2 * (h * (q + kv));
    d.out_fwd_per_token += n * 2 * out_proj;
    d.mlp_fwd_per_token += n * 2 * mlp_active;
    // The widths the MLP's down projection reads: the active experts' (and
    // shared experts') intermediates, or the dense width.
    const double down_in = g.moe ? static_cast<double>(m.top_k * m.expert_ffn + m.shared_experts * m.shared_ffn)
                                 : static_cast<double>(g.ffn > 0 ? g.ffn : m.ffn);
    d.cast_per_token += n * 2 * (2 * h + ctx + down_in);
    d.gemms.push_back({q + kv, h, n, true, false});
    d.gemms.push_back({h, ctx, n, false, false});
    if (g.moe) {
      const double fe = static_cast<double>(m.expert_ffn), per = m.gated ? 2 : 1;
      d.gemms.push_back({per * fe, h, n, true, true});
      d.gemms.push_back({h, fe, n, false, true});
      if (m.shared_experts > 0) {
        const double fs = static_cast<double>(m.shared_experts * m.shared_ffn);
        d.gemms.push_back({per * fs, h, n, true, false});
        d.gemms.push_back({h, fs, n, false, false});
      }
    } else {
      const double f = static_cast<double>(g.ffn > 0 ? g.ffn : m.ffn);
      d.gemms.push_back({(m.gated ? 2 : 1) * f, h, n, true, false});
      d.gemms.push_back({h, f, n, false, false});
    }
    // Saved per token (elements; the fp32 log-sum-exp as 2 elements per head).
    const double lse = 2 * nq;
    const double attn_all = h + h + q + kv + ctx + lse;  // layer input, norm, Q, K, V, context
    const double none = attn_all + mlp_act_elems;
    saved[static_cast<int>(Remat::kNone)] += n * none;
    saved[static_cast<int>(Remat::kSelective)] += n * (none - ctx - lse);  // core attention recomputed
    saved[static_cast<int>(Remat::kSaveDots)] += n * (h + q + kv + ctx + h + mlp_dots);
    saved[static_cast<int>(Remat::kMinimalWithContext)] += n * (h + q + kv + ctx + h);
    saved[static_cast<int>(Remat::kSaveDotExceptMlp)] += n * (h + q + kv + h);
    saved[static_cast<int>(Remat::kSaveQkvProj)] += n * (h + q + kv);
    saved[static_cast<int>(Remat::kSaveOutProj)] += n * (h + h);
    // Offloaded: the dots in host memory (Derived::offloaded), the input on the chip.
    saved[static_cast<int>(Remat::kMinimalOffloaded)] += n * h;
    offloaded += n * (q + kv + ctx + h + mlp_dots);
    saved[static_cast<int>(Remat::kFull)] += n * h;
    full = std::max(full, none);
  }
  const double layers = static_cast<double>(m.layers);
  for (int r = 0; r < kRematCount; ++r) d.saved[r] = saved[r] / layers;
  d.offloaded = offloaded / layers;
  d.full_layer = full;
  return d;
}

namespace {

double RematFlopsPerToken(const Derived& d, Remat r) {
  switch (r) {
    case Remat::kNone:
    case Remat::kSaveDots:
      return 0;  // elementwise ops only
    case Remat::kSelective:
      return d.score_fwd_per_token;
    case Remat::kMinimalWithContext:
      return d.mlp_fwd_per_token;
    case Remat::kSaveDotExceptMlp:
      return d.score_fwd_per_token + d.mlp_fwd_per_token;
    case Remat::kSaveQkvProj:
      return d.score_fwd_per_token + d.out_fwd_per_token + d.mlp_fwd_per_token;
    case Remat::kSaveOutProj:
      return d.qkv_fwd_per_token + d.score_fwd_per_token + d.mlp_fwd_per_token;
    case Remat::kMinimalOffloaded:
      return 0;
    case Remat::kFull:
      return d.qkv_fwd_per_token + d.score_fwd_per_token + d.out_fwd_per_token + d.mlp_fwd_per_token;
    default:
      return 0;
  }
}

// Extra TP all-reduces a recomputed forward adds per layer per micro-batch.
double RematTpCollectives(Remat r) {
  switch (r) {
    case Remat::kFull:
    case Remat::kSaveOutProj:
    case Remat::kSaveQkvProj:
      return 2;  // attention's and the MLP's
    case Remat::kMinimalWithContext:
    case Remat::kSaveDotExceptMlp:
      return 1;  // the MLP's
    default:
      return 0;
  }
}

// A recomputed MoE forward repeats its dispatch and combine all-to-alls.
bool RematRecomputesMlp(Remat r) {
  return r == Remat::kMinimalWithContext || r == Remat::kSaveDotExceptMlp || r == Remat::kSaveQkvProj ||
         r == Remat::kSaveOutProj || r == Remat::kFull;
}

// Bandwidth (B/s per chip) a group of `size` ranks gets when `inner` ranks
// sit inside it in the rank order: NVLink while inner x size stays in a
// node, else the per-GPU share of the node's egress; TPU: the axes the
// group spans, all at once.
double GroupBw(const Cluster& c, int64_t inner, int64_t size) {
  if (size <= 1) return c.fast_bw;
  if (!c.tpu) return inner * size <= c.node_size ? c.fast_bw : c.slow_bw;
  if (inner * size > c.node_size) return c.slow_bw;  // across slices: DCN
  if (c.axes.empty()) return c.fast_bw;
  // Skip the axes `inner` fills, then count those `size` touches.
  int64_t skip = inner, left = size, k = 0;
  for (int64_t a : c.axes) {
    if (skip > 1) {
      if (skip >= a) {
        skip /= a;
        continue;
      }
      const int64_t room = a / skip;
      skip = 1;
      ++k;
      left = (left + room - 1) / room;
      continue;
    }
    if (left <= 1) break;
    ++k;
    left = (left + a - 1) / a;
  }
  return c.fast_bw * static_cast<double>(std::max<int64_t>(1, k));
}

int64_t Lcm(int64_t a, int64_t b) { return a / std::gcd(a, b) * b; }

// One plan's memory and time into *pl; with `why`, the figures behind them
// too (the search calls Compute ~10^5 times a second without).
// What of the large-matmul efficiency the plan's layer matmuls reach at
// their sizes on a chip, weighted by FLOPs (GemmShapeFactor): M is the
// micro-batch's tokens after CP (an expert's: its routed tokens), N or K
// split by TP (experts not, when EP folds over TP).
}  // namespace

double PlanGemmShape(const ModelSpec& m, const Cluster& c, const TrainSpec& t, const Derived& d, const Plan& p) {
  const double tp = static_cast<double>(p.tp), ep = static_cast<double>(p.ep);
  const double tokens_mb = static_cast<double>(p.mb) * static_cast<double>(t.seq) / static_cast<double>(p.cp);
  const bool folded = p.ep > 1 && (p.dp * p.fsdp) % p.ep != 0;
  const double peak = c.chip.peak(hw::DType::kBf16);
  double fsum = 0, tsum = 0;
  for (const Derived::Gemm& g : d.gemms) {
    double rows = tokens_mb, n = g.n, kk = g.k;
    if (g.expert) rows = tokens_mb * static_cast<double>(m.top_k) * ep / static_cast<double>(m.experts);
    if (!(g.expert && folded)) (g.split_n ? n : kk) /= tp;
    const double w = g.layers * rows * n * kk;
    fsum += w;
    tsum += w / GemmShapeFactor(rows, n, kk, peak, c.chip.hbm_bytes_per_s, !c.tpu);
  }
  return tsum > 0 ? fsum / tsum : 1;
}

namespace {

// A policy whose recompute includes the attention scores.
bool RematRecomputesScores(Remat r) {
  return r == Remat::kSelective || r == Remat::kSaveDotExceptMlp || r == Remat::kSaveQkvProj ||
         r == Remat::kSaveOutProj || r == Remat::kFull;
}

}  // namespace

namespace {

// One plan's memory and step time, term by term: each method fills its
// fields of *pl (and of *why, when asked) from the plan's layout (the
// constructor) and the terms before it, in the order Run calls them.
class PlanTerms {
 public:
  PlanTerms(const ModelSpec& m, const Cluster& c, const TrainSpec& t, const Knobs& k, const Derived& d, Plan* pl,
            Explanation* why, double known_shape);
  void Run() {
    Memory();
    Compute();
    Tp();
    Ep();
    FsdpDp();
    Cp();
    Pp();
    Optimizer();
    Host();
    Total();
  }

 private:
  void Memory();     // weights, gradients, optimizer state, FSDP buffers, activations: does it fit
  void Compute();    // the matmuls, attention scores, low precision and the rest: t_compute
  void Tp();         // tensor parallelism's collectives
  void Ep();         // expert parallelism's all-to-alls
  void FsdpDp();     // FSDP's gathers and data parallelism's reductions
  void Cp();         // context parallelism's ring attention
  void Pp();         // the pipeline's bubble and point-to-point transfers
  void Optimizer();  // the optimizer step
  void Host();       // step overhead and offloaded activations
  void Total();      // the step, the MFU and the bottleneck

  const ModelSpec& m;
  const Cluster& c;
  const TrainSpec& t;
  const Knobs& k;
  const Derived& d;
  Plan* pl;
  Explanation* why;
  double known_shape;
  // The layout (constructor).
  double peak, N, tp, pp, cp, ep, fsdp, dp, v, mb, ga, seq, h, L, stage_layers, imbalance;
  // Memory's results the time terms use.
  bool folded = false, low = false, dualpipe = false, offload = false;
  double dense_stage = 0, expert_stage = 0, local = 0, low_weights = 0, opt_shard = 1, share = 0, offloaded_mb = 0;
  // Compute's.
  double gemm = 0, shape = 0, rate = 0, m_steps = 0, A = 0;
};

PlanTerms::PlanTerms(const ModelSpec& m, const Cluster& c, const TrainSpec& t, const Knobs& k, const Derived& d,
                     Plan* pl, Explanation* why, double known_shape)
    : m(m), c(c), t(t), k(k), d(d), pl(pl), why(why), known_shape(known_shape) {
  peak = c.chip.peak(hw::DType::kBf16);
  N = static_cast<double>(c.chips);
  tp = static_cast<double>(pl->tp), pp = static_cast<double>(pl->pp), cp = static_cast<double>(pl->cp);
  ep = static_cast<double>(pl->ep), fsdp = static_cast<double>(pl->fsdp), dp = static_cast<double>(pl->dp);
  v = static_cast<double>(pl->vpp), mb = static_cast<double>(pl->mb), ga = static_cast<double>(pl->ga);
  seq = static_cast<double>(t.seq), h = static_cast<double>(m.hidden), L = static_cast<double>(m.layers);
  stage_layers = std::ceil(L / pp);
  imbalance = stage_layers * pp / L;  // the slowest stage sets the pace
}

void PlanTerms::Memory() {
  // EP folded over TP (MoE parallel folding: EP larger than the data-
  // parallel ranks, taking in the TP group; the experts are not TP-split).
  folded = pl->ep > 1 && (pl->dp * pl->fsdp) % pl->ep != 0;
  const double expert_shards =
      folded ? static_cast<double>(Lcm(pl->ep, pl->fsdp)) : tp * static_cast<double>(Lcm(pl->ep, pl->fsdp));
  const double layer_params = d.p.layers - d.p.experts;  // dense part of all layers
  const double final_norm = d.p.total - d.p.layers - d.p.embedding - d.p.output;
  dense_stage = pl->pp == 1 ? d.p.total - d.p.experts
                            : layer_params * stage_layers / L + std::max(d.p.embedding, d.p.output + final_norm);
  expert_stage = d.p.experts * stage_layers / L;
  const double dense_local = dense_stage / (tp * fsdp), expert_local = expert_stage / expert_shards;
  local = dense_local + expert_local;
  low = t.precision != hw::DType::kBf16;
  // A 1-byte copy of the weights and its transpose (Transformer Engine on Hopper).
  low_weights = low ? 2 * local : 0;
  dualpipe = t.schedule == Schedule::kDualPipe && pl->pp > 1;
  pl->weights = local * t.memory.weight * (dualpipe ? 2 : 1) + low_weights;  // DualPipe: two copies
  pl->grads = local * t.memory.grad;
  opt_shard = pl->zero >= 1 ? dp : 1;
  const double grad_shard = pl->zero >= 2 ? dp : 1;
  pl->grads /= grad_shard;
  pl->optimizer = local * t.memory.optimizer / opt_shard;
  pl->fsdp_buffers = 0;
  if (pl->fsdp > 1) {
    const double layer = std::max(d.dense_layer, d.moe_layer_nonexpert + d.expert_per_layer / ep);
    pl->fsdp_buffers = 2 * 2 * layer / tp;  // this layer and the prefetched next, gathered, bf16
    if (why) why->fsdp_layer = layer;
  }
  const double tokens_mb = mb * seq / cp;  // tokens of one micro-batch on this chip
  const double inflight =
      pl->pp > 1 ? std::min(ga, pp) * (v > 1 ? 1 + (pp - 1) / (pp * v) : 1.0) + (dualpipe ? 1 : 0) : 1.0;
  // The policy on a share of the stage's layers (full:N, POLICY@F), the
  // others saving everything.
  share = pl->remat_per_stage > 0 ? std::min(1.0, static_cast<double>(pl->remat_per_stage) / stage_layers)
                                  : pl->remat_fraction;
  const int ri = static_cast<int>(pl->remat);
  const double saved = (share * d.saved[ri] + (1 - share) * d.saved[0]) * 2;  // bytes per token per layer
  const double per_mb = saved * tokens_mb / tp * stage_layers;  // one micro-batch's saved activations on a stage
  const double transient = pl->remat == Remat::kNone || share <= 0 ? 0 : d.full_layer * 2 * tokens_mb / tp;
  // minimal_offloaded: the dots of every micro-batch in flight go to host memory.
  offload = pl->remat == Remat::kMinimalOffloaded;
  offloaded_mb = offload ? share * d.offloaded * 2 * tokens_mb / tp * stage_layers : 0;
  const double logits = 6 * tokens_mb * static_cast<double>(m.vocab) / tp;  // fp32 + bf16, on the last stage
  // The first stage holds the most micro-batches, the last one the logits
  // (with one stage, both are the same and inflight is 1).
  pl->activations = transient + std::max(per_mb * inflight, per_mb + logits);
  pl->offloaded = offloaded_mb * inflight;
  pl->reserve = t.reserve * c.chip.hbm_bytes;
  pl->total = pl->weights + pl->grads + pl->optimizer + pl->fsdp_buffers + pl->activations + pl->reserve;
  pl->fits = pl->total <= c.chip.hbm_bytes;
  if (why) {
    why->stage_layers = stage_layers, why->dense_stage = dense_stage, why->expert_stage = expert_stage;
    why->local = local, why->grad_shard = grad_shard, why->opt_shard = opt_shard;
    why->saved = saved, why->tokens_mb = tokens_mb, why->per_mb = per_mb, why->inflight = inflight;
    why->transient = transient, why->logits = logits, why->remat_share = share;
  }
}

void PlanTerms::Compute() {
  pl->model_flops = d.flops_per_token * d.tokens;
  pl->remat_flops = share * RematFlopsPerToken(d, pl->remat) * d.tokens;
  gemm = GemmEfficiency(k, c.chip).efficiency;
  // The matmuls' sizes on a chip (the same for every remat policy and ZeRO
  // stage of a layout: the search passes it in).
  shape = known_shape > 0 ? known_shape : PlanGemmShape(m, c, t, d, *pl);
  rate = N * peak * gemm;
  pl->imbalance_flops = (k.moe_imbalance - 1) * d.expert_train_per_token * d.tokens;
  const double counted = pl->model_flops + pl->remat_flops + pl->imbalance_flops;
  const bool remat_scores = RematRecomputesScores(pl->remat);
  const double scores = d.score_fwd_per_token * (3 + (remat_scores ? share : 0)) * d.tokens;
  if (why) why->score_flops = scores;
  if (k.attention <= 0 && k.other_bytes <= 0 && !low) {
    // The layers' matmuls at the efficiency their sizes reach, the scores
    // (flash attention, not sized like the projections) at the GEMM's.
    pl->t_compute = ((counted - scores) / shape + scores) / rate * imbalance;
  } else {
    // Apart: the attention scores (at their own efficiency, on the FLOPs a
    // causal kernel executes, once calibrated); the layers' linear matmuls
    // at the low-precision peak with their casts (--precision); the rest of
    // the matmuls (the output layer) at the GEMM efficiency; the non-matmul
    // ops' HBM traffic (calibrated), which a recomputed forward repeats in part.
    const double executed = t.causal_half ? scores : scores / 2;
    const double t_scores =
        k.attention > 0 ? executed / (N * peak * k.attention) : scores / rate;  // as counted, without calibration
    double low_flops = 0, t_low = 0, cast = 0, t_cast = 0;
    const double low_peak = low ? c.chip.peak(t.precision) : 0;
    if (low) {
      const double remat_linear =
          share * (RematFlopsPerToken(d, pl->remat) - (remat_scores ? d.score_fwd_per_token : 0)) * d.tokens;
      low_flops = 3 * (d.qkv_fwd_per_token + d.out_fwd_per_token + d.mlp_fwd_per_token) * d.tokens + remat_linear +
                  pl->imbalance_flops;
      // The calibrated GEMM efficiency folds the non-matmul work around the
      // matmuls in; the kernels themselves reach more (measured where
      // known). The low-precision matmuls run at the kernels' efficiency;
      // the folded work stays as slow as in bf16.
      const double kernel = GemmKernelEfficiency(k, c.chip, gemm);
      t_low = low_flops / (N * low_peak * kernel * shape * k.low_precision_gemm) +
              (k.other_bytes > 0 ? 0 : low_flops / (N * peak) * (1 / gemm - 1 / kernel));
      if (why) why->gemm_kernel = kernel;
      // bf16 in, 1 byte out: 3 B per element cast, per chip; the weights once a step.
      cast = 3 * d.cast_per_token * d.tokens / N + 3 * local;
      t_cast = cast / (c.chip.hbm_bytes_per_s * k.hbm);
    }
    const double t_matmul = (counted - scores - low_flops) / (rate * shape);
    const double t_other = k.other_bytes > 0 ? k.other_bytes * d.tokens * L * h / N / c.chip.hbm_bytes_per_s *
                                                   (1 + pl->remat_flops / pl->model_flops)
                                             : 0;
    pl->t_compute = (t_matmul + t_scores + t_low + t_cast + t_other) * imbalance;
    if (why) {
      why->t_matmul = t_matmul, why->t_scores = t_scores, why->t_other = t_other;
      why->score_flops = scores, why->score_executed = executed;
      why->low_flops = low_flops, why->low_peak = low_peak, why->t_low = t_low, why->cast_bytes = cast;
      why->t_cast = t_cast, why->low_weights = low_weights;
    }
  }
  m_steps = ga;               // micro-batches per step per pipeline
  A = mb * seq / cp * h * 2;  // one micro-batch's activation, bytes, before TP
  if (why) why->peak = peak, why->gemm = gemm, why->stage_imbalance = imbalance, why->micro_batches = m_steps;
  if (why) why->gemm_shape = shape;
}

void PlanTerms::Tp() {
  // TP (sequence parallel: all-gather + reduce-scatter, the bytes of an all-reduce).
  pl->t_tp = 0;
  if (pl->tp > 1) {
    const double n = 4 + share * RematTpCollectives(pl->remat);
    const double bw = GroupBw(c, 1, pl->tp) * k.collective;
    pl->t_tp = stage_layers * m_steps * n *
               (RingWireFactor(CollectiveKind::kAllReduce, pl->tp) * A / bw +
                static_cast<double>(RingSteps(CollectiveKind::kAllReduce, pl->tp)) * k.latency);
    if (why) why->tp_collectives = n, why->activation = A, why->tp_bw = bw, why->t_tp_before = pl->t_tp;
    if (t.tp_overlap) pl->t_tp = std::max(0.0, pl->t_tp - k.overlap * pl->t_compute);
  }
}

void PlanTerms::Ep() {
  // EP: dispatch + combine all-to-all, forward and backward (+ forward again under full remat).
  pl->t_ep = 0;
  if (pl->ep > 1 && d.moe_layers > 0) {
    const double n = 4 + (RematRecomputesMlp(pl->remat) ? 2 * share : 0);
    // Each rank sends its tokens' k copies to the other ranks of the group;
    // across nodes a GPU's NIC carries only the share bound for other nodes
    // (the rest goes over NVLink at the same time).
    const int64_t inner = folded ? pl->cp : pl->tp * pl->cp;
    const bool crosses = !c.tpu && inner * pl->ep > c.node_size;
    const double local = crosses ? std::max(1.0, static_cast<double>(c.node_size / inner)) : 1;
    const double bytes = mb * seq / cp * static_cast<double>(m.top_k) * h * 2 / tp * (ep - local) / ep;
    const double bw = GroupBw(c, inner, pl->ep) * k.collective;
    const double moe_stage = std::ceil(static_cast<double>(d.moe_layers) / pp);
    pl->t_ep = moe_stage * m_steps * n *
               (bytes / bw + static_cast<double>(RingSteps(CollectiveKind::kAllToAll, pl->ep)) * k.latency);
    if (why) why->moe_stage_layers = moe_stage, why->ep_collectives = n, why->ep_bytes = bytes, why->ep_bw = bw;
    if (why) why->t_ep_before = pl->t_ep, why->ep_folded = folded;
    // DualPipe overlaps one direction's all-to-alls with the other's compute.
    if (dualpipe) pl->t_ep = std::max(0.0, pl->t_ep - k.overlap * pl->t_compute);
  }
}

void PlanTerms::FsdpDp() {
  // FSDP: gather weights forward and backward, reduce-scatter grads, per micro-batch (DP below).
  double t_fsdp = 0, t_dp = 0;
  // What an FSDP gather rebuilds on each rank: its TP shard of the stage,
  // the experts only for its EP group.
  const double stage_params = dense_stage / tp + expert_stage / (folded ? ep : tp * ep);
  if (pl->fsdp > 1) {
    const double bw = GroupBw(c, pl->tp * pl->cp, pl->fsdp) * k.collective;
    t_fsdp = m_steps * 3 *
             (RingWireFactor(CollectiveKind::kAllGather, pl->fsdp) * stage_params * 2 / bw +
              static_cast<double>(RingSteps(CollectiveKind::kAllGather, pl->fsdp)) * k.latency);
    if (why) why->fsdp_params = stage_params, why->fsdp_bw = bw;
  }
  // DP: the gradients' reduce-scatter and the parameters' all-gather (the
  // bytes of one all-reduce), once per step; ZeRO-2 cannot keep unreduced
  // gradients, so it reduce-scatters after every micro-batch.
  double rs = 0;  // one reduce-scatter (or all-gather) of the chip's gradients
  if (pl->dp > 1) {
    const double bw = GroupBw(c, pl->tp * pl->cp * pl->fsdp, pl->dp) * k.collective;
    rs = RingWireFactor(CollectiveKind::kReduceScatter, pl->dp) * local * std::min(t.memory.grad, 4.0) / bw +
         static_cast<double>(RingSteps(CollectiveKind::kReduceScatter, pl->dp)) * k.latency;
    if (why) why->dp_grad_bytes = std::min(t.memory.grad, 4.0), why->dp_bw = bw;
  }
  const double rs_count = pl->zero >= 2 ? m_steps : 1;
  t_dp = (rs_count + 1) * rs;
  // Hidden: FSDP under the whole step's compute; DP under a micro-batch's
  // backward (2/3 of its compute): the last one's for the final
  // reduce-scatter and the gather, each earlier one's for its own
  // reduce-scatter (ZeRO-2).
  const double hide_fsdp = k.overlap * pl->t_compute;
  const double exposed_fsdp = std::max(0.0, t_fsdp - hide_fsdp);
  const double hide_dp = k.overlap * pl->t_compute / m_steps * 2 / 3;
  const double exposed_dp = (rs_count - 1) * std::max(0.0, rs - hide_dp) + std::max(0.0, 2 * rs - hide_dp);
  pl->t_fsdp_dp = exposed_fsdp + exposed_dp;
  if (why) {
    why->t_fsdp = t_fsdp, why->dp_reduce_scatter = rs, why->dp_reduce_scatters = rs_count, why->t_dp = t_dp;
    why->mb_backward = pl->t_compute / m_steps * 2 / 3;
  }
}

void PlanTerms::Cp() {
  // CP: ring attention, K and V chunks around the ring (backward twice),
  // hidden under the attention-score compute.
  pl->t_cp = 0;
  if (pl->cp > 1) {
    const double kv_dim = m.mla() ? static_cast<double>(m.kv_lora_rank + m.qk_rope_dim)
                                  : 2.0 * static_cast<double>(m.kv_heads * m.head_dim);
    const double chunk = mb * seq / cp * kv_dim * 2 / tp;
    const double bw = GroupBw(c, pl->tp, pl->cp) * k.collective;
    const double t = stage_layers * m_steps * 3 * (cp - 1) * (chunk / bw + k.latency);
    const double attn = d.score_fwd_per_token * 3 * d.tokens / rate * imbalance;
    pl->t_cp = std::max(0.0, t - attn);
    if (why) why->cp_chunk = chunk, why->cp_bw = bw, why->t_cp_ring = t, why->t_attention = attn;
  }
}

void PlanTerms::Pp() {
  // PP: bubble (p-1)/(v m) of the pipelined work, and the fill/drain p2p.
  pl->t_pp = 0;
  if (pl->pp > 1) {
    const double slots = t.schedule == Schedule::kZeroBubble ? (pp - 1) / (3 * m_steps)
                         : dualpipe                          ? (pp / 2 - 1) / (3 * m_steps)
                                                             : (pp - 1) / (v * m_steps);
    const double bubble = slots * (pl->t_compute + pl->t_tp + pl->t_ep);
    if (why) why->bubble_slots = slots;
    const double bw = GroupBw(c, pl->tp * pl->cp * pl->fsdp * pl->dp, pl->pp) * k.collective;
    const double p2p = 2 * v * (pp - 1) * ((A / tp) / bw + k.latency);
    pl->t_pp = bubble + p2p;
    if (why) why->bubble = bubble, why->pp_bytes = A / tp, why->pp_bw = bw, why->t_p2p = p2p;
  }
}

void PlanTerms::Optimizer() {
  // Optimizer: AdamW touches ~34 bytes per parameter it updates (HBM-bound).
  pl->t_opt = 34 * local / opt_shard / (c.chip.hbm_bytes_per_s * k.hbm);
  if (why) why->opt_params = local / opt_shard;
}

void PlanTerms::Host() {
  // Host: offloaded activations go out in the forward and come back in the
  // backward, every micro-batch, hidden under compute up to `overlap`.
  pl->t_host = k.step_overhead;
  if (offload) {
    double host_bw = c.host_bw;
    if (why) why->host_bw_assumed = host_bw <= 0;
    if (host_bw <= 0) host_bw = 32e9;  // PCIe Gen4 x16 per direction
    host_bw *= k.collective;           // like every other link: the share a large transfer reaches
    const double t_offload = 2 * offloaded_mb * m_steps / host_bw;
    pl->t_host += std::max(0.0, t_offload - k.overlap * pl->t_compute);
    if (why) why->host_bw = host_bw, why->t_offload = t_offload;
  }
}

void PlanTerms::Total() {
  pl->t_step = pl->t_compute + pl->t_tp + pl->t_ep + pl->t_fsdp_dp + pl->t_cp + pl->t_pp + pl->t_opt + pl->t_host;
  pl->mfu = pl->model_flops / (pl->t_step * N * peak);
  using B = Bottleneck;
  const std::pair<double, B> terms[] = {{pl->t_compute, B::kCompute}, {pl->t_tp, B::kTp},    {pl->t_ep, B::kEp},
                                        {pl->t_fsdp_dp, B::kFsdpDp},  {pl->t_cp, B::kCp},    {pl->t_pp, B::kPpBubble},
                                        {pl->t_opt, B::kOptimizer},   {pl->t_host, B::kHost}};
  pl->bottleneck = B::kCompute;
  double worst = -1;
  for (const auto& [tm, b] : terms)
    if (tm > worst) worst = tm, pl->bottleneck = b;
  if (!pl->fits) pl->bottleneck = B::kMemory;
}

}  // namespace

void ComputePlan(const ModelSpec& m, const Cluster& c, const TrainSpec& t, const Knobs& k, const Derived& d, Plan* pl,
                 Explanation* why, double known_shape) {
  PlanTerms(m, c, t, k, d, pl, why, known_shape).Run();
}

}  // namespace mlprof::plan
