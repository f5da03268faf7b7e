// HTA's overlay (export/hta_overlay.h) against HTA's own expected output.
#include "export/hta_overlay.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <tuple>

#include "../../tests/corpus_util.h"
#include "io/load.h"

namespace mlprof {
namespace {

// The critical events (start time, name) and critical_path flows (phase,
// time, thread) of a trace read back with every arg kept.
struct Marks {
  std::multiset<std::pair<Ps128, std::string>> events;
  std::multiset<std::tuple<char, Ps128, int64_t>> flows;
};

Marks ReadMarks(const std::string& path) {
  LoadOptions lo;
  lo.all_args = true;
  auto p = LoadProfile({path}, lo);
  EXPECT_TRUE(p.ok()) << p.status().message();
  Marks m;
  if (!p.ok()) return m;
  const RankProfile& r = p->ranks[0];
  const StringId critical = r.strings.Find("critical");
  for (size_t i = 0; i < r.ops.size(); ++i)
    for (const Arg& a : r.args.Of(ArgOwner::kOp, static_cast<uint32_t>(i)))
      if (a.value.key == critical && a.value.type == ArgType::kInt && a.value.i == 1)
        m.events.insert({r.origin_abs_ps + r.ops.ts[i], std::string(r.str(r.ops.name[i]))});
  const StringId cat = r.strings.Find("critical_path");
  for (const Flow& f : r.flows)
    if (f.cat == cat) m.flows.insert({f.phase, r.origin_abs_ps + f.ts, r.tracks[f.track].tid});
  return m;
}

// simple_add, the whole trace, no zero-weight launch edges, as HTA's
// expected output was made: the same 624 events marked critical and the same
// 192 flow pairs (each s and f at the same time on the same thread).
TEST(HtaOverlayCorpus, SimpleAddEqualsHtasExpectedOutput) {
  MLPROF_CORPUS_FILE(in, "kineto/hta_critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz");
  MLPROF_CORPUS_FILE(want, "kineto/hta_critical_path/simple_add_expected_output/overlaid_critical_path_trace.json.gz");
  auto p = LoadProfile({in}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  CpResult r = ComputeCriticalPath(p->ranks[0], 0, CpOptions{});
  ASSERT_TRUE(r.error.empty()) << r.error;
  const std::string out = (std::filesystem::temp_directory_path() / "mlprof_overlay_test.json.gz").string();
  auto st = WriteHtaOverlay(p->ranks[0], r.path, out);
  ASSERT_TRUE(st.ok()) << st.status().message();
  EXPECT_EQ(st->marked, 624u);
  EXPECT_EQ(st->flows, 192u);
  const Marks ours = ReadMarks(out), hta = ReadMarks(want);
  EXPECT_EQ(ours.events.size(), 624u);
  EXPECT_EQ(ours.events, hta.events);
  EXPECT_EQ(ours.flows.size(), 384u);
  EXPECT_EQ(ours.flows, hta.flows);
  std::filesystem::remove(out);
}

// A plain Chrome trace (no schemaVersion: read as chrome-json, not kineto)
// is annotated too. tests/data/chrome/plain_launch.json: aten::mm [0,20)
// launches gemm_kernel [20,50) through cudaLaunchKernel [5,15): the path is
// the three ops (marked) and one launch edge (one flow pair, s and f).
TEST(HtaOverlay, PlainChromeTraceIsAnnotated) {
  auto p = LoadProfile({std::string(MLPROF_SOURCE_DIR) + "/tests/data/chrome/plain_launch.json"}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->ranks[0].format, TraceFormat::kChromeJson);
  CpResult r = ComputeCriticalPath(p->ranks[0], 0, CpOptions{});
  ASSERT_TRUE(r.error.empty()) << r.error;
  const std::string out = (std::filesystem::temp_directory_path() / "mlprof_overlay_plain.json").string();
  auto st = WriteHtaOverlay(p->ranks[0], r.path, out);
  ASSERT_TRUE(st.ok()) << st.status().message();
  EXPECT_EQ(st->marked, 3u);
  EXPECT_EQ(st->flows, 1u);
  const Marks m = ReadMarks(out);
  const std::multiset<std::pair<Ps128, std::string>> want = {
      {0, "aten::mm"}, {5 * kPsPerUs, "cudaLaunchKernel"}, {20 * kPsPerUs, "gemm_kernel"}};
  EXPECT_EQ(m.events, want);
  EXPECT_EQ(m.flows.size(), 2u);  // one pair
  // What is not Chrome JSON is refused, naming its format.
  p->ranks[0].format = TraceFormat::kNsys;
  auto refused = WriteHtaOverlay(p->ranks[0], r.path, out);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(std::string(refused.status().message()).find("is nsys"), std::string::npos) << refused.status().message();
  std::filesystem::remove(out);
}

}  // namespace
}  // namespace mlprof
