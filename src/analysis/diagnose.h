// What to fix first: rules over the analyses' results, each declared once
// (id, severity, title, what it means, how to fix it), each finding with its
// evidence, an estimated saving per step with the formula and its numbers,
// and a confidence. Findings come sorted by saving. The rules, their
// thresholds and formulas are documented in docs/ANALYSES.md.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "analysis/roofline.h"
#include "analysis/steps.h"
#include "analysis/view.h"
#include "analysis/xla.h"
#include "model/import_stats.h"

namespace mlprof {

//  X(id, severity, title, meaning, fix)
#define MLPROF_RULES(X)                                                                                            \
  X(gpu_activity_lost, kError, "GPU activity lost or not captured",                                                \
    "the host launched GPU work that the trace does not hold (CUPTI's activity records were dropped or never "     \
    "collected): every GPU figure misses that work, and no rule about the GPU can be trusted",                     \
    "profile again with CUDA activities on (torch.profiler activities=[ProfilerActivity.CUDA]), a shorter window " \
    "or a larger CUPTI buffer, and let the process flush the trace before it exits")                               \
  X(exposed_communication, kWarning, "Exposed communication",                                                      \
    "collective kernels run while no computation runs beside them: the step waits for the network",                \
    "overlap communication with compute (DDP bucketing / gradient_as_bucket_view, FSDP prefetch, async "           \
    "tensor parallelism), or move less data (gradient compression, a sharding that communicates less)")            \
  X(host_wait_idle, kWarning, "GPU waits for the host",                                                            \
    "a GPU stream is idle because the host has not launched its next work yet (HTA's host-wait idle): the step "   \
    "is bound by the CPU side",                                                                                    \
    "launch fewer, larger kernels (torch.compile, fused ops), capture the step in a CUDA graph, keep "             \
    "Python-side work and data loading off the critical path (DataLoader workers, pinned memory, prefetch)")       \
  X(queued_idle, kWarning, "GPU idle with work queued",                                                            \
    "no GPU op runs although the next one was already submitted: its stream waits for something no traced GPU "    \
    "work explains (an event from another stream, process or device, a host-side event, or kernels the "           \
    "profiler did not record, such as CUDA-graph replays without graph tracing)",                                  \
    "find what the stream waits for (cudaStreamWaitEvent before the op, the producer in another process or "       \
    "rank, a serving scheduler's queue); profile all processes of the job; record graph kernels "                  \
    "(torch.profiler with CUPTI graph tracing) where CUDA graphs run")                                             \
  X(launch_overhead, kInfo, "Kernels shorter than their launch",                                                   \
    "many kernels run for less time than the host call that launched them, so launching, not the GPU, sets the "   \
    "pace",                                                                                                        \
    "CUDA graphs (torch.cuda.graphs, torch.compile mode=\"reduce-overhead\") or kernel fusion "                    \
    "(torch.compile) remove most launch calls")                                                                    \
  X(sync_stalls, kWarning, "Host blocked in synchronisation",                                                      \
    "the host waits in device, stream or event synchronisation (torch.cuda.synchronize, .item(), .cpu(), "         \
    "printing a tensor, blocking copies), and launches nothing meanwhile",                                         \
    "remove synchronisations from the step (log metrics every N steps, keep values on the device), use "           \
    "non_blocking copies from pinned memory")                                                                      \
  X(async_wait, kWarning, "Device waits for an async collective",                                                  \
    "XLA *-done ops (all-gather-done, all-reduce-done, ...) block the device until an asynchronous collective "    \
    "finishes: the compiler could not hide the collective behind computation",                                     \
    "give the scheduler work to overlap (a sharding constraint on the intermediate, XLA's latency-hiding "         \
    "scheduler flags, collective matmul), or shard so that less is gathered")                                      \
  X(data_formatting, kInfo, "Data formatting ops",                                                                 \
    "copies, transposes and layout changes (XLA's data formatting category) take device time without computing",   \
    "keep layouts consistent between producer and consumer (avoid transposes around matmuls), donate buffers, "    \
    "check the HLO for copies inserted to change layout or memory space")                                          \
  X(input_pipeline, kWarning, "GPU idle while data loads",                                                         \
    "the step waits for its input: the DataLoader's __next__ runs while no GPU work does (the TensorBoard "        \
    "plugin's DataLoader time), or tf.data's IteratorGetNext* ops block the step",                                 \
    "more DataLoader workers (num_workers), pin_memory=True with non_blocking copies, prefetching "                \
    "(prefetch_factor), persistent_workers, or move decoding and augmentation off the training process; "          \
    "tf.data: prefetch(AUTOTUNE), num_parallel_calls and interleave for reads, cache() small datasets")            \
  X(matmul_efficiency, kInfo, "Matmuls far from their roofline",                                                   \
    "compute-bound matmuls and convolutions run well below the chip's peak: measured time against FLOPs / peak",   \
    "larger or better-aligned matmuls (dims multiples of 64 on GPUs, 128 on TPUs; fewer partial tiles), a "        \
    "tuned or fused kernel (cuBLASLt autotuning, torch.compile max-autotune, Pallas/Triton), channels_last "       \
    "for convolutions, the dtype the tensor cores run fastest (bf16/fp8 rather than fp32)")                        \
  X(memory_bound_matmul, kInfo, "Memory-bound matmuls",                                                            \
    "matmuls whose arithmetic intensity (FLOPs per byte moved) is below the chip's ridge point: they wait for "    \
    "memory, not the tensor cores (small batches, few tokens per expert in MoE grouped GEMMs, skinny shapes)",     \
    "give each matmul more rows (larger micro-batch, more tokens per expert, batch the small matmuls into one), "  \
    "use fused attention (SDPA / flash attention) where the matmuls are attention scores, fuse the producer or "   \
    "consumer so the operands are read once, or quantise the weights (fewer bytes)")                               \
  X(recompute, kInfo, "Rematerialisation (activation recompute)",                                                  \
    "the backward pass recomputes forward ops whose activations were not kept (XLA remat, "                        \
    "torch.utils.checkpoint): compute spent to save memory",                                                       \
    "recompute less where memory allows: a cheaper policy (save the matmul outputs, selective recompute, "         \
    "checkpoint every other layer), or free memory elsewhere (sharding, offload) to afford it")                    \
  X(fp32_matmul, kWarning, "FP32 matmuls on tensor-core hardware",                                                 \
    "matmuls run as SIMT fp32 kernels (cuBLAS/CUTLASS sgemm) on a GPU whose tensor cores run TF32, BF16 and FP16 " \
    "many times faster: the model computes in fp32 with TF32 off",                                                 \
    "on Ampere and newer allow TF32 (torch.set_float32_matmul_precision(\"high\")); on any tensor-core GPU "       \
    "train with autocast (torch.autocast(\"cuda\", dtype=torch.bfloat16), float16 before Ampere)")                 \
  X(pageable_copies, kWarning, "Copies from pageable host memory",                                                 \
    "host-to-device copies read pageable memory: the driver stages them through a pinned buffer, they run slower " \
    "and block the host, and they cannot overlap with computation",                                                \
    "pin the host buffers (DataLoader(pin_memory=True), tensor.pin_memory()) and copy with non_blocking=True, "    \
    "ideally on a side stream ahead of use")                                                                       \
  X(slow_host_call, kWarning, "One host call far longer than the rest",                                            \
    "a single kernel launch call takes far longer than the others of its name: one-time work (CUDA "               \
    "lazy module loading, a first-call JIT or autotune, a library handle's creation) inside the profiled window",  \
    "warm up before profiling (torch.profiler's schedule with wait and warmup steps), load modules eagerly "       \
    "(CUDA_MODULE_LOADING=EAGER), or profile later in the run")                                                    \
  X(step_boundary_idle, kInfo, "GPU idle between steps",                                                           \
    "between the last GPU op of one step and the first of the next the GPU runs nothing: the host does "           \
    "per-step work (optimizer bookkeeping, logging, data, synchronisation) that the GPU waits for",                \
    "overlap the next step's launch with that work: move logging and metrics off the step (every N steps, "        \
    "non-blocking), prefetch the next batch, avoid a synchronisation at the end of the step")                      \
  X(stragglers, kWarning, "Straggler rank",                                                                        \
    "one rank computes longer per step than the others, which wait for it in their collectives",                   \
    "balance the work (sequence lengths, experts, pipeline stages), check that rank's GPU (clocks, thermal, "      \
    "ECC) and its input pipeline")

enum class Rule : uint8_t {
#define MLPROF_X(id, sev, title, meaning, fix) id,
  MLPROF_RULES(MLPROF_X)
#undef MLPROF_X
      kCount
};
inline constexpr size_t kRuleCount = static_cast<size_t>(Rule::kCount);

struct RuleInfo {
  const char* id;
  Severity severity;
  const char* title;
  const char* meaning;
  const char* fix;
};
const RuleInfo& InfoOf(Rule r);

enum class Confidence : uint8_t { kLow, kMedium, kHigh };
const char* ConfidenceName(Confidence c);

struct Finding {
  Rule rule = Rule::kCount;
  int64_t rank = -1;     // -1: the job (cross-rank rules)
  std::string subject;   // what it is about: "stream 7", "rank 1"
  std::string evidence;  // the figures behind it, in words
  Ps saving = 0;         // estimated saving per step
  Ps step = 0;           // the step it is measured against (steady-state median, or the trace window)
  std::string formula;   // how `saving` was computed, with the numbers
  Confidence confidence = Confidence::kMedium;
  // The rank has no iterations (the whole trace is its step): `saving` and
  // `step` are per trace.
  bool per_trace = false;
  double saving_pct() const { return step > 0 ? 100.0 * static_cast<double>(saving) / static_cast<double>(step) : 0; }
};

struct DiagnoseOptions {
  double min_share = 0.05;                   // a finding must save at least this share of the step ...
  Ps min_saving = 10 * kPsPerUs;             // ... and at least this much per step
  Ps kernel_wait_threshold = 30 * kPsPerUs;  // idle gaps shorter than this are kernel wait, not host wait
  double short_kernel_share = 0.3;           // launch_overhead: share of launches whose kernel is shorter
  Ps launch_cutoff = 50 * kPsPerUs;          // launch_overhead: longer calls are not launch cost (HTA runtime_cutoff)
  int warmup = -1;                           // steps left out of the steady state (-1: the steps' default)
  double matmul_efficiency = 0.7;            // matmul rules: the share of the roofline a good kernel reaches
  // The cross-rank rules (stragglers) too; off in a shard of an MPI run,
  // whose ranks are only some of the job's (CrossRankFindings then runs
  // over every rank's step summary).
  bool cross_rank = true;
};

// What some rules read beyond the view, per rank: the resolved XLA ops (XLA
// profiles; async waits name their collective, remat from the passes) and
// the roofline when the chip is known (matmul rules). The roofline's rows
// cover the steady steps of ranks with steps, the whole trace otherwise.
struct DiagnoseInputs {
  std::map<int64_t, const XlaOps*> xla;
  std::map<int64_t, const RooflineResult*> roofline;
};

// The GEMM dims of a PyTorch op with its shapes ("aten::mm [[M,K],[K,N]]";
// the last two dims of each operand, batch dims left out) that waste
// tensor-core tiles: not a multiple of 8, or padded by more than 5 % to a
// 64-wide tile ("100 (pads to 128), 4099 (not a multiple of 8)"); "" for
// other ops or when none does. Dims under 16 are left to the small-matmul
// note, and multiples of 8 under 64 to small tiles (which cuBLAS picks for
// them).
std::string UnalignedDims(std::string_view name);

// What a rule saw on a rank but could not count.
struct DiagnoseNote {
  int64_t rank = -1;
  std::string text;
};

// A communication kernel as the cross-rank wait split sees it: its rank,
// collective kind ("all-to-all") and place among the rank's kernels of that
// kind, its start on the rank's own clock (absolute ps) and duration, and
// the parts of it no computation overlaps inside the rank's steady window,
// relative to its start.
struct CommArrival {
  int64_t rank = 0;
  std::string kind;
  int64_t seq = 0;
  Ps128 ts = 0;
  Ps dur = 0;
  std::vector<Interval> exposed;
};
// What a rank's savings are measured against (the diagnose rules' basis).
struct RankBasis {
  int64_t rank = 0;
  Ps step = 0, window = 0;
  int64_t world_size = -1;  // distributedInfo.world_size (-1: not recorded)
};

// Exposed communication split into waiting for the last rank to arrive and
// transfer, over every rank's collective kernels (matched by kind and call
// order): each rank's exposed_communication finding keeps only the transfer
// as its saving (overlap hides transfer, not a wait), and the rank the
// others wait for most is a straggler, with the waits as evidence. Notes
// when the ranks' kernels cannot be matched.
void SplitCommunicationWait(std::vector<Finding>& findings, const std::vector<CommArrival>& arrivals,
                            const std::vector<RankBasis>& bases, const DiagnoseOptions& o,
                            std::vector<std::string>* notes);

// The findings, largest saving first (SortFindings). `notes` (when given)
// receives what the rules saw but could not count, in rank order;
// `summary` (when given) each rank's steady state as the rules saw it (the
// cross-rank rules' input).
// `arrivals` and `bases` (when given) receive what SplitCommunicationWait
// needs of the view's ranks.
std::vector<Finding> Diagnose(const ProfileView& view, const DiagnoseOptions& o, const DiagnoseInputs& in = {},
                              std::vector<DiagnoseNote>* notes = nullptr, std::vector<StepSummary>* summary = nullptr,
                              std::vector<CommArrival>* arrivals = nullptr, std::vector<RankBasis>* bases = nullptr);
// The cross-rank rules over every rank's steady-state summary (rank order).
std::vector<Finding> CrossRankFindings(const std::vector<StepSummary>& summary, const DiagnoseOptions& o);
// Largest saving first; ties: rule, rank, subject (stable).
void SortFindings(std::vector<Finding>& findings);

}  // namespace mlprof
