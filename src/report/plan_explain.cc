#include "report/plan_explain.h"

#include <fmt/format.h>

#include <string>
#include <vector>

namespace mlprof {

namespace {

// The lines of one plan's arithmetic; a term's line only where the plan has
// the term.
std::vector<std::string> ExplainLines(const plan::ModelSpec& m, const plan::Cluster& c, const plan::TrainSpec& t,
                                      const plan::Knobs& k, const plan::Explanation& e) {
  const double GB = 1e9;
  const plan::Plan& p = e.plan;
  const double us = k.latency * 1e6;
  std::vector<std::string> lines;
  lines.push_back(
      fmt::format("{}: {:.3f} B parameters ({:.3f} B active), {:.3f} GFLOP per token trained ({} "
                  "attention), {} sequences x {} tokens per step",
                  m.name, e.params.total / 1e9, e.params.active / 1e9, e.flops_per_token / 1e9,
                  t.causal_half ? "causal-halved" : "full s x s", t.global_batch, t.seq));
  lines.push_back(
      fmt::format("TP {} x DP {} x PP {} (v {}) x FSDP {} x CP {} = {} chips; EP {} inside DP x FSDP; "
                  "micro-batch {}, {} micro-batches per step; remat {}; ZeRO-{} over DP",
                  p.tp, p.dp, p.pp, p.vpp, p.fsdp, p.cp, c.chips, p.ep, p.mb, p.ga,
                  plan::RematLabel(p.remat, p.remat_fraction, p.remat_per_stage), p.zero));
  // ---- memory ----
  lines.push_back(
      fmt::format("parameters on the largest stage: dense {:.3f} B / (TP {} x FSDP {}) + experts {:.3f} B / (TP {} x "
                  "lcm(EP {}, FSDP {})) = {:.3f} B per chip",
                  e.dense_stage / 1e9, p.tp, p.fsdp, e.expert_stage / 1e9, p.tp, p.ep, p.fsdp, e.local / 1e9));
  lines.push_back(fmt::format(
      "W = {:.3f} B x {} B{} = {:.2f} GB; G = x {} B / {} = {:.2f} GB; O = x {} B / {} = {:.2f} GB ({}, "
      "ZeRO-{} over DP {})",
      e.local / 1e9, t.memory.weight,
      t.precision != hw::DType::kBf16 ? fmt::format(" + {} copy and its transpose 2 x 1 B", hw::DTypeName(t.precision))
                                      : "",
      p.weights / GB, t.memory.grad, e.grad_shard, p.grads / GB, t.memory.optimizer, e.opt_shard, p.optimizer / GB,
      t.memory.name, p.zero, p.dp));
  if (p.fsdp > 1)
    lines.push_back(fmt::format("FBuf = 2 layers gathered in bf16: 2 x 2 B x {:.3f} B / TP {} = {:.2f} GB",
                                e.fsdp_layer / 1e9, p.tp, p.fsdp_buffers / GB));
  lines.push_back(fmt::format(
      "Act = one layer recomputed {:.2f} GB + max(first stage {:.2f} GB x {:.2f} in flight, last stage {:.2f} "
      "GB + logits {:.2f} GB) = {:.2f} GB; a micro-batch: {:.1f} B per token per layer ({}) x {:.0f} tokens / "
      "TP {} x {:.0f} layers",
      e.transient / GB, e.per_mb / GB, e.inflight, e.per_mb / GB, e.logits / GB, p.activations / GB, e.saved,
      plan::RematLabel(p.remat, p.remat_fraction, p.remat_per_stage), e.tokens_mb, p.tp, e.stage_layers));
  if (e.remat_share < 1)
    lines.push_back(fmt::format("remat {} on {:.3f} of the stage's {:.0f} layers; the others save everything (none)",
                                plan::RematName(p.remat), e.remat_share, e.stage_layers));
  if (p.offloaded > 0)
    lines.push_back(
        fmt::format("Offloaded to host memory: the matmul outputs, {:.2f} GB per chip (not in Tot)", p.offloaded / GB));
  lines.push_back(fmt::format("Tot = W + G + O + FBuf + Act + Rsv ({:.0f} % of HBM) = {:.2f} GB of {:.2f} GB: {}",
                              t.reserve * 100, p.total / GB, c.chip.hbm_bytes / GB, p.fits ? "fits" : "does not fit"));
  // ---- time ----
  const bool low = t.precision != hw::DType::kBf16;
  if (k.attention <= 0 && k.other_bytes <= 0 && !low) {
    lines.push_back(fmt::format(
        "Comp = (({:.3f} + remat {:.3f} + busiest expert {:.3f} - scores {:.3f}) PFLOP / sizes {:.3f} + scores "
        "{:.3f} PFLOP) / ({} chips x {:.0f} TFLOP/s x GEMM {:.3f}) x stage imbalance {:.3f} = {:.4f} s",
        p.model_flops / 1e15, p.remat_flops / 1e15, p.imbalance_flops / 1e15, e.score_flops / 1e15, e.gemm_shape,
        e.score_flops / 1e15, c.chips, e.peak / 1e12, e.gemm, e.stage_imbalance, p.t_compute));
  } else {
    if (low) {
      lines.push_back(fmt::format(
          "{} matmuls (the layers' linear projections, their recompute and the busiest expert's extra) = {:.3f} "
          "PFLOP / ({} chips x {:.0f} TFLOP/s {} x matmul kernels {:.2f} x sizes {:.3f} x {:.2f} low precision){} = "
          "{:.4f} s",
          hw::DTypeName(t.precision), e.low_flops / 1e15, c.chips, e.low_peak / 1e12, hw::DTypeName(t.precision),
          e.gemm_kernel, e.gemm_shape, k.low_precision_gemm,
          e.gemm_kernel > e.gemm && k.other_bytes <= 0
              ? fmt::format(" + the bf16 work GEMM {:.2f} folds in around them: {:.3f} PFLOP / ({} x {:.0f} TFLOP/s) "
                            "x (1/{:.2f} - 1/{:.2f})",
                            e.gemm, e.low_flops / 1e15, c.chips, e.peak / 1e12, e.gemm, e.gemm_kernel)
              : "",
          e.t_low));
      lines.push_back(fmt::format(
          "{} casts = 3 B (bf16 in, 1 B out) x (the linear layers' inputs forward and output gradients backward, "
          "and the weights once a step) = {:.2f} GB per chip / ({:.0f} GB/s x HBM {:.2f}) = {:.4f} s",
          hw::DTypeName(t.precision), e.cast_bytes / GB, c.chip.hbm_bytes_per_s / GB, k.hbm, e.t_cast));
    }
    lines.push_back(fmt::format(
        "{}matmuls = ({:.3f} + remat {:.3f} + busiest expert {:.3f} - attention scores {:.3f}{}) PFLOP / ({} chips x "
        "{:.0f} TFLOP/s x GEMM {:.3f} x sizes {:.3f}) = {:.4f} s",
        low ? "bf16 " : "", p.model_flops / 1e15, p.remat_flops / 1e15, p.imbalance_flops / 1e15, e.score_flops / 1e15,
        low ? fmt::format(" - {} {:.3f}", hw::DTypeName(t.precision), e.low_flops / 1e15) : "", c.chips, e.peak / 1e12,
        e.gemm, e.gemm_shape, e.t_matmul));
    if (k.attention <= 0)
      lines.push_back(
          fmt::format("attention scores (bf16) = {:.3f} PFLOP / ({} chips x {:.0f} TFLOP/s x GEMM {:.2f}) "
                      "= {:.4f} s",
                      e.score_flops / 1e15, c.chips, e.peak / 1e12, e.gemm, e.t_scores));
    if (k.attention > 0)
      lines.push_back(fmt::format(
          "attention scores = {:.3f} PFLOP executed ({}) / ({} chips x {:.0f} TFLOP/s x attention {:.2f}) = {:.4f} s",
          e.score_executed / 1e15, t.causal_half ? "the causal half, as counted" : "half the s x s counted: causal",
          c.chips, e.peak / 1e12, k.attention, e.t_scores));
    if (k.other_bytes > 0)
      lines.push_back(fmt::format(
          "other ops = {:.1f} B x {:.0f} tokens x {} layers x {} hidden / {} chips / {:.0f} GB/s x (1 + remat / model "
          "FLOPs {:.3f}) = {:.4f} s",
          k.other_bytes, static_cast<double>(t.global_batch) * static_cast<double>(t.seq), m.layers, m.hidden, c.chips,
          c.chip.hbm_bytes_per_s / GB, p.model_flops > 0 ? p.remat_flops / p.model_flops : 0.0, e.t_other));
    lines.push_back(fmt::format("Comp = ({}matmuls + attention scores{}{}) x stage imbalance {:.3f} = {:.4f} s",
                                low ? fmt::format("{} matmuls + casts + bf16 ", hw::DTypeName(t.precision)) : "",
                                k.other_bytes > 0 ? " + other ops" : "", "", e.stage_imbalance, p.t_compute));
  }
  if (p.tp > 1)
    lines.push_back(
        fmt::format("TP = {:.0f} layers x {:.0f} micro-batches x {:.0f} all-reduces x (2({}-1)/{} x {:.3f} GB / {:.0f} "
                    "GB/s + 2({}-1) x {:.1f} us) = {:.4f} s{}",
                    e.stage_layers, e.micro_batches, e.tp_collectives, p.tp, p.tp, e.activation / GB, e.tp_bw / GB,
                    p.tp, us, e.t_tp_before,
                    t.tp_overlap ? fmt::format("; overlapped with the matmuls (--tp-overlap): max(0, that - {:.2f} x "
                                               "Comp) = {:.4f} s exposed",
                                               k.overlap, p.t_tp)
                                 : " (exposed)"));
  if (p.ep > 1 && e.moe_stage_layers > 0)
    lines.push_back(fmt::format(
        "EP{} = {:.0f} MoE layers x {:.0f} micro-batches x {:.0f} all-to-alls x ({:.3f} GB / {:.0f} GB/s + ({}-1) "
        "x {:.1f} us) = {:.4f} s{}",
        e.ep_folded ? " (folded over TP: the experts are not TP-split)" : "", e.moe_stage_layers, e.micro_batches,
        e.ep_collectives, e.ep_bytes / GB, e.ep_bw / GB, p.ep, us, e.t_ep_before,
        t.schedule == plan::Schedule::kDualPipe && p.pp > 1
            ? fmt::format("; DualPipe hides it under the other direction's compute: max(0, that - {:.2f} x Comp) = "
                          "{:.4f} s exposed",
                          k.overlap, p.t_ep)
            : " (exposed)"));
  if (p.fsdp > 1)
    lines.push_back(
        fmt::format("FSDP = {:.0f} micro-batches x 3 (gather forward, gather backward, reduce-scatter) x (({}-1)/{} x "
                    "{:.3f} B parameters x 2 B / {:.0f} GB/s + ({}-1) x {:.1f} us) = {:.4f} s",
                    e.micro_batches, p.fsdp, p.fsdp, e.fsdp_params / 1e9, e.fsdp_bw / GB, p.fsdp, us, e.t_fsdp));
  if (p.dp > 1)
    lines.push_back(
        fmt::format("DP reduce-scatter = ({}-1)/{} x {:.3f} B parameters x {:g} B / {:.0f} GB/s + ({}-1) x {:.1f} us = "
                    "{:.4f} s; the all-gather the same",
                    p.dp, p.dp, e.local / 1e9, e.dp_grad_bytes, e.dp_bw / GB, p.dp, us, e.dp_reduce_scatter));
  if (p.fsdp > 1 || p.dp > 1)
    lines.push_back(fmt::format(
        "FSDP+DP = max(0, FSDP {:.4f} s - {:.2f} x Comp) + DP {:.0f} x max(0, reduce-scatter {:.4f} s - {:.2f} "
        "x backward of one micro-batch {:.4f} s) + max(0, reduce-scatter + all-gather {:.4f} s - the same) = "
        "{:.4f} s exposed (DP {:.4f} s in all)",
        e.t_fsdp, k.overlap, e.dp_reduce_scatters - 1, e.dp_reduce_scatter, k.overlap, e.mb_backward,
        2 * e.dp_reduce_scatter, p.t_fsdp_dp, e.t_dp));
  if (p.cp > 1)
    lines.push_back(fmt::format(
        "CP = max(0, ring {:.0f} layers x {:.0f} micro-batches x 3({}-1) x ({:.3f} GB / {:.0f} GB/s + {:.1f} "
        "us) {:.4f} s - attention compute {:.4f} s) = {:.4f} s",
        e.stage_layers, e.micro_batches, p.cp, e.cp_chunk / GB, e.cp_bw / GB, us, e.t_cp_ring, e.t_attention, p.t_cp));
  if (p.pp > 1)
    lines.push_back(
        fmt::format("PP+Bubble = {} {:.4f} x (Comp + TP + EP) = {:.4f} s + p2p 2 x {} x ({}-1) x ({:.3f} GB / "
                    "{:.0f} GB/s + {:.1f} us) {:.4f} s = {:.4f} s",
                    t.schedule == plan::Schedule::kZeroBubble
                        ? fmt::format("zero bubble ({}-1)/(3 x {:.0f}) =", p.pp, e.micro_batches)
                    : t.schedule == plan::Schedule::kDualPipe
                        ? fmt::format("DualPipe ({}/2-1)/(3 x {:.0f}) =", p.pp, e.micro_batches)
                        : fmt::format("{} ({}-1)/({} x {:.0f}) =", p.vpp > 1 ? "interleaved" : "1F1B", p.pp, p.vpp,
                                      e.micro_batches),
                    e.bubble_slots, e.bubble, p.vpp, p.pp, e.pp_bytes / GB, e.pp_bw / GB, us, e.t_p2p, p.t_pp));
  lines.push_back(fmt::format("Opt = 34 B x {:.3f} B parameters / {:.0f} GB/s x HBM {:.2f} = {:.4f} s",
                              e.opt_params / 1e9, c.chip.hbm_bytes_per_s / GB, k.hbm, p.t_opt));
  if (p.offloaded > 0)
    lines.push_back(fmt::format(
        "Host = offload + reload 2 x {:.2f} GB x {:.0f} micro-batches / {:.0f} GB/s{} = {:.4f} s, exposed max(0, that "
        "- {:.2f} x Comp){} = {:.4f} s",
        p.offloaded / GB / std::max(1.0, e.inflight), e.micro_batches, e.host_bw / GB,
        e.host_bw_assumed ? " (no host link in the chip file: PCIe Gen4 x16 assumed)" : "", e.t_offload, k.overlap,
        k.step_overhead > 0 ? fmt::format(" + host overhead {:.4f} s", k.step_overhead) : "", p.t_host));
  else if (k.step_overhead > 0)
    lines.push_back(fmt::format("Host = host overhead (GPU idle per step, measured) = {:.4f} s", k.step_overhead));
  lines.push_back(fmt::format(
      "Step = {:.4f} s; MFU = {:.3f} PFLOP / ({:.4f} s x {} x {:.0f} TFLOP/s) = {:.2f} %; bottleneck: {}", p.t_step,
      p.model_flops / 1e15, p.t_step, c.chips, e.peak / 1e12, p.mfu * 100, plan::BottleneckName(p.bottleneck)));
  return lines;
}

}  // namespace

Table PlanExplainTable(int row, const plan::ModelSpec& m, const plan::Cluster& c, const plan::TrainSpec& t,
                       const plan::Knobs& k, const plan::Explanation& e) {
  Table tb("plan_explain", fmt::format("Plan {}: the arithmetic", row));
  tb.Add(Key("step", Unit::kId, "the line's number"))
      .Add(Measure("computation", Unit::kText, "one term's arithmetic").Whole());
  int i = 0;
  for (auto& l : ExplainLines(m, c, t, k, e)) tb.rows.push_back({Cell::Int(++i), Cell::Text(std::move(l))});
  return tb;
}

}  // namespace mlprof
