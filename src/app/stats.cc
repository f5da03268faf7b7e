// mlprof stats (nsys stats' and torch_npu's reports).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "app/command_parts.h"
#include "app/commands.h"
#include "app/shards.h"
#include "report/collective_tables.h"
#include "report/columns.h"
#include "report/info_tables.h"

namespace mlprof::app {

const std::vector<std::string>& StatsReportNames() {
  static const std::vector<std::string> kNames = {"cuda_gpu_kern_sum",     "cuda_api_sum", "cuda_gpu_mem_time_sum",
                                                  "cuda_gpu_mem_size_sum", "nvtx_sum",     "cuda_kern_exec_sum",
                                                  "op_statistic",          "hccl_ops",     "hccl_links"};
  return kNames;
}

Report Stats(const Session& s, const StatsOptions& o) {
  Report r = WithImportWarnings(s);
  const Summaries sm = ComputeSummaries(s.profile);
  // The first `top` rows of each rank.
  auto keep = [&](auto rows) {
    if (o.top <= 0) return std::pair{rows, size_t{0}};
    std::map<int64_t, int> seen;
    decltype(rows) kept;
    for (auto& row : rows)
      if (seen[row.rank]++ < o.top) kept.push_back(std::move(row));
    const size_t hidden = rows.size() - kept.size();
    return std::pair{std::move(kept), hidden};
  };
  for (const std::string& name : StatsReportNames()) {
    if (!o.reports.empty() && std::find(o.reports.begin(), o.reports.end(), name) == o.reports.end()) continue;
    size_t hidden = 0;
    // torch_npu's reports: by default only where an Ascend run's files gave rows.
    const bool ascend = name == "op_statistic" || name == "hccl_ops" || name == "hccl_links";
    if (ascend && o.reports.empty() &&
        (name == "op_statistic" ? sm.op_statistic.empty()
         : name == "hccl_ops"   ? sm.hccl_ops.empty()
                                : sm.hccl_links.empty()))
      continue;
    if (name == "op_statistic") {
      auto [rows, h] = keep(sm.op_statistic);
      r.tables.push_back(OpStatisticTable(rows)), hidden = h;
    } else if (name == "hccl_ops") {
      auto [rows, h] = keep(sm.hccl_ops);
      r.tables.push_back(HcclOpsTable(rows)), hidden = h;
    } else if (name == "hccl_links") {
      auto [rows, h] = keep(sm.hccl_links);
      r.tables.push_back(HcclLinksTable(rows)), hidden = h;
    } else if (name == "cuda_kern_exec_sum") {
      auto [rows, h] = keep(sm.kern_exec);
      r.tables.push_back(KernExecTable(rows)), hidden = h;
    } else {
      const auto& src = name == "cuda_gpu_kern_sum"       ? sm.kernels
                        : name == "cuda_api_sum"          ? sm.api
                        : name == "cuda_gpu_mem_time_sum" ? sm.mem_time
                        : name == "cuda_gpu_mem_size_sum" ? sm.mem_size
                                                          : sm.nvtx;
      auto [rows, h] = keep(src);
      r.tables.push_back(SummaryTable(name, rows)), hidden = h;
    }
    NoteHiddenRows(r.tables.back(), hidden);
  }
  return r;
}

}  // namespace mlprof::app
