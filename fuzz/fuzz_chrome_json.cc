// libFuzzer target: any bytes through the whole pipeline (sniff, decompress,
// parse, build, every HTA analysis, every renderer). Must never crash, leak or
// trip a sanitizer; errors are fine.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analysis/gpu_time.h"
#include "analysis/idle.h"
#include "analysis/launches.h"
#include "analysis/ops.h"
#include "analysis/steps.h"
#include "io/load.h"
#include "report/tables.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = mlprof::LoadTraceBytes(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
  if (!r.ok()) return 0;
  mlprof::Profile p;
  p.ranks.push_back(std::move(r).value());
  for (bool rounding : {false, true}) {
    mlprof::AnalysisOptions o;
    o.hta_rounding = rounding;
    mlprof::ProfileView v = mlprof::BuildProfileView(p, o);
    mlprof::Report rep;
    rep.tables.push_back(mlprof::TemporalTable(mlprof::ComputeTemporalBreakdown(v)));
    rep.tables.push_back(mlprof::OverlapTable(mlprof::ComputeOverlap(v)));
    auto kb = mlprof::ComputeKernelBreakdown(v, {});
    rep.tables.push_back(mlprof::KernelTypeTable(kb));
    rep.tables.push_back(mlprof::KernelStatTable(kb, 40));
    auto idle = mlprof::ComputeIdleBreakdown(v, {});
    rep.tables.push_back(mlprof::IdleTable(idle));
    rep.tables.push_back(mlprof::IdleStatsTable(idle));
    rep.tables.push_back(mlprof::LaunchSummaryTable(mlprof::ComputeLaunchStats(v, {})));
    rep.tables.push_back(mlprof::StepTable(mlprof::ComputeSteps(v, {})));
    rep.tables.push_back(mlprof::OpsTable(mlprof::ComputeOpGpuTime(v, {}), 10));
    for (auto& t : mlprof::InfoTables(p)) rep.tables.push_back(std::move(t));
    (void)mlprof::RenderText(rep);
    (void)mlprof::RenderJson(rep);
    (void)mlprof::RenderCsv(rep);
  }
  return 0;
}
