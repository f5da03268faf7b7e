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
enum class Remat { kNone, kSaveDots, kSelective, kMinimalWithContext, kSaveOutProj, kFull, kCount };
const char* RematName(Remat r);
bool ParseRemat(std::string_view s, Remat* out);

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
  std::vector<int64_t> axes;  // TPU torus axes, innermost first (empty on GPUs)
  bool tpu = false;
};
// Fills the bandwidths from the chip file: NVLink (all links) / ICI per
// axis; the chip's scale-out link (node egress per GPU, DCN per chip), or
// an eighth of the scale-up one where the file states none.
Cluster MakeCluster(const hw::Chip& chip, int64_t chips, int64_t node_size, std::vector<int64_t> axes);

struct TrainSpec {
  int64_t global_batch = 0;  // sequences per step
  int64_t seq = 0;
  MemoryConvention memory;
  double reserve = 0.10;  // fraction of HBM kept for the runtime / compiler / fragmentation
  bool causal_half =
      false;  // count half the s x s attention scores (MaxText since 2025); default: all (PaLM, Megatron)
};

// Efficiency knobs (defaults calibrated in docs/PLANNER.md).
struct Knobs {
  double gemm = 0;  // fraction of peak the model's matmuls reach; 0: the chip's calibrated figure (GemmEfficiency)
  double moe_imbalance = 1.25;  // the busiest expert's load / the mean (routed-expert compute is multiplied by it)
  double collective = 0.80;     // fraction of link bandwidth a large collective reaches
  double overlap = 0.90;        // fraction of FSDP/DP communication hidden under compute
  double hbm = 0.80;            // fraction of HBM bandwidth the optimizer step reaches
  double latency = 1e-6;  // α: seconds per step of a ring collective (a ring over n ranks takes n-1 steps per pass)
};

// The GEMM efficiency calibrated for a chip (docs/PLANNER.md) and where it
// comes from; chips without published data get the mean of those with.
double GemmEfficiency(const hw::Chip& chip, std::string* source = nullptr);

// ---- plans -------------------------------------------------------------------
struct Plan {
  int64_t tp = 1, dp = 1, pp = 1, vpp = 1, ep = 1, fsdp = 1, cp = 1, mb = 1, ga = 1;
  Remat remat = Remat::kNone;
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
  double mfu = 0;  // model FLOPs / (step · chips · peak)
  std::string bottleneck;
};

// Restrict the search (0 / empty: any).
struct PlanFilter {
  int64_t tp = 0, dp = 0, pp = 0, vpp = 0, ep = 0, fsdp = 0, cp = 0, mb = 0;
  std::string remat;
  int zero = -1;  // ZeRO stage over DP; -1: 1, and 2 where 1 does not fit
  double max_mem_bytes = 0;
  bool include_oom = false;        // keep plans that do not fit (bottleneck "memory")
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
  };
  enum class Field : uint8_t { kNone, kTp, kPp, kCp, kEp, kFsdp, kDp, kSeq, kHeads, kExperts };
  Kind kind;
  Field axis = Field::kNone;  // the pinned degree at fault
  Field of = Field::kNone;    // what it must divide
  int64_t value = 0, limit = 0;
  double replicas = 0;  // kBatchNotDivide: DP x FSDP x micro-batch (a double: the product may not fit an int64)
  std::string text;     // kBadRemat: the policy given
};
// Validates the run (a batch the data-parallel degree and micro-batch cannot
// split, a sequence CP cannot split, experts EP cannot split...). A filter
// that pins every axis is checked the same way. nullopt: fine.
std::optional<RunProblem> CheckRun(const ModelSpec& m, const Cluster& c, const TrainSpec& t, const PlanFilter& f);

// One plan's memory and time (the split must be valid).
Plan Evaluate(const ModelSpec& m, const Cluster& c, const TrainSpec& t, const Knobs& k, const Plan& split);
// The arithmetic behind Evaluate, one line per term.
std::vector<std::string> Explain(const ModelSpec& m, const Cluster& c, const TrainSpec& t, const Knobs& k,
                                 const Plan& split);

PlanSearch SearchPlans(const ModelSpec& m, const Cluster& c, const TrainSpec& t, const Knobs& k, const PlanFilter& f);

}  // namespace mlprof::plan
