#include "io/chrome_json.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "../../tests/test_util.h"
#include "io/load.h"
#include "io/rocprof_conventions.h"
#include "model/builder.h"

namespace mlprof {
namespace {

using testing::ProfileFromJson;

StatusOr<RankProfile> Read(const std::string& json) { return LoadTraceBytes(json, "t.json"); }

const std::string kKernelEvents = R"(
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":10,"tid":11,"ts":100,"dur":50,
  "args":{"External id":5,"Input Dims":[[8, 16], [16, 32]],"Input type":["float","float"]}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":10,"tid":11,"ts":110,"dur":10,
  "args":{"External id":5,"correlation":77}},
 {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":130.5,"dur":20.25,
  "args":{"External id":5,"device":0,"stream":7,"correlation":77,"grid":[1,1,1]}},
 {"ph":"s","id":77,"pid":10,"tid":11,"ts":110,"cat":"ac2g","name":"ac2g"},
 {"ph":"f","id":77,"pid":0,"tid":7,"ts":130.5,"cat":"ac2g","name":"ac2g","bp":"e"},
 {"ph":"M","name":"thread_name","pid":10,"tid":11,"args":{"name":"main thread"}},
 {"ph":"M","name":"process_name","pid":10,"args":{"name":"python3"}}
)";

TEST(ChromeJson, ReadsKinetoObjectForm) {
  std::string json = R"({"schemaVersion":1,"distributedInfo":{"backend":"nccl","rank":3,"world_size":8},
    "deviceProperties":[{"id":0,"name":"NVIDIA H100","totalGlobalMem":85,"numSms":132,"computeMajor":9,"computeMinor":0}],
    "traceEvents":[)" +
                     kKernelEvents + "]}";
  auto r = Read(json);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const RankProfile& p = *r;
  EXPECT_EQ(p.format, TraceFormat::kKineto);
  EXPECT_EQ(p.meta.rank, 3);
  EXPECT_EQ(p.meta.world_size, 8);
  EXPECT_EQ(p.meta.backend, "nccl");
  ASSERT_EQ(p.meta.devices.size(), 1u);
  EXPECT_EQ(p.meta.devices[0].name, "NVIDIA H100");
  EXPECT_EQ(p.meta.devices[0].num_sms, 132);
  ASSERT_EQ(p.ops.size(), 3u);
  EXPECT_EQ(p.flows.size(), 2u);
  EXPECT_EQ(p.phase_counts['X'], 3u);
  EXPECT_EQ(p.phase_counts['M'], 2u);
  EXPECT_TRUE(p.meta.has_float_ts);
  // Origin: the earliest ts (100 us) floored to a whole microsecond.
  EXPECT_EQ(p.origin_abs_ps, static_cast<Ps128>(100) * kPsPerUs);
  int kernel = -1, launch = -1, cpu = -1;
  for (size_t i = 0; i < p.ops.size(); ++i) {
    if (p.ops.kind[i] == OpKind::kKernel) kernel = static_cast<int>(i);
    if (p.ops.kind[i] == OpKind::kRuntime) launch = static_cast<int>(i);
    if (p.ops.kind[i] == OpKind::kCpuOp) cpu = static_cast<int>(i);
  }
  ASSERT_GE(kernel, 0);
  EXPECT_EQ(p.ops.ts[kernel], 30 * kPsPerUs + 500000);  // 130.5 - 100 us, exact
  EXPECT_EQ(p.ops.dur[kernel], 20 * kPsPerUs + 250000);
  EXPECT_EQ(p.ops.launch[kernel], launch);
  EXPECT_EQ(p.ops.parent[launch], cpu);  // nested on the host thread
  EXPECT_EQ(p.ops.depth[launch], 1);
  EXPECT_EQ(p.str(p.ops.input_dims[cpu]), "[[8,16],[16,32]]");
  EXPECT_EQ(p.str(p.ops.input_types[cpu]), "[\"float\",\"float\"]");
  EXPECT_EQ(p.str(p.ops.grid[kernel]), "[1,1,1]");
  EXPECT_EQ(p.ops.block[kernel], 0u);  // not recorded for this kernel
  const Track& gpu = p.track_of(kernel);
  EXPECT_EQ(gpu.kind, TrackKind::kGpuStream);
  EXPECT_EQ(gpu.stream, 7);
  EXPECT_EQ(gpu.device, 0);
  EXPECT_EQ(p.str(p.track_of(cpu).name), "main thread");
  EXPECT_EQ(p.str(p.track_of(cpu).process_name), "python3");
  EXPECT_EQ(p.stats.Total(Severity::kWarning), 0u);
}

TEST(ChromeJson, ReadsBareArrayWithTrailingEmptyObject) {
  // Legacy torch 1.x: a bare list, string pids, no cat, trailing {}.
  auto r = Read(R"([{"name":"aten::add","ph":"X","ts":5,"dur":2,"pid":"CPU functions","tid":"1"},
                    {"name":"aten::mul","ph":"X","ts":8,"dur":1,"pid":"CPU functions","tid":"1","args":{}},{}])");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->format, TraceFormat::kChromeJsonArray);
  EXPECT_EQ(r->ops.size(), 2u);
  EXPECT_EQ(r->stats.Get(ImportStat::trailing_empty_event), 1u);
  EXPECT_EQ(r->tracks.size(), 1u);
  EXPECT_EQ(r->tracks[0].tid, 1);  // numeric string tid is the number
  EXPECT_GE(r->tracks[0].pid, kStringIdBase);
}

TEST(ChromeJson, PairsBeginEndAndKeepsInstantsCountersFlows) {
  auto r = Read(R"({"traceEvents":[
    {"ph":"B","name":"outer","pid":1,"tid":1,"ts":10},
    {"ph":"B","name":"inner","pid":1,"tid":1,"ts":12},
    {"ph":"E","pid":1,"tid":1,"ts":15},
    {"ph":"E","pid":1,"tid":1,"ts":20},
    {"ph":"i","name":"mark","pid":1,"tid":1,"ts":13,"s":"t"},
    {"ph":"C","name":"mem","pid":1,"tid":1,"ts":14,"args":{"allocated":1024,"reserved":2048.5}},
    {"ph":"t","id":"0xab","pid":1,"tid":1,"ts":14}]})");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const RankProfile& p = *r;
  ASSERT_EQ(p.ops.size(), 3u);
  // Sorted per track by (ts, dur desc): outer, inner, mark.
  EXPECT_EQ(p.str(p.ops.name[0]), "outer");
  EXPECT_EQ(p.ops.dur[0], 10 * kPsPerUs);
  EXPECT_EQ(p.str(p.ops.name[1]), "inner");
  EXPECT_EQ(p.ops.dur[1], 3 * kPsPerUs);
  EXPECT_EQ(p.ops.parent[1], 0);
  EXPECT_EQ(p.ops.kind[2], OpKind::kInstant);
  EXPECT_EQ(p.ops.parent[2], 1);
  ASSERT_EQ(p.counters.size(), 2u);
  EXPECT_EQ(p.str(p.counters[0].series), "allocated");
  EXPECT_DOUBLE_EQ(p.counters[1].value, 2048.5);
  EXPECT_EQ(p.flows.size(), 1u);
}

TEST(ChromeJson, OldSchemaCategoriesAndLowercaseExternalId) {
  auto r = Read(R"({"traceEvents":[
    {"ph":"X","cat":"Kernel","name":"k","pid":0,"tid":7,"ts":20,"dur":4,"args":{"stream":7,"correlation":9,"external id":3}},
    {"ph":"X","cat":"Runtime","name":"cudaLaunchKernel","pid":5,"tid":5,"ts":10,"dur":2,"args":{"correlation":9,"external id":3}}]})");
  ASSERT_TRUE(r.ok());
  int k = r->ops.kind[0] == OpKind::kKernel ? 0 : 1;
  EXPECT_EQ(r->ops.kind[k], OpKind::kKernel);
  EXPECT_EQ(r->ops.kind[1 - k], OpKind::kRuntime);
  EXPECT_EQ(r->ops.external_id[k], 3);
  EXPECT_EQ(r->ops.launch[k], 1 - k);
}

TEST(ChromeJson, CountsBadEventsAndKeepsTheRest) {
  auto r = Read(R"({"traceEvents":[
    {"ph":"X","name":"nan","ts":1,"dur":NaN,"pid":1,"tid":1},
    {"ph":"X","name":"neg","ts":1,"dur":-5,"pid":1,"tid":1},
    {"ph":"X","name":"huge","ts":1e40,"dur":1,"pid":1,"tid":1},
    {"ph":"X","name":"nodur","ts":1,"pid":1,"tid":1},
    {"ph":"X","name":"nots","dur":1,"pid":1,"tid":1},
    {"name":"noph","ts":1},
    {"ph":"E","ts":2,"pid":1,"tid":2},
    {"ph":"B","name":"open","ts":2,"pid":1,"tid":3},
    {"ph":"Q","ts":2,"pid":1,"tid":2},
    {"ph":"X","name":"textdur","ts":1,"dur":"abc","pid":1,"tid":1},
    17,
    {"ph":"X","name":"ok","ts":3,"dur":1,"pid":1,"tid":1}]})");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const ImportStats& s = r->stats;
  EXPECT_EQ(s.Get(ImportStat::bad_number), 2u);
  EXPECT_EQ(s.Get(ImportStat::negative_duration), 1u);
  EXPECT_EQ(s.Get(ImportStat::number_out_of_range), 1u);
  EXPECT_EQ(s.Get(ImportStat::missing_dur), 1u);
  EXPECT_EQ(s.Get(ImportStat::missing_ts), 1u);
  EXPECT_EQ(s.Get(ImportStat::missing_ph), 1u);
  EXPECT_EQ(s.Get(ImportStat::unmatched_end), 1u);
  EXPECT_EQ(s.Get(ImportStat::unmatched_begin), 1u);
  EXPECT_EQ(s.Get(ImportStat::unknown_phase), 1u);
  EXPECT_EQ(s.Get(ImportStat::event_not_object), 1u);
  ASSERT_EQ(r->ops.size(), 1u);
  EXPECT_EQ(r->str(r->ops.name[0]), "ok");
}

TEST(ChromeJson, FirstOffsetPointsAtTheBadEvent) {
  std::string json =
      R"({"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":1,"pid":1,"tid":1},{"ph":"X","name":"b","ts":1,"dur":-1,"pid":1,"tid":1}]})";
  auto r = Read(json);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->stats.first_offset[static_cast<size_t>(ImportStat::negative_duration)],
            json.find("{\"ph\":\"X\",\"name\":\"b\""));
}

TEST(ChromeJson, TruncatedInsideAStringKeepsCompleteEvents) {
  std::string full =
      R"({"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":1,"pid":1,"tid":1},{"ph":"X","name":"b","ts":2,"dur":1,"pid":1,"tid":1},{"ph":"X","name":"cccccc)";
  auto r = Read(full);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->ops.size(), 2u);
  EXPECT_EQ(r->stats.Get(ImportStat::truncated_json), 1u);
}

TEST(ChromeJson, TruncatedBetweenFieldsOrMissingBracketKeepsEvents) {
  auto a = Read(R"({"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":1,"pid":1,"tid":1},{"ph":"X","ts":4)");
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->ops.size(), 1u);
  EXPECT_EQ(a->stats.Get(ImportStat::truncated_json), 1u);
  auto b = Read(R"({"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":1,"pid":1,"tid":1})");
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->ops.size(), 1u);
  EXPECT_EQ(b->stats.Get(ImportStat::truncated_json), 1u);
  auto c = Read(R"([{"ph":"X","name":"a","ts":1,"dur":1,"pid":1,"tid":1},)");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->ops.size(), 1u);
}

// Found by the fuzzer: a repair that moves the buffer must not leave the
// parser looking at the old one (heap-use-after-free under ASan).
TEST(ChromeJson, RepairThatMovesTheBufferIsSafe) {
  for (const char* text : {"[{#|}", "[{}", "[{\"a\":1}", "[{\"ph\":\"X\"}"}) {
    auto r = Read(text);
    if (r.ok())
      EXPECT_EQ(r->ops.size(), 0u) << text;
    else
      EXPECT_TRUE(r.status().code() == StatusCode::kDataLoss || r.status().code() == StatusCode::kWrongFormat)
          << text << ": " << r.status().message();
  }
}

TEST(ChromeJson, CorruptionInTheMiddleIsAnError) {
  auto r = Read(
      R"({"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":1,"pid":1,"tid":1} oops {"ph":"X","name":"b","ts":1,"dur":1,"pid":1,"tid":1}]})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(r.status().message().find("t.json: invalid JSON at byte"), std::string::npos) << r.status().message();
}

TEST(ChromeJson, InvalidUtf8IsReplacedAndCounted) {
  auto r = Read(
      std::string("{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"k\xff\xfe\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1}]}"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->stats.Get(ImportStat::invalid_utf8), 2u);
  EXPECT_EQ(r->str(r->ops.name[0]), "k??");
}

TEST(ChromeJson, EscapedNamesAreUnescaped) {
  auto r = Read(R"({"traceEvents":[{"ph":"X","name":"a\"b\\c\u00e9","ts":1,"dur":1,"pid":1,"tid":1}]})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->str(r->ops.name[0]), "a\"b\\c\xc3\xa9");
}

TEST(ChromeJson, ClearErrorsForWhatIsNotATrace) {
  struct Case {
    const char* json;
    const char* want;
  } cases[] = {
      {"", "empty file"},
      {"hello", "unknown format at byte 0"},
      {"{\"schema\":\"1.0.1\",\"pid\":1,\"nodes\":[]}", "PyTorch Execution Trace"},
      {"{\"foo\":1}", "no \"traceEvents\" array"},
      {"[[1,2,3],[4,5,6]]", "none of them a trace event"},  // not torch's memory timeline: 3 numbers
      {"[{\"a\":1},{\"b\":2}]", "none of them a trace event"},
      {"{\"traceEvents\":{}}", "\"traceEvents\" is not an array"},
      {"{\"traceEvents\":[1,2", "invalid JSON"},
  };
  for (const Case& c : cases) {
    auto r = Read(c.json);
    ASSERT_FALSE(r.ok()) << c.json;
    EXPECT_NE(r.status().message().find(c.want), std::string::npos) << c.json << " -> " << r.status().message();
    EXPECT_EQ(r.status().message().rfind("t.json", 0), 0u) << r.status().message();
  }
}

TEST(ChromeJson, ProfilerStepsAndStepMembership) {
  Profile p = ProfileFromJson(R"({"traceEvents":[
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#7","pid":1,"tid":1,"ts":0,"dur":100},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#8","pid":1,"tid":1,"ts":100,"dur":100},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":150,"dur":5,"args":{"correlation":1}},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":210,"dur":5,"args":{"stream":7,"correlation":1}},
    {"ph":"X","cat":"cpu_op","name":"after","pid":1,"tid":1,"ts":250,"dur":5}]})");
  const RankProfile& r = p.ranks[0];
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[0].number, 7);
  EXPECT_EQ(r.steps[1].number, 8);
  for (size_t i = 0; i < r.ops.size(); ++i) {
    std::string_view n = r.str(r.ops.name[i]);
    if (n == "cudaLaunchKernel" || n == "k") {
      EXPECT_EQ(r.ops.step[i], 1) << n;  // kernel: its launch's step
    }
    if (n == "after") {
      EXPECT_EQ(r.ops.step[i], -1);
    }
  }
}

// Newer Kineto also writes each ProfilerStep#N as a gpu_user_annotation on
// the GPU timeline (tracelens mi300 resnet_act_checkpoint, HTA's mi250
// trace): those are not steps, and take no step themselves.
TEST(ChromeJson, GpuUserAnnotationStepIsNotAStep) {
  Profile p = ProfileFromJson(R"({"traceEvents":[
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":1,"ts":0,"dur":100},
    {"ph":"X","cat":"gpu_user_annotation","name":"ProfilerStep#3","pid":0,"tid":7,"ts":50,"dur":2},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#4","pid":1,"tid":1,"ts":100,"dur":100}]})");
  const RankProfile& r = p.ranks[0];
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[0].number, 3);
  EXPECT_EQ(r.steps[0].dur, 100 * kPsPerUs);
  EXPECT_EQ(r.steps[1].number, 4);
  for (size_t i = 0; i < r.ops.size(); ++i)
    if (r.ops.kind[i] == OpKind::kGpuUserAnnotation) {
      EXPECT_EQ(r.ops.step[i], -1);
    }
}

// A JAX GPU trace.json as xprof's trace viewer exports it: no categories;
// planes and lines by name, every stat a string arg. Stream lines become GPU
// streams, their events kernels or copies by name; host events with a
// correlation_id are the launches; XLA op args count only on op lines.
const std::string kJaxGpuJson = R"json({"displayTimeUnit":"ns","metadata":{"highres-ticks":true},"traceEvents":[
 {"ph":"M","pid":1,"name":"process_name","args":{"name":"/device:GPU:0"}},
 {"ph":"M","pid":1,"tid":7,"name":"thread_name","args":{"name":"Stream #7(Kernel)"}},
 {"ph":"M","pid":1,"tid":1,"name":"thread_name","args":{"name":"XLA Modules"}},
 {"ph":"M","pid":701,"name":"process_name","args":{"name":"/host:CPU"}},
 {"ph":"M","pid":701,"tid":5,"name":"thread_name","args":{"name":"python3"}},
 {"ph":"X","pid":701,"tid":5,"ts":1.000000,"dur":2.5,"name":"cuLaunchKernel","args":{"correlation_id":"41"}},
 {"ph":"X","pid":701,"tid":5,"ts":4.000000,"dur":1.5,"name":"cuMemcpyAsync","args":{"correlation_id":"42"}},
 {"ph":"X","pid":701,"tid":5,"ts":6.000000,"dur":1,"name":"PjitFunction(f)"},
 {"ph":"X","pid":1,"tid":1,"ts":5.000000,"dur":20,"name":"jit_f","args":{"hlo_module":"jit_f","program_id":"12"}},
 {"ph":"X","pid":1,"tid":7,"ts":5.000000,"dur":10.000001,"name":"loop_add_fusion","args":{"hlo_op":"add_fusion.1","hlo_module":"jit_f","correlation_id":"41","bytes_accessed":"4096"}},
 {"ph":"X","pid":1,"tid":7,"ts":16.000000,"dur":3,"name":"Memcpy DtoD","args":{"hlo_op":"copy.2","hlo_module":"jit_f","correlation_id":"42"}},
 {}]})json";

TEST(ChromeJson, JaxTraceViewerGpuJson) {
  auto r = Read(kJaxGpuJson);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const RankProfile& p = *r;
  EXPECT_EQ(p.format, TraceFormat::kXprofTraceJson);
  ASSERT_EQ(p.ops.size(), 6u);
  int kernels = 0, copies = 0, launches = 0, with_xla = 0;
  for (size_t i = 0; i < p.ops.size(); ++i) {
    const Track& t = p.track_of(i);
    std::string_view name = p.str(p.ops.name[i]);
    if (p.ops.kind[i] == OpKind::kKernel) {
      ++kernels;
      EXPECT_EQ(name, "loop_add_fusion");
      EXPECT_EQ(t.kind, TrackKind::kGpuStream);
      EXPECT_EQ(t.device, 0);
      EXPECT_EQ(t.stream, 7);
      EXPECT_EQ(p.ops.dur[i], 10'000'001);  // ps
      ASSERT_GE(p.ops.launch[i], 0);
      EXPECT_EQ(p.str(p.ops.name[static_cast<size_t>(p.ops.launch[i])]), "cuLaunchKernel");
    }
    if (p.ops.kind[i] == OpKind::kMemcpy) {
      ++copies;
      EXPECT_EQ(name, "Memcpy DtoD");
      ASSERT_GE(p.ops.launch[i], 0);
      EXPECT_EQ(p.str(p.ops.name[static_cast<size_t>(p.ops.launch[i])]), "cuMemcpyAsync");
    }
    if (p.ops.kind[i] == OpKind::kRuntime) ++launches;
    if (p.ops.xla[i] >= 0) {
      ++with_xla;
      const XlaOp& x = p.xla_ops[static_cast<size_t>(p.ops.xla[i])];
      EXPECT_EQ(p.str(x.module), "jit_f");
      if (name == "loop_add_fusion") {
        EXPECT_EQ(p.str(x.hlo_op), "add_fusion.1");
        EXPECT_EQ(x.bytes_accessed, 4096);
      } else {
        EXPECT_EQ(p.str(x.hlo_op), "copy.2");
        EXPECT_EQ(x.bytes_accessed, -1);
      }
    }
  }
  EXPECT_EQ(kernels, 1);
  EXPECT_EQ(copies, 1);
  EXPECT_EQ(launches, 2);  // PjitFunction has no correlation_id: not a launch
  EXPECT_EQ(with_xla, 2);  // the XLA Modules event's args do not make it an op
}

// The same args in a trace that is not an XSpace export are not XLA ops.
TEST(ChromeJson, XlaArgsOutsideXSpaceExportIgnored) {
  auto r = Read(R"({"traceEvents":[
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":10,"tid":11,"ts":1,"dur":2,"args":{"hlo_op":"dot.1","flops":128}}]})");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->xla_ops.empty());
  EXPECT_EQ(r->ops.xla[0], -1);
  EXPECT_EQ(r->ops.kind[0], OpKind::kCpuOp);
}

// A counter whose args come before its "ph" keeps every series, even one
// named like an XLA stat.
TEST(ChromeJson, CounterArgsBeforePhaseNamedLikeXlaStats) {
  auto r = Read(R"({"traceEvents":[
 {"name":"work","args":{"flops":5,"bytes_accessed":7},"ph":"C","pid":1,"tid":1,"ts":1}]})");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->counters.size(), 2u);
  std::map<std::string, double> series;
  for (const auto& c : r->counters) series[std::string(r->str(c.series))] = c.value;
  EXPECT_EQ(series["flops"], 5);
  EXPECT_EQ(series["bytes_accessed"], 7);
  EXPECT_TRUE(r->xla_ops.empty());
}

// A bad number in an XLA arg is counted, and the rest of the event kept.
TEST(ChromeJson, JaxTraceViewerBadNumberCounted) {
  std::string json = kJaxGpuJson;
  json.replace(json.find("\"4096\""), 6, "\"4k\"");
  auto r = Read(json);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->stats.Get(ImportStat::bad_field_type), 1u);
  int with_xla = 0;
  for (size_t i = 0; i < r->ops.size(); ++i) with_xla += r->ops.xla[i] >= 0;
  EXPECT_EQ(with_xla, 2);
}

TEST(ChromeJson, ConcreteInputsAndCollectiveArgsAreKept) {
  Profile p = ProfileFromJson(R"({"traceEvents":[
    {"ph":"X","cat":"cpu_op","name":"aten::_softmax","pid":1,"tid":1,"ts":0,"dur":5,
     "args":{"Input Dims":[[4,8],[],[]],"Input type":["float","Scalar","Scalar"],"Concrete Inputs":["","-1","False"]}},
    {"ph":"X","cat":"cpu_op","name":"record_param_comms","pid":1,"tid":1,"ts":10,"dur":5,
     "args":{"Collective name":"all\"reduce","In msg nelems":1000,"Out msg nelems":1000,"Group size":4,
             "dtype":"Float","Process Group Ranks":"[0, 1, 2, 3]"}},
    {"ph":"X","cat":"cpu_op","name":"aten::relu","pid":1,"tid":1,"ts":20,"dur":5}]})");
  ASSERT_EQ(p.ranks.size(), 1u);
  const RankProfile& r = p.ranks[0];
  ASSERT_EQ(r.ops.size(), 3u);
  EXPECT_EQ(r.str(r.ops.concrete_inputs_of(0)), R"(["","-1","False"])");
  EXPECT_EQ(r.ops.comm_of(0), 0u);
  // The name's quote is escaped in the kept text.
  EXPECT_EQ(r.str(r.ops.comm_of(1)), R"(["all\"reduce",1000,1000,4,"Float"])");
  EXPECT_EQ(r.ops.concrete_inputs_of(2), 0u);
  EXPECT_EQ(r.ops.comm_of(2), 0u);
}

// The sparse args table: a memory event's scalar args, typed; an op's args
// follow it when Finish sorts the ops; every deviceProperties field.
TEST(ChromeJson, MemoryEventArgsAndDevicePropertiesInTheArgsTable) {
  Profile p = ProfileFromJson(R"({"deviceProperties":[{"id":0,"name":"NVIDIA H100","numSms":132,"clock":1.98}],
   "traceEvents":[
    {"ph":"X","cat":"cpu_op","name":"late","pid":1,"tid":1,"ts":50,"dur":5},
    {"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":20,
     "args":{"Device Type":1,"Device Id":0,"Addr":139926520725504,"Bytes":-4096,"Total Allocated":5435638784,
             "Total Reserved":1.5e10,"Note":"x\ty","Flag":true,"List":[1,2],"Null":null}},
    {"ph":"i","cat":"[memory]","name":"old","pid":1,"tid":1,"ts":10,"args":{"Bytes":4}},
    {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":30,"dur":5,"args":{"Bytes":7}}]})");
  ASSERT_EQ(p.ranks.size(), 1u);
  const RankProfile& r = p.ranks[0];
  ASSERT_EQ(r.ops.size(), 4u);
  // Sorted by time: old (10), [memory] (20), aten::add (30), late (50).
  ASSERT_EQ(r.str(r.ops.name[0]), "old");
  ASSERT_EQ(r.str(r.ops.name[1]), "[memory]");
  auto key = [&](std::string_view k) {
    for (StringId id = 0; id < r.strings.size(); ++id)
      if (r.str(id) == k) return id;
    return StringId{0};
  };
  auto old_args = r.args.Of(ArgOwner::kOp, 0);
  ASSERT_EQ(old_args.size(), 1u);
  EXPECT_EQ(old_args[0].value.i, 4);
  auto mem = r.args.Of(ArgOwner::kOp, 1);
  ASSERT_EQ(mem.size(), 8u);  // the list and the null are left out
  EXPECT_EQ(r.str(mem[0].value.key), "Device Type");
  EXPECT_EQ(mem[2].value.type, ArgType::kInt);
  EXPECT_EQ(mem[2].value.i, 139926520725504);
  EXPECT_EQ(mem[3].value.i, -4096);
  const ArgValue* total = r.args.Find(ArgOwner::kOp, 1, key("Total Allocated"));
  ASSERT_NE(total, nullptr);
  EXPECT_EQ(total->i, 5435638784);
  const ArgValue* reserved = r.args.Find(ArgOwner::kOp, 1, key("Total Reserved"));
  ASSERT_NE(reserved, nullptr);
  EXPECT_EQ(reserved->type, ArgType::kReal);
  EXPECT_EQ(reserved->r, 1.5e10);
  const ArgValue* note = r.args.Find(ArgOwner::kOp, 1, key("Note"));
  ASSERT_NE(note, nullptr);
  EXPECT_EQ(r.str(note->s), "x\ty");
  EXPECT_EQ(r.args.Find(ArgOwner::kOp, 1, key("Flag"))->i, 1);
  // An ordinary op keeps only the args mlprof reads.
  EXPECT_TRUE(r.args.Of(ArgOwner::kOp, 2).empty());
  EXPECT_TRUE(r.args.Of(ArgOwner::kOp, 3).empty());
  // Device 0: every field, typed.
  auto dev = r.args.Of(ArgOwner::kDevice, 0);
  ASSERT_EQ(dev.size(), 4u);
  EXPECT_EQ(r.str(dev[1].value.s), "NVIDIA H100");
  EXPECT_EQ(dev[2].value.i, 132);
  EXPECT_EQ(dev[3].value.r, 1.98);
  EXPECT_EQ(r.meta.devices[0].num_sms, 132);
}

// Args of a B event stay with the op its E closes.
TEST(ChromeJson, BeginEventArgsFollowTheOp) {
  Profile p = ProfileFromJson(R"({"traceEvents":[
    {"ph":"B","name":"[memory]","pid":1,"tid":1,"ts":10,"args":{"Bytes":8}},
    {"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":11,"args":{"Bytes":9}},
    {"ph":"E","pid":1,"tid":1,"ts":20}]})");
  ASSERT_EQ(p.ranks.size(), 1u);
  const RankProfile& r = p.ranks[0];
  ASSERT_EQ(r.ops.size(), 2u);
  ASSERT_EQ(r.ops.ts[0], 0);  // the B/E op starts first
  ASSERT_EQ(r.args.Of(ArgOwner::kOp, 0).size(), 1u);
  EXPECT_EQ(r.args.Of(ArgOwner::kOp, 0)[0].value.i, 8);
  EXPECT_EQ(r.args.Of(ArgOwner::kOp, 1)[0].value.i, 9);
}

// ReadOptions::all_args: every arg no rule takes, typed as written, in the
// reader's order; args read before "ph" (a number then read as a possible
// counter series too) are kept once (a fuzz find: simdjson's key was read
// twice); known fields stay columns only.
TEST(ChromeJson, AllArgsKeepsEveryOtherArgTyped) {
  ReadOptions o;
  o.all_args = true;
  auto r = LoadTraceBytes(R"J({"traceEvents":[
    {"args":{"n":5,"r":5.0,"s":"55.0","b":true,"a":[1,[2]],"o":{"x":1},"z":null,"correlation":7},
     "ph":"X","cat":"cuda_runtime","name":"k","pid":1,"tid":1,"ts":0,"dur":1},
    {"ph":"X","cat":"cpu_op","name":"op","pid":1,"tid":1,"ts":2,"dur":1,"args":{"Input Dims":[[2]],"e":-1e3}}
  ]})J",
                          "t.json", o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->ops.size(), 2u);
  std::vector<std::string> got;
  for (uint32_t op = 0; op < 2; ++op) {
    for (const Arg& a : r->args.Of(ArgOwner::kOp, op)) {
      const std::string k(r->str(a.value.key));
      switch (a.value.type) {
        case ArgType::kInt:
          got.push_back(fmt::format("{}:{}=i{}", op, k, a.value.i));
          break;
        case ArgType::kReal:
          got.push_back(fmt::format("{}:{}=r{}", op, k, a.value.r));
          break;
        case ArgType::kString:
          got.push_back(fmt::format("{}:{}=s{}", op, k, r->str(a.value.s)));
          break;
      }
    }
  }
  EXPECT_EQ(got, (std::vector<std::string>{"0:n=i5", "0:r=r5", "0:s=s55.0", "0:b=i1", "0:a=s[1,[2]]", "1:e=r-1000"}));
  EXPECT_EQ(r->ops.correlation[0], 7);  // a column, not an arg
  // An empty key read before "ph" (it interns as string 0): kept once, no
  // second read of the key (a crash before).
  auto empty_key = LoadTraceBytes(
      R"J({"traceEvents":[{"args":{"":5},"ph":"X","cat":"cpu_op","name":"k","pid":1,"tid":1,"ts":0,"dur":1}]})J",
      "t.json", o);
  ASSERT_TRUE(empty_key.ok());
  ASSERT_EQ(empty_key->args.rows.size(), 1u);
  EXPECT_EQ(empty_key->str(empty_key->args.rows[0].value.key), "");
  EXPECT_EQ(empty_key->args.rows[0].value.i, 5);
  // Without all_args none are kept.
  auto lean = LoadTraceBytes(
      R"J({"traceEvents":[{"ph":"X","name":"k","pid":1,"tid":1,"ts":0,"dur":1,"args":{"n":5}}]})J", "t.json");
  ASSERT_TRUE(lean.ok());
  EXPECT_TRUE(lean->args.rows.empty());
}

}  // namespace

// File-local helpers of the rocprof tests (a namespace of their own: the
// tests are built as one unity source).
namespace rocprof_json_test {

// rocprof's --hip-trace JSON as tblextr.py writes it (pids and times as
// strings, metadata pids as numbers, exact times in BeginNs/EndNs, calls
// linked to GPU ops by DataFlow flows), by hand. Times in us unless ns:
//   CPU HIP API (pid 2, tid 517):
//     hipMemcpyWithStream [1000.100, 1050.200] sizeBytes(4096)  flow 0 -> CopyHostToDevice
//     hipLaunchKernel     [1100.000, 1120.500]                  flow 1 -> k
//     hipMemcpyWithStream [1200.000, 1300.000] sizeBytes(8)     flow 2 -> CopyDeviceToHost
//     hipGetDevice        ts 1400, dur 1 (no ns times)
//   COPY (pid 1): CopyHostToDevice [1010.250, 1015.750], CopyDeviceToHost
//     [1250.125, 1260.000] (dev-id 1, stream-id 1); FillBuffer ts 1500 dur 2
//     (stream-id 2, no flow)
//   GPU1 (pid 7): k [1130.400, 1170.900]; k2 ts 1600 dur 3 whose BeginNs
//     disagrees with its ts (a rebased trace): ts/dur are kept; no flow.
// Origin: 1000 us (the earliest time, 1000.100, floored).
const char* const kHipTrace = R"json({ "traceEvents":[{}
,{"args":{"name":"CPU HIP API"},"ph":"M","pid":2,"name":"process_name","sort_index":0}
,{"args":{"name":"COPY"},"ph":"M","pid":1,"name":"process_name","sort_index":1}
,{"args":{"name":"GPU0"},"ph":"M","pid":6,"name":"process_name","sort_index":2}
,{"args":{"name":"GPU1"},"ph":"M","pid":7,"name":"process_name","sort_index":3}
,{"ph":"X","name":"CopyHostToDevice","pid":"1","tid":"1","ts":"1010","dur":"5",
  "args":{"BeginNs":"1010250","EndNs":"1015750","dev-id":"1","queue-id":"0","Name":"CopyHostToDevice","stream-id":"1","DurationNs":"5500"}}
,{"ph":"X","name":"CopyDeviceToHost","pid":"1","tid":"1","ts":"1250","dur":"9",
  "args":{"BeginNs":"1250125","EndNs":"1260000","dev-id":"1","queue-id":"0","stream-id":"1","DurationNs":"9875"}}
,{"ph":"X","name":"FillBuffer","pid":"1","tid":"1","ts":"1500","dur":"2","args":{"dev-id":"1","stream-id":"2"}}
,{"ph":"X","name":"hipMemcpyWithStream","pid":"2","tid":"517","ts":"1000","dur":"50",
  "args":{"BeginNs":"1000100","EndNs":"1050200","pid":"517","tid":"517","Name":"hipMemcpyWithStream",
          "args":"( dst(0x7f13d6a00000) src(0x741bb00) sizeBytes(4096) kind(1) stream(1))","Data":""}}
,{"ph":"X","name":"hipLaunchKernel","pid":"2","tid":"517","ts":"1100","dur":"20",
  "args":{"BeginNs":"1100000","EndNs":"1120500","args":"( kernel(k) numBlocks({z(1) y(1) x(1}) stream(1))"}}
,{"ph":"X","name":"hipMemcpyWithStream","pid":"2","tid":"517","ts":"1200","dur":"100",
  "args":{"BeginNs":"1200000","EndNs":"1300000","args":"( dst(0x1) src(0x2) sizeBytes(8) kind(2) stream(1))"}}
,{"ph":"X","name":"hipGetDevice","pid":"2","tid":"517","ts":"1400","dur":"1","args":{"args":"( deviceId(0))"}}
,{"ph":"X","name":"k","pid":"7","tid":"1","ts":"1130","dur":"40",
  "args":{"BeginNs":"1130400","EndNs":"1170900","dev-id":"1","queue-id":"0","stream-id":"1"}}
,{"ph":"X","name":"k2","pid":"7","tid":"1","ts":"1600","dur":"3",
  "args":{"BeginNs":"99999000","EndNs":"99999900","dev-id":"1","stream-id":"1"}}
,{"ts":1020,"ph":"s","cat":"DataFlow","id":0,"pid":2,"tid":517,"name":"dep"}
,{"ts":1010,"ph":"t","cat":"DataFlow","id":0,"pid":1,"tid":1,"name":"dep"}
,{"ts":1110,"ph":"s","cat":"DataFlow","id":1,"pid":2,"tid":517,"name":"dep"}
,{"ts":1130,"ph":"t","cat":"DataFlow","id":1,"pid":7,"tid":1,"name":"dep"}
,{"ts":1240,"ph":"s","cat":"DataFlow","id":2,"pid":2,"tid":517,"name":"dep"}
,{"ts":1250,"ph":"t","cat":"DataFlow","id":2,"pid":1,"tid":1,"name":"dep"}
], "otherData":{"CMD":"rocminfo"}})json";

int64_t Find(const RankProfile& p, std::string_view name) {
  for (size_t i = 0; i < p.ops.size(); ++i)
    if (p.str(p.ops.name[i]) == name) return static_cast<int64_t>(i);
  return -1;
}

}  // namespace rocprof_json_test

namespace {

TEST(ChromeJson, RocprofHipTraceIsDeviceWork) {
  using rocprof_json_test::Find;
  auto r = Read(rocprof_json_test::kHipTrace);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const RankProfile& p = *r;
  EXPECT_EQ(p.format, TraceFormat::kRocprofJson);
  EXPECT_TRUE(p.sidecar_warnings.empty());
  EXPECT_EQ(p.origin_abs_ps, static_cast<Ps128>(1000) * kPsPerUs);
  const OpTable& o = p.ops;
  const int64_t k = Find(p, "k"), k2 = Find(p, "k2"), h2d = Find(p, "Memcpy HtoD (CopyHostToDevice)"),
                d2h = Find(p, "Memcpy DtoH (CopyDeviceToHost)"), fill = Find(p, "Memset (FillBuffer)"),
                launch = Find(p, "hipLaunchKernel"), get = Find(p, "hipGetDevice");
  for (int64_t i : {k, k2, h2d, d2h, fill, launch, get}) ASSERT_GE(i, 0);
  // Kernels and copies: GPU work on device 1, stream 1 (the fill on stream 2),
  // at their exact ns times; k2's ns times disagree with its ts: ts/dur kept.
  EXPECT_EQ(o.kind[k], OpKind::kKernel);
  EXPECT_EQ(o.kind[k2], OpKind::kKernel);
  EXPECT_EQ(o.kind[h2d], OpKind::kMemcpy);
  EXPECT_EQ(o.kind[d2h], OpKind::kMemcpy);
  EXPECT_EQ(o.kind[fill], OpKind::kMemset);
  for (int64_t i : {k, k2, h2d, d2h}) {
    const Track& t = p.tracks[o.track[i]];
    EXPECT_EQ(t.kind, TrackKind::kGpuStream);
    EXPECT_EQ(t.device, 1);
    EXPECT_EQ(t.stream, 1);
    EXPECT_EQ(o.track[i], o.track[k]);  // one stream, one track
  }
  EXPECT_EQ(p.tracks[o.track[fill]].stream, 2);
  EXPECT_EQ(p.tracks[o.track[fill]].device, 1);
  EXPECT_EQ(o.ts[k], 130400 * 1000);
  EXPECT_EQ(o.dur[k], 40500 * 1000);
  EXPECT_EQ(o.ts[h2d], 10250 * 1000);
  EXPECT_EQ(o.dur[h2d], 5500 * 1000);
  EXPECT_EQ(o.dur[d2h], 9875 * 1000);
  EXPECT_EQ(o.ts[k2], 600 * kPsPerUs);
  EXPECT_EQ(o.dur[k2], 3 * kPsPerUs);
  EXPECT_EQ(o.ts[fill], 500 * kPsPerUs);
  EXPECT_EQ(o.dur[get], 1 * kPsPerUs);
  // Calls: runtime calls; each linked to the op its flow points at, copies
  // sized by their call's sizeBytes; k2 and the fill have no flow.
  EXPECT_EQ(o.kind[launch], OpKind::kRuntime);
  EXPECT_EQ(p.str(o.cat[launch]), "hip_runtime");
  EXPECT_EQ(o.kind[get], OpKind::kRuntime);
  EXPECT_EQ(o.launch[k], launch);
  ASSERT_GE(o.launch[h2d], 0);
  EXPECT_EQ(o.ts[o.launch[h2d]], 100 * 1000);
  ASSERT_GE(o.launch[d2h], 0);
  EXPECT_EQ(o.ts[o.launch[d2h]], 200 * kPsPerUs);
  EXPECT_EQ(o.bytes_of(h2d), 4096);
  EXPECT_EQ(o.bytes_of(d2h), 8);
  EXPECT_EQ(o.bytes_of(fill), -1);
  EXPECT_EQ(o.launch[k2], -1);
  EXPECT_EQ(o.launch[fill], -1);
  EXPECT_EQ(p.stats.Get(ImportStat::gpu_op_without_launch), 2u);
  EXPECT_EQ(p.stats.Get(ImportStat::duplicate_correlation), 0u);
  // The flows' ends moved with their ops.
  for (const Flow& f : p.flows)
    if (f.phase == 't') {
      EXPECT_EQ(p.tracks[f.track].kind, TrackKind::kGpuStream);
    }
}

TEST(ChromeJson, RocprofCopyNamesAndHipArgs) {
  EXPECT_EQ(RocprofCopyOf("CopyHostToDevice").name, "Memcpy HtoD (CopyHostToDevice)");
  EXPECT_EQ(RocprofCopyOf("CopyDeviceToHost").name, "Memcpy DtoH (CopyDeviceToHost)");
  EXPECT_EQ(RocprofCopyOf("CopyDeviceToDevice").name, "Memcpy DtoD (CopyDeviceToDevice)");
  EXPECT_EQ(RocprofCopyOf("MEMORY_COPY_HOST_TO_DEVICE").name, "Memcpy HtoD (MEMORY_COPY_HOST_TO_DEVICE)");
  EXPECT_EQ(RocprofCopyOf("FillBuffer").kind, OpKind::kMemset);
  EXPECT_EQ(RocprofCopyOf("Copy").name, "Copy");
  EXPECT_EQ(RocprofCopyOf("Copy").kind, OpKind::kMemcpy);
  EXPECT_EQ(HipArgsSizeBytes("( dst(0x7f) src(0x74) sizeBytes(24) kind(1) stream(1))"), 24);
  EXPECT_EQ(HipArgsSizeBytes("( count(8))"), -1);
  EXPECT_EQ(HipArgsSizeBytes("( sizeBytes(x))"), -1);
  EXPECT_EQ(RocprofGpuLane("GPU12"), 12);
  EXPECT_EQ(RocprofGpuLane("GPU"), -1);
  EXPECT_EQ(RocprofGpuLane("GPU Barriers0"), -1);
  EXPECT_EQ(RocprofGpuLane("GPU 0"), -1);
}

// A copy that names no device, with two GPUs on the lanes: not guessed,
// left as a host event, and said.
TEST(ChromeJson, RocprofCopyWithoutDeviceIsNotGuessed) {
  auto r = Read(R"([
    {"ph":"M","name":"process_name","pid":1,"args":{"name":"COPY"}},
    {"ph":"M","name":"process_name","pid":6,"args":{"name":"GPU0"}},
    {"ph":"M","name":"process_name","pid":7,"args":{"name":"GPU1"}},
    {"ph":"X","name":"CopyHostToDevice","pid":"1","tid":"1","ts":"10","dur":"5"},
    {"ph":"X","name":"a","pid":"6","tid":"1","ts":"20","dur":"5"},
    {"ph":"X","name":"b","pid":"7","tid":"1","ts":"30","dur":"5"}])");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->format, TraceFormat::kRocprofJson);
  const int64_t copy = rocprof_json_test::Find(*r, "CopyHostToDevice");
  ASSERT_GE(copy, 0);
  EXPECT_EQ(r->ops.kind[copy], OpKind::kOther);
  ASSERT_EQ(r->sidecar_warnings.size(), 1u);
  EXPECT_NE(r->sidecar_warnings[0].find("1 rocprof COPY event names no device"), std::string::npos)
      << r->sidecar_warnings[0];
  EXPECT_EQ(r->ops.kind[rocprof_json_test::Find(*r, "a")], OpKind::kKernel);
  EXPECT_EQ(r->tracks[r->ops.track[rocprof_json_test::Find(*r, "b")]].device, 1);
}

// A trace no convention reads, whose process names say device lanes, is not
// a silent host-only profile: a warning names them. Traces with GPU work, or
// with no such names, get none; a Kineto trace whose GPU process is named
// "GPU0" keeps its categories.
TEST(ChromeJson, UnreadDeviceLanesAreNamed) {
  auto r = Read(R"([
    {"ph":"M","name":"process_name","pid":1,"args":{"name":"HIP GPU 0"}},
    {"ph":"M","name":"process_name","pid":2,"args":{"name":"CPU HSA API"}},
    {"ph":"M","name":"process_name","pid":3,"args":{"name":"python"}},
    {"ph":"X","name":"kernelA","pid":1,"tid":1,"ts":10,"dur":5},
    {"ph":"X","name":"kernelB","pid":1,"tid":1,"ts":20,"dur":5},
    {"ph":"X","name":"hsa_signal_wait","pid":2,"tid":9,"ts":10,"dur":5},
    {"ph":"X","name":"main","pid":3,"tid":3,"ts":0,"dur":50}])");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->unread_device_lane_events, 2);
  const std::string& w = r->unread_device_lanes;
  EXPECT_EQ(w, "process 'HIP GPU 0' (2 events) is") << w;
  EXPECT_EQ(w.find("CPU HSA API"), std::string::npos) << w;
  EXPECT_EQ(w.find("python"), std::string::npos) << w;

  auto host = Read(R"([{"ph":"X","name":"main","pid":3,"tid":3,"ts":0,"dur":50},
    {"ph":"M","name":"process_name","pid":3,"args":{"name":"python"}}])");
  ASSERT_TRUE(host.ok());
  EXPECT_EQ(host->unread_device_lane_events, 0);

  auto kineto = Read(R"([
    {"ph":"M","name":"process_name","pid":0,"args":{"name":"GPU0"}},
    {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":10,"dur":5,"args":{"device":0,"stream":7}},
    {"ph":"X","name":"marker","pid":0,"tid":8,"ts":10,"dur":5}])");
  ASSERT_TRUE(kineto.ok());
  EXPECT_EQ(kineto->format, TraceFormat::kChromeJsonArray);
  EXPECT_EQ(kineto->unread_device_lane_events, 0);
  EXPECT_EQ(kineto->ops.kind[rocprof_json_test::Find(*kineto, "marker")], OpKind::kOther);
  EXPECT_EQ(kineto->ops.kind[rocprof_json_test::Find(*kineto, "gemm")], OpKind::kKernel);
}

}  // namespace
}  // namespace mlprof
