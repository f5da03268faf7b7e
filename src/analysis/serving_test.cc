#include "analysis/serving.h"

#include <gtest/gtest.h>

#include "../../tests/test_util.h"
#include "base/serving_step.h"

namespace mlprof {
namespace {

using testing::ProfileFromJson;
constexpr Ps kServUs = kPsPerUs;

TEST(ServingStepName, Vllm) {
  auto a = ParseServingStep(
      "execute_8192_context_9(sq8155sk8430sqsq7475785sqsk7671310)_generation_37(sq37sk34489sqsq37sqsk34489)");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->engine, ServingEngine::kVllm);
  EXPECT_EQ(a->kind, ServingStepKind::kMixed);
  EXPECT_EQ(a->tokens, 8192);
  EXPECT_EQ(a->requests, 46);
  EXPECT_EQ(a->prefill_requests, 9);
  EXPECT_EQ(a->decode_requests, 37);
  EXPECT_EQ(a->prefill_tokens, 8155);
  EXPECT_EQ(a->decode_tokens, 37);
  EXPECT_EQ(a->kv_tokens, 8430 + 34489);
  auto d = ParseServingStep("execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk55086sqsq32sqsk55086)");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->kind, ServingStepKind::kDecode);
  auto p = ParseServingStep("execute_7_context_1(sq7sk7sqsq49sqsk49)_generation_0(sq0sk0sqsq0sqsk0)");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->kind, ServingStepKind::kPrefill);
  EXPECT_EQ(ParseServingStep("execute_0_context_0(sq0sk0sqsq0sqsk0)_generation_0(sq0sk0sqsq0sqsk0)")->kind,
            ServingStepKind::kIdle);
  // Not the form: cut short, extra text, a missing number, overflow.
  EXPECT_FALSE(ParseServingStep("execute_32_context_0(sq0sk0sqsq0sqsk0)"));
  EXPECT_FALSE(ParseServingStep("execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk5sqsq32sqsk5)x"));
  EXPECT_FALSE(ParseServingStep("execute__context_0(sq0sk0sqsq0sqsk0)_generation_0(sq0sk0sqsq0sqsk0)"));
  EXPECT_FALSE(
      ParseServingStep("execute_99999999999999999999_context_0(sq0sk0sqsq0sqsk0)_generation_0(sq0sk0sqsq0sqsk0)"));
  EXPECT_FALSE(ParseServingStep("execute_model"));
}

TEST(ServingStepName, Sglang) {
  auto d = ParseServingStep("step[DECODE bs=32]");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->engine, ServingEngine::kSglang);
  EXPECT_EQ(d->kind, ServingStepKind::kDecode);
  EXPECT_EQ(d->requests, 32);
  EXPECT_EQ(d->tokens, 32);  // one token per request
  EXPECT_EQ(d->decode_requests, 32);
  auto e = ParseServingStep("step[EXTEND bs=4 num_tokens=1000]");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, ServingStepKind::kPrefill);
  EXPECT_EQ(e->requests, 4);
  EXPECT_EQ(e->tokens, 1000);
  EXPECT_EQ(e->decode_requests, -1);
  EXPECT_EQ(ParseServingStep("step[IDLE]")->kind, ServingStepKind::kIdle);
  EXPECT_EQ(ParseServingStep("step[MIXED bs=x]")->requests, -1);  // not a number: unknown
  EXPECT_FALSE(ParseServingStep("step[0]"));
  EXPECT_FALSE(ParseServingStep("step[DECODE bs=32"));
  EXPECT_FALSE(ParseServingStep("step[]"));
}

// Four vLLM steps on one thread, each launching kernels on stream 7 (us):
//   0 prefill  host [0,20)    kernel [10,40)
//   1 decode   host [50,62)   kernels [58,63) [65,70)
//   2 decode   host [100,105) kernel [110,130)
//   3 mixed    host [200,210) kernel [205,215)
// Step 0 is the warm-up (>= 3 steps), step 3 the left-out last step. So:
//   latency = max(host end, last kernel end) - host start: 40, 20, 30, 15
//   gap to the next start: 50-40=10, 100-70=30, 200-130=70, none
//   GPU busy 30, 10, 20, 10; span 30, 12, 20, 10
//   step 1 is host-bound (12 > 10); steps 0 and 2 are not (20 < 30, 5 < 20);
//   step 3 waits 4 us in cudaDeviceSynchronize [204,208): blocked 4, so
//   10 - 4 < 10, not host-bound.
// Steady decode (steps 1, 2): median latency 25, p90 20 + 0.9 x 10 = 29,
// median host (12+5)/2 = 8.5, busy 15, gap (30+70)/2 = 50; tokens 2+2 over
// 20+30 us = 80,000 tokens/s, output tokens the same (one per request).
const char* kServingTrace = R"J({"traceEvents":[
 {"ph":"X","cat":"user_annotation","name":"execute_100_context_2(sq100sk100sqsq5000sqsk5000)_generation_0(sq0sk0sqsq0sqsk0)","pid":1,"tid":1,"ts":0,"dur":20},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":5,"dur":3,"args":{"correlation":1}},
 {"ph":"X","cat":"user_annotation","name":"execute_2_context_0(sq0sk0sqsq0sqsk0)_generation_2(sq2sk102sqsq2sqsk102)","pid":1,"tid":1,"ts":50,"dur":12},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":55,"dur":2,"args":{"correlation":2}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":57,"dur":2,"args":{"correlation":3}},
 {"ph":"X","cat":"user_annotation","name":"execute_2_context_0(sq0sk0sqsq0sqsk0)_generation_2(sq2sk102sqsq2sqsk102)","pid":1,"tid":1,"ts":100,"dur":5},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":101,"dur":2,"args":{"correlation":4}},
 {"ph":"X","cat":"user_annotation","name":"execute_5_context_1(sq3sk3sqsq9sqsk9)_generation_2(sq2sk104sqsq2sqsk104)","pid":1,"tid":1,"ts":200,"dur":10},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":201,"dur":2,"args":{"correlation":5}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":1,"tid":1,"ts":204,"dur":4},
 {"ph":"X","cat":"kernel","name":"k0","pid":0,"tid":7,"ts":10,"dur":30,"args":{"stream":7,"correlation":1}},
 {"ph":"X","cat":"kernel","name":"k1","pid":0,"tid":7,"ts":58,"dur":5,"args":{"stream":7,"correlation":2}},
 {"ph":"X","cat":"kernel","name":"k2","pid":0,"tid":7,"ts":65,"dur":5,"args":{"stream":7,"correlation":3}},
 {"ph":"X","cat":"kernel","name":"k3","pid":0,"tid":7,"ts":110,"dur":20,"args":{"stream":7,"correlation":4}},
 {"ph":"X","cat":"kernel","name":"k4","pid":0,"tid":7,"ts":205,"dur":10,"args":{"stream":7,"correlation":5}}
]})J";

TEST(ServingSteps, HandWorkedTrace) {
  Profile p = ProfileFromJson(kServingTrace);
  ASSERT_EQ(p.ranks[0].steps.size(), 4u);
  ProfileView v = BuildProfileView(p, {});
  ServingReport r = ComputeServingSteps(v, {});
  ASSERT_EQ(r.steps.size(), 4u);
  const Ps lat[] = {40, 20, 30, 15}, gap[] = {10, 30, 70, -1}, busy[] = {30, 10, 20, 10}, span[] = {30, 12, 20, 10};
  const char* kind[] = {"prefill", "decode", "decode", "mixed"};
  for (size_t i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(r.steps[i].number, static_cast<int64_t>(i));
    EXPECT_EQ(r.steps[i].kind, kind[i]);
    EXPECT_EQ(r.steps[i].latency, lat[i] * kServUs);
    EXPECT_EQ(r.steps[i].gap, gap[i] < 0 ? -1 : gap[i] * kServUs);
    EXPECT_EQ(r.steps[i].gpu_busy, busy[i] * kServUs);
    EXPECT_EQ(r.steps[i].gpu_span, span[i] * kServUs);
    EXPECT_EQ(r.steps[i].host_bound, i == 1);
    EXPECT_EQ(r.steps[i].warmup, i == 0);
    EXPECT_EQ(r.steps[i].last, i == 3);
  }
  EXPECT_EQ(r.steps[3].blocked, 4 * kServUs);
  EXPECT_EQ(r.steps[1].blocked, 0);
  EXPECT_EQ(r.steps[3].requests, 3);
  EXPECT_EQ(r.steps[3].tokens, 5);
  EXPECT_EQ(r.steps[3].kv_tokens, 107);
  EXPECT_EQ(r.steps[3].output_tokens, 2);
  ASSERT_EQ(r.summary.size(), 3u);  // decode, mixed, prefill (by name)
  const ServingKindSummary& d = r.summary[0];
  EXPECT_EQ(d.kind, "decode");
  EXPECT_EQ(d.steps, 2);
  EXPECT_EQ(d.steady_steps, 2);
  EXPECT_DOUBLE_EQ(d.median_latency_us, 25);
  EXPECT_DOUBLE_EQ(d.p90_latency_us, 29);
  EXPECT_DOUBLE_EQ(d.median_tpot_us, 25);
  EXPECT_DOUBLE_EQ(d.median_host_us, 8.5);
  EXPECT_DOUBLE_EQ(d.median_gpu_busy_us, 15);
  EXPECT_DOUBLE_EQ(d.median_gap_us, 50);
  EXPECT_DOUBLE_EQ(d.tokens_per_s, 80000);
  EXPECT_DOUBLE_EQ(d.output_tokens_per_s, 80000);
  EXPECT_DOUBLE_EQ(d.mean_requests, 2);
  EXPECT_EQ(d.host_bound_steps, 1);
  EXPECT_EQ(r.summary[1].kind, "mixed");
  EXPECT_EQ(r.summary[1].steady_steps, 0);  // the last step
  EXPECT_EQ(r.summary[2].kind, "prefill");
  EXPECT_EQ(r.summary[2].steady_steps, 0);  // the warm-up
}

// A ProfilerStep#N trace keeps its steps: serving ranges inside it are not steps.
TEST(ServingSteps, ProfilerStepsWin) {
  Profile p = ProfileFromJson(R"J({"traceEvents":[
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":1,"ts":0,"dur":100},
 {"ph":"X","cat":"user_annotation","name":"step[DECODE bs=8]","pid":1,"tid":1,"ts":10,"dur":20}
]})J");
  ASSERT_EQ(p.ranks[0].steps.size(), 1u);
  EXPECT_EQ(p.ranks[0].steps[0].number, 3);
  EXPECT_TRUE(ComputeServingSteps(BuildProfileView(p, {}), {}).steps.empty());
}

// vLLM's execute_ ranges are the steps when a trace holds both families (as
// TraceLens's iteration roots; in TraceLens's SGLang trace execute_ encloses
// step[DECODE bs=32]).
TEST(ServingSteps, VllmRangesWinOverSglang) {
  Profile p = ProfileFromJson(R"J({"traceEvents":[
 {"ph":"X","cat":"user_annotation","name":"execute_8_context_0(sq0sk0sqsq0sqsk0)_generation_8(sq8sk80sqsq8sqsk80)","pid":1,"tid":1,"ts":0,"dur":100},
 {"ph":"X","cat":"user_annotation","name":"step[DECODE bs=8]","pid":1,"tid":1,"ts":10,"dur":20}
]})J");
  ASSERT_EQ(p.ranks[0].steps.size(), 1u);
  EXPECT_EQ(p.ranks[0].steps[0].dur, 100 * kServUs);
}

// TraceLens's gpu_timeline.csv for the three inference sets: busy_time equals
// the one step's GPU busy time (every GPU op of these traces is launched
// inside it).
TEST(ServingStepsCorpus, VllmBusyEqualsTraceLens) {
  struct Case {
    const char* path;
    double busy_ms;  // perf_csvs/gpu_timeline.csv busy_time
    const char* kind;
    int64_t tokens;
  } cases[] = {
      {"tracelens/tests/traces/inference/vllm_decode_full/graph_execution.json.gz", 10.717697265625, "decode", 32},
      {"tracelens/tests/traces/inference/vllm_prefilldecode_piecewise/graph_execution.json.gz", 156.085798828125,
       "mixed", 8192},
      {"tracelens/tests/traces/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz", 9.7729287109375, "decode", 32},
  };
  for (const Case& c : cases) {
    MLPROF_CORPUS_FILE(path, c.path);
    auto loaded = LoadProfile({path}, {});
    ASSERT_TRUE(loaded.ok()) << loaded.status().message();
    ServingReport r = ComputeServingSteps(BuildProfileView(*loaded, {}), {});
    ASSERT_EQ(r.steps.size(), 1u);
    EXPECT_EQ(r.steps[0].kind, c.kind);
    EXPECT_EQ(r.steps[0].tokens, c.tokens);
    // TraceLens adds float64 microseconds (its figures end in binary
    // fractions: 10.717697265625); mlprof adds exact picoseconds. They
    // differ by 11 ns and 6 ns here.
    EXPECT_NEAR(PsToUs(r.steps[0].gpu_busy) / 1000, c.busy_ms, 2e-5) << c.path;
  }
}

}  // namespace
}  // namespace mlprof
