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

}  // namespace
}  // namespace mlprof
