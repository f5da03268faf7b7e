// Typed tables of GPU time: the temporal breakdown, overlap, kernel types, idle time, launches and queues, engines and
// hardware units, counters (memory bandwidth, CUPTI ranges), the TensorBoard plugin's overview.
#pragma once

#include <string>
#include <vector>

#include "analysis/counters.h"
#include "analysis/engines.h"
#include "analysis/gpu_time.h"
#include "analysis/idle.h"
#include "analysis/launches.h"
#include "analysis/overview.h"
#include "model/profile.h"
#include "report/table.h"

namespace mlprof {

Table TemporalTable(const std::vector<TemporalBreakdown>& t);
Table OverlapTable(const std::vector<Overlap>& o);
Table KernelTypeTable(const KernelBreakdown& k);
Table KernelStatTable(const KernelBreakdown& k);
// HTA's queue length per stream (analysis/launches.h).
Table QueueLengthTable(const std::vector<QueueLengthRow>& rows, int64_t max_queue);
// HTA's memory bandwidth summary and the CUPTI range profiler's counters
// (analysis/counters.h): per range (`top` rows, 0 all; `hidden` counts the
// rest) and per bottom-level op.
Table MemoryBwTable(const std::vector<MemoryBwRow>& rows);
Table CuptiRangesTable(const CuptiRanks& r, int top, size_t* hidden);
Table CuptiByOpTable(const CuptiRanks& r, const std::vector<CuptiOpRow>& rows);
Table IdleTable(const std::vector<StreamIdle>& s);
Table IdleStatsTable(const std::vector<StreamIdle>& s);
Table LaunchSummaryTable(const std::vector<RankLaunchStats>& s);
// How busy each engine was (analysis/engines.h).
// The hardware units inside kernels (ComputeUnitUtilisation): `top` op types per rank (0: all) after the "all" rows.
Table UnitsTable(const UnitReport& u, int top, size_t* hidden);
// GPU metrics over time and during kernels (ComputeGpuMetrics).
Table GpuMetricsTable(const std::vector<MetricRow>& rows);
// The engines table's note when no op records its bytes.
extern const char* const kNoBytesNote;
Table EngineTable(const std::vector<EngineRow>& rows);
// The overview_steps table's notes: any rank's steps widened to their GPU
// work, the last steps left out (over all ranks), no ProfilerSteps.
// `sources`: OverviewSourceBit of each rank's step source (0 for ProfilerStep
// and the host-span step), OR-ed over the ranks.
uint32_t OverviewSourceBit(StepSource s);
std::vector<std::string> OverviewStepNotes(bool adjusted, int64_t dropped, bool host_span, uint32_t sources);
Table OverviewStepTable(const std::vector<RankOverview>& o);
Table OverviewMeanTable(const std::vector<RankOverview>& o);
Table GpuSummaryTable(const std::vector<RankOverview>& o);
// The note under a table with a row per device (its second column "device").
extern const char* const kPerDeviceNote;

}  // namespace mlprof
