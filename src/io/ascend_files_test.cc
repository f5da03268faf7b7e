// torch_npu's kernel_details.csv read alone (io/ascend_files.h).
#include "io/ascend_files.h"

#include <gtest/gtest.h>

#include <map>

#include "../../tests/corpus_util.h"
#include "analysis/engines.h"
#include "base/csv.h"
#include "io/load.h"

namespace mlprof {
namespace {

// Two kernels on stream 2 (one with a start padded by a TAB inside quotes, as
// torch_npu writes it), an HCCL row (stream N/A), a row whose start is not a
// number and one with a negative duration (both counted and skipped).
constexpr const char* kKernelDetails =
    "Step Id,Model ID,Task ID,Stream ID,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),"
    "Block Dim,Input Shapes,Context ID,aic_mac_ratio,aiv_vec_ratio\r\n"
    "5,1,10,2,MatMul_1,MatMulV2,AI_CORE,\"100.5\t\",20.25,0,24,\"\"\"8,16\"\"\",N/A,0.75,0\r\n"
    "5,1,11,2,Add_1,Add,AI_VECTOR_CORE,130.000,5,9.75,8,\"\"\"8\"\"\",N/A,0,0.5\r\n"
    "5,1,N/A,N/A,hcom_allReduce_1,hcom_allReduce_,HCCL,125,40.125,0,0,,N/A,N/A,N/A\r\n"
    "5,1,12,2,Bad,Add,AI_VECTOR_CORE,abc,5,0,8,,N/A,0,0\r\n"
    "5,1,13,2,Neg,Add,AI_VECTOR_CORE,200,-1,0,8,,N/A,0,0\r\n";

TEST(AscendKernelDetails, RowsAreKernelsWithTheirFields) {
  EXPECT_TRUE(LooksLikeAscendKernelDetails(kKernelDetails));
  EXPECT_FALSE(LooksLikeAscendKernelDetails("Name,Start Time(us)\n"));
  EXPECT_FALSE(LooksLikeAscendKernelDetails("Name,Accelerator Core\nStart Time(us)\n"));
  auto p = LoadTraceBytes(kKernelDetails, "kernel_details.csv");
  ASSERT_TRUE(p.ok()) << p.status().message();
  const RankProfile& r = *p;
  EXPECT_EQ(r.format, TraceFormat::kAscendKernelDetails);
  ASSERT_EQ(r.ops.size(), 3u);
  EXPECT_EQ(r.stats.Get(ImportStat::bad_number), 1u);
  EXPECT_EQ(r.stats.Get(ImportStat::negative_duration), 1u);
  // Origin: 100 us (the first start floored to a whole us).
  std::map<std::string, size_t> by_name;
  for (size_t i = 0; i < r.ops.size(); ++i) by_name[std::string(r.str(r.ops.name[i]))] = i;
  const size_t mm = by_name.at("MatMul_1"), add = by_name.at("Add_1"), ar = by_name.at("hcom_allReduce_1");
  EXPECT_EQ(r.ops.ts[mm], 500000);
  EXPECT_EQ(r.ops.dur[mm], 20250000);
  EXPECT_EQ(r.ops.ts[add], 30000000);
  EXPECT_EQ(r.ops.dur[ar], 40125000);
  EXPECT_EQ(r.track_of(mm).kind, TrackKind::kGpuStream);
  EXPECT_EQ(r.track_of(mm).stream, 2);
  EXPECT_EQ(r.ops.track[mm], r.ops.track[add]);
  EXPECT_NE(r.ops.track[ar], r.ops.track[mm]);
  EXPECT_EQ(r.str(r.ops.cat[ar]), "hccl");
  EXPECT_EQ(r.str(r.track_of(ar).name), "HCCL (stream 0)");
  const ArgValue* type = r.args.Find(ArgOwner::kOp, static_cast<uint32_t>(mm), r.strings.Find("OP Type"));
  ASSERT_NE(type, nullptr);
  EXPECT_EQ(r.str(type->s), "MatMulV2");
  const ArgValue* shapes = r.args.Find(ArgOwner::kOp, static_cast<uint32_t>(mm), r.strings.Find("Input Shapes"));
  ASSERT_NE(shapes, nullptr);
  EXPECT_EQ(r.str(shapes->s), "\"8,16\"");
  const ArgValue* mac = r.args.Find(ArgOwner::kOp, static_cast<uint32_t>(mm), r.strings.Find("aic_mac_ratio"));
  ASSERT_NE(mac, nullptr);
  EXPECT_DOUBLE_EQ(mac->r, 0.75);
  // "N/A" PMU fields of the HCCL row are left out.
  EXPECT_EQ(r.args.Find(ArgOwner::kOp, static_cast<uint32_t>(ar), r.strings.Find("aic_mac_ratio")), nullptr);
}

// The hardware-unit table: two MatMul kernels of 10 and 30 us with
// aic_mac_ratio 0.2 and 0.6 average to (10 x 0.2 + 30 x 0.6) / 40 = 0.5; the
// Add kernel has aiv_vec_ratio 0.5 and no aic counter of its own value
// (0: the CSV's number) in its group.
TEST(AscendKernelDetails, UnitRatiosWeightedByKernelTime) {
  auto p = LoadTraceBytes(
      "Step Id,Stream ID,Name,Type,Accelerator Core,Start Time(us),Duration(us),Context ID,aic_mac_ratio,"
      "aiv_vec_ratio,cube_utilization(%)\n"
      "1,2,mm1,MatMul,AI_CORE,100,10,N/A,0.2,N/A,20\n"
      "1,2,mm2,MatMul,AI_CORE,120,30,N/A,0.6,N/A,60\n"
      "1,2,add,Add,AI_VECTOR_CORE,160,5,N/A,N/A,0.5,0\n",
      "kernel_details.csv");
  ASSERT_TRUE(p.ok()) << p.status().message();
  Profile prof;
  prof.ranks.push_back(std::move(*p));
  const UnitReport u = ComputeUnitUtilisation(prof);
  ASSERT_EQ(u.units, (std::vector<std::string>{"aic_mac_ratio", "aiv_vec_ratio"}));  // "(%)" columns are not ratios
  const UnitRow* mm = nullptr;
  const UnitRow* add = nullptr;
  for (const UnitRow& r : u.rows) {
    if (r.op_type == "MatMul") mm = &r;
    if (r.op_type == "Add") add = &r;
  }
  ASSERT_NE(mm, nullptr);
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(mm->kernels, 2);
  EXPECT_EQ(mm->time, 40 * kPsPerUs);
  EXPECT_NEAR(mm->ratios[0], 0.5, 1e-12);
  EXPECT_EQ(mm->ratios[1], -1);  // no MatMul kernel has a vector counter
  EXPECT_NEAR(add->ratios[1], 0.5, 1e-12);
  EXPECT_EQ(u.rows.front().op_type, "all");
}

// On the corpus (level 1, rank 0): MatMulV2's 8 kernels, weighted by time,
// as a Python average over kernel_details.csv gives them (durations there
// rounded to 1 ns): aic_mac_ratio 0.190891, aic_mte2_ratio 0.886516.
TEST(AscendKernelDetails, CorpusUnitRatiosEqualAPythonAverage) {
  MLPROF_CORPUS_FILE(dir, "ascend/msinsight_2rank/text/level1/rank0_ascend_pt");
  auto p = LoadProfile({dir}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  const UnitReport u = ComputeUnitUtilisation(*p);
  const UnitRow* mm = nullptr;
  for (const UnitRow& r : u.rows)
    if (r.op_type == "MatMulV2") mm = &r;
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->kernels, 8);
  auto unit = [&](const char* name) {
    for (size_t i = 0; i < u.units.size(); ++i)
      if (u.units[i] == name) return mm->ratios[i];
    return -2.0;
  };
  EXPECT_NEAR(unit("aic_mac_ratio"), 0.1908906, 1e-5);
  EXPECT_NEAR(unit("aic_mte2_ratio"), 0.8865161, 1e-5);
}

TEST(AscendKernelDetails, MissingColumnsAndBrokenQuotesAreErrors) {
  auto no_dur =
      LoadTraceBytes("Step Id,Model ID,Name,Accelerator Core,Start Time(us),Duration\n1,1,k,AI_CORE,1,2\n", "k.csv");
  EXPECT_FALSE(no_dur.ok());
  auto open = LoadTraceBytes(
      "Step Id,Model ID,Name,Accelerator Core,Start Time(us),Duration(us)\n1,1,\"k,AI_CORE,1,2\n", "q.csv");
  ASSERT_FALSE(open.ok());
  EXPECT_EQ(open.status().message(), "q.csv: line 2: a quoted field opened here is not closed by the end of the file");
}

// Every row of the corpus' kernel_details.csv files is an op, on the stream
// the row names: counts per stream as counted from the CSV.
TEST(AscendKernelDetails, CorpusRowsPerStream) {
  MLPROF_CORPUS_FILE(root, "ascend");
  for (const char* name : {"kernel_details_a.csv", "kernel_details_b.csv"}) {
    const std::string path = root + "/" + name;
    auto f = LoadFile(path);
    ASSERT_TRUE(f.ok());
    auto csv = ParseCsv(f->bytes.view(), path);
    ASSERT_TRUE(csv.ok());
    std::map<std::string, int64_t> expected, got;
    for (size_t i = 0; i < csv->rows.size(); ++i) {
      const bool hccl = TrimCsvField(csv->Get(i, csv->Column("Accelerator Core"))) == "HCCL";
      expected[(hccl ? "HCCL " : "") + std::string(TrimCsvField(csv->Get(i, csv->Column("Stream ID"))))]++;
    }
    auto p = LoadProfile({path}, {});
    ASSERT_TRUE(p.ok()) << p.status().message();
    const RankProfile& r = p->ranks[0];
    EXPECT_EQ(r.ops.size(), csv->rows.size()) << name;
    for (size_t i = 0; i < r.ops.size(); ++i) {
      const Track& t = r.track_of(i);
      const bool hccl = r.str(r.ops.cat[i]) == "hccl";
      got[hccl ? "HCCL N/A" : std::to_string(t.stream)]++;
    }
    EXPECT_EQ(got, expected) << name;
  }
}

}  // namespace
}  // namespace mlprof
