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

struct Summaries {
  std::vector<SummaryRow> kernels, api, mem_time, mem_size, nvtx;  // per rank, by total desc
  std::vector<KernExecRow> kern_exec;                              // per rank, by kernel total desc
};

// nsys's operation name for a copy or fill ("[CUDA memcpy Host-to-Device]",
// "[CUDA memset]") from its name as mlprof keeps it ("Memcpy HtoD (Pageable
// -> Device)"), "" for other ops.
std::string MemOperation(std::string_view name, OpKind kind);

Summaries ComputeSummaries(const Profile& profile);

}  // namespace mlprof
