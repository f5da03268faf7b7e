// The planner's model of one plan (plan/planner.h): what does not change
// between the plans of one model and run (Derived), and one plan's memory and
// step time from it, term by term (ComputePlan). Internal to plan/: the
// search (planner.cc) and its tests use it.
#pragma once

#include <cstdint>
#include <vector>

#include "plan/planner.h"

namespace mlprof::plan {

constexpr int kRematCount = static_cast<int>(Remat::kCount);

// What does not change between plans of one model and run.
struct Derived {
  ParamCounts p;
  double flops_per_token = 0;
  double tokens = 0;               // per step
  double attn = 0, norm = 0;       // per layer
  double dense_layer = 0;          // parameters of the largest dense layer
  double moe_layer_nonexpert = 0;  // per MoE layer: attention + norms + shared + router
  double expert_per_layer = 0;     // per MoE layer: routed experts
  int64_t moe_layers = 0;
  double score_fwd_per_token = 0;     // attention-score FLOPs per token, forward, summed over layers
  double qkv_fwd_per_token = 0;       // 2 x (Q, K, V projections), summed over layers
  double out_fwd_per_token = 0;       // 2 x output projection, summed
  double mlp_fwd_per_token = 0;       // 2 x active MLP, summed
  double expert_train_per_token = 0;  // 6 x routed-expert weights a token uses, summed over MoE layers
  // Saved activation elements per token per layer (averaged over layers),
  // per remat policy, before TP and CP; and fp32 bytes (log-sum-exp).
  double saved[kRematCount] = {};
  double full_layer = 0;  // one layer's full working set, elements per token
  double offloaded = 0;   // minimal_offloaded: elements per token per layer kept in host memory
  // Low precision: elements per token (all layers) cast to and from 1 byte:
  // the linear layers' inputs forward and their output gradients backward.
  double cast_per_token = 0;
  // The layers' linear matmuls, forward, as (N, K, FLOPs weight = layers
  // using it, TP splits N (else K), per expert): M is the micro-batch's
  // tokens on a chip (or, per expert, its routed tokens).
  struct Gemm {
    double n, k, layers;
    bool split_n, expert;
  };
  std::vector<Gemm> gemms;
};

Derived Derive(const ModelSpec& m, const TrainSpec& t);

// Attention heads, with the Q/K and V head widths (MLA's, else head_dim).
double AttnWidths(const ModelSpec& m, double* dqk, double* dv);

// One plan's memory and time into *pl; with `why`, the figures behind them
// too (the search calls it ~10^5 times a second without). `known_shape`:
// the plan's PlanGemmShape when the caller has it (the same for every remat
// policy and ZeRO stage of a layout).
void ComputePlan(const ModelSpec& m, const Cluster& c, const TrainSpec& t, const Knobs& k, const Derived& d, Plan* pl,
                 Explanation* why, double known_shape = -1);

// What of the large-matmul efficiency the plan's layer matmuls reach at
// their sizes on a chip, weighted by FLOPs (GemmShapeFactor).
double PlanGemmShape(const ModelSpec& m, const Cluster& c, const TrainSpec& t, const Derived& d, const Plan& p);

}  // namespace mlprof::plan
