#include "analysis/modules.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "../../tests/test_util.h"
#include "base/csv.h"
#include "io/load.h"

namespace mlprof {
namespace {

constexpr Ps kModUs = kPsPerUs;

// One thread (us); kernels on stream 7:
//   fwd [0,101)                                   user_annotation
//     nn.Module: Model_0 [0,100)
//       block [0,41)                              user_annotation
//         nn.Module: Layer_0 [0,40)
//           nn.Module: Attention_0 [0,20) { aten::mm [1,10) -> gemm [100,110) }
//           aten::add [25,30) -> add_k [110,115)
//       block [50,91)
//         nn.Module: Layer_1 [50,90)
//           nn.Module: Attention_1 [50,70) { aten::mm [51,60) -> gemm [120,128) }
//           aten::add [75,80) -> add_k [130,132)
//   aten::copy_ [101,105) -> Memcpy [140,141)
//   gpu_user_annotation fwd [100,125) on stream 7
// GPU time 10 + 5 + 8 + 2 + 1 = 26 us. Tree: Model_0 25 (self 0) > Layer_0 15
// (self 5) > Attention_0 10; Layer_1 10 (self 2) > Attention_1 8. Classes:
// Layer 25 = 100 % of Model; Attention 18 = 72 % of Layer. Host annotations:
// fwd and block 25 us over 4 ops (block under fwd); the GPU range fwd holds
// gemm 10, add_k 5 and 5 of the second gemm: 20 us over 3 ops.
const char* kModTrace = R"J({"traceEvents":[
 {"ph":"X","cat":"user_annotation","name":"fwd","pid":1,"tid":1,"ts":0,"dur":101},
 {"ph":"X","cat":"python_function","name":"nn.Module: Model_0","pid":1,"tid":1,"ts":0,"dur":100},
 {"ph":"X","cat":"user_annotation","name":"block","pid":1,"tid":1,"ts":0,"dur":41},
 {"ph":"X","cat":"python_function","name":"nn.Module: Layer_0","pid":1,"tid":1,"ts":0,"dur":40},
 {"ph":"X","cat":"python_function","name":"nn.Module: Attention_0","pid":1,"tid":1,"ts":0,"dur":20},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":9},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":2,"args":{"correlation":1}},
 {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":25,"dur":5},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":26,"dur":2,"args":{"correlation":2}},
 {"ph":"X","cat":"user_annotation","name":"block","pid":1,"tid":1,"ts":50,"dur":41},
 {"ph":"X","cat":"python_function","name":"nn.Module: Layer_1","pid":1,"tid":1,"ts":50,"dur":40},
 {"ph":"X","cat":"python_function","name":"nn.Module: Attention_1","pid":1,"tid":1,"ts":50,"dur":20},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":51,"dur":9},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":52,"dur":2,"args":{"correlation":3}},
 {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":75,"dur":5},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":76,"dur":2,"args":{"correlation":4}},
 {"ph":"X","cat":"cpu_op","name":"aten::copy_","pid":1,"tid":1,"ts":101,"dur":4},
 {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":102,"dur":2,"args":{"correlation":5}},
 {"ph":"X","cat":"gpu_user_annotation","name":"fwd","pid":0,"tid":7,"ts":100,"dur":25,"args":{"stream":7}},
 {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":100,"dur":10,"args":{"stream":7,"correlation":1}},
 {"ph":"X","cat":"kernel","name":"add_k","pid":0,"tid":7,"ts":110,"dur":5,"args":{"stream":7,"correlation":2}},
 {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":120,"dur":8,"args":{"stream":7,"correlation":3}},
 {"ph":"X","cat":"kernel","name":"add_k","pid":0,"tid":7,"ts":130,"dur":2,"args":{"stream":7,"correlation":4}},
 {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pageable -> Device)","pid":0,"tid":7,"ts":140,"dur":1,"args":{"stream":7,"correlation":5,"bytes":64}}
]})J";

TEST(Modules, HandWorkedTree) {
  Profile p = testing::ProfileFromJson(kModTrace);
  const ModuleReport m = ComputeModules(BuildProfileView(p, {}));
  ASSERT_TRUE(m.any_module);
  ASSERT_EQ(m.tree.size(), 6u);  // and (no module): the copy's 1 us
  EXPECT_EQ(m.tree[5].path, "(no module)");
  EXPECT_EQ(m.tree[5].gpu, 1 * kModUs);
  EXPECT_EQ(m.tree[5].gpu_ops, 1);
  struct Want {
    const char* path;
    int depth;
    Ps gpu, self;
  } want[] = {{"Model_0", 0, 25, 0},
              {"Model_0 > Layer_0", 1, 15, 5},
              {"Model_0 > Layer_0 > Attention_0", 2, 10, 10},
              {"Model_0 > Layer_1", 1, 10, 2},
              {"Model_0 > Layer_1 > Attention_1", 2, 8, 8}};
  for (size_t i = 0; i < 5; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(m.tree[i].path, want[i].path);
    EXPECT_EQ(m.tree[i].depth, want[i].depth);
    EXPECT_EQ(m.tree[i].gpu, want[i].gpu * kModUs);
    EXPECT_EQ(m.tree[i].self, want[i].self * kModUs);
    EXPECT_EQ(m.tree[i].calls, 1);
  }
  EXPECT_DOUBLE_EQ(m.tree[0].pct, 100.0 * 25 / 26);
  ASSERT_EQ(m.classes.size(), 3u);
  // Model and Layer both 25 us: by name.
  EXPECT_EQ(m.classes[0].cls, "Layer");
  EXPECT_EQ(m.classes[0].instances, 2);
  EXPECT_EQ(m.classes[0].parent, "Model");
  EXPECT_DOUBLE_EQ(m.classes[0].pct_of_parent, 100);
  EXPECT_EQ(m.classes[1].cls, "Model");
  EXPECT_EQ(m.classes[1].parent, "");
  EXPECT_DOUBLE_EQ(m.classes[1].pct_of_parent, -1);
  EXPECT_EQ(m.classes[2].cls, "Attention");
  EXPECT_EQ(m.classes[2].gpu, 18 * kModUs);
  EXPECT_DOUBLE_EQ(m.classes[2].pct_of_parent, 72);
  // Annotations, heaviest first: host block and fwd (25), then gpu fwd (20).
  ASSERT_EQ(m.annotations.size(), 3u);
  EXPECT_EQ(m.annotations[0].name, "block");
  EXPECT_EQ(m.annotations[0].calls, 2);
  EXPECT_EQ(m.annotations[0].gpu, 25 * kModUs);
  EXPECT_EQ(m.annotations[0].gpu_ops, 4);
  EXPECT_EQ(m.annotations[0].span, 82 * kModUs);
  EXPECT_EQ(m.annotations[0].parent, "fwd");
  EXPECT_EQ(m.annotations[1].name, "fwd");
  EXPECT_EQ(m.annotations[1].where, "host");
  EXPECT_EQ(m.annotations[1].gpu, 25 * kModUs);
  EXPECT_EQ(m.annotations[1].parent, "");
  EXPECT_EQ(m.annotations[2].where, "gpu");
  EXPECT_EQ(m.annotations[2].gpu, 20 * kModUs);
  EXPECT_EQ(m.annotations[2].gpu_ops, 3);
  EXPECT_EQ(m.annotations[2].span, 25 * kModUs);
  // Kernels: gemm 18 (aten::mm, Attention), add_k 7 (aten::add, Layer), the copy 1.
  ASSERT_EQ(m.kernels.size(), 3u);
  EXPECT_EQ(m.kernels[0].kernel, "gemm");
  EXPECT_EQ(m.kernels[0].count, 2);
  EXPECT_EQ(m.kernels[0].top_op, "aten::mm");
  EXPECT_DOUBLE_EQ(m.kernels[0].top_op_pct, 100);
  EXPECT_EQ(m.kernels[0].top_module, "Attention");
  EXPECT_EQ(m.kernels[1].top_module, "Layer");
  EXPECT_EQ(m.kernels[2].top_op, "aten::copy_");
  EXPECT_EQ(m.kernels[2].top_module, "(no module)");
}

TEST(Modules, NoModuleFrames) {
  Profile p = testing::ProfileFromJson(R"J({"traceEvents":[
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":9},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":2,"args":{"correlation":1}},
 {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":100,"dur":10,"args":{"stream":7,"correlation":1}}
]})J");
  const ModuleReport m = ComputeModules(BuildProfileView(p, {}));
  EXPECT_FALSE(m.any_module);
  EXPECT_TRUE(m.tree.empty());
  ASSERT_EQ(m.kernels.size(), 1u);
  EXPECT_EQ(m.kernels[0].top_module, "(no module)");
}

// A range on the main thread holds the kernels another thread (autograd)
// launches while it is open: "backward" [0,50) on thread 1; launches at 10
// and 60 on thread 2: the first kernel (7 us) is the range's, the second not.
TEST(Modules, AnnotationsHoldOtherThreadsLaunches) {
  Profile p = testing::ProfileFromJson(R"J({"traceEvents":[
 {"ph":"X","cat":"user_annotation","name":"backward","pid":1,"tid":1,"ts":0,"dur":50},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":2,"ts":10,"dur":2,"args":{"correlation":1}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":2,"ts":60,"dur":2,"args":{"correlation":2}},
 {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":20,"dur":7,"args":{"stream":7,"correlation":1}},
 {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":70,"dur":3,"args":{"stream":7,"correlation":2}}
]})J");
  const ModuleReport m = ComputeModules(BuildProfileView(p, {}));
  ASSERT_EQ(m.annotations.size(), 1u);
  EXPECT_EQ(m.annotations[0].name, "backward");
  EXPECT_EQ(m.annotations[0].gpu_ops, 1);
  EXPECT_EQ(m.annotations[0].gpu, 7 * kModUs);
  EXPECT_TRUE(m.annotation_steps.empty());  // no steps
}

// Per step: "fwd" in ProfilerStep#4 [0,100) holds k1 (5 us), in #5
// [100,200) holds k2 (8 us); "opt" only in #5 (2 us).
TEST(Modules, AnnotationsPerStep) {
  Profile p = testing::ProfileFromJson(R"J({"traceEvents":[
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#4","pid":1,"tid":1,"ts":0,"dur":100},
 {"ph":"X","cat":"user_annotation","name":"fwd","pid":1,"tid":1,"ts":10,"dur":20},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":12,"dur":2,"args":{"correlation":1}},
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#5","pid":1,"tid":1,"ts":100,"dur":100},
 {"ph":"X","cat":"user_annotation","name":"fwd","pid":1,"tid":1,"ts":110,"dur":20},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":112,"dur":2,"args":{"correlation":2}},
 {"ph":"X","cat":"user_annotation","name":"opt","pid":1,"tid":1,"ts":150,"dur":20},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":152,"dur":2,"args":{"correlation":3}},
 {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":20,"dur":5,"args":{"stream":7,"correlation":1}},
 {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":120,"dur":8,"args":{"stream":7,"correlation":2}},
 {"ph":"X","cat":"kernel","name":"k3","pid":0,"tid":7,"ts":160,"dur":2,"args":{"stream":7,"correlation":3}}
]})J");
  AnalysisOptions all;
  all.drop_last_step = false;
  const ModuleReport m = ComputeModules(BuildProfileView(p, all));
  ASSERT_EQ(m.annotation_steps.size(), 3u);
  EXPECT_EQ(m.annotation_steps[0].name, "fwd");
  EXPECT_EQ(m.annotation_steps[0].step, 4);
  EXPECT_EQ(m.annotation_steps[0].gpu, 5 * kModUs);
  EXPECT_EQ(m.annotation_steps[1].step, 5);
  EXPECT_EQ(m.annotation_steps[1].gpu, 8 * kModUs);
  EXPECT_EQ(m.annotation_steps[2].name, "opt");
  EXPECT_EQ(m.annotation_steps[2].gpu, 2 * kModUs);
}

// TraceLens's ops_summary.csv for its three inference sets (replay merged
// with the capture): its parent_module (the launching op's nearest
// nn.Module) summed over total_direct_kernel_time_sum equals mlprof's GPU
// time per innermost module class (the tree's self time by class; "NA":
// none), within 0.02 us (TraceLens adds float64 microseconds).
TEST(ModulesCorpus, InnermostModuleEqualsTraceLensParentModule) {
  for (const char* set : {"vllm_decode_full", "vllm_prefilldecode_piecewise", "sglang_decode"}) {
    SCOPED_TRACE(set);
    const std::string base = std::string("tracelens/tests/traces/inference/") + set;
    MLPROF_CORPUS_FILE(csv_path, base + "/perf_csvs/ops_summary.csv");
    std::string replay;
    for (const auto& e :
         std::filesystem::directory_iterator(std::filesystem::path(csv_path).parent_path().parent_path()))
      if (e.path().extension() == ".gz") replay = e.path().string();
    ASSERT_FALSE(replay.empty());
    LoadOptions lo;
    lo.capture = (std::filesystem::path(replay).parent_path() / "capture_traces").string();
    auto loaded = LoadProfile({replay}, lo);
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    const ModuleReport m = ComputeModules(BuildProfileView(*loaded, {}));
    std::map<std::string, double> got;
    double total = 0, in_modules = 0;
    for (const KernelLauncherRow& k : m.kernels) total += PsToUs(k.gpu);
    for (const ModuleNodeRow& n : m.tree)
      if (n.cls != "(no module)") got[n.cls] += PsToUs(n.self), in_modules += PsToUs(n.self);
    got["NA"] = total - in_modules;
    // The tree's own (no module) row says the same.
    for (const ModuleNodeRow& n : m.tree)
      if (n.cls == "(no module)") {
        EXPECT_NEAR(PsToUs(n.gpu), got["NA"], 1e-6);
      }
    const std::string text = testing::ReadFile(csv_path);
    CsvReader csv(text, csv_path);
    ASSERT_TRUE(csv.ReadHeader().ok());
    const int parent = csv.Column("parent_module"), time = csv.Column("total_direct_kernel_time_sum");
    std::map<std::string, double> want;
    while (csv.Next()) {
      std::string cls(csv.Get(parent));
      if (cls.starts_with("nn.Module: ")) cls = cls.substr(11);
      want[cls] += std::stod(std::string(csv.Get(time)));
    }
    ASSERT_GE(want.size(), 3u);
    for (const auto& [cls, us] : want) EXPECT_NEAR(got[cls], us, 0.02) << cls;
    for (const auto& [cls, us] : got) {
      if (!want.count(cls)) {
        EXPECT_NEAR(us, 0, 0.02) << cls;
      }
    }
  }
}

}  // namespace
}  // namespace mlprof
