// torch_npu's trace_view.json: the device lanes read as torch_npu reads them.
// For each of the corpus' 2-rank job at profiler levels 0, 1 and 2, mlprof's
// temporal breakdown and overlap of the step equal torch_npu's own
// step_trace_time.csv in the same folder: Computing = compute, Communication
// = communication, Overlapped, Communication(Not Overlapped) = exposed,
// Free = idle. Within 0.01 us: the JSON's times are rounded (ts to 1 ns,
// durations to fractions of ns), torch_npu computed from its exact ones.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "../../tests/corpus_util.h"
#include "analysis/gpu_time.h"
#include "analysis/memory.h"
#include "analysis/summaries.h"
#include "analysis/view.h"
#include "base/csv.h"
#include "base/file_loader.h"
#include "base/time.h"
#include "io/load.h"

namespace mlprof {
namespace {

TEST(AscendCorpus, StepBreakdownEqualsStepTraceTime) {
  MLPROF_CORPUS_FILE(root, "ascend/msinsight_2rank/text");
  int checked = 0;
  for (const char* level : {"level0", "level1", "level2"})
    for (int rank : {0, 1}) {
      const std::string dir =
          root + "/" + level + "/rank" + std::to_string(rank) + "_ascend_pt/ASCEND_PROFILER_OUTPUT/";
      // Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,...
      std::ifstream csv(dir + "step_trace_time.csv");
      std::string header, row;
      ASSERT_TRUE(std::getline(csv, header) && std::getline(csv, row)) << dir;
      std::vector<double> f;
      std::stringstream ss(row);
      for (std::string c; std::getline(ss, c, ',');) f.push_back(std::stod(c));
      ASSERT_GE(f.size(), 6u);
      auto p = LoadProfile({dir + "trace_view.json"}, {});
      ASSERT_TRUE(p.ok()) << p.status().message();
      EXPECT_EQ(p->ranks[0].format, TraceFormat::kAscendTraceView);
      const ProfileView v = BuildProfileView(*p, {});
      const TemporalBreakdown t = ComputeTemporalBreakdown(v).at(0);
      const Overlap o = ComputeOverlap(v).at(0);
      auto us = [](Ps x) { return static_cast<double>(x) / kPsPerUs; };
      const std::string at = std::string(level) + " rank " + std::to_string(rank);
      EXPECT_NEAR(us(t.compute), f[1], 0.01) << at;
      EXPECT_NEAR(us(o.comm - o.overlapped), f[2], 0.01) << at;
      EXPECT_NEAR(us(o.overlapped), f[3], 0.01) << at;
      EXPECT_NEAR(us(o.comm), f[4], 0.01) << at;
      EXPECT_NEAR(us(t.idle), f[5], 0.01) << at;
      ++checked;
    }
  EXPECT_EQ(checked, 6);
}

// An older torch_npu trace (msprof-analyze's fixture) whose kernels all have
// Task Type "Other": kernels by name. Its own "Overlap Analysis" lanes
// (Computing, Free: torch_npu's figures, in the same file) are the reference.
TEST(AscendCorpus, OlderTraceMatchesItsOverlapLanes) {
  MLPROF_CORPUS_FILE(path, "ascend/trace_view.json");
  auto p = LoadProfile({path}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  const RankProfile& r = p->ranks[0];
  double computing = 0, free = 0;
  for (size_t i = 0; i < r.ops.size(); ++i) {
    const Track& t = r.tracks[r.ops.track[i]];
    if (r.str(t.process_name) != "Overlap Analysis") continue;
    const double us = static_cast<double>(r.ops.dur[i]) / kPsPerUs;
    if (r.str(t.name) == "Computing") computing += us;
    if (r.str(t.name) == "Free") free += us;
  }
  ASSERT_GT(computing, 0);
  const ProfileView v = BuildProfileView(*p, {});
  const TemporalBreakdown t = ComputeTemporalBreakdown(v).at(0);
  EXPECT_NEAR(static_cast<double>(t.compute) / kPsPerUs, computing, 0.01);
  EXPECT_NEAR(static_cast<double>(t.idle) / kPsPerUs, free, 0.01);
}

// A torch_npu CSV of the corpus, parsed.
CsvTable AscendCsv(const std::string& path) {
  auto f = LoadFile(path);
  EXPECT_TRUE(f.ok()) << path;
  if (!f.ok()) return {};
  auto t = ParseCsv(f->bytes.view(), path);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? *t : CsvTable{};
}
double CsvReal(const CsvTable& t, size_t r, const char* col) {
  return std::stod(std::string(TrimCsvField(t.Get(r, t.Column(col)))));
}

// A run's folder of folders (rank0_ascend_pt, rank1_ascend_pt) is one 2-rank
// profile: ranks from profiler_info_R.json, and each rank's breakdown equals
// its own step_trace_time.csv.
TEST(AscendCorpus, RunFoldersAreOneJob) {
  MLPROF_CORPUS_FILE(root, "ascend/msinsight_2rank/text/level2");
  auto p = LoadProfile({root}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->ranks.size(), 2u);
  const ProfileView v = BuildProfileView(*p, {});
  const std::vector<TemporalBreakdown> t = ComputeTemporalBreakdown(v);
  for (int rank : {0, 1}) {
    EXPECT_EQ(p->ranks[rank].meta.rank, rank);
    EXPECT_NE(p->ranks[rank].path.find("rank" + std::to_string(rank) + "_ascend_pt"), std::string::npos);
    const CsvTable st =
        AscendCsv(root + "/rank" + std::to_string(rank) + "_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv");
    ASSERT_EQ(st.rows.size(), 1u);
    EXPECT_NEAR(static_cast<double>(t.at(rank).compute) / kPsPerUs, CsvReal(st, 0, "Computing"), 0.01);
    EXPECT_NEAR(static_cast<double>(t.at(rank).idle) / kPsPerUs, CsvReal(st, 0, "Free"), 0.01);
  }
  // The same folders named one by one, and a run folder alone.
  auto one = LoadProfile({root + "/rank1_ascend_pt"}, {});
  ASSERT_TRUE(one.ok()) << one.status().message();
  EXPECT_EQ(one->ranks.at(0).meta.rank, 1);
}

// Per op type statistics equal torch_npu's op_statistic.csv: the kernels'
// types come from kernel_details.csv, their times from the trace. The trace
// keeps durations to fractions of a ns, the CSVs round to 1 ns: sums agree
// within 1 ns per kernel, shares within 0.001 %.
TEST(AscendCorpus, OpStatisticEqualsTorchNpus) {
  MLPROF_CORPUS_FILE(root, "ascend/msinsight_2rank/text");
  int checked = 0;
  for (const char* level : {"level1", "level2"}) {
    auto p = LoadProfile({root + "/" + level}, {});
    ASSERT_TRUE(p.ok()) << p.status().message();
    const Summaries sm = ComputeSummaries(*p);
    for (int rank : {0, 1}) {
      const std::string dir =
          root + "/" + level + "/rank" + std::to_string(rank) + "_ascend_pt/ASCEND_PROFILER_OUTPUT/";
      const CsvTable ref = AscendCsv(dir + "op_statistic.csv");
      ASSERT_GT(ref.rows.size(), 20u);
      size_t rows = 0;
      for (const SummaryRow& r : sm.op_statistic) rows += r.rank == rank;
      EXPECT_EQ(rows, ref.rows.size()) << level << " rank " << rank;
      for (size_t i = 0; i < ref.rows.size(); ++i) {
        const std::string type(ref.Get(i, ref.Column("OP Type"))), core(ref.Get(i, ref.Column("Core Type")));
        const SummaryRow* mine = nullptr;
        for (const SummaryRow& r : sm.op_statistic)
          if (r.rank == rank && r.name == type && r.style == core) mine = &r;
        ASSERT_NE(mine, nullptr) << type << " " << core;
        const double n = CsvReal(ref, i, "Count");
        EXPECT_EQ(mine->time.count, static_cast<int64_t>(n)) << type;
        auto us = [](double ps) { return ps / kPsPerUs; };
        EXPECT_NEAR(us(mine->time.sum), CsvReal(ref, i, "Total Time(us)"), 0.001 * n + 0.0005) << type;
        EXPECT_NEAR(us(mine->time.min), CsvReal(ref, i, "Min Time(us)"), 0.0015) << type;
        EXPECT_NEAR(us(mine->time.max), CsvReal(ref, i, "Max Time(us)"), 0.0015) << type;
        EXPECT_NEAR(us(mine->time.mean), CsvReal(ref, i, "Avg Time(us)"), 0.0015) << type;
        EXPECT_NEAR(mine->pct, CsvReal(ref, i, "Ratio(%)"), 0.001) << type;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 100);
}

// kernel_details.csv's rows all join a kernel, whose args then carry the
// row's fields: the first MatMulV2's PMU ratios as written in the CSV.
TEST(AscendCorpus, KernelDetailsJoinTheirKernels) {
  MLPROF_CORPUS_FILE(dir, "ascend/msinsight_2rank/text/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT");
  auto p = LoadProfile({dir}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  const RankProfile& r = p->ranks[0];
  EXPECT_TRUE(r.sidecar_warnings.empty()) << r.sidecar_warnings.front();
  const CsvTable kd = AscendCsv(dir + "/kernel_details.csv");
  size_t row = 0;
  while (row < kd.rows.size() && kd.Get(row, kd.Column("Type")) != "MatMulV2") ++row;
  ASSERT_LT(row, kd.rows.size());
  const std::string name(kd.Get(row, kd.Column("Name")));
  Ps128 start = 0;
  ASSERT_EQ(ParseDecimalPs(TrimCsvField(kd.Get(row, kd.Column("Start Time(us)"))), kPsPerUs, &start),
            DecimalError::kOk);
  const StringId mac = r.strings.Find("aic_mac_ratio"), type = r.strings.Find("OP Type");
  ASSERT_NE(mac, StringPool::kNotFound);
  size_t with_type = 0;
  bool found = false;
  for (size_t i = 0; i < r.ops.size(); ++i) {
    if (r.args.Find(ArgOwner::kOp, static_cast<uint32_t>(i), type)) ++with_type;
    if (r.str(r.ops.name[i]) != name || static_cast<Ps128>(r.ops.ts[i]) + r.origin_abs_ps != start) continue;
    EXPECT_FALSE(found);  // one kernel of that name and start
    const ArgValue* v = r.args.Find(ArgOwner::kOp, static_cast<uint32_t>(i), mac);
    ASSERT_NE(v, nullptr);
    EXPECT_DOUBLE_EQ(v->r, CsvReal(kd, row, "aic_mac_ratio"));
    found = true;
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(with_type, kd.rows.size());
}

// communication.json: each op's elapse is its duration on the trace; the
// ops add up to the file's own "Total Op Info"; wait and sync ratios and
// each transport's bandwidth, recomputed, equal the file's (4 decimals).
TEST(AscendCorpus, HcclOpsAgreeWithTheTraceAndTheirTotals) {
  MLPROF_CORPUS_FILE(dir, "ascend/msinsight_2rank/text/level1/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT");
  auto p = LoadProfile({dir}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  const Summaries sm = ComputeSummaries(*p);
  ASSERT_EQ(sm.hccl_ops.size(), 4u);
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  ASSERT_EQ(parser.load(dir + "/communication.json").get(root), simdjson::SUCCESS);
  simdjson::dom::object ops;
  ASSERT_EQ(root["step50"]["collective"].get(ops), simdjson::SUCCESS);
  double elapse_ms = 0, wait_ms = 0, transit_ms = 0;
  int ratios = 0;
  for (const HcclOpRow& r : sm.hccl_ops) {
    EXPECT_NEAR(static_cast<double>(r.trace_dur), static_cast<double>(r.elapse), 1) << r.name;
    elapse_ms += static_cast<double>(r.elapse) / kPsPerMs;
    wait_ms += static_cast<double>(r.wait) / kPsPerMs;
    transit_ms += static_cast<double>(r.transit) / kPsPerMs;
    for (auto [key, v] : ops) {
      if (!key.starts_with(r.name + "@")) continue;
      EXPECT_NEAR(r.wait_ratio, v["Communication Time Info"]["Wait Time Ratio"].get_double().value(), 0.00005);
      EXPECT_NEAR(r.sync_ratio, v["Communication Time Info"]["Synchronization Time Ratio"].get_double().value(),
                  0.00005);
      ++ratios;
    }
  }
  EXPECT_EQ(ratios, 4);
  simdjson::dom::object total;
  ASSERT_EQ(ops["Total Op Info"]["Communication Time Info"].get(total), simdjson::SUCCESS);
  EXPECT_NEAR(elapse_ms, total["Elapse Time(ms)"].get_double().value(), 1e-6);
  EXPECT_NEAR(wait_ms, total["Wait Time(ms)"].get_double().value(), 1e-6);
  EXPECT_NEAR(transit_ms, total["Transit Time(ms)"].get_double().value(), 1e-6);
  size_t links = 0;
  for (const HcclLinkRow& l : sm.hccl_links) {
    if (l.reported_gbps <= 0) continue;
    EXPECT_NEAR(l.gbps, l.reported_gbps, 0.00005 + 1e-6 * l.reported_gbps) << l.group << " " << l.transport;
    ++links;
  }
  EXPECT_GT(links, 40u);
}

// operator_memory.csv read as allocator events: the peak and reserved peak
// equal torch_npu's own allocator timeline in memory_record.csv (component
// PTA, the PyTorch adapter's allocator; MB there are MiB), a different file;
// every row is an allocation.
TEST(AscendCorpus, OperatorMemoryPeakEqualsMemoryRecord) {
  MLPROF_CORPUS_FILE(root, "ascend/msinsight_2rank/text/level1");
  auto p = LoadProfile({root}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  const std::vector<DeviceMemory> m = ComputeMemory(*p);
  ASSERT_EQ(m.size(), 2u);
  for (int rank : {0, 1}) {
    const std::string dir = root + "/rank" + std::to_string(rank) + "_ascend_pt/ASCEND_PROFILER_OUTPUT/";
    const CsvTable record = AscendCsv(dir + "memory_record.csv");
    double peak_mib = 0, reserved_mib = 0;
    int pta = 0;
    for (size_t i = 0; i < record.rows.size(); ++i) {
      if (TrimCsvField(record.Get(i, record.Column("Component"))) != "PTA") continue;
      ++pta;
      peak_mib = std::max(peak_mib, CsvReal(record, i, "Total Allocated(MB)"));
      reserved_mib = std::max(reserved_mib, CsvReal(record, i, "Total Reserved(MB)"));
    }
    ASSERT_GT(pta, 100);
    const DeviceMemory& d = m[rank];
    EXPECT_EQ(d.rank, rank);
    EXPECT_TRUE(d.op_file);
    EXPECT_EQ(d.peak, std::llround(peak_mib * 1048576)) << rank;
    EXPECT_EQ(d.peak_reserved, std::llround(reserved_mib * 1048576)) << rank;
    EXPECT_EQ(static_cast<size_t>(d.allocs), AscendCsv(dir + "operator_memory.csv").rows.size());
  }
}

}  // namespace
}  // namespace mlprof
