// Typed tables of collectives: per collective, the last arrivals, instances, all-to-all, torch_npu's HCCL reports.
#pragma once

#include <string>
#include <vector>

#include "analysis/collectives.h"
#include "analysis/summaries.h"
#include "report/table.h"

namespace mlprof {

Table HcclOpsTable(const std::vector<HcclOpRow>& rows);
Table HcclLinksTable(const std::vector<HcclLinkRow>& rows);
Table CollectiveSummaryTable(const CollectiveReport& c, int top, size_t* hidden);
Table LastArrivalTable(const CollectiveReport& c, int top, size_t* hidden);
Table CollectiveInstanceTable(const CollectiveReport& c, int top, size_t* hidden);
Table CollectiveLongTable(const CollectiveReport& c, int top, size_t* hidden);
Table AllToAllTable(const CollectiveReport& c);

}  // namespace mlprof
