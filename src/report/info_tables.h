// Typed tables of what was read: ranks, info, import warnings, shapes, nsys stats' and torch_npu's reports.
#pragma once

#include <string>
#include <vector>

#include "analysis/hlo_summary.h"
#include "analysis/info.h"
#include "analysis/summaries.h"
#include "model/profile.h"
#include "report/table.h"

namespace mlprof {

// nsys stats' reports (analysis/summaries.h): `report` is the nsys name
// (cuda_gpu_kern_sum, cuda_api_sum, cuda_gpu_mem_time_sum,
// cuda_gpu_mem_size_sum, nvtx_sum).
Table SummaryTable(std::string_view report, const std::vector<SummaryRow>& rows);
Table KernExecTable(const std::vector<KernExecRow>& rows);
// torch_npu's reports (analysis/summaries.h): op_statistic, hccl_ops, hccl_links.
Table OpStatisticTable(const std::vector<SummaryRow>& rows);
Table RanksTable(const Profile& p);
// Info: format, sizes, counts by phase and category, tracks, import problems.
std::vector<Table> InfoTables(const std::vector<RankInfo>& infos);
// One row per array shape (tuple elements expanded): type, dims, memory order,
// tiles, padded physical shape, bytes, memory space.
Table ShapeTable(const std::vector<ShapeElement>& elements);
// One line per import problem that occurred (warnings for every command).
std::vector<std::string> ImportWarnings(const Profile& p);
// One rank's grade warnings and import counts (the last part of ImportWarnings).
std::vector<std::string> RankImportWarnings(const RankProfile& r);

}  // namespace mlprof
