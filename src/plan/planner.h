// Parallelism-strategy planner: for a model (plan/spec.h), a cluster of
// chips (hw/chip.h) and a training run, every feasible way to split the
// work over TP, DP, PP (with interleaving), EP, FSDP and CP, with a remat
// policy, a micro-batch size and gradient accumulation; per plan the HBM
// each chip needs, the time of a step term by term, MFU and what bounds
// it. Formulas: docs/PLANNER.md (from shared/reference/planner-formulas.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hw/chip.h"
#include "plan/spec.h"

namespace mlprof::plan {

// ---- the model's arithmetic -------------------------------------------------
struct ParamCounts {
  double total = 0;          // every parameter
  double active = 0;         // used per token (top-k experts + shared)
  double embedding = 0;      // input embedding (+ learned positions)
  double output = 0;         // untied output projection (0 when tied)
  double layers = 0;         // all layers
  double experts = 0;        // routed-expert weights (all layers)
  double matmul_active = 0;  // weights a token multiplies by: layers' projections and active MLPs + the unembedding
};
ParamCounts CountParams(const ModelSpec& m);
// Per layer: attention projections (MLA or GQA), MLP (dense of width
// `ffn`, or MoE: all / active experts), norms.
double AttentionParams(const ModelSpec& m);
double DenseMlpParams(const ModelSpec& m, int64_t ffn);
double MoeParams(const ModelSpec& m, bool active);  // experts + shared + router
double NormParams(const ModelSpec& m);
// Attention-score FLOPs per token per layer, forward: 2 · s_ctx · n_q ·
// (d_qk + d_v); s_ctx = min(seq, window), halved with `causal_half`.
double AttentionScoreFlops(const ModelSpec& m, const LayerGroup& g, int64_t seq, bool causal_half);
// Training FLOPs per token (forward + backward): 6 · matmul_active +
// 3 · Σ layers AttentionScoreFlops.
double TrainFlopsPerToken(const ModelSpec& m, int64_t seq, bool causal_half);

// ---- the run and the cluster -----------------------------------------------
// Remat policies by what a layer saves, in order of recompute (the search
// tries them in this order): none; save_dots (MaxText minimal: every matmul
// output); selective (Megatron: all but the attention core);
// minimal_with_context (the dots before the MLP, and the context);
// save_dot_except_mlp (q, k, v, the output projection); save_qkv_proj
// (q, k, v); save_out_proj (the output projection); minimal_offloaded
// (save_dots, the dots kept in host memory); full (the layer input).
enum class Remat {
  kNone,
  kSaveDots,
  kSelective,
  kMinimalWithContext,
  kSaveDotExceptMlp,
  kSaveQkvProj,
  kSaveOutProj,
  kMinimalOffloaded,
  kFull,
  kCount
};
const char* RematName(Remat r);
// A policy on part of the layers (the others save everything): `fraction`
// of them, or Megatron's `per_stage` layers of each pipeline stage.
struct RematSpec {
  Remat policy = Remat::kNone;
  double fraction = 1;
  int64_t per_stage = 0;
};
// The policies as the frameworks name them: the names above; Megatron
// `full:N` (--recompute-num-layers N per stage); torchtitan `selective-op`
// (save_dots) and `selective-layer:N` (full on every N-th layer); MaxText
// `minimal` (save_dots); any policy on a fraction of the layers, `POLICY@F`
// (0 < F <= 1).
bool ParseRemat(std::string_view s, RematSpec* out);
bool ParseRemat(std::string_view s, Remat* out);  // whole policies only
// "full:2", "full@0.25", or the policy's name.
std::string RematLabel(Remat r, double fraction, int64_t per_stage);

// Bytes per parameter held by each chip for its shard: weights, gradients,
// optimizer state (AdamW: fp32 master + m + v where the weights are 16-bit).
struct MemoryConvention {
  std::string name = "megatron";
  double weight = 2, grad = 4, optimizer = 12;
};
// "megatron" (bf16 weights, fp32 grads, fp32 master+m+v: 18 B), "zero"
// (ZeRO paper: 2+2+12 = 16 B), "maxtext" (fp32 weights and grads, m+v: 16 B).
bool ParseMemoryConvention(std::string_view s, MemoryConvention* out);

struct Cluster {
  hw::Chip chip;
  int64_t chips = 0;
  int64_t node_size = 8;      // GPUs per NVLink domain; TPU: chips per slice (ICI inside, DCN between)
  double fast_bw = 0;         // B/s per direction per chip inside a node (NVLink; TPU: one ICI axis)
  double slow_bw = 0;         // B/s per chip across nodes (its share of node egress; TPU: DCN)
  double host_bw = 0;         // B/s per direction to host memory (the chip file's host link; 0: not stated)
  std::vector<int64_t> axes;  // TPU torus axes, innermost first (empty on GPUs)
  bool tpu = false;
};
// Fills the bandwidths from the chip file: NVLink (all links) / ICI per
// axis; the chip's scale-out link (node egress per GPU, DCN per chip), or
// an eighth of the scale-up one where the file states none.
Cluster MakeCluster(const hw::Chip& chip, int64_t chips, int64_t node_size, std::vector<int64_t> axes);

// Pipeline schedules: auto (1F1B, or interleaved with V > 1), 1F1B,
// interleaved (V > 1), zero bubble (ZB-H1, Qi et al. 2023: a third of
// 1F1B's bubble by deferring weight gradients), DualPipe (DeepSeek-V3:
// bidirectional, (p/2 - 1) bubble slots of a third of a micro-batch,
// two copies of the weights, one more micro-batch of activations, EP
// all-to-alls under the other direction's compute).
enum class Schedule : uint8_t { kAuto, k1F1B, kInterleaved, kZeroBubble, kDualPipe };
const char* ScheduleName(Schedule s);  // "auto", "1f1b", "interleaved", "zb", "dualpipe"
bool ParseSchedule(std::string_view s, Schedule* out);

struct TrainSpec {
  int64_t global_batch = 0;  // sequences per step
  int64_t seq = 0;
  MemoryConvention memory;
  double reserve = 0.10;  // fraction of HBM kept for the runtime / compiler / fragmentation
  bool causal_half =
      false;  // count half the s x s attention scores (MaxText since 2025); default: all (PaLM, Megatron)
  // The layers' linear matmuls in a 1-byte format at the chip's peak for it
  // (Transformer Engine FP8, MaxText AQT int8); attention, the output
  // layer, norms, the optimizer and gradient reduction stay as they were.
  hw::DType precision = hw::DType::kBf16;  // kBf16, kFp8 or kInt8
  Schedule schedule = Schedule::kAuto;
  // TP communication overlapped with the sharded matmuls (async TP,
  // collective matmul): hidden under `overlap` x Comp.
  bool tp_overlap = false;
};

// Efficiency knobs (defaults calibrated in docs/PLANNER.md).
struct Knobs {
  double gemm = 0;  // fraction of peak the model's matmuls reach; 0: the chip's calibrated figure (GemmEfficiency)
  double moe_imbalance = 1.25;  // the busiest expert's load / the mean (routed-expert compute is multiplied by it)
  double collective = 0.80;     // fraction of link bandwidth a large collective reaches
  double overlap = 0.90;        // fraction of FSDP/DP communication hidden under compute
  double hbm = 0.80;            // fraction of HBM bandwidth the optimizer step reaches
  double latency = 1e-6;  // α: seconds per step of a ring collective (a ring over n ranks takes n-1 steps per pass)
  // Measured by `--calibrate` (0: not modelled apart, which the default
  // GEMM efficiency was fitted with):
  double attention = 0;      // fraction of peak the attention scores reach, on the FLOPs executed (the causal half)
  double other_bytes = 0;    // HBM bytes per token, layer and hidden unit the non-matmul ops move (norms, casts...)
  double step_overhead = 0;  // seconds per step the GPU waits for the host
  // Low-precision matmuls' efficiency relative to bf16 (Knobs::gemm): 0.96,
  // measured on an H100 (docs/PLANNER.md, tests/data/h100/gemm.csv).
  double low_precision_gemm = 0.96;
  double gemm_kernel = 0;  // the matmul kernels' own efficiency (0: GemmKernelEfficiency's default)
};

// The GEMM efficiency a plan is computed with and where it comes from:
// Knobs::gemm where given, else the figure calibrated for the chip
// (docs/PLANNER.md); chips without published data get the mean of those with.
enum class GemmSource : uint8_t { kGiven, kCalibrated, kMeanOfCalibrated };
struct GemmFigure {
  double efficiency = 0;
  GemmSource source = GemmSource::kGiven;
};
GemmFigure GemmEfficiency(const Knobs& k, const hw::Chip& chip);
// What the matmul kernels alone reach, at least `gemm` (the GEMM
// efficiency, which folds the work around them in): Knobs::gemm_kernel
// where given, 0.79 on an H100 (measured, tests/data/h100), else `gemm`.
// Low-precision matmuls run at it; the folded-in work stays in bf16.
double GemmKernelEfficiency(const Knobs& k, const hw::Chip& chip, double gemm);
// One bf16 matmul of M x N x K on a chip of `peak` FLOP/s and `hbm` B/s:
// max(its FLOPs at 0.8 of peak, its bytes at 0.85 of HBM) plus 4 us per
// kernel on GPUs. The two matmul sizes of the H100 trace
// tests/data/h100/train_none (8192x2048x2048 in 90.1 us, 8192x2048x5632 in
// 240.8 us) give 0.807 of peak and 4.0 us.
double GemmSeconds(double m, double n, double k, double peak, double hbm, bool gpu);
// What of a large matmul's efficiency an M x N x K one reaches: its
// forward, input-gradient and weight-gradient shapes' time at 0.8 of peak
// over GemmSeconds of each. The planner weights the layers' matmuls by
// FLOPs (Explanation::gemm_shape).
double GemmShapeFactor(double m, double n, double k, double peak, double hbm, bool gpu);

// ---- plans -------------------------------------------------------------------
// The term that takes the longest in a plan's step, or memory where the plan
// does not fit.
enum class Bottleneck : uint8_t { kCompute, kTp, kEp, kFsdpDp, kCp, kPpBubble, kOptimizer, kHost, kMemory, kCount };
const char* BottleneckName(Bottleneck b);

struct Plan {
  int64_t tp = 1, dp = 1, pp = 1, vpp = 1, ep = 1, fsdp = 1, cp = 1, mb = 1, ga = 1;
  Remat remat = Remat::kNone;
  double remat_fraction = 1;    // of the layers under `remat` (the others: none)
  int64_t remat_per_stage = 0;  // Megatron full:N: layers per stage under `remat` (0: use remat_fraction)
  // ZeRO stage over the DP replicas (FSDP is ZeRO-3 on its own axis):
  // 0 everything replicated, 1 optimizer state sharded (distributed
  // optimizer), 2 optimizer state and gradients sharded (gradients
  // reduce-scattered after every micro-batch).
  int zero = 1;
  // Memory per chip, bytes.
  double weights = 0, optimizer = 0, grads = 0, fsdp_buffers = 0, activations = 0, reserve = 0, total = 0;
  bool fits = false;
  // Work and time per step.
  double model_flops = 0;  // per step, all chips
  double remat_flops = 0;
  double imbalance_flops = 0;  // the busiest expert's extra work (MoE), per step
  double t_compute = 0, t_tp = 0, t_ep = 0, t_fsdp_dp = 0, t_cp = 0, t_pp = 0, t_opt = 0, t_step = 0;
  // Host: activations offloaded to host memory (minimal_offloaded), the
  // transfer compute does not hide, plus Knobs::step_overhead.
  double offloaded = 0;  // bytes per chip held in host memory
  double t_host = 0;
  double mfu = 0;  // model FLOPs / (step · chips · peak)
  Bottleneck bottleneck = Bottleneck::kCompute;
};

// Restrict the search (0 / empty: any).
struct PlanFilter {
  int64_t tp = 0, dp = 0, pp = 0, vpp = 0, ep = 0, fsdp = 0, cp = 0, mb = 0;
  std::string remat;
  int zero = -1;  // ZeRO stage over DP; -1: 1, and 2 where 1 does not fit
  double max_mem_bytes = 0;
  bool include_oom = false;        // keep plans that do not fit (bottleneck memory)
  bool include_dominated = false;  // keep remat policies a cheaper one that fits makes pointless
};

struct PlanSearch {
  std::vector<Plan> plans;  // fitting plans by MFU, best first (then the rest, with include_oom)
  int64_t evaluated = 0;    // plans whose memory and time were computed
  int64_t layouts = 0;      // (tp, pp, vpp, ep, fsdp, cp, dp) splits considered
  int64_t oom = 0;          // evaluated plans that do not fit
  int64_t dominated = 0;    // skipped remat policies or ZeRO stages (a cheaper one fit)
  ParamCounts params;
  double flops_per_token = 0;
};

// What is wrong with a run's inputs, as values; the caller words it (the
// CLI in its flags' names, app/plan.cc).
struct RunProblem {
  enum class Kind : uint8_t {
    kNoChips,             // no chips
    kChipsNotWholeNodes,  // chips not a multiple of the node (slice) size
    kNoPeak,              // the chip has no bf16 peak
    kNoHbm,               // the chip has no HBM size
    kNoLink,              // several chips, and the chip states no scale-up link bandwidth
    kNoBatch,             // global batch < 1
    kNoSeq,               // sequence length < 1
    kAxesProduct,         // the torus axes do not multiply to the slice
    kNotDivide,           // `axis` = value does not divide `of` = limit
    kTpKvHeads,           // TP neither divides nor is a multiple of the KV heads
    kNoExperts,           // EP pinned on a model without experts
    kPpTooDeep,           // more pipeline stages than layers
    kPinnedNotDivide,     // the pinned degrees do not divide the chips; `axis` is the one that does not fit
    kBatchNotDivide,      // the batch is not divisible by DP x FSDP x micro-batch (= limit)
    kBadRemat,            // an unknown remat policy (`text`)
    kNoLowPeak,           // --precision: the chip has no peak for that format
    kScheduleVpp,         // --schedule: interleaved needs V > 1, the others V = 1 (`value` = V)
    kDualPipeOddPp,       // DualPipe needs an even number of stages (`value` = PP)
  };
  enum class Field : uint8_t { kNone, kTp, kPp, kCp, kEp, kFsdp, kDp, kSeq, kHeads, kExperts };
  Kind kind;
  Field axis = Field::kNone;  // the pinned degree at fault
  Field of = Field::kNone;    // what it must divide
  int64_t value = 0, limit = 0;
  double replicas = 0;  // kBatchNotDivide: DP x FSDP x micro-batch (a double: the product may not fit an int64)
  std::string text;     // kBadRemat: the policy given
  hw::DType low = hw::DType::kBf16;     // kNoLowPeak: the format
  Schedule schedule = Schedule::kAuto;  // kScheduleVpp
};
// Validates the run (a batch the data-parallel degree and micro-batch cannot
// split, a sequence CP cannot split, experts EP cannot split...). A filter
// that pins every axis is checked the same way. nullopt: fine.
std::optional<RunProblem> CheckRun(const ModelSpec& m, const Cluster& c, const TrainSpec& t, const PlanFilter& f);

// One plan's memory and time (the split must be valid).
Plan Evaluate(const ModelSpec& m, const Cluster& c, const TrainSpec& t, const Knobs& k, const Plan& split);

// The figures behind Evaluate, term by term (the report words them,
// report/plan_explain.h). Bytes, parameters, seconds and B/s unless said;
// a term's figures stay 0 where the plan has no such term (its degree is 1).
struct Explanation {
  Plan plan;  // as Evaluate returns it
  ParamCounts params;
  double flops_per_token = 0;  // trained (TrainFlopsPerToken)
  // Memory.
  double remat_share = 1;                // of the stage's layers under the remat policy
  double host_bw = 0;                    // B/s per direction to host memory (offloading)
  bool host_bw_assumed = false;          // the chip file states no host link: 32 GB/s (PCIe Gen4 x16)
  double t_offload = 0;                  // offload + reload time before overlap
  double stage_layers = 0;               // layers on the largest pipeline stage
  double dense_stage = 0;                // dense parameters of that stage (with the embedding or the output)
  double expert_stage = 0;               // routed-expert parameters of that stage
  double local = 0;                      // parameters per chip
  double grad_shard = 1, opt_shard = 1;  // what ZeRO divides the gradients and the optimizer state by
  double fsdp_layer = 0;                 // FSDP: parameters of the largest layer gathered (its EP share of experts)
  double saved = 0;                      // saved activation bytes per token per layer (the remat policy's)
  double tokens_mb = 0;                  // tokens of one micro-batch on a chip (after CP)
  double per_mb = 0;                     // one micro-batch's saved activations on the stage
  double inflight = 1;                   // micro-batches in flight on the first stage
  double transient = 0;                  // one layer recomputed (remat)
  double logits = 0;                     // the last stage's logits
  // Compute.
  double peak = 0;        // bf16 FLOP/s per chip
  double gemm = 0;        // GEMM efficiency (GemmEfficiency)
  double gemm_shape = 1;  // what of it the plan's matmul sizes reach (FLOP-weighted GemmShapeFactor)
  // With Knobs::attention or Knobs::other_bytes: Comp's parts (before the
  // stage imbalance); the score FLOPs counted in model + remat FLOPs and
  // those executed (the causal half).
  double t_matmul = 0, t_scores = 0, t_other = 0, score_flops = 0, score_executed = 0;
  // --precision fp8/int8: the linear matmuls' FLOPs and time at the low-
  // precision peak, and the casts (activations and gradients in and out of
  // the 1-byte format, the weights once a step) at HBM bandwidth.
  double low_flops = 0, low_peak = 0, t_low = 0, cast_bytes = 0, t_cast = 0, low_weights = 0;
  double gemm_kernel = 0;      // GemmKernelEfficiency
  double stage_imbalance = 1;  // the largest stage's layers x stages / layers
  double micro_batches = 0;    // per step per pipeline
  // TP: all-reduces per layer and micro-batch, of one micro-batch's
  // activation (before TP; also what PP sends, / TP).
  double tp_collectives = 0, activation = 0, tp_bw = 0;
  // EP: MoE layers on the stage, all-to-alls per layer and micro-batch, and
  // the bytes of each.
  double moe_stage_layers = 0, ep_collectives = 0, ep_bytes = 0, ep_bw = 0;
  // FSDP: the parameters a gather rebuilds on a rank; the gathers' and
  // reduce-scatters' time before overlap.
  double fsdp_params = 0, fsdp_bw = 0, t_fsdp = 0;
  // DP: bytes per gradient on the wire, one reduce-scatter (or all-gather)
  // of the chip's gradients, reduce-scatters per step, all of DP before
  // overlap; one micro-batch's backward (what hides DP).
  double dp_grad_bytes = 0, dp_bw = 0, dp_reduce_scatter = 0, dp_reduce_scatters = 0, t_dp = 0;
  double mb_backward = 0;
  // CP: one K/V chunk, the ring's time and the attention compute it hides
  // under.
  double cp_chunk = 0, cp_bw = 0, t_cp_ring = 0, t_attention = 0;
  // PP: the bubble, the fill/drain point-to-point bytes and time.
  double bubble = 0, pp_bytes = 0, pp_bw = 0, t_p2p = 0;
  double bubble_slots = 0;                  // (p-1)/(v m), (p-1)/(3m) for zero bubble, (p/2-1)/(3m) for DualPipe
  double t_tp_before = 0, t_ep_before = 0;  // TP (--tp-overlap) and EP (DualPipe) before overlap
  bool ep_folded = false;                   // EP spans the TP group too (MoE parallel folding; experts not TP-split)
  // The optimizer step: the parameters each chip updates.
  double opt_params = 0;
};
Explanation Explain(const ModelSpec& m, const Cluster& c, const TrainSpec& t, const Knobs& k, const Plan& split);

PlanSearch SearchPlans(const ModelSpec& m, const Cluster& c, const TrainSpec& t, const Knobs& k, const PlanFilter& f);

}  // namespace mlprof::plan
