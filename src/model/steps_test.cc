// Steps where the profiler marked none (model/steps.h), on hand-made traces
// whose steps are counted by hand in the comments.
#include "model/steps.h"

#include <gtest/gtest.h>

#include <string>

#include "../../tests/test_util.h"

namespace mlprof {
namespace steps_test {

using testing::ProfileFromJson;
constexpr Ps US = kPsPerUs;

std::string Op(const char* cat, const char* name, int tid, int ts, int dur) {
  return std::string(R"({"ph":"X","cat":")") + cat + R"(","name":")" + name + R"(","pid":1,"tid":)" +
         std::to_string(tid) + R"(,"ts":)" + std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) + "}";
}
std::string Trace(const std::vector<std::string>& ops) {
  std::string s = R"({"traceEvents":[)";
  for (size_t i = 0; i < ops.size(); ++i) s += (i ? "," : "") + ops[i];
  return s + "]}";
}

// Three optimizer steps ending at 30, 70, 110: two steps [30,70) and
// [70,110); the ops before 30 belong to none.
TEST(Steps, BetweenOptimizerStepEnds) {
  const Profile prof = ProfileFromJson(Trace({
      Op("cpu_op", "aten::mm", 1, 0, 10),
      Op("user_annotation", "Optimizer.step#SGD.step", 1, 20, 10),
      Op("cpu_op", "aten::mm", 1, 40, 10),
      Op("user_annotation", "Optimizer.step#SGD.step", 1, 60, 10),
      Op("cpu_op", "aten::mm", 1, 80, 10),
      Op("user_annotation", "Optimizer.step#SGD.step", 1, 100, 10),
  }));
  const RankProfile& p = prof.ranks[0];
  EXPECT_EQ(p.step_source, StepSource::kOptimizer);
  ASSERT_EQ(p.steps.size(), 2u);
  EXPECT_EQ(p.steps[0].ts, 30 * US);
  EXPECT_EQ(p.steps[0].dur, 40 * US);
  EXPECT_EQ(p.steps[1].ts, 70 * US);
  EXPECT_EQ(p.steps[1].dur, 40 * US);
  EXPECT_EQ(p.steps[0].number, 0);
  EXPECT_EQ(p.ops.step[0], -1);  // aten::mm at 0: before the first step
  EXPECT_EQ(p.ops.step[2], 0);   // aten::mm at 40
  EXPECT_EQ(p.ops.step[4], 1);   // aten::mm at 80
}

// ProfilerStep#N comes first, even beside optimizer steps.
TEST(Steps, ProfilerStepsFirst) {
  const Profile prof = ProfileFromJson(Trace({
      Op("user_annotation", "ProfilerStep#7", 1, 0, 50),
      Op("user_annotation", "Optimizer.step#SGD.step", 1, 20, 10),
      Op("user_annotation", "ProfilerStep#8", 1, 50, 50),
      Op("user_annotation", "Optimizer.step#SGD.step", 1, 70, 10),
  }));
  const RankProfile& p = prof.ranks[0];
  EXPECT_EQ(p.step_source, StepSource::kProfilerStep);
  ASSERT_EQ(p.steps.size(), 2u);
  EXPECT_EQ(p.steps[0].number, 7);
}

// "train_step 1", "train_step 2" at the top level: annotated iterations;
// "batchnorm" is no batch, and a nested "step" is not top-level.
TEST(Steps, AnnotatedIterations) {
  EXPECT_EQ(ProfileFromJson(
                Trace({Op("user_annotation", "batchnorm", 1, 0, 10), Op("user_annotation", "batchnorm", 1, 20, 10)}))
                .ranks[0]
                .step_source,
            StepSource::kTrace);
  const Profile prof = ProfileFromJson(Trace({
      Op("user_annotation", "train_step 1", 1, 0, 40),
      Op("cpu_op", "aten::mm", 1, 5, 10),
      Op("user_annotation", "step", 1, 6, 2),
      Op("user_annotation", "train_step 2", 1, 50, 40),
      Op("cpu_op", "aten::mm", 1, 55, 10),
  }));
  const RankProfile& p = prof.ranks[0];
  EXPECT_EQ(p.step_source, StepSource::kAnnotation);
  ASSERT_EQ(p.steps.size(), 2u);
  EXPECT_EQ(p.steps[1].ts, 50 * US);
  EXPECT_EQ(p.steps[1].dur, 40 * US);
}

// torch's legacy exporter (no Kineto) writes record_function ranges as host
// ops without a category, read as cpu_op: "train_step" x2 is still the
// iterations; two top-level aten::batch_norm calls are an operator, not them.
TEST(Steps, AnnotatedIterationsAsCpuOps) {
  const Profile prof = ProfileFromJson(R"J([
 {"name":"aten::batch_norm","ph":"X","ts":0,"dur":5,"tid":1,"pid":"CPU functions","args":{}},
 {"name":"train_step","ph":"X","ts":10,"dur":30,"tid":1,"pid":"CPU functions","args":{}},
 {"name":"aten::mm","ph":"X","ts":12,"dur":10,"tid":1,"pid":"CPU functions","args":{}},
 {"name":"aten::batch_norm","ph":"X","ts":45,"dur":5,"tid":1,"pid":"CPU functions","args":{}},
 {"name":"train_step","ph":"X","ts":50,"dur":30,"tid":1,"pid":"CPU functions","args":{}},
 {"name":"aten::mm","ph":"X","ts":52,"dur":10,"tid":1,"pid":"CPU functions","args":{}}
])J");
  const RankProfile& p = prof.ranks[0];
  EXPECT_EQ(p.step_source, StepSource::kAnnotation);
  ASSERT_EQ(p.steps.size(), 2u);
  EXPECT_EQ(p.steps[0].ts, 10 * US);
  EXPECT_EQ(p.steps[1].ts, 50 * US);
  EXPECT_EQ(p.steps[1].dur, 30 * US);
}

// A repeating sequence of top-level ops (fwd, bwd, upd) x3 on one thread:
// three steps, each from a fwd to the next; the last to the last end.
TEST(Steps, RepeatingTopLevelOps) {
  std::vector<std::string> ops;
  for (int k = 0; k < 3; ++k) {
    ops.push_back(Op("cpu_op", "fwd", 1, 100 * k, 30));
    ops.push_back(Op("cpu_op", "aten::mm", 1, 100 * k + 5, 10));  // nested: not top-level
    ops.push_back(Op("cpu_op", "bwd", 1, 100 * k + 40, 30));
    ops.push_back(Op("cpu_op", "upd", 1, 100 * k + 80, 10));
  }
  const Profile prof = ProfileFromJson(Trace(ops));
  const RankProfile& p = prof.ranks[0];
  EXPECT_EQ(p.step_source, StepSource::kRepeat);
  ASSERT_EQ(p.steps.size(), 3u);
  EXPECT_EQ(p.steps[0].ts, 0);
  EXPECT_EQ(p.steps[0].dur, 100 * US);
  EXPECT_EQ(p.steps[2].ts, 200 * US);
  EXPECT_EQ(p.steps[2].dur, 90 * US);  // to upd's end at 290
}

// The same repeats under one "model.py(343): forward" python frame are the
// layers of one forward pass, not iterations: the whole trace is the step.
TEST(Steps, RepeatsInsideOneForwardAreLayers) {
  std::vector<std::string> ops = {Op("python_function", "model.py(343): forward", 1, 0, 300)};
  for (int k = 0; k < 3; ++k) {
    ops.push_back(Op("cpu_op", "fwd", 1, 100 * k, 30));
    ops.push_back(Op("cpu_op", "bwd", 1, 100 * k + 40, 30));
    ops.push_back(Op("cpu_op", "upd", 1, 100 * k + 80, 10));
  }
  const Profile prof = ProfileFromJson(Trace(ops));
  EXPECT_EQ(prof.ranks[0].step_source, StepSource::kTrace);
  ASSERT_EQ(prof.ranks[0].steps.size(), 1u);
}

// Nothing repeats: the whole trace is the one step, GPU ops included.
TEST(Steps, WholeTraceLast) {
  const Profile prof = ProfileFromJson(Trace({
      Op("cpu_op", "a", 1, 10, 10),
      Op("cpu_op", "b", 1, 30, 10),
      R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":45,"dur":20,"args":{"stream":7,"correlation":9}})",
  }));
  const RankProfile& p = prof.ranks[0];
  EXPECT_EQ(p.step_source, StepSource::kTrace);
  ASSERT_EQ(p.steps.size(), 1u);
  EXPECT_EQ(p.steps[0].dur, 55 * US);  // 10 .. 65
  for (size_t i = 0; i < p.ops.size(); ++i) EXPECT_EQ(p.ops.step[i], 0) << i;
}

// --steps-from: the source asked for, else the whole trace with a note.
TEST(Steps, AskedForSource) {
  Profile prof = ProfileFromJson(Trace({
      Op("user_annotation", "ProfilerStep#1", 1, 0, 50),
      Op("user_annotation", "Optimizer.step#SGD.step", 1, 20, 10),
      Op("user_annotation", "ProfilerStep#2", 1, 50, 50),
      Op("user_annotation", "Optimizer.step#SGD.step", 1, 70, 10),
  }));
  RankProfile& p = prof.ranks[0];
  FindSteps(p, StepSource::kOptimizer);
  EXPECT_EQ(p.step_source, StepSource::kOptimizer);
  ASSERT_EQ(p.steps.size(), 1u);  // [30, 80)
  EXPECT_NE(p.step_note.find("--steps-from optimizer"), std::string::npos);
  FindSteps(p, StepSource::kServing);
  EXPECT_EQ(p.step_source, StepSource::kTrace);
  EXPECT_NE(p.step_note.find("--steps-from serving: none found"), std::string::npos);
  FindSteps(p, StepSource::kAuto);
  EXPECT_EQ(p.step_source, StepSource::kProfilerStep);
  EXPECT_TRUE(p.step_note.empty());
  StepSource s;
  EXPECT_TRUE(ParseStepSource("repeat", &s));
  EXPECT_EQ(s, StepSource::kRepeat);
  EXPECT_FALSE(ParseStepSource("none", &s));
}

}  // namespace steps_test
}  // namespace mlprof
