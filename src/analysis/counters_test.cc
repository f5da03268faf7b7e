// Memory bandwidth series and the CUPTI range profiler's counters
// (analysis/counters.h), against hand counts and HTA's definitions written
// apart in Python.
#include "analysis/counters.h"

#include <gtest/gtest.h>

#include <cmath>

#include "../../tests/corpus_util.h"
#include "../../tests/test_util.h"
#include "io/load.h"

namespace mlprof {
namespace {

using testing::ProfileFromJson;

std::string Copy(const char* name, double ts, double dur, int64_t bytes, int corr) {
  return std::string(R"({"ph":"X","cat":")") + (name[3] == 's' ? "gpu_memset" : "gpu_memcpy") + R"(","name":")" + name +
         R"(","pid":0,"tid":7,"ts":)" + std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) +
         R"(,"args":{"stream":7,"device":0,"correlation":)" + std::to_string(corr) +
         (bytes >= 0 ? R"(,"bytes":)" + std::to_string(bytes) : std::string()) + "}}";
}

const MemoryBwRow* Kind(const std::vector<MemoryBwRow>& rows, std::string_view kind) {
  for (const MemoryBwRow& r : rows)
    if (r.kind == kind) return &r;
  return nullptr;
}

// Two HtoD copies overlap: A (0-2 us, 4000 B: 2 GB/s) and B (1-3 us,
// 12000 B: 6 GB/s) give the series 2, 8, 6, 0 GB/s: above 0 are 2, 8, 6
// (count 3, mean 16/3, sample std sqrt(28/3) = 3.0551, median 6, max 8).
// A 0-length memset of 1000 B lasts 1 us (HTA's rule): 1 GB/s, one point.
// DtoH C (10-11 us, 1 GB/s) ends when D (11-12 us, 3 GB/s) starts: the end
// comes first, so the series is 1, 0, 3, 0 and never 4. A copy with no byte
// count is left out.
TEST(MemoryBw, HandMadeSeries) {
  const std::string ev = Copy("Memcpy HtoD (Pinned -> Device)", 0, 2, 4000, 1) + "," +
                         Copy("Memcpy HtoD (Pinned -> Device)", 1, 2, 12000, 2) + "," +
                         Copy("Memset (Device)", 5, 0, 1000, 3) + "," +
                         Copy("Memcpy DtoH (Device -> Pinned)", 10, 1, 1000, 4) + "," +
                         Copy("Memcpy DtoH (Device -> Pinned)", 11, 1, 3000, 5) + "," +
                         Copy("Memcpy DtoD (Device -> Device)", 20, 1, -1, 6);
  const Profile p = ProfileFromJson("{\"traceEvents\":[" + ev + "]}");
  const std::vector<MemoryBwRow> rows = ComputeMemoryBw(p);
  ASSERT_EQ(rows.size(), 3u);
  const MemoryBwRow* h = Kind(rows, "Memcpy HtoD");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->ops, 2);
  EXPECT_EQ(h->bytes, 16000);
  EXPECT_EQ(h->time, 4 * kPsPerUs);
  EXPECT_EQ(h->bw.count, 3);
  EXPECT_NEAR(h->bw.mean, 16e9 / 3, 1);
  EXPECT_NEAR(h->bw.std, std::sqrt(28.0 / 3) * 1e9, 1);
  EXPECT_NEAR(h->bw.min, 2e9, 1);
  EXPECT_NEAR(h->bw.p50, 6e9, 1);
  EXPECT_NEAR(h->bw.max, 8e9, 1);
  const MemoryBwRow* m = Kind(rows, "Memset");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->time, kPsPerUs);
  EXPECT_EQ(m->bw.count, 1);
  EXPECT_NEAR(m->bw.max, 1e9, 1);
  const MemoryBwRow* d = Kind(rows, "Memcpy DtoH");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->bw.count, 2);
  EXPECT_NEAR(d->bw.max, 3e9, 1);
  EXPECT_EQ(Kind(rows, "Memcpy DtoD"), nullptr);

  const std::vector<MemoryBwSeries> s = ComputeMemoryBwSeries(p);
  ASSERT_EQ(s.size(), 3u);
  ASSERT_EQ(s[1].kind, "Memcpy HtoD");
  ASSERT_EQ(s[1].points.size(), 4u);
  EXPECT_EQ(s[1].points[1].first, kPsPerUs);
  EXPECT_NEAR(s[1].points[1].second, 8e9, 1);
  EXPECT_EQ(s[1].points[3].second, 0);  // exactly 0 once nothing runs
}

TEST(MemoryBw, KindFromName) {
  EXPECT_EQ(MemoryKindOf("Memcpy PtoP (Device -> Device)"), "Memcpy PtoP");
  EXPECT_EQ(MemoryKindOf("Memset (Device)"), "Memset");
  EXPECT_EQ(MemoryKindOf("[CUDA memcpy]"), "Memcpy Unknown");
}

// HTA's A100 rank 0 against HTA's get_memory_bw_summary written apart in
// Python (json module; bandwidth bytes / (dur ns), 0-length -> 1 us; ends
// before starts at equal times; statistics.mean / stdev, linear quartiles):
// DtoD 1280 points, mean 150.31119 GB/s, std 272.93478, max 932.06756;
// DtoH 30, mean 0.17437; HtoD 80, mean 4.99996, p75 11.39578, max 21.28352;
// Memset 277, mean 0.58308, median 0.192.
TEST(MemoryBwCorpus, HtaA100EqualsAPythonComputation) {
  MLPROF_CORPUS_FILE(path, "kineto/hta_a100_ws16_rank0_nccl/rank0.json.gz");
  auto p = LoadProfile({path}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  const std::vector<MemoryBwRow> rows = ComputeMemoryBw(*p);
  ASSERT_EQ(rows.size(), 4u);
  const MemoryBwRow* dd = Kind(rows, "Memcpy DtoD");
  const MemoryBwRow* dh = Kind(rows, "Memcpy DtoH");
  const MemoryBwRow* hd = Kind(rows, "Memcpy HtoD");
  const MemoryBwRow* ms = Kind(rows, "Memset");
  ASSERT_TRUE(dd && dh && hd && ms);
  EXPECT_EQ(dd->bw.count, 1280);
  EXPECT_NEAR(dd->bw.mean / 1e9, 150.31119231136515, 1e-9);
  EXPECT_NEAR(dd->bw.std / 1e9, 272.9347843821027, 1e-9);
  EXPECT_NEAR(dd->bw.max / 1e9, 932.0675555555556, 1e-9);
  EXPECT_EQ(dh->bw.count, 30);
  EXPECT_NEAR(dh->bw.mean / 1e9, 0.1743663492063492, 1e-12);
  EXPECT_EQ(hd->bw.count, 80);
  EXPECT_NEAR(hd->bw.mean / 1e9, 4.999959061178775, 1e-9);
  EXPECT_NEAR(hd->bw.p75 / 1e9, 11.395777316735824, 1e-9);
  EXPECT_NEAR(hd->bw.max / 1e9, 21.28351515151515, 1e-9);
  EXPECT_EQ(ms->bw.count, 277);
  EXPECT_NEAR(ms->bw.mean / 1e9, 0.5830806257521058, 1e-9);
  EXPECT_NEAR(ms->bw.p50 / 1e9, 0.192, 1e-12);
}

TEST(CuptiRanges, SassFlopWeights) {
  EXPECT_EQ(SassFlopsPerInstruction("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"), 2);
  EXPECT_EQ(SassFlopsPerInstruction("smsp__sass_thread_inst_executed_op_hfma_pred_on.sum"), 2);
  EXPECT_EQ(SassFlopsPerInstruction("smsp__sass_thread_inst_executed_op_dadd_pred_on.sum"), 1);
  EXPECT_EQ(SassFlopsPerInstruction("smsp__sass_thread_inst_executed_op_fmul_pred_on.sum"), 1);
  EXPECT_EQ(SassFlopsPerInstruction("smsp__sass_thread_inst_executed_op_imad_pred_on.sum"), 0);
  EXPECT_EQ(SassFlopsPerInstruction("dram__bytes_read.sum"), 0);
}

// aten::mm [64,32] x [32,16] launches one kernel whose range counts 32768
// FFMA (64*16*32: 65536 FLOPs, the cost model's 2*M*N*K); aten::relu's
// kernel counts 7 FADD. The i-th range goes to the i-th launch call by
// start, and through it to the cpu_ops around the call. A third range with
// two launch calls: nothing is attributed.
TEST(CuptiRanges, HandMadeAttributionAndCostModel) {
  const std::string ops =
      R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":10,"args":{"Input Dims":[[64,32],[32,16]],"Input type":["float","float"]}},)"
      R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":1,"args":{"correlation":1}},)"
      R"({"ph":"X","cat":"cpu_op","name":"aten::relu","pid":1,"tid":1,"ts":12,"dur":5},)"
      R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":13,"dur":1,"args":{"correlation":2}},)"
      R"({"ph":"X","cat":"cuda_profiler_range","name":"gemm","pid":0,"tid":0,"ts":100,"dur":10,"args":{"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum":32768,"dram__bytes_read.sum":12288}},)"
      R"({"ph":"X","cat":"cuda_profiler_range","name":"relu","pid":0,"tid":0,"ts":110,"dur":10,"args":{"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum":7,"dram__bytes_read.sum":100}})";
  const Profile p = ProfileFromJson("{\"traceEvents\":[" + ops + "]}");
  const std::vector<CuptiRanks> c = ComputeCuptiRanges(p);
  ASSERT_EQ(c.size(), 1u);
  const CuptiRanks& r = c[0];
  EXPECT_TRUE(r.attributed);
  EXPECT_EQ(r.launches, 2);
  ASSERT_EQ(r.metrics.size(), 3u);
  const RankProfile& rp = p.ranks[0];
  EXPECT_EQ(rp.str(r.metrics[0]), "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum");
  EXPECT_EQ(rp.str(r.metrics[1]), "dram__bytes_read.sum");
  ASSERT_EQ(r.ranges.size(), 2u);
  ASSERT_EQ(r.ranges[0].op_stack.size(), 1u);
  EXPECT_EQ(rp.str(rp.ops.name[r.ranges[0].op_stack[0]]), "aten::mm");
  EXPECT_EQ(r.ranges[0].sass_flops, 65536);
  EXPECT_EQ(r.ranges[0].values[1], 12288);
  EXPECT_TRUE(std::isnan(r.ranges[0].values[2]));
  EXPECT_EQ(rp.str(rp.ops.name[r.ranges[1].op_stack.back()]), "aten::relu");
  EXPECT_EQ(r.ranges[1].sass_flops, 7);

  const std::vector<CuptiOpRow> by_op = CuptiByOp(r);
  ASSERT_EQ(by_op.size(), 2u);
  EXPECT_EQ(by_op[0].op, "aten::mm");
  EXPECT_EQ(by_op[0].instances, 1);
  EXPECT_EQ(by_op[0].sass_flops, 65536);
  EXPECT_EQ(by_op[0].model_flops, 65536);
  EXPECT_EQ(by_op[0].modelled, 1);
  EXPECT_EQ(by_op[1].op, "aten::relu");

  const Profile q = ProfileFromJson(
      "{\"traceEvents\":[" + ops +
      R"(,{"ph":"X","cat":"cuda_profiler_range","name":"extra","pid":0,"tid":0,"ts":120,"dur":10,"args":{"dram__bytes_read.sum":1}}]})");
  const std::vector<CuptiRanks> cq = ComputeCuptiRanges(q);
  ASSERT_EQ(cq.size(), 1u);
  EXPECT_FALSE(cq[0].attributed);
  EXPECT_EQ(cq[0].ranges.size(), 3u);
  EXPECT_TRUE(cq[0].ranges[0].op_stack.empty());
  EXPECT_EQ(CuptiByOp(cq[0]).size(), 1u);  // all under ""
}

// HTA's CUPTI corpus trace: 77 ranges and 77 cudaLaunchKernel calls, 9 SASS
// counters. Written apart in Python (json module: ranges and calls sorted by
// start, the cpu_ops on the call's thread that contain it): range 0 ran
// under aten::rand > aten::uniform_ with 87,195,648 SASS FLOPs; range 1
// (cudnn_convolution, '__missing__') 18,263,449,600; range 5 234,946,560;
// range 76 aten::linear > ... > aten::addmm 131,072.
TEST(CuptiRangesCorpus, HtaTraceEqualsAPythonAttribution) {
  MLPROF_CORPUS_FILE(path, "kineto/hta_cupti_profiler/benchmark_result_924719_1679055439_trace.json.gz");
  auto p = LoadProfile({path}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  const std::vector<CuptiRanks> c = ComputeCuptiRanges(*p);
  ASSERT_EQ(c.size(), 1u);
  const CuptiRanks& r = c[0];
  const RankProfile& rp = p->ranks[0];
  EXPECT_TRUE(r.attributed);
  EXPECT_EQ(r.launches, 77);
  ASSERT_EQ(r.ranges.size(), 77u);
  EXPECT_EQ(r.metrics.size(), 9u);
  auto name = [&](uint32_t op) { return std::string(rp.str(rp.ops.name[op])); };
  EXPECT_EQ(name(r.ranges[0].op_stack.front()), "aten::rand");
  EXPECT_EQ(name(r.ranges[0].op_stack.back()), "aten::uniform_");
  EXPECT_EQ(r.ranges[0].sass_flops, 87195648);
  EXPECT_EQ(name(r.ranges[1].op_stack.back()), "aten::cudnn_convolution");
  EXPECT_EQ(name(r.ranges[1].op), "__missing__");
  EXPECT_EQ(r.ranges[1].sass_flops, 18263449600.0);
  EXPECT_EQ(r.ranges[5].sass_flops, 234946560);
  EXPECT_EQ(name(r.ranges[76].op_stack.front()), "aten::linear");
  EXPECT_EQ(name(r.ranges[76].op_stack.back()), "aten::addmm");
  EXPECT_EQ(r.ranges[76].sass_flops, 131072);
}

}  // namespace
}  // namespace mlprof
