// Memory over time (analysis/memory.h) on hand-made allocator events whose
// figures are worked out in the comments, and on HTA's V100 trace against a
// separate Python count of the same events (numbers in the test).
#include "analysis/memory.h"

#include <gtest/gtest.h>

#include "../../tests/corpus_util.h"
#include "../../tests/test_util.h"
#include "io/load.h"

namespace mlprof {
namespace {

using testing::ProfileFromJson;

// A device with 1000 bytes allocated before the trace. Step 1 runs 0-100 us.
// aten::linear (10-40) > aten::empty (12-14) allocates A: 300 bytes at 13;
// aten::relu (50-60) allocates B: 200 at 55; at 70 A is freed; at 80, under
// Optimizer.step, C: 500. Totals: 1300, 1500, 1200, 1700 (the peak, at 80 us).
// Alive at the peak: B (aten::relu, 200), C (Optimizer.step, 500); 1000
// before the trace. At 90 an event says 1650 after -100: the running sum says
// 1600, so one mismatch. The CPU events carry no totals (old schema): their
// running sum peaks at 64.
std::string MemoryTrace() {
  auto mem = [](int ts, int bytes, long total, long addr, int type = 1, int id = 0) {
    std::string a = "\"Device Type\": " + std::to_string(type) + ", \"Device Id\": " + std::to_string(id) +
                    ", \"Bytes\": " + std::to_string(bytes);
    if (total >= 0)
      a += ", \"Total Allocated\": " + std::to_string(total) +
           ", \"Total Reserved\": 4096, \"Addr\": " + std::to_string(addr);
    return "{\"ph\": \"i\", \"s\": \"t\", \"name\": \"[memory]\", \"cat\": \"cpu_instant_event\", \"pid\": 1, "
           "\"tid\": 1, \"ts\": " +
           std::to_string(ts) + ", \"args\": {" + a + "}},";
  };
  auto op = [](const char* name, int ts, int dur, const char* cat = "cpu_op") {
    return std::string("{\"ph\": \"X\", \"cat\": \"") + cat + "\", \"name\": \"" + name +
           "\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(ts) + ", \"dur\": " + std::to_string(dur) + "},";
  };
  std::string t = "{\"traceEvents\": [";
  t += op("ProfilerStep#1", 0, 100, "user_annotation");
  t += op("aten::linear", 10, 30) + op("aten::empty", 12, 2) + op("aten::relu", 50, 10) + op("Optimizer.step", 75, 10);
  t += mem(13, 300, 1300, 0xA) + mem(55, 200, 1500, 0xB) + mem(70, -300, 1200, 0xA) + mem(80, 500, 1700, 0xC);
  t += mem(90, -100, 1650, 0xB);
  t += mem(20, 64, -1, 0, 0, -1) + mem(30, -16, -1, 0, 0, -1) + mem(35, 8, -1, 0, 0, -1);
  t += op("end", 99, 1);
  t.pop_back();
  return t + "]}";
}

TEST(Memory, PeakAliveBlocksAllocatorsAndMismatches) {
  const Profile p = ProfileFromJson(MemoryTrace());
  const std::vector<DeviceMemory> m = ComputeMemory(p);
  ASSERT_EQ(m.size(), 2u);
  const DeviceMemory& cpu = m[0];
  const DeviceMemory& gpu = m[1];
  EXPECT_EQ(cpu.device, "cpu");
  EXPECT_FALSE(cpu.has_totals);
  EXPECT_EQ(cpu.peak, -1);
  EXPECT_EQ(cpu.peak_net, 64);
  EXPECT_EQ(cpu.events, 3);

  EXPECT_EQ(gpu.device, "cuda:0");
  EXPECT_TRUE(gpu.has_totals);
  EXPECT_EQ(gpu.events, 5);
  EXPECT_EQ(gpu.allocs, 3);
  EXPECT_EQ(gpu.frees, 2);
  EXPECT_EQ(gpu.allocated_bytes, 1000);
  EXPECT_EQ(gpu.freed_bytes, 400);
  EXPECT_EQ(gpu.before_trace, 1000);
  EXPECT_EQ(gpu.peak, 1700);
  EXPECT_EQ(gpu.peak_ts, 80 * kPsPerUs);
  EXPECT_EQ(gpu.peak_step, 1);
  EXPECT_EQ(gpu.peak_reserved, 4096);
  EXPECT_EQ(gpu.end_allocated, 1650);
  EXPECT_EQ(gpu.peak_net, 700);  // 300 + 200 - 300 + 500
  EXPECT_EQ(gpu.mismatches, 1);
  EXPECT_EQ(gpu.first_mismatch_ts, 90 * kPsPerUs);
  EXPECT_EQ(gpu.alive_known, 700);
  ASSERT_EQ(gpu.alive_at_peak.size(), 2u);
  EXPECT_EQ(gpu.alive_at_peak[0].op, "Optimizer.step");
  EXPECT_EQ(gpu.alive_at_peak[0].bytes, 500);
  EXPECT_EQ(gpu.alive_at_peak[1].op, "aten::relu");
  EXPECT_EQ(gpu.alive_at_peak[1].bytes, 200);
  ASSERT_EQ(gpu.allocators.size(), 3u);
  EXPECT_EQ(gpu.allocators[1].op, "aten::linear");
  EXPECT_EQ(gpu.allocators[1].inner, "aten::empty");
  EXPECT_EQ(gpu.allocators[1].bytes, 300);
  ASSERT_EQ(gpu.series.size(), 5u);
  EXPECT_EQ(gpu.series[2].second, 1200);
}

// Totals from the first event that has them: 100 bytes (no totals), then
// 50 with Total Allocated 1150, so 1000 were there before the trace. Byte
// counts past 2^50 (9e18, 1e300) are skipped and counted, not summed.
TEST(Memory, TotalsFromTheFirstEventWithThemAndAbsurdBytes) {
  const Profile p = ProfileFromJson(R"J({"traceEvents": [
    {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 1,
     "args": {"Device Type": 1, "Device Id": 0, "Bytes": 100, "Addr": 1}},
    {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 2,
     "args": {"Device Type": 1, "Device Id": 0, "Bytes": 50, "Total Allocated": 1150, "Addr": 2}},
    {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 3,
     "args": {"Device Type": 1, "Device Id": 0, "Bytes": 9000000000000000000, "Total Allocated": 1150}},
    {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 4,
     "args": {"Device Type": 1, "Device Id": 0, "Bytes": 1e300}},
    {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 5,
     "args": {"Device Type": 1, "Device Id": 0, "Bytes": -100, "Total Allocated": 1050, "Addr": 1}}]})J");
  const std::vector<DeviceMemory> m = ComputeMemory(p);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_TRUE(m[0].has_totals);
  EXPECT_EQ(m[0].before_trace, 1000);
  EXPECT_EQ(m[0].skipped, 2);
  EXPECT_EQ(m[0].events, 3);
  EXPECT_EQ(m[0].allocated_bytes, 150);
  EXPECT_EQ(m[0].mismatches, 0);
  EXPECT_EQ(m[0].peak, 1150);
  ASSERT_EQ(m[0].series.size(), 3u);
  EXPECT_EQ(m[0].series[0].second, 1100);  // the running total, not the window's own sum
  EXPECT_EQ(m[0].alive_known, 150);
}

TEST(Memory, NoAllocatorEvents) {
  const Profile p = ProfileFromJson(R"J({"traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1,
                                         "dur": 2}]})J");
  EXPECT_TRUE(ComputeMemory(p).empty());
}

// HTA's V100 trace (rank 1, 26,770 CUDA allocator events). Reference, from
// the trace by a separate Python script (json, events sorted by ts): peak
// Total Allocated 6,629,508,096 at ts 1669783687579130; 13,385 allocations
// of 52,469,120,000 bytes; Total Reserved at most 12,782,141,440; 4,096,614,400
// allocated before the first event; 725 blocks of 2,532,893,696 bytes alive
// at the peak by Addr. The running sum equals Total Allocated at every event.
TEST(MemoryCorpus, HtaV100MatchesAPythonCount) {
  MLPROF_CORPUS_FILE(path, "kineto/hta_v100_ws2_rank1_nccl/df_index_resolver.json.gz");
  auto p = LoadProfile({path}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  const std::vector<DeviceMemory> m = ComputeMemory(*p);
  const DeviceMemory* cuda = nullptr;
  for (const DeviceMemory& d : m)
    if (d.device == "cuda:1") cuda = &d;
  ASSERT_NE(cuda, nullptr);
  EXPECT_EQ(cuda->events, 26770);
  EXPECT_EQ(cuda->mismatches, 0);
  EXPECT_EQ(cuda->peak, 6629508096);
  EXPECT_EQ(static_cast<Ps128>(cuda->peak_ts) + p->ranks[0].origin_abs_ps, Ps128{1669783687579130} * kPsPerUs);
  EXPECT_EQ(cuda->allocs, 13385);
  EXPECT_EQ(cuda->allocated_bytes, 52469120000);
  EXPECT_EQ(cuda->peak_reserved, 12782141440);
  EXPECT_EQ(cuda->before_trace, 4096614400);
  EXPECT_EQ(cuda->alive_known, 2532893696);
  int64_t blocks = 0;
  for (const MemorySite& s : cuda->alive_at_peak) blocks += s.count;
  EXPECT_EQ(blocks, 725);
  // Every byte of the peak is placed: before the trace or alive by address.
  EXPECT_EQ(cuda->before_trace + cuda->alive_known, cuda->peak);
}

// torch.profiler's raw memory timeline, summed per category as HTA's
// MemoryAnalysis._process_raw_events does. Hand-made: a parameter of 100
// bytes before the profile (ts -1), an activation of 50 at 2000 ns, a
// version bump of the parameter (-100 then +100 in category Parameter) and a
// gradient of 30 at 3000 ns, the activation freed at 4000 ns. Total 100,
// 150, 180 (the peak, at 3000 ns), 130.
TEST(MemoryTimeline, CategoriesAtThePeak) {
  auto r = LoadTraceBytes(
      "[[-1, 1, 100, 0], [2000, 2, 50, 4], [3000, 3, -100, 0], [3000, 3, 100, 0], "
      "[3000, 2, 30, 5], [4000, 4, -50, 4]]",
      "m.raw.json");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->format, TraceFormat::kTorchMemoryTimeline);
  Profile p;
  p.ranks.push_back(std::move(*r));
  const std::vector<CategoryMemory> m = ComputeMemoryCategories(p);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].peak, 180);
  EXPECT_EQ(m[0].peak_ts, 1000 * 1000);  // 3000 ns from the first event's 2000 ns (-1 becomes 2000)
  ASSERT_EQ(m[0].categories.size(), 8u);
  EXPECT_EQ(m[0].categories[0].name, "Parameter");
  EXPECT_EQ(m[0].categories[0].at_peak, 100);
  EXPECT_EQ(m[0].categories[4].at_peak, 50);
  EXPECT_EQ(m[0].categories[4].end, 0);
  EXPECT_EQ(m[0].categories[5].at_peak, 30);
  // An event that is not [ts, action, bytes, category]: the file and its index.
  auto bad = LoadTraceBytes("[[-1, 1, 100, 0], [5, 9, 1, 0]]", "bad.raw.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("bad.raw.json: memory event 1 is not"), std::string::npos)
      << bad.status().message();
}

// HTA's memory timeline fixture: the reference is HTA's own summing loop
// (MemoryAnalysis._process_raw_events) run in Python over the same file:
// 7,721 timestamps; the total peaks at 3,082,832,104 bytes at ts
// 1696966047194486198 with Activation 2,592,465,920 and Parameter
// 102,440,608; Activation's own largest is 2,746,497,024.
TEST(MemoryTimelineCorpus, HtaFixtureEqualsHtasLoop) {
  MLPROF_CORPUS_FILE(path, "kineto/hta_memory_timeline/memory_timeline.raw.gz");
  auto p = LoadProfile({path}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->ranks[0].counters.size(), 7721u * 9);
  const std::vector<CategoryMemory> m = ComputeMemoryCategories(*p);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].peak, 3082832104);
  EXPECT_EQ(static_cast<Ps128>(m[0].peak_ts) + p->ranks[0].origin_abs_ps, Ps128{1696966047194486198} * 1000);
  EXPECT_EQ(m[0].categories[4].name, "Activation");
  EXPECT_EQ(m[0].categories[4].at_peak, 2592465920);
  EXPECT_EQ(m[0].categories[4].max, 2746497024);
  EXPECT_EQ(m[0].categories[0].at_peak, 102440608);
}

}  // namespace
}  // namespace mlprof
