// nsys stats' reports: a hand-made trace worked out in the comments, and the
// CloverLeaf export against the same figures computed with SQL from its raw
// tables.
#include "analysis/summaries.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "../../tests/corpus_util.h"
#include "../../tests/test_util.h"
#include "analysis/gpu_time.h"
#include "analysis/view.h"
#include "io/load.h"
#include "io/nsys.h"

namespace mlprof {
namespace {

constexpr double kUsS = 1e6;  // ps per us

// Kernel k: 10, 20, 60 us (launched by cudaLaunchKernel calls of 2, 4, 6 us;
// the third kernel starts 5 us after its call returns, the others before):
// total 90, mean 30, median 20, sample std sqrt(((-20)^2 + (-10)^2 + 30^2) /
// 2) = sqrt(700) = 26.458 us, 100 % of kernel time. Queue: 0, 0, 5: mean
// 1.667, median 0. Copies: two HtoD of 1000 and 3000 bytes (mean 2000,
// std 1414.2), one DtoH. A record_function range of 50 us.
TEST(Summaries, HandCounted) {
  const Profile p = testing::ProfileFromJson(R"J({"traceEvents":[
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":2,"args":{"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":100,"dur":4,"args":{"correlation":2}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":200,"dur":6,"args":{"correlation":3}},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":10,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":101,"dur":20,"args":{"stream":7,"correlation":2}},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":211,"dur":60,"args":{"stream":7,"correlation":3}},
    {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,"ts":300,"dur":3,"args":{"stream":7,"bytes":1000}},
    {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pinned -> Device)","pid":0,"tid":7,"ts":310,"dur":5,"args":{"stream":7,"bytes":3000}},
    {"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoH (Device -> Pinned)","pid":0,"tid":7,"ts":320,"dur":2,"args":{"stream":7,"bytes":8}},
    {"ph":"X","cat":"user_annotation","name":"fwd","pid":1,"tid":1,"ts":0,"dur":50}
  ]})J");
  const Summaries s = ComputeSummaries(p);
  ASSERT_EQ(s.kernels.size(), 1u);
  EXPECT_EQ(s.kernels[0].time.count, 3);
  EXPECT_DOUBLE_EQ(s.kernels[0].time.sum, 90 * kUsS);
  EXPECT_DOUBLE_EQ(s.kernels[0].time.p50, 20 * kUsS);
  EXPECT_NEAR(s.kernels[0].time.std, std::sqrt(700.0) * kUsS, 1e-3);
  EXPECT_DOUBLE_EQ(s.kernels[0].pct, 100);
  ASSERT_EQ(s.api.size(), 1u);
  EXPECT_DOUBLE_EQ(s.api[0].time.mean, 4 * kUsS);
  ASSERT_EQ(s.kern_exec.size(), 1u);
  EXPECT_NEAR(s.kern_exec[0].queue.mean, 5 * kUsS / 3, 1e-3);
  EXPECT_DOUBLE_EQ(s.kern_exec[0].queue.p50, 0);
  ASSERT_EQ(s.mem_time.size(), 2u);
  EXPECT_EQ(s.mem_time[0].name, "[CUDA memcpy Host-to-Device]");
  EXPECT_NEAR(s.mem_time[0].pct, 100.0 * 8 / 10, 1e-9);
  ASSERT_EQ(s.mem_size.size(), 2u);
  EXPECT_DOUBLE_EQ(s.mem_size[0].time.mean, 2000);
  EXPECT_NEAR(s.mem_size[0].time.std, std::sqrt(2e6), 1e-6);
  EXPECT_EQ(s.mem_size[1].name, "[CUDA memcpy Device-to-Host]");
  ASSERT_EQ(s.nvtx.size(), 1u);
  EXPECT_EQ(s.nvtx[0].style, "PushPop");
  EXPECT_EQ(MemOperation("Memset (Device)", OpKind::kMemset), "[CUDA memset]");
}

// CloverLeaf's export: per kernel name (demangledName) and per API call name
// (less its _vNNNN suffix), count, sum, min, max and median from the raw
// rows; per copy kind, count and bytes.
// `mlprof kernels` (analysis/gpu_time.cc, nth_element) and `mlprof stats`'s
// cuda_gpu_kern_sum (analysis/stats.cc, sorted quantiles) compute the median
// apart: on CloverLeaf's kernels (odd and even counts) they agree, and so do
// count and sample standard deviation (of two or more).
TEST(SummariesCorpus, KernelsMedianEqualsStats) {
  MLPROF_CORPUS_FILE(path, "nsys/pipit_perlmutter-cloverleaf-cuda.sqlite");
  auto p = LoadProfile({path}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  KernelBreakdownOptions ko;
  ko.top = 1 << 30;
  ko.duration_ratio = 1.0;
  AnalysisOptions ao;
  ao.drop_last_step = false;
  const KernelBreakdown k = ComputeKernelBreakdown(BuildProfileView(*p, ao), ko);
  const Summaries sm = ComputeSummaries(*p);
  size_t compared = 0;
  for (const KernelStat& ks : k.kernels)
    for (const SummaryRow& r : sm.kernels) {
      if (r.name != ks.name) continue;
      EXPECT_EQ(r.time.count, ks.count) << ks.name;
      EXPECT_NEAR(r.time.p50, ks.median, 1e-6) << ks.name;
      if (ks.count > 1) {
        EXPECT_NEAR(r.time.std, ks.std, 1e-6 * std::max(1.0, ks.std)) << ks.name;
      }
      ++compared;
    }
  EXPECT_GT(compared, 10u);
}

TEST(SummariesCorpus, CloverLeafEqualsRawSql) {
  MLPROF_CORPUS_FILE(path, "nsys/pipit_perlmutter-cloverleaf-cuda.sqlite");
  auto p = LoadProfile({path}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  const Summaries s = ComputeSummaries(*p);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  auto durations = [&](const std::string& sql) {
    std::map<std::string, std::vector<double>> out;
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW)
      out[std::string(StripApiVersion(reinterpret_cast<const char*>(sqlite3_column_text(st, 0))))].push_back(
          static_cast<double>(sqlite3_column_int64(st, 1)));
    sqlite3_finalize(st);
    return out;
  };
  auto check = [](const std::map<std::string, std::vector<double>>& raw, const std::vector<SummaryRow>& rows,
                  double unit) {
    ASSERT_EQ(rows.size(), raw.size());
    for (const SummaryRow& r : rows) {
      auto it = raw.find(r.name);
      ASSERT_NE(it, raw.end()) << r.name;
      std::vector<double> v = it->second;
      std::sort(v.begin(), v.end());
      double sum = 0;
      for (double x : v) sum += x;
      EXPECT_EQ(r.time.count, static_cast<int64_t>(v.size())) << r.name;
      EXPECT_DOUBLE_EQ(r.time.sum, sum * unit) << r.name;
      EXPECT_DOUBLE_EQ(r.time.min, v.front() * unit) << r.name;
      EXPECT_DOUBLE_EQ(r.time.max, v.back() * unit) << r.name;
      const size_t n = v.size();
      EXPECT_DOUBLE_EQ(r.time.p50, (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) * unit) << r.name;
    }
  };
  check(durations("SELECT s.value, k.end - k.start FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = "
                  "k.demangledName"),
        s.kernels, 1000);
  check(durations("SELECT s.value, r.end - r.start FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = "
                  "r.nameId"),
        s.api, 1000);
  // Copies: copyKind 1 HtoD, 2 DtoH; bytes.
  auto bytes = durations(
      "SELECT CASE copyKind WHEN 1 THEN '[CUDA memcpy Host-to-Device]' WHEN 2 THEN '[CUDA memcpy "
      "Device-to-Host]' ELSE 'other' END, bytes FROM CUPTI_ACTIVITY_KIND_MEMCPY");
  check(bytes, s.mem_size, 1);
  sqlite3_close(db);
}

}  // namespace
}  // namespace mlprof
