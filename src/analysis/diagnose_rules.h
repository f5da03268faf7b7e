// The inside of `mlprof diagnose` (analysis/diagnose.h): one evaluation of
// the rules over a view, its shared state (each rank's step basis, the
// GPU's idle gaps, the critical paths' what-ifs) and one evaluator per rule,
// the GPU-time rules in diagnose_gpu_rules.cc, the op rules in
// diagnose_op_rules.cc. Only those files include this header.
#pragma once

#include <fmt/format.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/critical_path.h"
#include "analysis/diagnose.h"

namespace mlprof::diagnose {

inline std::string Ms(Ps ps) { return fmt::format("{:.3f} ms", static_cast<double>(ps) / 1e9); }

// What "per step" means for a rank: a time lost inside the measured window
// is that share of the steady-state median step. The window is the span of
// the steady steps the view keeps (after the warm-up, without the last step
// when the view drops it), widened to the GPU work they launched; without steps, the trace (first op to last op,
// the profiler's envelope span left out) counts as one step. Losses are
// clipped to the window.
struct StepBasis {
  Ps step = 0, w0 = 0, w1 = 0;
  bool from_steps = false;
  bool gpu_paced = false;  // the step is the GPU's median span, not the host's
  // ProfilerSteps: the steady steps' indices [first, end). GPU ops belong to
  // the step that launched them, so sums over them are per step exactly.
  int32_t first = 0, end = 0;
  bool Steady(int32_t k) const { return k >= first && k < end; }
  // A sum over the steady steps' GPU ops, per step: their mean; without
  // ProfilerSteps, the window's share of the step (PerStep).
  Ps PerStepOps(Ps total) const { return end > first ? total / (end - first) : PerStep(total); }
  std::string PerOps(Ps total) const {
    if (end <= first) return Per(total);
    return fmt::format("{} over {} steady step{}", Ms(total), end - first, end - first == 1 ? "" : "s");
  }
  Ps window() const { return w1 - w0; }
  Ps Clip(Ps a, Ps b) const { return std::max<Ps>(0, std::min(b, w1) - std::max(a, w0)); }
  Ps PerStep(Ps total) const {
    if (window() <= 0) return 0;
    return static_cast<Ps>(
        std::llround(static_cast<double>(total) * static_cast<double>(step) / static_cast<double>(window())));
  }
  // "8.763 ms of the 10.112 ms measured (86.7 %) x the median step 0.540 ms"
  std::string Per(Ps total) const {
    const double share = window() > 0 ? 100.0 * static_cast<double>(total) / static_cast<double>(window()) : 0;
    if (!from_steps)
      return fmt::format("{} of the {} traced ({:.1f} %; no steps: the trace as one)", Ms(total), Ms(window()), share);
    return fmt::format("{} of the {} of steady steps ({:.1f} %) x the median step {}{}", Ms(total), Ms(window()), share,
                       Ms(step), gpu_paced ? " (GPU span, longer than the host's step)" : "");
  }
};

// The GPU's idle gaps per rank (no GPU op of the rank running), and why:
// host wait when the op that ends the gap was launched only after the GPU
// had drained (HTA's host-wait rule, on all streams together); a sync
// stall when the host sat in a synchronising call as the GPU drained.
struct Gaps {
  Ps host_wait = 0, after_sync = 0;  // gaps of at least the kernel-wait threshold
  Ps host_all = 0;                   // every host-caused gap, short ones too (launch overhead)
  int64_t host_gaps = 0, sync_gaps = 0;
  // Gaps of at least the threshold whose next op was submitted before the
  // GPU drained (queued_idle), the largest and the op after it.
  Ps queued = 0, queued_max = 0, graph = 0;
  int64_t queued_gaps = 0, graph_gaps = 0;  // graph: before ops of CUDA-graph launches, left out
  uint32_t queued_op = 0;
};

// The critical path's what-if: how much the path shortens with some edges
// weighing nothing (median over the rank's last steady windows), and how long
// it is.
struct CpSaving {
  Ps saving = 0, length = 0;
  size_t windows = 0;
};

// The trace's span, without the profiler's envelope ("PyTorch Profiler (0)").
std::pair<Ps, Ps> Span(const RankView& rv);
// A communication kernel's collective ("all-reduce", "send/recv", ...;
// "other" when nothing says).
std::string CollectiveOfKernel(const RankProfile& p, uint32_t op);
// The cpu_op that launched a GPU op, -1 when none.
int32_t LaunchingCpuOp(const RankProfile& p, uint32_t gpu_op);
// PyTorch ops that only copy or change the layout of a tensor.
bool IsFormattingOp(std::string_view name);
// A copy's Input type list names two different dtypes: a cast.
bool IsCast(std::string_view types);
// The device planes an XLA rank's ops run on.
int XlaDevices(const RankProfile& p);

// One evaluation: the constructor finds each rank's step basis; Evaluate
// runs every rule's evaluator in turn and returns the findings, sorted.
class Run {
 public:
  Run(const ProfileView& view, const DiagnoseOptions& o, const DiagnoseInputs& in, std::vector<DiagnoseNote>* notes,
      std::vector<CommArrival>* arrivals, std::vector<RankBasis>* bases);
  std::vector<Finding> Evaluate(std::vector<StepSummary>* step_summary);

 private:
  // The evaluators, in the order they run (each names the rules it
  // evaluates; docs/ANALYSES.md has their formulas).
  void ExposedCommunication();     // exposed_communication (diagnose_gpu_rules.cc)
  void FindIdleGaps();             // the GPU's idle gaps and why: `gaps`, `syncs`
  void HostWaitIdle();             // host_wait_idle
  void GlooNote();                 // gloo's host-side collectives: a note
  void QueuedIdle();               // queued_idle
  void LaunchOverhead();           // launch_overhead
  void SyncStalls();               // sync_stalls
  void Fp32Matmul();               // fp32_matmul (diagnose_op_rules.cc)
  void PageableCopies();           // pageable_copies
  void SlowHostCall();             // slow_host_call
  void DeviceOpClasses();          // async_wait, data_formatting, recompute
  void InputPipelineDataLoader();  // input_pipeline (the DataLoader)
  void InputPipelineTfData();      // input_pipeline (tf.data)
  void Matmuls();                  // matmul_efficiency, memory_bound_matmul
  void StepBoundaryIdle();         // step_boundary_idle (diagnose_gpu_rules.cc)
  void GpuActivityLost();          // gpu_activity_lost

  // The critical path's what-if for a rank (computed once per rank, when a
  // rule asks): the path with `removed` edges weighing nothing.
  std::optional<CpSaving> PathWithout(const RankView& rv, const std::function<bool(const CpEdge&)>& removed);
  // The path bounds a saving only when it explains the step: at least 90 %
  // of it (HTA's graph misses dependencies it cannot see, and then the path
  // is shorter than the step).
  static bool CpExplains(const CpSaving& s, Ps step) {
    return static_cast<double>(s.length) >= 0.9 * static_cast<double>(step);
  }
  static std::string CpWords(const CpSaving& s, std::string_view what) {
    return fmt::format("the critical path (HTA's graph; median of {} step{}, {} long) shortens by {} with {}",
                       s.windows, s.windows == 1 ? "" : "s", Ms(s.length), Ms(s.saving), what);
  }
  // A finding counts when it saves enough of the step.
  bool Worth(Ps saving, Ps step) const {
    return saving >= o.min_saving && static_cast<double>(saving) >= o.min_share * static_cast<double>(step);
  }

  const ProfileView& view;
  const DiagnoseOptions& o;
  const DiagnoseInputs& in;
  std::vector<DiagnoseNote>* notes;
  std::vector<CommArrival>* arrivals;
  std::vector<RankBasis>* bases;
  StepOptions so;
  StepReport steps;
  std::map<int64_t, StepBasis> basis;
  std::map<int64_t, const StepSummary*> summary;
  std::map<int64_t, std::vector<CriticalPath>> cp_cache;
  std::map<int64_t, Gaps> gaps;
  std::map<int64_t, std::map<std::string_view, std::pair<int64_t, Ps>>> syncs;  // rank -> call -> (count, time)
  std::vector<Finding> out;
};

}  // namespace mlprof::diagnose
