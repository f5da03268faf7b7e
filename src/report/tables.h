// Turns analysis results into typed tables. Cells hold ps, bytes, counts;
// text shows times in microseconds (3 decimals = ns) and percentages with 2
// decimals, as HTA prints them.
#pragma once

#include "analysis/attribution.h"
#include "analysis/collectives.h"
#include "analysis/counters.h"
#include "analysis/diagnose.h"
#include "analysis/engines.h"
#include "analysis/gpu_time.h"
#include "analysis/grade.h"
#include "analysis/hlo_summary.h"
#include "analysis/host_ops.h"
#include "analysis/idle.h"
#include "analysis/info.h"
#include "analysis/launches.h"
#include "analysis/layers.h"
#include "analysis/memory.h"
#include "analysis/modules.h"
#include "analysis/ops.h"
#include "analysis/overview.h"
#include "analysis/serving.h"
#include "analysis/steps.h"
#include "analysis/summaries.h"
#include "hlo/shape.h"
#include "model/profile.h"
#include "report/table.h"

namespace mlprof {

Table TemporalTable(const std::vector<TemporalBreakdown>& t);
Table OverlapTable(const std::vector<Overlap>& o);
Table KernelTypeTable(const KernelBreakdown& k);
Table KernelStatTable(const KernelBreakdown& k);
// mlprof diagnose: the findings, largest saving first; the rules.
Table FindingsTable(const std::vector<Finding>& v);
Table RulesTable();
// mlprof layers: forward / backward / optimizer per step, repeated modules,
// and the repeating block's parts (analysis/layers.h).
Table PhasesTable(const LayerReport& r);
Table LayersTable(const LayerReport& r);
Table BlockTable(const LayerReport& r);
Table KernelBlocksTable(const LayerReport& r);
// nsys stats' reports (analysis/summaries.h): `report` is the nsys name
// (cuda_gpu_kern_sum, cuda_api_sum, cuda_gpu_mem_time_sum,
// cuda_gpu_mem_size_sum, nvtx_sum).
Table SummaryTable(std::string_view report, const std::vector<SummaryRow>& rows);
Table KernExecTable(const std::vector<KernExecRow>& rows);
// HTA's queue length per stream (analysis/launches.h).
Table QueueLengthTable(const std::vector<QueueLengthRow>& rows, int64_t max_queue);
// HTA's memory bandwidth summary and the CUPTI range profiler's counters
// (analysis/counters.h): per range (`top` rows, 0 all; `hidden` counts the
// rest) and per bottom-level op.
Table MemoryBwTable(const std::vector<MemoryBwRow>& rows);
Table CuptiRangesTable(const CuptiRanks& r, int top, size_t* hidden);
Table CuptiByOpTable(const CuptiRanks& r, const std::vector<CuptiOpRow>& rows);
// torch_npu's reports (analysis/summaries.h): op_statistic, hccl_ops, hccl_links.
Table OpStatisticTable(const std::vector<SummaryRow>& rows);
Table HcclOpsTable(const std::vector<HcclOpRow>& rows);
Table HcclLinksTable(const std::vector<HcclLinkRow>& rows);
Table KernelBlockPartsTable(const LayerReport& r);
Table IdleTable(const std::vector<StreamIdle>& s);
Table IdleStatsTable(const std::vector<StreamIdle>& s);
Table LaunchSummaryTable(const std::vector<RankLaunchStats>& s);
Table StepTable(const StepReport& s);
Table StepSummaryTable(const StepReport& s);
Table ServingStepTable(const ServingReport& s);
Table CollectiveSummaryTable(const CollectiveReport& c, int top, size_t* hidden);
Table LastArrivalTable(const CollectiveReport& c, int top, size_t* hidden);
Table CollectiveInstanceTable(const CollectiveReport& c, int top, size_t* hidden);
Table CollectiveLongTable(const CollectiveReport& c, int top, size_t* hidden);
Table AllToAllTable(const CollectiveReport& c);
// --top rows each (0: all); `hidden` counts those left out.
Table ModuleTreeTable(const ModuleReport& m, int top, size_t* hidden);
Table ModuleClassTable(const ModuleReport& m, int top, size_t* hidden);
Table AnnotationTable(const ModuleReport& m, int top, size_t* hidden);
Table KernelLaunchersTable(const ModuleReport& m, int top, size_t* hidden);
Table AnnotationStepTable(const ModuleReport& m, int top, size_t* hidden);
Table ServingSummaryTable(const ServingReport& s);
// The TensorBoard plugin's Overview: step time by role, the mean step, and
// the GPU summary.
// Memory over time (analysis/memory.h): per device; the blocks alive at the
// peak and the allocations, by op (`top` per device, 0 all).
Table MemoryTable(const std::vector<DeviceMemory>& m);
Table MemoryCategoriesTable(const std::vector<CategoryMemory>& m);
Table MemorySitesTable(const std::vector<DeviceMemory>& m, bool at_peak, int top, size_t* hidden);
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
// `attribution`: each rank's AttributionSummary, for a note about what the
// table rests on where some GPU time was not attributed by a verified
// External id.
Table OpsTable(const std::vector<OpGpuTime>& ops, int top,
               const std::vector<std::pair<int64_t, AttributionSummary>>& attribution = {});
// "Rank 0: ..." about how a rank's GPU time was attributed to ops; "" when
// all of it came through verified External ids, or by time on a trace that
// records none.
std::string AttributionNote(int64_t rank, const AttributionSummary& s);
Table HostOpsTable(const std::vector<HostOpRow>& rows, bool by_shape, int top, const std::vector<HostFlops>& flops = {},
                   int stack_frames = 0);
Table RanksTable(const Profile& p);
// Info: format, sizes, counts by phase and category, tracks, import problems.
std::vector<Table> InfoTables(const std::vector<RankInfo>& infos);
// One row per array shape (tuple elements expanded): type, dims, memory order,
// tiles, padded physical shape, bytes, memory space.
Table ShapeTable(const std::vector<ShapeElement>& elements);
// One line per import problem that occurred (warnings for every command).
std::vector<std::string> ImportWarnings(const Profile& p);
// The note under a table with a row per device (its second column "device").
extern const char* const kPerDeviceNote;
// The grade of what profiles hold (analysis/grade.h), one row per item.
Table GradeTable(const std::vector<GradeItem>& items);
// One rank's grade warnings and import counts (the last part of ImportWarnings).
std::vector<std::string> RankImportWarnings(const RankProfile& r);

}  // namespace mlprof
