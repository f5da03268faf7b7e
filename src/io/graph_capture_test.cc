#include "io/graph_capture.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "../../tests/test_util.h"
#include "analysis/ops.h"
#include "base/csv.h"
#include "io/load.h"

namespace mlprof {
namespace {

RankProfile CaptureFromJson(const std::string& json) {
  ReadOptions ro;
  ro.all_args = true;
  auto r = LoadTraceBytes(json, "capture.json", ro);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(r).value() : RankProfile{};
}

// The capture: one graph of three nodes, captured between BeginCapture
// [10,12) and EndCapture [40,41) (us):
//   nn.Module: Block_0 [12,30) { aten::mm [13,20) { launch gemm_k }
//                                aten::add [21,29) { launch add_k, Memset } }
// A kernel outside the window (before BeginCapture) is not a node.
const char* kCapture = R"J({"traceEvents":[
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":1,"args":{"kernel":"warmup_k","correlation":1}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaStreamBeginCapture","pid":1,"tid":1,"ts":10,"dur":2},
 {"ph":"X","cat":"python_function","name":"nn.Module: Block_0","pid":1,"tid":1,"ts":12,"dur":18},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":13,"dur":7,"args":{"Input Dims":[[8,16],[16,32]],"Input type":["float","float"],"External id":7}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":14,"dur":2,"args":{"kernel":"gemm_k","correlation":2,"External id":7}},
 {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":21,"dur":8,"args":{"Input Dims":[[8,32],[8,32],[]],"External id":8}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":22,"dur":2,"args":{"kernel":"add_k","correlation":3}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaMemsetAsync","pid":1,"tid":1,"ts":25,"dur":2,"args":{"correlation":4}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaStreamEndCapture","pid":1,"tid":1,"ts":40,"dur":1}
]})J";

// The replay: two graph launches, each replaying the three nodes (us):
//   launch 1 [100,105) corr 50: gemm_k [110,130), add_k [131,136), Memset [137,138)
//   launch 2 [200,205) corr 60: gemm_k [210,228), add_k [229,233), Memset [234,235)
// So aten::mm: 2 calls, 20 + 18 = 38 us; aten::add: 2 calls, 3 GPU ops each
// way... add_k 5 + 4 and the memsets 1 + 1 = 11 us over 4 GPU ops.
const char* kReplay = R"J({"traceEvents":[
 {"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":1,"tid":1,"ts":100,"dur":5,"args":{"correlation":50}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":1,"tid":1,"ts":200,"dur":5,"args":{"correlation":60}},
 {"ph":"X","cat":"kernel","name":"gemm_k","pid":0,"tid":7,"ts":110,"dur":20,"args":{"stream":7,"correlation":50}},
 {"ph":"X","cat":"kernel","name":"add_k","pid":0,"tid":7,"ts":131,"dur":5,"args":{"stream":7,"correlation":50}},
 {"ph":"X","cat":"gpu_memset","name":"Memset (Device)","pid":0,"tid":7,"ts":137,"dur":1,"args":{"stream":7,"correlation":50}},
 {"ph":"X","cat":"kernel","name":"gemm_k","pid":0,"tid":7,"ts":210,"dur":18,"args":{"stream":7,"correlation":60}},
 {"ph":"X","cat":"kernel","name":"add_k","pid":0,"tid":7,"ts":229,"dur":4,"args":{"stream":7,"correlation":60}},
 {"ph":"X","cat":"gpu_memset","name":"Memset (Device)","pid":0,"tid":7,"ts":234,"dur":1,"args":{"stream":7,"correlation":60}}
]})J";

std::map<std::string, OpGpuTime> OpsByName(const Profile& p) {
  OpsOptions oo;
  oo.by_shape = false;
  std::map<std::string, OpGpuTime> out;
  for (OpGpuTime& r : ComputeOpGpuTime(BuildProfileView(p, {}), oo)) out[r.name] = r;
  return out;
}

TEST(GraphCapture, ReplayedKernelsGoToTheCapturedOps) {
  Profile p = testing::ProfileFromJson(kReplay);
  // Without the capture: the kernels belong to their graph launch.
  auto before = OpsByName(p);
  ASSERT_TRUE(before.count("cudaGraphLaunch"));
  EXPECT_EQ(before["cudaGraphLaunch"].calls, 2);
  EXPECT_EQ(before["cudaGraphLaunch"].gpu_ops, 6);
  RankProfile cap = CaptureFromJson(kCapture);
  std::vector<std::string> notes;
  CaptureMergeStats st;
  ASSERT_TRUE(ApplyGraphCaptures(p.ranks[0], {{"capture.json", -1, ""}}, {&cap}, &st, &notes).ok());
  EXPECT_EQ(st.graph_launches, 2);
  EXPECT_EQ(st.matched, 2);
  EXPECT_EQ(st.kernels, 6);
  // Per launch: the module, the two ops and three calls.
  EXPECT_EQ(st.ops_added, 12);
  auto after = OpsByName(p);
  EXPECT_FALSE(after.count("cudaGraphLaunch"));
  ASSERT_TRUE(after.count("aten::mm"));
  EXPECT_EQ(after["aten::mm"].calls, 2);
  EXPECT_EQ(after["aten::mm"].gpu_time, 38 * kPsPerUs);
  EXPECT_EQ(after["aten::mm"].cpu_time, 0);  // the copies took no host time here
  EXPECT_EQ(after["aten::add"].calls, 2);
  EXPECT_EQ(after["aten::add"].gpu_ops, 4);
  EXPECT_EQ(after["aten::add"].gpu_time, 11 * kPsPerUs);
  // With shapes: the capture's Input Dims, and the cost model reads them.
  OpsOptions shaped;
  for (const OpGpuTime& r : ComputeOpGpuTime(BuildProfileView(p, {}), shaped))
    if (r.name == "aten::mm") {
      EXPECT_EQ(r.input_dims, "[[8,16],[16,32]]");
      EXPECT_DOUBLE_EQ(r.flops_per_call, 2.0 * 8 * 16 * 32);
    }
  // The copies: on their own track, nested module > op > call, each over its kernels.
  const RankProfile& r = p.ranks[0];
  ASSERT_EQ(r.captured_launch.size(), r.ops.size());
  // Times are from the rank's origin: each module copy spans its launch's
  // first kernel (gemm_k) to its last GPU op (the memset).
  std::vector<Ps> gemm_starts, memset_ends, module_spans;
  for (size_t i = 0; i < r.ops.size(); ++i) {
    if (r.str(r.ops.name[i]) == "gemm_k") gemm_starts.push_back(r.ops.ts[i]);
    if (r.ops.kind[i] == OpKind::kMemset) memset_ends.push_back(r.ops.end(i));
  }
  int modules = 0;
  for (size_t i = 0; i < r.ops.size(); ++i) {
    if (r.str(r.ops.name[i]) != "nn.Module: Block_0") continue;
    EXPECT_EQ(r.ops.kind[i], OpKind::kPythonFunction);
    EXPECT_EQ(r.str(r.tracks[r.ops.track[i]].name), "graph replay: ops recorded at capture");
    ASSERT_LT(modules, 2);
    EXPECT_EQ(r.ops.ts[i], gemm_starts[static_cast<size_t>(modules)]);
    EXPECT_EQ(r.ops.end(i), memset_ends[static_cast<size_t>(modules)]);
    ++modules;
  }
  EXPECT_EQ(modules, 2);
  ASSERT_EQ(gemm_starts.size(), 2u);
  EXPECT_EQ(memset_ends[0] - gemm_starts[0], 28 * kPsPerUs);  // [110, 138)
  EXPECT_EQ(memset_ends[1] - gemm_starts[1], 25 * kPsPerUs);  // [210, 235)
  for (size_t i = 0; i < r.ops.size(); ++i) {
    if (r.ops.kind[i] != OpKind::kKernel) continue;
    const int32_t call = r.AttributionLaunch(i);
    ASSERT_GE(call, 0);
    EXPECT_EQ(r.ops.ts[static_cast<size_t>(call)], r.ops.ts[i]);  // the call spans its kernel
    const int32_t op = r.ops.parent[static_cast<size_t>(call)];
    ASSERT_GE(op, 0);
    EXPECT_EQ(r.ops.kind[static_cast<size_t>(op)], OpKind::kCapturedOp);
    EXPECT_EQ(r.str(r.ops.name[static_cast<size_t>(op)]), r.str(r.ops.name[i]) == "gemm_k" ? "aten::mm" : "aten::add");
    EXPECT_GE(r.ops.launch[i], 0);  // still the graph launch
  }
}

// Kernels that do not pair with the captured nodes (a name differs and the
// per-name counts differ) stay with their graph launch, counted.
TEST(GraphCapture, MismatchLeavesTheLaunch) {
  std::string replay = kReplay;
  const std::string from = R"("name":"add_k","pid":0,"tid":7,"ts":229)";
  replay.replace(replay.find(from), from.size(), R"("name":"other_k","pid":0,"tid":7,"ts":229)");
  Profile p = testing::ProfileFromJson(replay);
  RankProfile cap = CaptureFromJson(kCapture);
  std::vector<std::string> notes;
  CaptureMergeStats st;
  ASSERT_TRUE(ApplyGraphCaptures(p.ranks[0], {{"capture.json", -1, ""}}, {&cap}, &st, &notes).ok());
  EXPECT_EQ(st.matched, 1);
  EXPECT_EQ(st.unmatched, 1);
  auto ops = OpsByName(p);
  EXPECT_EQ(ops["aten::mm"].calls, 1);
  EXPECT_EQ(ops["cudaGraphLaunch"].calls, 1);
  EXPECT_EQ(ops["cudaGraphLaunch"].gpu_ops, 3);
  bool said = false;
  for (const std::string& n : notes) said = said || n.find("do not pair") != std::string::npos;
  EXPECT_TRUE(said);
}

// Same names in another order: paired by the k-th occurrence of each name.
TEST(GraphCapture, ReorderedKernelsPairByName) {
  std::string replay = kReplay;
  // Launch 2 runs add_k first: swap the start times of gemm_k and add_k.
  auto swap = [&](const std::string& a, const std::string& b) { replay.replace(replay.find(a), a.size(), b); };
  swap(R"("name":"gemm_k","pid":0,"tid":7,"ts":210,"dur":18)", R"("name":"gemm_k","pid":0,"tid":7,"ts":215,"dur":18)");
  swap(R"("name":"add_k","pid":0,"tid":7,"ts":229,"dur":4)", R"("name":"add_k","pid":0,"tid":7,"ts":210,"dur":4)");
  Profile p = testing::ProfileFromJson(replay);
  RankProfile cap = CaptureFromJson(kCapture);
  std::vector<std::string> notes;
  CaptureMergeStats st;
  ASSERT_TRUE(ApplyGraphCaptures(p.ranks[0], {{"capture.json", -1, ""}}, {&cap}, &st, &notes).ok());
  EXPECT_EQ(st.matched, 2);
  auto ops = OpsByName(p);
  EXPECT_EQ(ops["aten::mm"].gpu_time, 38 * kPsPerUs);
  EXPECT_EQ(ops["aten::add"].gpu_time, 11 * kPsPerUs);
}

TEST(GraphCapture, FindCapturesErrors) {
  const std::string dir = ::testing::TempDir() + "mlprof_capture_dir";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  EXPECT_EQ(FindCaptures(dir + "/missing").status().code(), StatusCode::kNotFound);
  auto write = [&](const std::string& name, const std::string& text) { std::ofstream(dir + "/" + name) << text; };
  write("execution_details.json", "[{\"file\": \"a.json\", \"batch_size\": 8, \"mode\": \"FULL\"}]");
  auto missing = FindCaptures(dir);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("a.json is not there"), std::string::npos) << missing.status().message();
  write("a.json", kCapture);
  auto ok = FindCaptures(dir);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  ASSERT_EQ(ok->size(), 1u);
  EXPECT_EQ((*ok)[0].batch_size, 8);
  EXPECT_EQ((*ok)[0].mode, "FULL");
  write("execution_details.json", "[{\"file\": \"a.json\", \"batch_size\": 8, \"mode\": \"EAGER\"}]");
  auto bad_mode = FindCaptures(dir);
  ASSERT_FALSE(bad_mode.ok());
  EXPECT_NE(bad_mode.status().message().find("entry 0: expected \"mode\" FULL or PIECEWISE"), std::string::npos);
  write("execution_details.json", "{\"file\"");
  auto broken = FindCaptures(dir);
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.status().message().find("execution_details.json: not JSON"), std::string::npos);
  std::filesystem::remove(dir + "/execution_details.json");
  write("b.json", kCapture);
  auto two = FindCaptures(dir);
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.status().message().find("2 capture traces and no execution_details.json"), std::string::npos);
}

// TraceLens's Python tuple text ("((32, 4096), (4096,))", "('a b', '')") as
// mlprof's compact JSON ([[32,4096],[4096]], ["a b",""]).
std::string TupleAsJson(std::string_view s) {
  std::string out;
  bool quoted = false;
  for (char c : s) {
    if (quoted) {
      if (c == '\'') {
        quoted = false;
        out += '"';
      } else {
        out += c;
      }
      continue;
    }
    if (c == '\'') {
      quoted = true;
      out += '"';
    } else if (c == '(') {
      out += '[';
    } else if (c == ')') {
      if (!out.empty() && out.back() == ',') out.pop_back();  // (4096,)
      out += ']';
    } else if (c != ' ') {
      out += c;
    }
  }
  return out;
}

// TraceLens's own reports for its three inference sets (its
// test_inference_perf_report, replay + capture_traces merged):
// ops_summary.csv per op name and ops_unique_args.csv per (name, input
// dims, types, concrete inputs): GPU time (total_direct_kernel_time_sum) and
// calls equal. Deliberate differences on the SGLang set (docs/ANALYSES.md):
// TraceLens strips sglang_profiler:: names' _<digits> suffix, names the
// runtime call where no cpu_op launched (mlprof: "(no cpu_op)") and keeps
// aten::gather under aten::embedding (mlprof: the enclosing op with a cost
// model).
TEST(GraphCaptureCorpus, OpsEqualTraceLensReports) {
  struct Set {
    const char* dir;
    const char* replay;
  } sets[] = {{"vllm_decode_full", "graph_execution.json.gz"},
              {"vllm_prefilldecode_piecewise", "graph_execution.json.gz"},
              {"sglang_decode", "sglang_Qwen3-8B_decode.json.gz"}};
  const std::map<std::string, std::string> renamed = {
      {"sglang_profiler::attention_paged_attention_ragged", "sglang_profiler::attention_paged_attention_ragged_100"},
      {"aten::gather", "aten::embedding"},
      {"hipLaunchKernel", "(no cpu_op)"},
      {"hipModuleLaunchKernel", "(no cpu_op)"}};
  for (const Set& s : sets) {
    SCOPED_TRACE(s.dir);
    const std::string base = std::string("tracelens/tests/traces/inference/") + s.dir;
    MLPROF_CORPUS_FILE(replay, base + "/" + s.replay);
    MLPROF_CORPUS_FILE(summary_csv, base + "/perf_csvs/ops_summary.csv");
    MLPROF_CORPUS_FILE(unique_csv, base + "/perf_csvs/ops_unique_args.csv");
    LoadOptions lo;
    lo.capture = (std::filesystem::path(replay).parent_path() / "capture_traces").string();
    auto loaded = LoadProfile({replay}, lo);
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    const ProfileView view = BuildProfileView(*loaded, {});
    for (bool by_shape : {false, true}) {
      SCOPED_TRACE(by_shape ? "ops_unique_args.csv" : "ops_summary.csv");
      // Expected: TraceLens's rows summed per key.
      const std::string text = testing::ReadFile(by_shape ? unique_csv : summary_csv);
      ASSERT_FALSE(text.empty());
      CsvReader csv(text, by_shape ? unique_csv : summary_csv);
      ASSERT_TRUE(csv.ReadHeader().ok());
      const int name = csv.Column("name"), time = csv.Column("total_direct_kernel_time_sum"),
                count = csv.Column(by_shape ? "operation_count" : "Count"), dims = csv.Column("Input Dims"),
                types = csv.Column("Input type"), concrete = csv.Column("Concrete Inputs");
      std::map<std::string, std::pair<double, int64_t>> want;
      bool renamed_rows = false;
      while (csv.Next()) {
        std::string key(csv.Get(name));
        if (auto it = renamed.find(key); it != renamed.end()) {
          key = it->second, renamed_rows = true;
          if (by_shape) continue;  // their shapes are another op's
        }
        if (by_shape)
          key += "|" + TupleAsJson(csv.Get(dims)) + "|" + TupleAsJson(csv.Get(types)) + "|" +
                 TupleAsJson(csv.Get(concrete));
        want[key].first += std::stod(std::string(csv.Get(time)));
        want[key].second += std::stoll(std::string(csv.Get(count)));
      }
      EXPECT_EQ(renamed_rows, std::string(s.dir) == "sglang_decode");
      OpsOptions oo;
      oo.by_shape = by_shape;
      std::map<std::string, const OpGpuTime*> got;
      const std::vector<OpGpuTime> rows = ComputeOpGpuTime(view, oo);
      // A deliberate difference (docs/ANALYSES.md "Attribution"): TraceLens
      // leaves kernels launched under no cpu_op under their launch call;
      // mlprof gives them to the user annotation around the launch where
      // there is one. Both together are TraceLens's launch rows.
      OpGpuTime outside;
      outside.name = "(no cpu_op)";
      for (const OpGpuTime& r : rows) {
        if (r.kind == "user_annotation" || r.kind == "gpu_user_annotation" || r.kind.empty()) {
          outside.gpu_time += r.gpu_time;
          continue;
        }
        got[by_shape ? r.name + "|" + r.input_dims + "|" + r.input_types + "|" + r.concrete_inputs : r.name] = &r;
      }
      if (outside.gpu_time > 0) got["(no cpu_op)"] = &outside;
      size_t compared = 0;
      for (const auto& [key, v] : want) {
        auto it = got.find(key);
        if (it == got.end()) {
          ADD_FAILURE() << "no row " << key;
          continue;
        }
        ++compared;
        // TraceLens adds float64 microseconds: within 0.02 us.
        EXPECT_NEAR(PsToUs(it->second->gpu_time), v.first, 0.02) << key;
        if (key != "(no cpu_op)") {
          EXPECT_EQ(it->second->calls, v.second) << key;
        }
      }
      EXPECT_GE(compared, 15u);
    }
  }
}

}  // namespace
}  // namespace mlprof

namespace mlprof {
namespace {

// The H100 capture and replay of tests/data/h100 (CUDA: CUPTI writes no
// `kernel` arg on the captured launch calls, so kernels pair by position and
// kind). Checked against the kernels' own names, which come from the replay
// while the ops come from the capture: every GEMM kernel lands on
// aten::addmm, every layer-norm kernel on aten::native_layer_norm, the
// attention kernel on the SDPA op, the gather on aten::embedding (the op or
// one enclosing it).
TEST(GraphCapture, CudaPairFromH100) {
  const std::string dir = std::string(MLPROF_SOURCE_DIR) + "/tests/data/h100/";
  LoadOptions lo;
  lo.capture = dir + "cuda_graph_capture.json.gz";
  auto loaded = LoadProfile({dir + "cuda_graph_replay.json.gz"}, lo);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const RankProfile& r = loaded->ranks[0];
  ASSERT_FALSE(r.captured_launch.empty());
  int checked = 0, attributed = 0;
  for (size_t i = 0; i < r.ops.size(); ++i) {
    if (r.ops.kind[i] != OpKind::kKernel || i >= r.captured_launch.size() || r.captured_launch[i] < 0) continue;
    ++attributed;
    const int32_t op = r.ops.parent[static_cast<size_t>(r.captured_launch[i])];
    ASSERT_GE(op, 0);
    const std::string_view k = r.str(r.ops.name[i]), o = r.str(r.ops.name[static_cast<size_t>(op)]);
    auto has = [&](std::string_view s) { return k.find(s) != std::string_view::npos; };
    const char* want = has("gemm") || has("splitKreduce") ? "aten::addmm"
                       : has("layer_norm")                ? "aten::native_layer_norm"
                       : has("fmha")                      ? "aten::_scaled_dot_product_efficient_attention"
                       : has("gather")                    ? "aten::embedding"
                                                          : nullptr;
    if (!want) continue;
    ++checked;
    // The op or one enclosing it (aten::embedding runs aten::index_select, ...).
    bool found = false;
    for (int32_t q = op; q >= 0 && !found; q = r.ops.parent[static_cast<size_t>(q)])
      found = r.str(r.ops.name[static_cast<size_t>(q)]) == want;
    EXPECT_TRUE(found) << k << " under " << o;
  }
  EXPECT_EQ(attributed, 104);  // 4 replays of the 26-node graph
  EXPECT_GE(checked, 60);
}

}  // namespace
}  // namespace mlprof
