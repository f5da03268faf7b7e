// SQL over the example against mlprof's own tables: the slices, the kernel
// table (count and total per rank and name), the launch flows and the step
// of every op; Perfetto-style queries (args joined by arg_set_id, aliases in
// WHERE, CAST of display values) run as written.
#include "export/sqlite.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/gpu_time.h"
#include "analysis/view.h"
#include "io/load.h"

namespace mlprof {
namespace {

// Every row of a query, as text.
std::vector<std::vector<std::string>> QueryRows(sqlite3* db, const std::string& sql) {
  std::vector<std::vector<std::string>> out;
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sqlite3_errmsg(db) << ": " << sql;
  while (s && sqlite3_step(s) == SQLITE_ROW) {
    std::vector<std::string> row;
    for (int c = 0; c < sqlite3_column_count(s); ++c) {
      const unsigned char* t = sqlite3_column_text(s, c);
      row.emplace_back(t ? reinterpret_cast<const char*>(t) : "NULL");
    }
    out.push_back(std::move(row));
  }
  sqlite3_finalize(s);
  return out;
}

class SqlExample : public ::testing::Test {
 protected:
  void SetUp() override {
    LoadOptions lo;
    lo.all_args = true;  // as `mlprof sql` and the exports read
    auto p = LoadProfile({std::string(MLPROF_SOURCE_DIR) + "/examples/two_rank"}, lo);
    ASSERT_TRUE(p.ok()) << p.status().message();
    profile_ = std::move(p).value();
    ASSERT_EQ(sqlite3_open(":memory:", &db_), SQLITE_OK);
    auto st = LoadIntoSqlite(profile_, db_);
    ASSERT_TRUE(st.ok()) << st.status().message();
    stats_ = *st;
  }
  void TearDown() override { sqlite3_close(db_); }
  std::vector<std::vector<std::string>> Rows(const std::string& sql) { return QueryRows(db_, sql); }
  int64_t One(const std::string& sql) {
    auto r = Rows(sql);
    return r.empty() ? -1 : std::stoll(r[0][0]);
  }
  Profile profile_;
  sqlite3* db_ = nullptr;
  SqliteStats stats_;
};

TEST_F(SqlExample, SlicesFlowsAndStepsAreTheModel) {
  int64_t ops = 0, launches = 0, stepped = 0;
  for (const RankProfile& r : profile_.ranks) {
    ops += static_cast<int64_t>(r.ops.size());
    for (size_t i = 0; i < r.ops.size(); ++i) {
      launches += r.ops.launch[i] >= 0 && IsGpuOp(r.ops.kind[i]);
      stepped += r.ops.step[i] >= 0;
    }
  }
  EXPECT_EQ(One("select count(*) from slice"), ops);
  EXPECT_EQ(static_cast<int64_t>(stats_.slices), ops);
  EXPECT_EQ(One("select count(*) from flow"), launches);
  EXPECT_EQ(One("select count(*) from args where key = 'debug.step'"), stepped);
  // Every flow leaves a host launch and lands on a GPU stream track.
  EXPECT_EQ(One("select count(*) from flow f join slice i on f.slice_in = i.id join track t on i.track_id = t.id "
                "where t.type = 'gpu_stream'"),
            launches);
  EXPECT_EQ(One("select count(*) from process"), 2);
  EXPECT_EQ(One("select count(*) from thread_track"), One("select count(*) from thread"));
}

// The kernel table (all steps kept: SQL sees every op) per rank and name:
// count and total time, the total in ns (the example's times are whole ns).
TEST_F(SqlExample, KernelTableFromSql) {
  AnalysisOptions ao;
  ao.drop_last_step = false;
  KernelBreakdownOptions ko;
  ko.top = 1 << 30;
  const KernelBreakdown kb = ComputeKernelBreakdown(BuildProfileView(profile_, ao), ko);
  std::map<std::tuple<std::string, std::string>, std::pair<int64_t, int64_t>> sql;
  for (const auto& row : Rows("select p.rank, s.name, count(*), sum(s.dur) from slice s join track t on "
                              "s.track_id = t.id join process p on t.upid = p.upid where t.type = 'gpu_stream' "
                              "group by p.rank, s.name"))
    sql[{row[0], row[1]}] = {std::stoll(row[2]), std::stoll(row[3])};
  size_t compared = 0;
  for (const KernelStat& k : kb.kernels) {
    auto it = sql.find({std::to_string(k.rank), k.name});
    ASSERT_NE(it, sql.end()) << k.name;
    EXPECT_EQ(it->second.first, k.count) << k.name;
    EXPECT_EQ(it->second.second * 1000, k.sum) << k.name;
    ++compared;
  }
  EXPECT_EQ(compared, sql.size());
}

// Perfetto-style queries as people write them: an alias of an arg's value
// used in WHERE and ORDER BY, a CAST of display_value, "..." string literals.
TEST_F(SqlExample, PerfettoStyleQueries) {
  auto a = Rows(
      "SELECT a.int_value AS corr, s.* FROM slice s JOIN args a ON s.arg_set_id = a.arg_set_id "
      "WHERE a.key = 'debug.correlation' AND corr BETWEEN 5 AND 20 order by corr desc;");
  ASSERT_FALSE(a.empty());
  EXPECT_LE(std::stoll(a.front()[0]), 20);
  EXPECT_GE(std::stoll(a.back()[0]), 5);
  auto b = Rows(
      "SELECT a.display_value AS step, s.* FROM slice s JOIN args a ON s.arg_set_id = a.arg_set_id "
      "WHERE a.key = 'debug.step' AND CAST(a.display_value AS DOUBLE) < 3 order by CAST(step AS DOUBLE) desc;");
  ASSERT_FALSE(b.empty());
  EXPECT_EQ(b.front()[0], "2");
  EXPECT_GT(One("select count(*) from slice s where s.name=\"cudaLaunchKernel\""), 0);
}

// `slice` as a virtual table over the model (what `mlprof sql` uses) answers
// every query as the bulk-loaded table does.
TEST_F(SqlExample, SliceViewAnswersAsTheTable) {
  sqlite3* view = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &view), SQLITE_OK);
  SqliteTables which;
  which.slice_view = true;
  auto loaded = LoadIntoSqlite(profile_, view, which);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  for (const std::string q :
       {"select count(*) from slice", "select * from slice order by id",
        "select p.rank, s.name, count(*), sum(s.dur) from slice s join track t on s.track_id = t.id join process p on "
        "t.upid = p.upid where t.type = 'gpu_stream' group by p.rank, s.name order by 1, 2",
        "select count(*) from flow f join slice i on f.slice_in = i.id join slice o on f.slice_out = o.id "
        "where o.ts <= i.ts",
        "select s.id, a.key, a.display_value from slice s join args a on s.arg_set_id = a.arg_set_id where s.id < 50 "
        "order by 1, 2",
        "select name from slice where id = 7", "select count(*) from slice where id = 999999999",
        "select name from slice where id = 7.0", "select count(*) from slice where id = 7.5",
        "select key, value_type, count(*), sum(int_value), sum(real_value) from args group by 1, 2 order by 1, 2",
        "select * from args where arg_set_id between 100 and 140 order by arg_set_id, key"}) {
    EXPECT_EQ(QueryRows(view, q), QueryRows(db_, q)) << q;
  }
  sqlite3_close(view);
}

// Every arg of the trace is in `args`, with the type it was written with:
// the example's runtime calls carry "cbid" (one per launch: 972 over the two
// ranks, the flows' count) and its copies "memory bandwidth (GB/s)" (24, as
// many as there are `bytes` args).
TEST_F(SqlExample, OtherArgsWithTheirTypes) {
  EXPECT_EQ(One("select count(*) from args where key = 'debug.cbid' and value_type = 'int'"),
            One("select count(*) from flow"));
  EXPECT_EQ(One("select count(*) from args where key = 'debug.memory bandwidth (GB/s)' and value_type = 'real'"),
            One("select count(*) from args where key = 'debug.bytes'"));
  EXPECT_EQ(One("select count(*) from args where key = 'debug.memory bandwidth (GB/s)'"), 24);
  // Every arg row belongs to a slice that names its set.
  EXPECT_EQ(One("select count(*) from args a left join slice s on s.arg_set_id = a.arg_set_id where s.id is null"), 0);
}

// A query names the tables it needs; counter tracks are rows of `track`.
TEST(SqliteTables, WhatAQueryNames) {
  const SqliteTables a = SqliteTables::For("select count(*) from slice");
  EXPECT_TRUE(a.slices);
  EXPECT_FALSE(a.args);
  EXPECT_FALSE(a.flows);
  EXPECT_FALSE(a.counters);
  EXPECT_FALSE(a.track_index);
  const SqliteTables b = SqliteTables::For("SELECT type, count(*) FROM Track GROUP BY type");
  EXPECT_TRUE(b.counters);
  const SqliteTables c = SqliteTables::For("select a.key from slice s join args a using(arg_set_id)");
  EXPECT_TRUE(c.args);
  EXPECT_FALSE(SqliteTables::For("select * from slices_x, track").slices);  // whole words: slices_x is not slice
  const SqliteTables all = SqliteTables::For("select name from sqlite_master");
  EXPECT_TRUE(all.slices && all.args && all.flows && all.counters);
}

}  // namespace
}  // namespace mlprof
