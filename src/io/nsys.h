// Nsight Systems SQLite exports (`nsys export --type sqlite`, also written by
// `nsys stats` and `nsys profile --stats=true`), both schema generations:
// 2.x (EXPORT_META_DATA, enums as bare integers) and 3.x (META_DATA_EXPORT,
// ENUM_* tables). Read through SQLite from the loaded bytes (no copy, read
// only). What becomes what:
//   CUPTI_ACTIVITY_KIND_KERNEL / MEMCPY / MEMSET  -> GPU ops on (device, stream)
//   CUPTI_ACTIVITY_KIND_SYNCHRONIZATION           -> cuda_sync (Kineto's names)
//   CUPTI_ACTIVITY_KIND_RUNTIME                   -> runtime / driver calls on
//                                                    their thread, linked to
//                                                    their GPU ops by correlationId
//                                                    (within the process)
//   NVTX_EVENTS push/pop and start/end ranges     -> annotations (ranges named as
//                                                    steps become steps)
//   OSRT_API                                      -> OS runtime calls
//   TARGET_INFO_GPU                               -> devices
// Times are integer ns on the session's clock and stay exact (ns x 1000 ps).
#pragma once

#include <string_view>

#include "base/file_loader.h"
#include "base/status.h"
#include "io/read_options.h"
#include "model/profile.h"

namespace mlprof {

// The SQLite file header ("SQLite format 3\0").
bool LooksLikeSqlite(std::string_view head);
// A proprietary Nsight Systems report (.nsys-rep / .qdrep).
bool LooksLikeNsysReport(std::string_view head);

// Reads an Nsight Systems export; an SQLite file that is not one is an error
// naming what it holds.
Status ReadNsysSqlite(LoadedFile& file, const ReadOptions& options, RankProfile* out);

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel": nsys names API calls with
// their version suffix, Kineto without.
std::string_view StripApiVersion(std::string_view name);

// An NVTX range name that marks a step ("ProfilerStep#3", "step 3",
// "iteration_3", "train_step 3", "Iteration 3"): its number, else -1.
int64_t StepNumberOfRange(std::string_view name);

}  // namespace mlprof
