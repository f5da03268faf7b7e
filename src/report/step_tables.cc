#include "report/step_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "model/steps.h"
#include "report/columns.h"
#include "report/tables_common.h"

namespace mlprof {

Table PhasesTable(const LayerReport& r) {
  Table t("phases", "GPU time per step by phase: forward, backward, optimizer, communication (us)");
  t.Add(RankKey())
      .Add(Count("steps", "steady steps measured (0: no ProfilerSteps, the whole trace as one)"))
      .Add(TimeUs("forward",
                  "GPU time launched outside the autograd engine and the optimizer, per step (median); null where "
                  "forward and backward cannot be told apart"))
      .Add(TimeUs("backward", "launched under autograd::engine::evaluate_function, per step (median); null likewise"))
      .Add(TimeUs("optimizer", "launched under an Optimizer.* annotation (Optimizer.step#..., zero_grad), per step"))
      .Add(TimeUs("communication", "communication kernels, whichever phase launched them, per step (median)"))
      .Add(TimeUs("backward_outside_engine",
                  "of the GPU time outside the engine, what was launched under a host range named as backward "
                  "(...(B), ...(W), *backward*, *bwd*), per step (median)"))
      .Add(Pct("backward_per_forward_pct", "backward / forward (about 200 % for dense models)", 1));
  for (const PhaseRow& p : r.phases)
    t.rows.push_back(
        {Cell::Int(p.rank), Cell::Int(p.steps), p.split_known ? Time(p.forward) : Cell::Null(),
         p.split_known ? Time(p.backward) : Cell::Null(), Time(p.optimizer), Time(p.communication),
         Time(p.backward_outside_engine),
         p.split_known ? PctCell(static_cast<double>(p.backward), static_cast<double>(p.forward)) : Cell::Null()});
  t.notes.push_back(
      "Forward holds every GPU op launched outside the autograd engine and the optimizer annotations: input copies "
      "and the loss too.");
  for (const PhaseRow& p : r.phases) {
    if (p.backward_ranges.empty()) continue;
    std::string ranges;
    for (size_t i = 0; i < p.backward_ranges.size() && i < 5; ++i)
      ranges += fmt::format("{}{} {:.3f} ms", i ? ", " : "", p.backward_ranges[i].first,
                            static_cast<double>(p.backward_ranges[i].second) / 1e9);
    if (p.backward_ranges.size() > 5) ranges += fmt::format(" and {} more", p.backward_ranges.size() - 5);
    const double both = static_cast<double>(p.forward + p.backward);
    const double share = both > 0 ? 100.0 * static_cast<double>(p.backward_outside_engine) / both : 0;
    if (!p.split_known)
      t.notes.push_back(fmt::format(
          "Rank {}: forward and backward cannot be told apart, so neither is given: {:.3f} ms per step ({:.1f} % "
          "of the {:.3f} ms of forward and backward GPU time) was launched outside the autograd engine under host "
          "ranges named as backward ({}): backward work ran outside the engine (as pipeline schedules such as "
          "DualPipe and zero-bubble run their backward chunks), so the engine's {:.3f} ms is not the backward pass.",
          p.rank, static_cast<double>(p.backward_outside_engine) / 1e9, share, both / 1e9, ranges,
          static_cast<double>(p.backward) / 1e9));
    else if (share >= 1)  // below 1 %: the loss gradient's fill under "## backward ##" and the like
      t.notes.push_back(fmt::format(
          "Rank {}: {:.3f} ms per step of forward ({:.1f} % of forward and backward, under the {:g} % from which the "
          "split is not given) was launched outside the autograd engine under host ranges named as backward ({}).",
          p.rank, static_cast<double>(p.backward_outside_engine) / 1e9, share, kPhaseSplitUnknownPct, ranges));
  }
  return t;
}

Table LayersTable(const LayerReport& r) {
  Table t("layers", "Repeated modules: GPU time per instance (forward, us)");
  t.Add(RankKey())
      .Add(Key("module", Unit::kText, "module class (nn.Module frames; with_stack / with_modules)").Symbol())
      .Add(Count("instances", "instances that launched GPU work"))
      .Add(Measure("per_step", Unit::kCount, "instances per step").Decimals(1))
      .Add(TimeUs("median", "GPU time per instance, median"))
      .Add(TimeUs("min", "the fastest instance"))
      .Add(TimeUs("max", "the slowest instance"))
      .Add(Text("slowest", "the slowest instance"))
      .Add(TimeUs("total", "all instances"))
      .Add(Pct("pct", "of the rank's GPU time in the measured steps", 1))
      .Add(Text("block", "yes: the repeating block (the repeated module with modules inside that takes the most)"));
  for (const LayerRow& l : r.layers)
    t.rows.push_back({Cell::Int(l.rank), Cell::Text(l.module), Cell::Int(l.instances), Cell::Real(l.per_step),
                      Time(l.median), Time(l.min), Time(l.max), Cell::Text(l.slowest), Time(l.total), Cell::Real(l.pct),
                      Cell::Text(l.block ? "yes" : "")});
  t.notes.push_back(
      "Forward only: backward kernels run on the autograd thread, outside the module frames (`phases` has the "
      "backward).");
  for (int64_t rank : r.ranks_without_modules)
    t.notes.push_back(fmt::format(
        "Rank {}: no nn.Module frames; record with torch.profiler(with_stack=True) (with_modules) to see layers.",
        rank));
  return t;
}

Table BlockTable(const LayerReport& r) {
  Table t("layer_block", "The repeating block's GPU time by the modules inside it (us per instance)");
  t.Add(RankKey())
      .Add(Key("part", Unit::kText, "module class just inside the block, or (own ops)").Symbol())
      .Add(TimeUs("per_instance", "GPU time per block instance (mean)"))
      .Add(Pct("pct", "of the block's GPU time", 1));
  for (const BlockPart& b : r.block)
    t.rows.push_back({Cell::Int(b.rank), Cell::Text(b.part), Time(b.per_instance), Cell::Real(b.pct)});
  return t;
}

Table KernelBlocksTable(const LayerReport& r) {
  Table t("kernel_blocks", "Repeating kernel sequence per phase: GPU time per instance (us)");
  t.Add(RankKey())
      .Add(Key("phase", Unit::kText,
               "forward or backward (as in phases); all: forward and backward together where phases cannot tell "
               "them apart"))
      .Add(Count("kernels", "GPU ops per instance (the period)"))
      .Add(Count("instances", "back-to-back repeats over the measured steps"))
      .Add(Measure("per_step", Unit::kCount, "instances per step").Decimals(1))
      .Add(TimeUs("median", "GPU time per instance (its ops' durations), median"))
      .Add(TimeUs("min", "the fastest instance"))
      .Add(TimeUs("max", "the slowest instance"))
      .Add(Text("slowest", "the slowest instance: step and position (#1 first)"))
      .Add(TimeUs("span", "first op's start to last op's end, median"))
      .Add(TimeUs("total", "all instances"))
      .Add(Pct("pct", "of the phase's GPU time in the measured steps", 1))
      .Add(Text("first_kernel", "the instance's first GPU op").Symbol());
  for (const KernelBlock& b : r.kernel_blocks)
    t.rows.push_back({Cell::Int(b.rank), Cell::Text(b.phase), Cell::Int(b.kernels), Cell::Int(b.instances),
                      Cell::Real(b.per_step), Time(b.median), Time(b.min), Time(b.max), Cell::Text(b.slowest),
                      Time(b.span), Time(b.total), Cell::Real(b.pct), Cell::Text(b.first_kernel)});
  t.notes.push_back(
      "Found from the kernels alone: per step, the period of GPU ops (communication apart) repeated back to back "
      "that covers the most GPU time; names must match exactly, and an instance starts at the first op of the run.");
  return t;
}

Table KernelBlockPartsTable(const LayerReport& r) {
  Table t("kernel_block_parts", "The repeating kernel sequence by launching op (us per instance)");
  t.Add(RankKey())
      .Add(Key("phase", Unit::kText, "forward or backward"))
      .Add(Key("op", Unit::kText, "the innermost cpu_op that launched the kernels, else the kernel").Symbol())
      .Add(TimeUs("per_instance", "GPU time per instance (mean)"))
      .Add(Pct("pct", "of the sequence's GPU time", 1));
  for (const KernelBlockPart& b : r.kernel_block_parts)
    t.rows.push_back(
        {Cell::Int(b.rank), Cell::Text(b.phase), Cell::Text(b.part), Time(b.per_instance), Cell::Real(b.pct)});
  return t;
}

std::vector<std::string> StepSourceNotes(const StepReport& s) {
  std::vector<std::string> out;
  for (const StepSummary& r : s.summary) {
    if (!r.note.empty()) {
      out.push_back(fmt::format("Rank {}: {}{}.", r.rank, r.note,
                                r.source == StepSource::kTrace ? "; its figures are per trace" : ""));
      continue;
    }
    if (r.source == StepSource::kProfilerStep || r.source == StepSource::kNone) continue;
    if (r.source == StepSource::kTrace)
      out.push_back(fmt::format(
          "Rank {}: no iterations found (no ProfilerStep#N, serving step, Optimizer.step range, iteration annotation "
          "or repeating top-level ops): the whole trace is one step, and its figures are per trace.",
          r.rank));
    else
      out.push_back(fmt::format(
          "Rank {}: no ProfilerStep#N; the steps are {}{}.", r.rank, StepSourceDescription(r.source),
          r.gpu_ops_outside > 0
              ? fmt::format("; {} GPU ops ({:.3f} ms) were launched before the first step or after the last and "
                            "are in none (the iteration before the first boundary, say)",
                            r.gpu_ops_outside, static_cast<double>(r.gpu_time_outside) / 1e9)
              : ""));
  }
  return out;
}

Table StepTable(const StepReport& s) {
  Table t("steps", "Per-step breakdown (us)");
  t.Add(RankKey())
      .Add(Key("step", Unit::kId, "N of ProfilerStep#N; for steps found otherwise, 0.. in time order"))
      .Add(TimeUs("wall", "the step's span on the host"))
      .Add(TimeUs("gpu_span", "last end - first start of the step's GPU ops"))
      .Add(TimeUs("gpu_busy", "time any of the step's GPU ops runs"))
      .Add(TimeUs("compute", "time a COMPUTATION kernel of the step runs"))
      .Add(TimeUs("comm", "time a COMMUNICATION kernel of the step runs"))
      .Add(TimeUs("memory", "time a MEMORY op of the step runs"))
      .Add(TimeUs("gpu_idle", "gpu_span - gpu_busy"))
      .Add(Count("gpu_ops", "GPU ops launched in the step"))
      .Add(Text("warmup", "'yes' for a warm-up step, left out of the steady state"))
      .Add(Text("last", "'yes' for the last step, left out of the steady state as HTA does (--all-steps keeps it)"));
  for (const auto& b : s.steps)
    t.rows.push_back({Cell::Int(b.rank), Cell::Int(b.number), Time(b.wall), Time(b.gpu_span), Time(b.gpu_busy),
                      Time(b.compute), Time(b.communication), Time(b.memory), Time(b.idle), Cell::Int(b.gpu_ops),
                      Cell::Text(b.warmup ? "yes" : ""), Cell::Text(b.last ? "yes" : "")});
  return t;
}

Table StepSummaryTable(const StepReport& s) {
  Table t("steady_state", "Steady state (median over steps after warm-up; us)");
  t.Add(RankKey())
      .Add(Count("steps", "steps found"))
      .Add(Count("steady_steps", "steps after the warm-up (and before the left-out last step)"))
      .Add(TimeUs("median_wall", "median wall time of the steady steps"))
      .Add(TimeUs("median_gpu_span", "median GPU span"))
      .Add(TimeUs("median_gpu_busy", "median GPU busy time"))
      .Add(TimeUs("median_compute", "median COMPUTATION time"))
      .Add(Text("source",
                "where the steps come from: profiler (ProfilerStep#N), serving, optimizer (Optimizer.step ranges), "
                "annotation (iteration annotations), repeat (repeating top-level ops), trace (the whole trace)"));
  for (const auto& r : s.summary) {
    // No steady step (all warm-up): no median.
    auto med = [&](double us) { return r.steady_steps > 0 ? UsCell(us) : Cell::Null(); };
    t.rows.push_back({Cell::Int(r.rank), Cell::Int(r.steps), Cell::Int(r.steady_steps), med(r.median_wall_us),
                      med(r.median_gpu_span_us), med(r.median_busy_us), med(r.median_compute_us),
                      Cell::Text(StepSourceName(r.source))});
  }
  // Notes about one rank first (an MPI run merges them in rank order
  // before the others).
  t.notes = StepSourceNotes(s);
  if (std::any_of(s.steps.begin(), s.steps.end(), [](const StepBreakdown& b) { return b.last; }))
    t.notes.push_back(
        "The last step is left out of the medians, as HTA does: profiling often stops inside it (--all-steps keeps "
        "it).");
  return t;
}

Table ServingStepTable(const ServingReport& s) {
  Table t("serving_steps", "Serving steps (the engine's step annotations; us)");
  auto num = [](int64_t v) { return v >= 0 ? Cell::Int(v) : Cell::Null(); };
  t.Add(RankKey())
      .Add(Key("step", Unit::kId, "the step's position in time (0 first)"))
      .Add(Text("engine", "vllm (execute_...) or sglang (step[...])"))
      .Add(Text("kind", "prefill, decode, mixed (both in one batch) or idle"))
      .Add(Count("requests", "requests in the batch"))
      .Add(Count("tokens", "tokens the step ran (vLLM: scheduled tokens; SGLang decode: one per request)"))
      .Add(Count("prefill_tokens", "query tokens of the requests in prefill"))
      .Add(Count("decode_tokens", "query tokens of the requests in decode"))
      .Add(Count("kv_tokens", "context (key) tokens over all requests: the KV cache the step reads (vLLM)"))
      .Add(TimeUs("host", "the step's range on the host"))
      .Add(TimeUs("blocked", "of it, in calls that wait for the device (syncs, synchronous copies) on its thread"))
      .Add(TimeUs("gpu_busy", "time any GPU op launched in the step runs"))
      .Add(TimeUs("gpu_span", "last end - first start of those GPU ops"))
      .Add(TimeUs("latency", "range start to the later of its end and its last GPU op's end"))
      .Add(TimeUs("gap", "from this step's latency end to the next step's start"))
      .Add(Measure("tokens_per_s", Unit::kRatio, "tokens / latency").Decimals(1))
      .Add(Text("bound", "host: host - blocked > gpu_busy (issuing the step takes longer than its GPU work); else gpu"))
      .Add(Text("warmup", "'yes' for a warm-up step, left out of the steady state"))
      .Add(Text("last", "'yes' for the last step, left out of the steady state (--all-steps keeps it)"));
  for (const ServingStepRow& r : s.steps)
    t.rows.push_back(
        {Cell::Int(r.rank), Cell::Int(r.number), Cell::Text(r.engine), Cell::Text(r.kind), num(r.requests),
         num(r.tokens), num(r.prefill_tokens), num(r.decode_tokens), num(r.kv_tokens), Time(r.host), Time(r.blocked),
         Time(r.gpu_busy), Time(r.gpu_span), Time(r.latency), r.gap >= 0 ? Time(r.gap) : Cell::Null(),
         r.tokens >= 0 && r.latency > 0 ? Cell::Real(static_cast<double>(r.tokens) / (PsToUs(r.latency) * 1e-6))
                                        : Cell::Null(),
         Cell::Text(r.host_bound ? "host" : "gpu"), Cell::Text(r.warmup ? "yes" : ""),
         Cell::Text(r.last ? "yes" : "")});
  return t;
}

Table ServingSummaryTable(const ServingReport& s) {
  Table t("serving_steady_state", "Serving steady state per kind of step (steps after warm-up; us)");
  auto rate = [](double v) { return v >= 0 ? Cell::Real(v) : Cell::Null(); };
  t.Add(RankKey())
      .Add(Key("kind", Unit::kText, "prefill, decode, mixed or idle"))
      .Add(Count("steps", "steps of this kind"))
      .Add(Count("steady_steps", "of them after the warm-up (and before a left-out last step)"))
      .Add(Measure("mean_requests", Unit::kRatio, "mean requests per steady step").Decimals(1))
      .Add(TimeUs("median_latency", "median step latency"))
      .Add(TimeUs("p90_latency", "90th percentile of the latency (linear interpolation)"))
      .Add(TimeUs("median_tpot", "decode: time per output token = the median decode step latency"))
      .Add(TimeUs("median_host", "median host time to issue a step"))
      .Add(TimeUs("median_gpu_busy", "median GPU busy time per step"))
      .Add(TimeUs("median_gap", "median gap to the next step"))
      .Add(Measure("tokens_per_s", Unit::kRatio, "tokens of the steady steps / their latencies summed").Decimals(1))
      .Add(Measure("output_tokens_per_s", Unit::kRatio,
                   "tokens produced (one per decode request; a prefill's first token is not counted) / latency")
               .Decimals(1))
      .Add(Count("host_bound_steps", "steady steps whose host time less blocking calls exceeds their GPU busy time"));
  for (const ServingKindSummary& k : s.summary) {
    const bool any = k.steady_steps > 0;
    auto us = [&](double v) { return any && v >= 0 ? UsCell(v) : Cell::Null(); };
    t.rows.push_back({Cell::Int(k.rank), Cell::Text(k.kind), Cell::Int(k.steps), Cell::Int(k.steady_steps),
                      k.mean_requests >= 0 ? Cell::Real(k.mean_requests) : Cell::Null(), us(k.median_latency_us),
                      us(k.p90_latency_us), us(k.median_tpot_us), us(k.median_host_us), us(k.median_gpu_busy_us),
                      us(k.median_gap_us), rate(k.tokens_per_s), rate(k.output_tokens_per_s),
                      Cell::Int(k.host_bound_steps)});
  }
  return t;
}

}  // namespace mlprof
