// torch_npu's database form (export_type "db"): ASCEND_PROFILER_OUTPUT/
// ascend_pytorch_profiler_<R>.db, read through SQLite, with analysis.db beside
// it. The same profile as the text form gives (io/ascend_conventions.h,
// io/ascend_files.h):
//   TASK joined to COMPUTE_TASK_INFO   -> kernels on (device, stream), with
//                                         OP Type, Accelerator Core, Block
//                                         Dim, shapes and the PMU values of
//                                         TASK_PMU_INFO as args
//   COMMUNICATION_OP                   -> communication ops on one stream per
//                                         HCCL group
//   PYTORCH_API                        -> cpu_ops on their threads (ProfilerStep#N
//                                         makes the steps)
//   CANN_API                           -> CANN calls on their threads
//   NPU_INFO, RANK_DEVICE_MAP          -> the device (Ascend910B ...) and the rank
//   analysis.db CommAnalyzerTime /
//     CommAnalyzerBandwidth / Matrix   -> comm_ops and links (as communication*.json)
// HCCL's sub-tasks (Notify Wait, SDMA ...) and runtime tasks stay off the
// streams, as in the text form. Times are integer ns and stay exact.
#pragma once

#include "base/file_loader.h"
#include "base/status.h"
#include "io/read_options.h"
#include "io/sqlite_db.h"
#include "model/profile.h"

namespace mlprof {

// An SQLite database with the Ascend profiler's tables (STRING_IDS and TASK).
bool IsAscendDb(const SqliteFile& db);

Status ReadAscendDb(LoadedFile& file, const ReadOptions& options, RankProfile* out);

}  // namespace mlprof
