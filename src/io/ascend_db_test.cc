// torch_npu's database form (io/ascend_db.h) against what the same databases
// say of themselves: row counts by raw SQL, the step breakdown against
// analysis.db's StepTraceTime and the database's own OVERLAP_ANALYSIS lanes
// (to the ns: both are integer ns), op statistics against an SQL aggregate,
// PMU values as stored.
#include "io/ascend_db.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "../../tests/corpus_util.h"
#include "analysis/gpu_time.h"
#include "analysis/memory.h"
#include "analysis/summaries.h"
#include "analysis/view.h"
#include "io/load.h"

namespace mlprof {
namespace {

// Runs `sql` on the database at `path` (read only): each row's columns as text.
std::vector<std::vector<std::string>> DbRows(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::vector<std::vector<std::string>> out;
  // immutable: the corpus is read only, and a WAL-mode database would
  // otherwise need its -shm file created beside it.
  const std::string uri = "file:" + path + "?immutable=1";
  EXPECT_EQ(sqlite3_open_v2(uri.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr), SQLITE_OK) << path;
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sql << ": " << sqlite3_errmsg(db);
  while (s && sqlite3_step(s) == SQLITE_ROW) {
    std::vector<std::string> row;
    for (int i = 0; i < sqlite3_column_count(s); ++i) {
      const unsigned char* t = sqlite3_column_text(s, i);
      row.push_back(t ? reinterpret_cast<const char*>(t) : "");
    }
    out.push_back(std::move(row));
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return out;
}
int64_t DbInt(const std::string& path, const std::string& sql) { return std::stoll(DbRows(path, sql).at(0).at(0)); }

std::string RankDir(const std::string& root, int rank) {
  return root + "/rank" + std::to_string(rank) + "_ascend_pt/ASCEND_PROFILER_OUTPUT/";
}

// tests/data/ascend/mini_db.sql (its comment works out the figures).
TEST(AscendDb, HandMadeDatabase) {
  const std::string path = ::testing::TempDir() + "ascend_pytorch_profiler_0.db";
  std::remove(path.c_str());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  std::ifstream in(std::string(MLPROF_SOURCE_DIR) + "/tests/data/ascend/mini_db.sql");
  std::stringstream sql;
  sql << in.rdbuf();
  ASSERT_FALSE(sql.str().empty());
  ASSERT_EQ(sqlite3_exec(db, sql.str().c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
  auto p = LoadProfile({path}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  const RankProfile& r = p->ranks.at(0);
  EXPECT_EQ(r.format, TraceFormat::kAscendDb);
  EXPECT_EQ(r.meta.rank, 3);
  ASSERT_EQ(r.meta.devices.size(), 1u);
  EXPECT_EQ(r.meta.devices[0].name, "Ascend910B");
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0].number, 7);
  EXPECT_EQ(r.steps[0].dur, 200 * kPsPerUs);
  std::map<OpKind, int> kinds;
  for (size_t i = 0; i < r.ops.size(); ++i) kinds[r.ops.kind[i]]++;
  EXPECT_EQ(kinds[OpKind::kKernel], 3);  // two compute kernels and the HCCL op; the sub-task left out
  EXPECT_EQ(kinds[OpKind::kCpuOp], 2);
  EXPECT_EQ(kinds[OpKind::kOther], 1);
  for (size_t i = 0; i < r.ops.size(); ++i) {
    if (r.str(r.ops.name[i]) != "MatMul_1") continue;
    EXPECT_EQ(r.track_of(i).stream, 2);
    EXPECT_EQ(r.ops.dur[i], 20 * kPsPerUs);
    const ArgValue* mac = r.args.Find(ArgOwner::kOp, static_cast<uint32_t>(i), r.strings.Find("aic_mac_ratio"));
    ASSERT_NE(mac, nullptr);
    EXPECT_DOUBLE_EQ(mac->r, 0.75);
    const ArgValue* type = r.args.Find(ArgOwner::kOp, static_cast<uint32_t>(i), r.strings.Find("OP Type"));
    ASSERT_NE(type, nullptr);
    EXPECT_EQ(r.str(type->s), "MatMulV2");
  }
  const ProfileView v = BuildProfileView(*p, {});
  const TemporalBreakdown t = ComputeTemporalBreakdown(v).at(0);
  const Overlap o = ComputeOverlap(v).at(0);
  EXPECT_EQ(t.compute, 25 * kPsPerUs);
  EXPECT_EQ(t.idle, 5 * kPsPerUs);
  EXPECT_EQ(o.comm, 40 * kPsPerUs);
  EXPECT_EQ(o.overlapped, 5 * kPsPerUs);
  // Not an Ascend database, not nsys: refused by what it holds.
  const std::string other = ::testing::TempDir() + "other.db";
  std::remove(other.c_str());
  ASSERT_EQ(sqlite3_open(other.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE STRING_IDS (id INTEGER, value TEXT); CREATE TABLE TASK (x INTEGER);",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto bad = LoadProfile({other}, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("table TASK has no column startNs"), std::string::npos)
      << bad.status().message();
}

TEST(AscendDbCorpus, CountsAndStepBreakdownEqualTheDatabases) {
  MLPROF_CORPUS_FILE(root, "ascend/msinsight_2rank/db/level1");
  auto p = LoadProfile({root}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->ranks.size(), 2u);
  const ProfileView v = BuildProfileView(*p, {});
  const std::vector<TemporalBreakdown> t = ComputeTemporalBreakdown(v);
  const std::vector<Overlap> o = ComputeOverlap(v);
  int lanes = 0;
  for (int rank : {0, 1}) {
    const std::string db = RankDir(root, rank) + "ascend_pytorch_profiler_" + std::to_string(rank) + ".db";
    const std::string analysis = RankDir(root, rank) + "analysis.db";
    const RankProfile& r = p->ranks[rank];
    EXPECT_EQ(r.format, TraceFormat::kAscendDb);
    EXPECT_EQ(r.meta.rank, rank);
    ASSERT_EQ(r.meta.devices.size(), 1u);
    EXPECT_EQ(r.meta.devices[0].name, "Ascend910B");
    std::map<OpKind, int64_t> kinds;
    for (size_t i = 0; i < r.ops.size(); ++i) kinds[r.ops.kind[i]]++;
    const int64_t kernels =
        DbInt(db, "SELECT count(*) FROM TASK t JOIN COMPUTE_TASK_INFO c ON t.globalTaskId = c.globalTaskId");
    EXPECT_EQ(kinds[OpKind::kKernel], kernels + DbInt(db, "SELECT count(*) FROM COMMUNICATION_OP"));
    EXPECT_EQ(kinds[OpKind::kCpuOp], DbInt(db, "SELECT count(*) FROM PYTORCH_API"));
    EXPECT_EQ(kinds[OpKind::kOther], DbInt(db, "SELECT count(*) FROM CANN_API"));
    ASSERT_EQ(r.steps.size(), 1u);
    EXPECT_EQ(r.steps[0].number, DbInt(db, "SELECT id FROM STEP_TIME"));
    // analysis.db's StepTraceTime (us, 3 decimals: exact ns).
    const auto st = DbRows(analysis,
                           "SELECT computing, communication_not_overlapped, overlapped, communication, free FROM "
                           "StepTraceTime");
    ASSERT_EQ(st.size(), 1u);
    auto ns = [](const std::string& us) { return static_cast<Ps>(std::llround(std::stod(us) * 1000)) * 1000; };
    EXPECT_EQ(t.at(rank).compute, ns(st[0][0]));
    EXPECT_EQ(o.at(rank).comm - o.at(rank).overlapped, ns(st[0][1]));
    EXPECT_EQ(o.at(rank).overlapped, ns(st[0][2]));
    EXPECT_EQ(o.at(rank).comm, ns(st[0][3]));
    EXPECT_EQ(t.at(rank).idle, ns(st[0][4]));
    // The database's own overlap lanes where it has them (rank 0): 0 computing, 3 free (ns).
    if (DbInt(db, "SELECT count(*) FROM sqlite_master WHERE name = 'OVERLAP_ANALYSIS'") == 0) continue;
    ++lanes;
    EXPECT_EQ(t.at(rank).compute, DbInt(db, "SELECT sum(endNs - startNs) FROM OVERLAP_ANALYSIS WHERE type = 0") * 1000);
    EXPECT_EQ(t.at(rank).idle, DbInt(db, "SELECT sum(endNs - startNs) FROM OVERLAP_ANALYSIS WHERE type = 3") * 1000);
  }
  EXPECT_EQ(lanes, 1);
}

// op_statistic from the database form: an SQL aggregate of the same tables
// (count and total ns per op type and core type) gives the same rows.
TEST(AscendDbCorpus, OpStatisticEqualsAnSqlAggregate) {
  MLPROF_CORPUS_FILE(dir, "ascend/msinsight_2rank/db/level1/rank1_ascend_pt");
  auto p = LoadProfile({dir}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  const Summaries sm = ComputeSummaries(*p);
  const auto rows = DbRows(dir + "/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_1.db",
                           "SELECT so.value, sc.value, count(*), sum(t.endNs - t.startNs) FROM TASK t JOIN "
                           "COMPUTE_TASK_INFO c ON t.globalTaskId = c.globalTaskId JOIN STRING_IDS so ON so.id = "
                           "c.opType JOIN STRING_IDS sc ON sc.id = c.taskType GROUP BY 1, 2");
  ASSERT_GT(rows.size(), 20u);
  EXPECT_EQ(sm.op_statistic.size(), rows.size());
  for (const auto& row : rows) {
    const SummaryRow* mine = nullptr;
    for (const SummaryRow& r : sm.op_statistic)
      if (r.name == row[0] && r.style == row[1]) mine = &r;
    ASSERT_NE(mine, nullptr) << row[0] << " " << row[1];
    EXPECT_EQ(mine->time.count, std::stoll(row[2])) << row[0];
    EXPECT_DOUBLE_EQ(mine->time.sum, static_cast<double>(std::stoll(row[3]) * 1000)) << row[0];
  }
  // HCCL's op times (analysis.db) joined to the ops of COMMUNICATION_OP: the
  // elapse time is the op's duration, to the ns.
  ASSERT_EQ(sm.hccl_ops.size(), 4u);
  for (const HcclOpRow& r : sm.hccl_ops) EXPECT_NEAR(static_cast<double>(r.trace_dur - r.elapse), 0, 1000) << r.name;
}

// OP_MEMORY as allocator events: the peak equals the database's own
// allocator timeline (MEMORY_RECORD, component PTA), in bytes.
TEST(AscendDbCorpus, OpMemoryPeakEqualsMemoryRecord) {
  MLPROF_CORPUS_FILE(root, "ascend/msinsight_2rank/db/level1");
  auto p = LoadProfile({root}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  const std::vector<DeviceMemory> m = ComputeMemory(*p);
  ASSERT_EQ(m.size(), 2u);
  for (int rank : {0, 1}) {
    const std::string db = RankDir(root, rank) + "ascend_pytorch_profiler_" + std::to_string(rank) + ".db";
    const std::string pta = " FROM MEMORY_RECORD WHERE component = (SELECT id FROM STRING_IDS WHERE value = 'PTA')";
    EXPECT_EQ(m[rank].peak, DbInt(db, "SELECT max(totalAllocated)" + pta)) << rank;
    EXPECT_EQ(m[rank].peak_reserved, DbInt(db, "SELECT max(totalReserved)" + pta)) << rank;
    EXPECT_EQ(m[rank].allocs, DbInt(db, "SELECT count(*) FROM OP_MEMORY"));
  }
}

// TASK_PMU_INFO's values are the kernel's args, as stored.
TEST(AscendDbCorpus, PmuValuesAsStored) {
  MLPROF_CORPUS_FILE(dir, "ascend/msinsight_2rank/db/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT");
  auto p = LoadProfile({dir}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  const RankProfile& r = p->ranks[0];
  const auto ref = DbRows(dir + "/ascend_pytorch_profiler_0.db",
                          "SELECT sn.value, t.startNs, pmu.value FROM TASK_PMU_INFO pmu JOIN STRING_IDS s ON s.id = "
                          "pmu.name JOIN TASK t ON t.globalTaskId = pmu.globalTaskId JOIN COMPUTE_TASK_INFO c ON "
                          "c.globalTaskId = t.globalTaskId JOIN STRING_IDS sn ON sn.id = c.name WHERE s.value = "
                          "'aic_mac_ratio' AND pmu.value > 0 ORDER BY t.startNs LIMIT 1");
  ASSERT_EQ(ref.size(), 1u);
  const StringId key = r.strings.Find("aic_mac_ratio");
  ASSERT_NE(key, StringPool::kNotFound);
  const Ps128 start = static_cast<Ps128>(std::stoll(ref[0][1])) * 1000;
  bool found = false;
  for (size_t i = 0; i < r.ops.size(); ++i) {
    if (r.str(r.ops.name[i]) != ref[0][0] || static_cast<Ps128>(r.ops.ts[i]) + r.origin_abs_ps != start) continue;
    const ArgValue* v = r.args.Find(ArgOwner::kOp, static_cast<uint32_t>(i), key);
    ASSERT_NE(v, nullptr);
    EXPECT_NEAR(v->r, std::stod(ref[0][2]), 1e-12 * std::abs(v->r));  // SQLite prints 15 digits
    found = true;
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace mlprof
