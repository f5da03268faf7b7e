// The host op table against torch.profiler's own key_averages(), on a CPU
// trace recorded with Debian's python3-torch 1.13 (tests/data/torch/SOURCE.md
// says how): every row's calls, total and self time, exactly. torch 1.13
// from Debian is built without Kineto, so its export is the legacy format:
// no "cat", host ops in the process "CPU functions".
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <fstream>
#include <map>
#include <string>

#include "../tests/corpus_util.h"
#include "analysis/host_ops.h"
#include "analysis/overview.h"
#include "io/load.h"

namespace mlprof {
namespace {

const std::string kDir = std::string(MLPROF_SOURCE_DIR) + "/tests/data/torch/";

struct Ref {
  int64_t count = 0;
  int64_t total_us = 0, self_us = 0;
};

std::map<std::string, Ref> ReadReference(const std::string& path) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.load(path);
  std::map<std::string, Ref> out;
  for (simdjson::dom::element row : doc.get_array()) {
    Ref r;
    r.count = row["count"].get_int64();
    r.total_us = row["cpu_time_total_us"].get_int64();
    r.self_us = row["self_cpu_time_total_us"].get_int64();
    out[std::string(row["name"].get_string().value())] = r;
  }
  return out;
}

TEST(TorchKeyAverages, LegacyCpuTraceMatchesEveryRow) {
  const std::map<std::string, Ref> ref = ReadReference(kDir + "cpu_mlp.key_averages.json");
  ASSERT_EQ(ref.size(), 63u);
  auto p = LoadProfile({kDir + "cpu_mlp.json"}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  const std::vector<HostOpRow> rows = ComputeHostOps(BuildProfileView(*p, {}), {});
  std::map<std::string, const HostOpRow*> got;
  for (const HostOpRow& r : rows) got[r.name] = &r;
  EXPECT_EQ(got.size(), ref.size());
  int negative_self = 0;
  for (const auto& [name, want] : ref) {
    auto it = got.find(name);
    ASSERT_NE(it, got.end()) << name;
    const HostOpRow& r = *it->second;
    EXPECT_EQ(r.calls, want.count) << name;
    EXPECT_EQ(r.host_total, want.total_us * kPsPerUs) << name;
    EXPECT_EQ(r.host_self, want.self_us * kPsPerUs) << name;  // negative ones too, as torch computes them
    negative_self += want.self_us < 0;
    EXPECT_EQ(r.kind, OpKind::kCpuOp) << name;  // no "cat": recognised by the "CPU functions" process
  }
  EXPECT_GT(negative_self, 0);  // the case the rule must reproduce (SOURCE.md: rounding to whole us)
}

// The TensorBoard PyTorch plugin's operation table (its end-to-end test's
// recorded responses, corpus kineto/tbplugin_resnet50): every op's calls,
// device self/total and host self/total, in whole us as the plugin rounds
// them, on both ResNet-50 traces (2021 Kineto schema: cat Operator, Kernel,
// Runtime). aten::div inside aten::div is the only-child duplicate torch
// merges.
void CheckTbOperationTable(const std::string& trace, const std::string& reference_json, size_t want_rows) {
  auto p = LoadProfile({trace}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  const std::vector<HostOpRow> rows = ComputeHostOps(BuildProfileView(*p, {}), {});
  std::map<std::string, const HostOpRow*> got;
  for (const HostOpRow& r : rows) got[r.name] = &r;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(reference_json);
  size_t n = 0;
  auto us = [](Ps ps) { return static_cast<int64_t>(std::llround(static_cast<double>(ps) / 1e6)); };
  for (simdjson::dom::element want : doc["data"].get_array()) {
    ++n;
    const std::string name(want["name"].get_string().value());
    auto it = got.find(name);
    ASSERT_NE(it, got.end()) << name;
    const HostOpRow& r = *it->second;
    EXPECT_EQ(r.calls, want["calls"].get_int64().value()) << name;
    EXPECT_EQ(us(r.device_self), want["device_self_duration"].get_int64().value()) << name;
    EXPECT_EQ(us(r.device_total), want["device_total_duration"].get_int64().value()) << name;
    EXPECT_EQ(us(r.host_self), want["host_self_duration"].get_int64().value()) << name;
    EXPECT_EQ(us(r.host_total), want["host_total_duration"].get_int64().value()) << name;
  }
  EXPECT_EQ(n, want_rows);
}

std::string Line(const std::string& path, int number) {
  std::ifstream f(path);
  std::string line;
  for (int i = 0; i < number && std::getline(f, line); ++i) {
  }
  return line;
}

TEST(TbPluginOperations, ResNet50NumWorkers0) {
  MLPROF_CORPUS_FILE(trace, "kineto/tbplugin_resnet50/resnet50_num_workers_0.worker0.1623143089861.pt.trace.json.gz");
  MLPROF_CORPUS_FILE(ref, "kineto/tbplugin_resnet50/result_check_file.txt");
  CheckTbOperationTable(trace, Line(ref, 3), 76);
}

TEST(TbPluginOperations, ResNet50NumWorkers4) {
  MLPROF_CORPUS_FILE(trace, "kineto/tbplugin_resnet50/resnet50_num_workers_4.worker0.1623212756351.pt.trace.json.gz");
  MLPROF_CORPUS_FILE(ref, "kineto/tbplugin_resnet50/result_check_file.txt");
  CheckTbOperationTable(trace, Line(ref, 8), 69);
}

// The plugin's Overview (lines 1 and 6 of the same file): each step's
// Kernel / Memcpy / Memset / Runtime / DataLoader / CPU Exec / Other and its
// span (integer us in both the trace and the reference, so exact), the mean
// step (the plugin rounds means to whole us and percents to 0.01), and the
// GPU summary's utilization, SM efficiency, occupancy and Tensor Core share
// (rounded to 0.01 %).
void CheckTbOverview(const std::string& trace, const std::string& reference_json) {
  auto p = LoadProfile({trace}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->ranks.size(), 1u);
  const RankOverview o = ComputeRankOverview(p->ranks[0], 0);
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(reference_json);
  // The reference's columns, in order, and the roles they are.
  const StepRole kRoles[] = {StepRole::kKernel,     StepRole::kMemcpy,  StepRole::kMemset, StepRole::kRuntime,
                             StepRole::kDataLoader, StepRole::kCpuExec, StepRole::kOther};
  const char* kNames[] = {"Kernel", "Memcpy", "Memset", "Runtime", "DataLoader", "CPU Exec", "Other"};
  size_t n = 0;
  for (simdjson::dom::element row : doc["steps"]["rows"].get_array()) {
    ASSERT_LT(n, o.steps.size());
    const OverviewStep& got = o.steps[n++];
    std::vector<int64_t> want;
    std::string step;
    for (simdjson::dom::element cell : row.get_array()) {
      if (cell.is_int64()) want.push_back(cell.get_int64().value());
      if (cell.is_string() && step.empty()) step = std::string(cell.get_string().value());
    }
    ASSERT_EQ(want.size(), 7u);
    EXPECT_EQ(std::to_string(got.number), step);
    int64_t total = 0;
    for (int i = 0; i < 7; ++i) {
      EXPECT_EQ(got.role[static_cast<int>(kRoles[i])], want[i] * kPsPerUs) << "step " << step << " " << kNames[i];
      total += want[i];
    }
    EXPECT_EQ(got.role[static_cast<int>(StepRole::kCommunication)], 0);
    EXPECT_EQ(got.total(), total * kPsPerUs) << "step " << step;
  }
  EXPECT_EQ(n, o.steps.size());
  simdjson::dom::element avg = doc["performance"].at(0);
  EXPECT_EQ(std::string(avg["name"].get_string().value()), "Average Step Time");
  EXPECT_NEAR(o.mean_total / 1e6, static_cast<double>(avg["value"].get_int64().value()), 0.5);
  size_t children = 0;
  for (simdjson::dom::element c : avg["children"].get_array()) {
    const std::string name(c["name"].get_string().value());
    size_t i = 0;
    while (i < 7 && name != kNames[i]) ++i;
    ASSERT_LT(i, 7u) << name;
    const double mean = o.mean[static_cast<int>(kRoles[i])];
    EXPECT_NEAR(mean / 1e6, static_cast<double>(c["value"].get_int64().value()), 0.5) << name;
    EXPECT_NEAR(100.0 * mean / o.mean_total, c["extra"].get_double().value(), 0.005 + 1e-9) << name;
    ++children;
  }
  EXPECT_EQ(children, 7u);
  ASSERT_EQ(o.gpus.size(), 1u);
  const OverviewGpu& g = o.gpus[0];
  std::map<std::string, std::string> metrics;
  for (simdjson::dom::element m : doc["gpu_metrics"]["data"].get_array())
    metrics[std::string(m["title"].get_string().value())] = std::string(m["value"].get_string().value());
  auto pct = [&](const char* title) { return std::stod(metrics.at(title)); };  // "55.51 %"
  EXPECT_EQ(g.name, metrics.at("Name"));
  EXPECT_EQ(metrics.at("Compute Capability"), std::to_string(g.compute_major) + "." + std::to_string(g.compute_minor));
  EXPECT_NEAR(static_cast<double>(g.memory) / 1073741824.0, std::stod(metrics.at("Memory")), 0.005);  // "31.74 GB"
  EXPECT_NEAR(100 * g.utilization, pct("GPU Utilization"), 0.005 + 1e-9);
  EXPECT_NEAR(100 * g.sm_efficiency, pct("Est. SM Efficiency"), 0.005 + 1e-9);
  EXPECT_NEAR(g.occupancy, pct("Est. Achieved Occupancy"), 0.005 + 1e-9);
  EXPECT_NEAR(100 * g.tensor_cores, pct("Kernel Time using Tensor Cores"), 0.005 + 1e-9);
}

TEST(TbPluginOverview, ResNet50NumWorkers0) {
  MLPROF_CORPUS_FILE(trace, "kineto/tbplugin_resnet50/resnet50_num_workers_0.worker0.1623143089861.pt.trace.json.gz");
  MLPROF_CORPUS_FILE(ref, "kineto/tbplugin_resnet50/result_check_file.txt");
  CheckTbOverview(trace, Line(ref, 1));
}

TEST(TbPluginOverview, ResNet50NumWorkers4) {
  MLPROF_CORPUS_FILE(trace, "kineto/tbplugin_resnet50/resnet50_num_workers_4.worker0.1623212756351.pt.trace.json.gz");
  MLPROF_CORPUS_FILE(ref, "kineto/tbplugin_resnet50/result_check_file.txt");
  CheckTbOverview(trace, Line(ref, 6));
}

}  // namespace
}  // namespace mlprof
