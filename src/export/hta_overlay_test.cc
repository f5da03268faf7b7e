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

}  // namespace
}  // namespace mlprof
