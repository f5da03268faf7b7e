// The in-memory profile: read-only after ProfileBuilder::Finish().
//
// One RankProfile per input trace file (one rank of a distributed job). Ops are
// stored column-wise (parallel vectors), declared once in MLPROF_OP_COLUMNS.
// Times are int64 picoseconds relative to the rank's origin (base/time.h);
// `origin_abs_ps` is that origin on the trace's own clock.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/huge_pages.h"
#include "base/string_pool.h"
#include "base/time.h"
#include "model/import_stats.h"
#include "model/trace_format.h"

namespace mlprof {

// What an op is, derived from the Kineto category (and name for old schemas).
enum class OpKind : uint8_t {
  kKernel,             // cat kernel / Kernel
  kMemcpy,             // gpu_memcpy / Memcpy
  kMemset,             // gpu_memset / Memset
  kCudaSync,           // cuda_sync on a stream (Stream Sync, Stream Wait Event)
  kDeviceSync,         // cuda_sync with no stream (Event Sync, Context Sync)
  kRuntime,            // cuda_runtime / Runtime (cudaLaunchKernel, hipLaunchKernel, ...)
  kDriver,             // cuda_driver (cuLaunchKernel)
  kCpuOp,              // cpu_op / Operator
  kUserAnnotation,     // user_annotation (record_function, ProfilerStep#N)
  kGpuUserAnnotation,  // gpu_user_annotation
  kPythonFunction,     // python_function
  kTraceSpan,          // cat Trace ("PyTorch Profiler (0)")
  kInstant,            // ph i/I
  kOtherGpu,           // other categories on a GPU track (mtia_ccp_events, ...)
  // A cpu_op recorded while a CUDA/HIP graph was captured, copied into a
  // replay trace (--capture, io/graph_capture.h): it launched the replayed
  // kernels but took no host time in this trace.
  kCapturedOp,
  kOther,
  kCount
};
// Device-side ops that occupy a GPU stream.
inline bool IsGpuOp(OpKind k) {
  return k == OpKind::kKernel || k == OpKind::kMemcpy || k == OpKind::kMemset || k == OpKind::kCudaSync ||
         k == OpKind::kOtherGpu;
}
inline bool IsLaunchOp(OpKind k) { return k == OpKind::kRuntime || k == OpKind::kDriver; }

//  X(type, column, description)
#define MLPROF_OP_COLUMNS(X)                                                                             \
  X(Ps, ts, "start, ps from the rank origin")                                                            \
  X(Ps, dur, "duration, ps (0 for instants)")                                                            \
  X(StringId, name, "op name")                                                                           \
  X(StringId, cat, "category string as written in the trace")                                            \
  X(OpKind, kind, "what the op is")                                                                      \
  X(uint32_t, track, "index into RankProfile::tracks")                                                   \
  X(int64_t, correlation, "args.correlation: links a launch to its GPU op (-1 none)")                    \
  X(int64_t, external_id, "args[\"External id\"]: links launches to cpu_ops (-1)")                       \
  X(int32_t, parent, "enclosing op on the same track (-1 none)")                                         \
  X(uint16_t, depth, "nesting depth on the track (0 = top level)")                                       \
  X(int32_t, launch, "GPU op: index of the host launch with its correlation (-1)")                       \
  X(int32_t, step, "index into RankProfile::steps (-1 outside every step)")                              \
  X(StringId, input_dims, "args[\"Input Dims\"] as compact JSON text (0 none)")                          \
  X(StringId, input_types, "args[\"Input type\"] as compact JSON text (0 none)")                         \
  X(StringId, concrete_inputs, "args[\"Concrete Inputs\"] as compact JSON text (0 none)")                \
  X(StringId, comm, "collective args as JSON [name, in nelems, out nelems, group size, dtype] (0 none)") \
  X(StringId, grid, "kernel args.grid as compact JSON text, e.g. [132,1,1] (0 none)")                    \
  X(StringId, block, "kernel args.block as compact JSON text (0 none)")                                  \
  X(int64_t, bytes, "memcpy/memset bytes (-1 unknown)")                                                  \
  X(StringId, stack, "args[\"Call stack\"]: frames innermost first, ';'-separated (0 none)")             \
  X(float, blocks_per_sm, "kernel args[\"blocks per SM\"] (-1 not recorded)")                            \
  X(float, occupancy, "kernel args[\"est. achieved occupancy %\"], percent (-1 not recorded)")           \
  X(int32_t, xla, "index into RankProfile::xla_ops: the HLO op it ran (-1 none)")                        \
  X(uint64_t, offset, "byte offset of the event in the decoded input")

// OpColumn<T>: a vector whose large buffers are 2 MiB-aligned huge-page
// mappings (base/huge_pages.h); filling the columns was mostly page faults.
template <class T>
using OpColumn = std::vector<T, HugePageAllocator<T>>;

struct OpTable {
#define MLPROF_X(type, col, desc) OpColumn<type> col;
  MLPROF_OP_COLUMNS(MLPROF_X)
#undef MLPROF_X
  size_t size() const { return ts.size(); }
  Ps end(size_t i) const { return ts[i] + dur[i]; }
  // Reserves every column, or with kineto_columns = false all but the
  // Kineto-only ones (see below).
  void Reserve(size_t n, bool kineto_columns = true);
  void Permute(const std::vector<uint32_t>& order);  // new[i] = old[order[i]]; empty columns stay empty

  // stack, blocks_per_sm and occupancy are sparse: empty until an event has
  // a value (most traces have none), then full.
  // The Kineto-only columns (external_id, input_dims, input_types,
  // concrete_inputs, comm, grid, block, bytes, stack, blocks_per_sm, occupancy) are either full or empty: a
  // binary reader whose events never carry them (XPlane) leaves them empty,
  // which means every op has the default, and saves 40 of the ~100 bytes an
  // op takes. Read them through these.
  int64_t external_id_of(size_t i) const { return external_id.empty() ? -1 : external_id[i]; }
  StringId input_dims_of(size_t i) const { return input_dims.empty() ? 0 : input_dims[i]; }
  StringId input_types_of(size_t i) const { return input_types.empty() ? 0 : input_types[i]; }
  StringId concrete_inputs_of(size_t i) const { return concrete_inputs.empty() ? 0 : concrete_inputs[i]; }
  StringId comm_of(size_t i) const { return comm.empty() ? 0 : comm[i]; }
  StringId grid_of(size_t i) const { return grid.empty() ? 0 : grid[i]; }
  int64_t bytes_of(size_t i) const { return bytes.empty() ? -1 : bytes[i]; }
  StringId stack_of(size_t i) const { return stack.empty() ? 0 : stack[i]; }
  float blocks_per_sm_of(size_t i) const { return blocks_per_sm.empty() ? -1 : blocks_per_sm[i]; }
  float occupancy_of(size_t i) const { return occupancy.empty() ? -1 : occupancy[i]; }
};

enum class TrackKind : uint8_t { kHostThread, kGpuStream, kOther };

// pid/tid may be strings in Chrome traces ("Spans", "PyTorch Profiler");
// such ids are kStringIdBase + StringId, so that they never collide with OS
// ids.
inline constexpr int64_t kStringIdBase = int64_t{1} << 60;

struct Track {
  TrackKind kind = TrackKind::kOther;
  int64_t pid = 0;
  int64_t tid = 0;
  int32_t device = -1;  // GPU index for kGpuStream and a GPU's counter track (nsys GPU metrics)
  int64_t stream = -1;  // stream id for kGpuStream
  StringId name = 0;    // thread_name metadata, if any
  StringId process_name = 0;
};

// Where a rank's steps come from (model/steps.h).
enum class StepSource : uint8_t { kAuto, kProfilerStep, kServing, kOptimizer, kAnnotation, kRepeat, kTrace, kNone };

struct Step {
  int64_t number = -1;  // N of ProfilerStep#N; 0.. in time order for other sources
  Ps ts = 0;
  Ps dur = 0;
  int32_t op = -1;  // the op that is the step (ProfilerStep, serving or annotation range); -1 none
};

struct Flow {
  int64_t id = 0;
  StringId cat = 0;
  char phase = 's';  // s, t or f
  Ps ts = 0;
  uint32_t track = 0;
};

struct CounterSample {
  StringId name = 0;    // event name
  StringId series = 0;  // args key
  uint32_t track = 0;
  Ps ts = 0;
  double value = 0;
};

struct DeviceProperties {
  int64_t id = -1;
  std::string name;
  int64_t total_global_mem = -1;
  int64_t num_sms = -1;
  int64_t compute_major = -1;
  int64_t compute_minor = -1;
  // XPlane device planes (TPU and GPU): what the runtime says of the chip.
  std::string device_type;           // device_type_string, "TPU v6 Lite"
  double peak_tflops = -1;           // peak_teraflops_per_second
  double peak_hbm_gbps = -1;         // peak_hbm_bw_gigabytes_per_second
  double memory_bandwidth_bps = -1;  // GPU plane memory_bandwidth (B/s)
  std::string vendor;                // GPU plane device_vendor ("AMD")
  int64_t clock_khz = -1;            // GPU plane clock_rate
};

// What an XLA device event executed, from XPlane stats (event metadata on
// TPU, per-event stats on GPU) or JAX trace-viewer args. Shared by every
// execution of the same op. Costs are as the runtime recorded them (-1: not
// recorded; the HLO cost model fills them from the module where it can).
struct XlaOp {
  StringId hlo_op = 0;      // instruction name, e.g. "fusion.556"
  StringId module = 0;      // hlo_module, e.g. "jit_train_step"
  int64_t program_id = -1;  // module fingerprint id
  StringId category = 0;    // xprof hlo_category ("convolution fusion", ...)
  StringId expression = 0;  // full HLO instruction text (TPU metadata name)
  StringId tf_op = 0;       // framework op / JAX name stack
  StringId source = 0;      // "file.py:118"
  double flops = -1;
  double model_flops = -1;
  double bytes_accessed = -1;
};

// A serialized xla.HloProto found in the profile (/host:metadata plane),
// keyed "<module>(<program_id>)".
struct HloProtoBlob {
  std::string key;
  std::string bytes;
};

struct TraceMetadata {
  int64_t rank = -1;        // distributedInfo.rank (-1: not recorded)
  int64_t world_size = -1;  // distributedInfo.world_size
  std::string backend;      // distributedInfo.backend
  int64_t schema_version = -1;
  int64_t base_time_ns = -1;  // baseTimeNanoseconds
  std::vector<DeviceProperties> devices;
  bool has_distributed_info = false;
  bool has_float_ts = false;  // any ts with a fractional part (HTA rounds these)
};

// Sparse, typed args: fields a reader keeps without a column of their own
// (the Kineto [memory] events' args, every deviceProperties field, XPlane
// plane stats), so that a new field needs no new column. Rows are sorted by
// (owner kind, owner) once the builder has finished; an owner's args keep
// the reader's order.
enum class ArgOwner : uint8_t { kOp, kDevice };  // op: index into ops; device: into meta.devices
enum class ArgType : uint8_t { kInt, kReal, kString };

struct ArgValue {
  StringId key = 0;
  ArgType type = ArgType::kInt;
  int64_t i = 0;   // kInt
  double r = 0;    // kReal
  StringId s = 0;  // kString
  static ArgValue Int(StringId key, int64_t v) { return {key, ArgType::kInt, v, 0, 0}; }
  static ArgValue Real(StringId key, double v) { return {key, ArgType::kReal, 0, v, 0}; }
  static ArgValue String(StringId key, StringId v) { return {key, ArgType::kString, 0, 0, v}; }
};

struct Arg {
  ArgOwner owner_kind = ArgOwner::kOp;
  uint32_t owner = 0;
  ArgValue value;
};

struct ArgTable {
  std::vector<Arg> rows;
  // The args of one owner (binary search; empty when it has none).
  std::span<const Arg> Of(ArgOwner kind, uint32_t owner) const;
  // One arg by key, or null.
  const ArgValue* Find(ArgOwner kind, uint32_t owner, StringId key) const;
};

// A collective or point-to-point op as the communication library measured it
// (torch_npu's communication.json: HCCL's own times for each op).
struct CommOpStat {
  StringId name = 0;   // "hcom_allReduce__586_0_1"
  StringId group = 0;  // the text after '@' in the file's key (the group's hash)
  int64_t step = -1;   // "step50" -> 50
  bool p2p = false;
  Ps start = 0;  // ps from the rank origin, when has_start
  bool has_start = false;
  // -1: not recorded. Elapse = transit + wait + idle (HCCL's split of the op).
  Ps elapse = -1, transit = -1, wait = -1, sync = -1, idle = -1;
  int32_t op = -1;  // the op of that name starting then (-1 none)
};

// Bytes moved over one kind of link. Two sources: an op's per-transport
// totals (communication.json: comm_op set, src/dst -1) and a link between
// two ranks (communication_matrix.json: comm_op -1, src/dst set).
struct LinkTransfer {
  int32_t comm_op = -1;  // index into RankProfile::comm_ops
  StringId op_name = 0;  // link rows: the op the matrix names
  StringId group = 0;    // link rows: the matrix key ("allreduce-top1@<hash>")
  int64_t step = -1;
  int32_t src = -1, dst = -1;
  StringId transport = 0;  // HCCS, RDMA, SDMA, PCIE, SIO, LOCAL ...
  double megabytes = 0;    // as written (MB = 10^6 bytes in torch_npu's files)
  Ps time = 0;
  double reported_gbps = -1;  // the file's own Bandwidth(GB/s)
};

struct RankProfile {
  std::string path;
  TraceFormat format = TraceFormat::kUnknown;
  std::string compression;  // "none", "gzip", "zstd"
  uint64_t file_bytes = 0;
  uint64_t decoded_bytes = 0;
  Ps128 origin_abs_ps = 0;  // ts 0 on the trace's own clock (whole microseconds)

  StringPool strings;
  OpTable ops;
  std::vector<Track> tracks;
  std::vector<Step> steps;
  StepSource step_source = StepSource::kNone;  // where `steps` came from (model/steps.h)
  std::string step_note;                       // why a source asked for (--steps-from) gave way
  StepSource steps_asked = StepSource::kAuto;  // --steps-from (kAuto: the first source found)
  // Names a reader marks as steps besides ProfilerStep#N (an NVTX range
  // "step 3"): (name, step number).
  std::vector<std::pair<StringId, int64_t>> step_names;
  std::vector<Flow> flows;
  std::vector<CounterSample> counters;
  std::vector<XlaOp> xla_ops;
  std::vector<HloProtoBlob> hlo_protos;
  std::vector<CommOpStat> comm_ops;
  std::vector<LinkTransfer> links;
  // Files read beside the trace (torch_npu's CSV and JSON outputs), one line
  // each; and what could not be used from them (kept out, the rest read).
  // A trace no reader's layout fits whose processes are named like device
  // lanes ("GPU 0", "HIP GPU 0"): their events, read as host events, and the
  // processes as "'GPU 0' (2 events)" (io/rocprof_conventions.h; the grade
  // makes it an error).
  int64_t unread_device_lane_events = 0;
  std::string unread_device_lanes;
  std::vector<std::string> sidecars;
  std::vector<std::string> sidecar_warnings;
  ArgTable args;
  // --capture (io/graph_capture.h): per op, for a GPU op replayed by a graph
  // launch, the copy of the launch call recorded at capture that stands for
  // it (its parents: the captured ops); -1 or empty: none. Read through
  // AttributionLaunch.
  std::vector<int32_t> captured_launch;
  TraceMetadata meta;
  ImportStats stats;
  // Event counts by phase letter and by category string, for `info`.
  std::array<uint64_t, 128> phase_counts{};
  std::vector<uint64_t> cat_counts;  // indexed by StringId of the category

  int64_t rank_or(int64_t fallback) const { return meta.rank >= 0 ? meta.rank : fallback; }
  // Steps the profiler or a serving engine marked (not inferred ones): HTA's
  // last-step rule applies to these only.
  bool MarkedSteps() const { return step_source == StepSource::kProfilerStep || step_source == StepSource::kServing; }
  // The launch call whose enclosing ops a GPU op is attributed to: the
  // captured call standing for it (--capture), else its launch (-1 none).
  int32_t AttributionLaunch(size_t gpu_op) const {
    if (gpu_op < captured_launch.size() && captured_launch[gpu_op] >= 0) return captured_launch[gpu_op];
    return ops.launch[gpu_op];
  }
  // A cpu_op of this trace or one copied from a capture trace.
  bool IsFrameworkOp(size_t op) const { return ops.kind[op] == OpKind::kCpuOp || ops.kind[op] == OpKind::kCapturedOp; }
  std::string_view str(StringId id) const { return strings.Get(id); }
  const Track& track_of(size_t op) const { return tracks[ops.track[op]]; }
};

struct Profile {
  std::vector<RankProfile> ranks;  // sorted by rank
  // Files found in a directory that are not traces (sidecar JSON and the
  // like): skipped, one message each.
  std::vector<std::string> skipped;
  // How the inputs were found (a TensorBoard log directory's run).
  std::vector<std::string> notes;

  // Every rank's devices, in rank order.
  std::vector<DeviceProperties> AllDevices() const {
    std::vector<DeviceProperties> out;
    for (const auto& r : ranks) out.insert(out.end(), r.meta.devices.begin(), r.meta.devices.end());
    return out;
  }
};

}  // namespace mlprof
