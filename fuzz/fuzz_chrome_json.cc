// libFuzzer target: any bytes through the whole pipeline (sniff, decompress,
// parse, build, every HTA analysis, every renderer). Must never crash, leak or
// trip a sanitizer; errors are fine.
#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analysis/engines.h"
#include "analysis/gpu_time.h"
#include "analysis/idle.h"
#include "analysis/launches.h"
#include "analysis/memory.h"
#include "analysis/mfu.h"
#include "analysis/ops.h"
#include "analysis/roofline.h"
#include "analysis/steps.h"
#include "analysis/summaries.h"
#include "analysis/xla.h"
#include "export/sqlite.h"
#include "hw/chip.h"
#include "io/graph_capture.h"
#include "io/load.h"
#include "report/collective_tables.h"
#include "report/gpu_tables.h"
#include "report/html.h"
#include "report/hw_tables.h"
#include "report/info_tables.h"
#include "report/memory_tables.h"
#include "report/ops_tables.h"
#include "report/step_tables.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // The same bytes as a chip file (--chip-file): errors are fine.
  if (auto chip = mlprof::hw::ParseChipJson(bytes, "fuzz.json"); chip.ok())
    (void)mlprof::RenderText({{mlprof::ChipDetailTable(*chip)}, {}});
  // Odd sizes read every arg (as `mlprof sql` and the exports do).
  mlprof::ReadOptions ro;
  ro.all_args = size % 2 == 1;
  auto r = mlprof::LoadTraceBytes(bytes, "fuzz.json", ro);
  if (!r.ok()) return 0;
  mlprof::Profile p;
  p.ranks.push_back(std::move(r).value());
  // XLA profiles (XPlane bytes reach here too): the roofline and its plot.
  if (!p.ranks[0].xla_ops.empty()) {
    const mlprof::hw::Chip* chip = mlprof::hw::ChipDb::BuiltIn().Find("tpu-v6e");
    mlprof::XlaOps x = mlprof::ResolveXlaOps(p.ranks[0]);
    mlprof::RooflineResult rr = mlprof::RooflineXla(p.ranks[0], x, *chip, mlprof::hw::DType::kBf16);
    (void)mlprof::RooflineSvg(rr, "fuzz");
    (void)mlprof::RenderCsv({{mlprof::RooflineSummaryTable(0, rr), mlprof::RooflineCategoryTable(0, rr),
                              mlprof::RooflineOpsTable(0, rr, 0)},
                             {}});
  }
  // --capture: the same bytes as the capture trace of themselves (a trace
  // with both capture windows and graph launches exercises the pairing).
  {
    mlprof::ReadOptions all;
    all.all_args = true;
    auto capture = mlprof::LoadTraceBytes(bytes, "capture.json", all);
    auto replay = mlprof::LoadTraceBytes(bytes, "fuzz.json", ro);
    if (capture.ok() && replay.ok()) {
      mlprof::Profile q;
      q.ranks.push_back(std::move(replay).value());
      std::vector<std::string> notes;
      if (mlprof::ApplyGraphCaptures(q.ranks[0], {{"capture.json", -1, ""}}, {&*capture}, nullptr, &notes).ok()) {
        mlprof::ProfileView v = mlprof::BuildProfileView(q, {});
        (void)mlprof::RenderCsv({{mlprof::OpsTable(mlprof::ComputeOpGpuTime(v, {}), 10),
                                  mlprof::ServingStepTable(mlprof::ComputeServingSteps(v, {}))},
                                 {}});
      }
    }
  }
  for (bool rounding : {false, true}) {
    mlprof::AnalysisOptions o;
    o.hta_rounding = rounding;
    mlprof::ProfileView v = mlprof::BuildProfileView(p, o);
    mlprof::Report rep;
    rep.tables.push_back(mlprof::TemporalTable(mlprof::ComputeTemporalBreakdown(v)));
    rep.tables.push_back(mlprof::OverlapTable(mlprof::ComputeOverlap(v)));
    auto kb = mlprof::ComputeKernelBreakdown(v, {});
    rep.tables.push_back(mlprof::KernelTypeTable(kb));
    rep.tables.push_back(mlprof::KernelStatTable(kb));
    auto idle = mlprof::ComputeIdleBreakdown(v, {});
    rep.tables.push_back(mlprof::IdleTable(idle));
    rep.tables.push_back(mlprof::IdleStatsTable(idle));
    rep.tables.push_back(mlprof::LaunchSummaryTable(mlprof::ComputeLaunchStats(v, {})));
    rep.tables.push_back(mlprof::StepTable(mlprof::ComputeSteps(v, {})));
    const auto ops = mlprof::ComputeOpGpuTime(v, {});
    rep.tables.push_back(mlprof::OpsTable(ops, 10));
    rep.tables.push_back(mlprof::HostOpsTable(mlprof::ComputeHostOps(v, {rounding}), rounding, 10));
    // The PyTorch roofline (costs from shapes) and MFU's profile figures
    // (steady-state steps, HFU from the costed ops).
    const mlprof::hw::Chip* h100 = mlprof::hw::ChipDb::BuiltIn().Find("h100-sxm");
    mlprof::RooflineResult fr = mlprof::RooflineFrameworkOps(ops, 0, *h100, mlprof::hw::DType::kBf16, true);
    (void)mlprof::RooflineSvg(fr, "fuzz");
    rep.tables.push_back(mlprof::RooflineOpsTable(0, fr, 0));
    (void)mlprof::MeasureProfile(p, v);
    // nsys stats' and torch_npu's reports (kernel_details.csv reaches here too).
    const mlprof::Summaries sm = mlprof::ComputeSummaries(p);
    rep.tables.push_back(mlprof::SummaryTable("cuda_gpu_kern_sum", sm.kernels));
    rep.tables.push_back(mlprof::OpStatisticTable(sm.op_statistic));
    rep.tables.push_back(mlprof::HcclOpsTable(sm.hccl_ops));
    rep.tables.push_back(mlprof::HcclLinksTable(sm.hccl_links));
    const std::vector<mlprof::DeviceMemory> mem = mlprof::ComputeMemory(p);
    rep.tables.push_back(mlprof::MemoryTable(mem));
    rep.tables.push_back(mlprof::MemoryCategoriesTable(mlprof::ComputeMemoryCategories(p)));
    size_t hidden = 0;
    rep.tables.push_back(mlprof::MemorySitesTable(mem, true, 5, &hidden));
    rep.tables.push_back(mlprof::GpuMetricsTable(mlprof::ComputeGpuMetrics(p, 3)));
    rep.tables.push_back(mlprof::UnitsTable(mlprof::ComputeUnitUtilisation(p), 3, &hidden));
    for (auto& t : mlprof::InfoTables(mlprof::SummarizeRanks(p))) rep.tables.push_back(std::move(t));
    (void)mlprof::RenderText(rep);
    (void)mlprof::RenderText(rep, 40);
    (void)mlprof::RenderJson(rep);
    (void)mlprof::RenderCsv(rep);
    if (!rounding) {
      mlprof::HtmlReport h;
      h.sections.push_back({"s", "S", {}, {}, rep.tables});
      (void)mlprof::RenderHtml(h, "", "", "");
    }
  }
  // SQL: the tables and views under Perfetto's names, both ways of filling
  // `slice`, and a query over every view.
  for (bool view : {false, true}) {
    sqlite3* db = nullptr;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK) return 0;
    mlprof::SqliteTables which;
    which.slice_view = view;
    if (mlprof::LoadIntoSqlite(p, db, which).ok())
      sqlite3_exec(db,
                   "select count(*), sum(length(display_value)) from args; select count(*) from flow; "
                   "select max(dur) from slice",
                   nullptr, nullptr, nullptr);
    sqlite3_close(db);
  }
  return 0;
}
