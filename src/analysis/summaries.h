// The summaries people run `nsys stats` for, from any profile mlprof reads
// (an Nsight Systems export, a Kineto trace, ...), over the whole trace as
// nsys takes it (every op, no step filter):
//   cuda_gpu_kern_sum      kernels by name
//   cuda_api_sum           CUDA runtime and driver calls by name
//   cuda_gpu_mem_time_sum  copies and fills by operation: time
//   cuda_gpu_mem_size_sum  the same: bytes
//   nvtx_sum               annotation ranges (NVTX, record_function) by name
//   cuda_kern_exec_sum     per (launch call, kernel): API time, queue time
//                          (kernel start - the call's return, 0 if it started
//                          before), kernel time
// and torch_npu's (from the files beside an Ascend trace):
//   op_statistic           kernels by op type and core type
//   hccl_ops               HCCL's times per communication op
//   hccl_links             bytes, time and bandwidth per transport and link
// Each row: count, total, mean, median, min, max and the sample standard
// deviation (n - 1; 0 for one), and the share of the rows' total (as nsys's
// "Time (%)": of the listed rows, not of the wall time).
#pragma once

#include <string>
#include <vector>

#include "analysis/stats.h"
#include "model/profile.h"

namespace mlprof {

struct SummaryRow {
  int64_t rank = 0;
  std::string name;   // kernel, call, operation or range
  std::string style;  // nvtx_sum: PushPop or StartEnd
  Describe time;      // ps (mem_size: bytes); std with n - 1
  double pct = 0;     // of the rows' total
};

struct KernExecRow {
  int64_t rank = 0;
  std::string api, kernel;
  Describe api_time, queue, kernel_time;  // ps
};

// torch_npu's communication.json: one op as HCCL measured it. Ratios as
// torch_npu computes them: wait / (wait + transit), sync / (sync + transit).
struct HcclOpRow {
  int64_t rank = 0;
  int64_t step = -1;
  std::string name, kind;  // kind: collective or p2p
  bool has_start = false;
  Ps start = 0, elapse = -1, transit = -1, wait = -1, sync = -1, idle = -1;
  double wait_ratio = -1, sync_ratio = -1;
  Ps trace_dur = -1;  // the op's duration on the trace (-1: not joined)
};

// Bytes over one kind of link: an op's total per transport
// (communication.json) or one rank pair (communication_matrix.json).
// Bandwidth = MB / ms (GB/s with torch_npu's MB of 10^6 bytes).
struct HcclLinkRow {
  int64_t rank = 0;
  int64_t step = -1;
  std::string source;  // "op" or "matrix"
  std::string group;   // matrix key, or the op's name for "op" rows
  std::string op;      // the op the matrix names
  int32_t src = -1, dst = -1;
  std::string transport;
  double megabytes = 0;
  Ps time = 0;
  double gbps = -1, reported_gbps = -1;
};

struct Summaries {
  std::vector<SummaryRow> kernels, api, mem_time, mem_size, nvtx;  // per rank, by total desc
  std::vector<KernExecRow> kern_exec;                              // per rank, by kernel total desc
  // torch_npu's op_statistic.csv: device kernels by (OP Type, Accelerator
  // Core) from the args kernel_details.csv gave them (name = op type, style =
  // core type), HCCL rows left out as torch_npu leaves them.
  std::vector<SummaryRow> op_statistic;
  std::vector<HcclOpRow> hccl_ops;      // per rank, in the file's order
  std::vector<HcclLinkRow> hccl_links;  // per rank: op rows, then matrix rows
};

// nsys's operation name for a copy or fill ("[CUDA memcpy Host-to-Device]",
// "[CUDA memset]") from its name as mlprof keeps it ("Memcpy HtoD (Pageable
// -> Device)"), "" for other ops.
std::string MemOperation(std::string_view name, OpKind kind);

Summaries ComputeSummaries(const Profile& profile);

}  // namespace mlprof
