// Google Benchmark of trace ingest (decode + parse + build) and of the HTA
// analyses, on a deterministic synthetic Kineto trace held in memory.
// Size: MLPROF_BENCH_MB (default 64; the XPlane and HLO inputs use a quarter). Each benchmark checks the answer (event
// count, rank) before timing and reports bytes/s and events/s.
#include <benchmark/benchmark.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdlib>
#include <string>

#include "analysis/gpu_time.h"
#include "analysis/idle.h"
#include "hlo/text_parser.h"
#include "hw/chip.h"
#include "io/load.h"
#include "plan/planner.h"
#include "trace_synth.h"
#include "xla_synth.h"

namespace {

struct Input {
  std::string json;
  mlprof::synth::SynthStats stats;
};

const Input& GetInput() {
  static Input in = [] {
    Input i;
    const char* mb = std::getenv("MLPROF_BENCH_MB");
    mlprof::synth::SynthOptions o;
    o.target_bytes = static_cast<uint64_t>(mb ? std::atoll(mb) : 64) << 20;
    i.json = mlprof::synth::MakeKinetoTrace(o, &i.stats);
    return i;
  }();
  return in;
}

std::string Gzip(const std::string& s) {
  z_stream zs{};  // gzip wrapper (window bits 15 + 16)
  deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out;
  out.assign(deflateBound(&zs, s.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(s.data()));
  zs.avail_in = static_cast<uInt>(s.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

bool Check(benchmark::State& state, const mlprof::StatusOr<mlprof::RankProfile>& p, uint64_t want_events) {
  if (!p.ok()) {
    state.SkipWithError(p.status().message().c_str());
    return false;
  }
  uint64_t got = 0;
  for (uint64_t c : p->phase_counts) got += c;
  // Metadata (M) events are counted too; every generated entry has a phase.
  if (got != want_events) {
    state.SkipWithError("event count mismatch");
    return false;
  }
  return true;
}

void BM_IngestJson(benchmark::State& state) {
  const Input& in = GetInput();
  if (!Check(state, mlprof::LoadTraceBytes(in.json, "bench.json"), in.stats.events)) return;
  for (auto _ : state) {
    auto p = mlprof::LoadTraceBytes(in.json, "bench.json");
    benchmark::DoNotOptimize(p);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * in.json.size()));
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(in.stats.events), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["MB"] = static_cast<double>(in.json.size()) / (1 << 20);
}
BENCHMARK(BM_IngestJson)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_IngestGzip(benchmark::State& state) {
  const Input& in = GetInput();
  static const std::string gz = Gzip(in.json);
  if (!Check(state, mlprof::LoadTraceBytes(gz, "bench.json.gz"), in.stats.events)) return;
  for (auto _ : state) {
    auto p = mlprof::LoadTraceBytes(gz, "bench.json.gz");
    benchmark::DoNotOptimize(p);
  }
  // Throughput in uncompressed JSON bytes.
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * in.json.size()));
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(in.stats.events), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_IngestGzip)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Analyses(benchmark::State& state) {
  const Input& in = GetInput();
  auto p = mlprof::LoadTraceBytes(in.json, "bench.json");
  if (!Check(state, p, in.stats.events)) return;
  mlprof::Profile profile;
  profile.ranks.push_back(std::move(p).value());
  for (auto _ : state) {
    mlprof::ProfileView v = mlprof::BuildProfileView(profile, {});
    auto t = mlprof::ComputeTemporalBreakdown(v);
    auto o = mlprof::ComputeOverlap(v);
    auto k = mlprof::ComputeKernelBreakdown(v, {});
    auto i = mlprof::ComputeIdleBreakdown(v, {});
    benchmark::DoNotOptimize(t);
    benchmark::DoNotOptimize(o);
    benchmark::DoNotOptimize(k);
    benchmark::DoNotOptimize(i);
  }
  state.counters["events/s"] =
      benchmark::Counter(static_cast<double>(in.stats.events), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Analyses)->Unit(benchmark::kMillisecond)->UseRealTime();

uint64_t QuarterBytes() {
  const char* mb = std::getenv("MLPROF_BENCH_MB");
  return (static_cast<uint64_t>(mb ? std::atoll(mb) : 64) << 20) / 4;
}

// XPlane ingest (protobuf decode + model build) of a synthetic TPU profile.
void BM_IngestXPlane(benchmark::State& state) {
  static mlprof::synth::XSpaceStats st;
  static const std::string bytes = [] {
    mlprof::synth::XSpaceOptions o;
    o.target_bytes = QuarterBytes();
    return mlprof::synth::MakeXSpace(o, &st);
  }();
  auto check = mlprof::LoadTraceBytes(bytes, "bench.xplane.pb");
  if (!check.ok() || check->ops.size() != st.device_events + st.host_events) {
    state.SkipWithError(check.ok() ? "event count mismatch" : check.status().message().c_str());
    return;
  }
  for (auto _ : state) {
    auto p = mlprof::LoadTraceBytes(bytes, "bench.xplane.pb");
    benchmark::DoNotOptimize(p);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes.size()));
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(st.device_events + st.host_events),
                                                  benchmark::Counter::kIsIterationInvariantRate);
  state.counters["MB"] = static_cast<double>(bytes.size()) / (1 << 20);
}
BENCHMARK(BM_IngestXPlane)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same XSpace read from a file the way `mlprof` reads it (LoadProfile:
// a memory-mapped file, no copy), on one thread.
void BM_IngestXPlaneFile(benchmark::State& state) {
  mlprof::synth::XSpaceStats st;
  mlprof::synth::XSpaceOptions o;
  o.target_bytes = QuarterBytes();
  const std::string bytes = mlprof::synth::MakeXSpace(o, &st);
  char path[] = "/tmp/mlprof_bench_XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0 || write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) {
    state.SkipWithError("cannot write a temporary file");
    return;
  }
  close(fd);
  mlprof::LoadOptions lo;
  lo.threads = 1;
  auto check = mlprof::LoadProfile({path}, lo);
  if (!check.ok() || check->ranks.size() != 1 || check->ranks[0].ops.size() != st.device_events + st.host_events) {
    state.SkipWithError(check.ok() ? "event count mismatch" : check.status().message().c_str());
    unlink(path);
    return;
  }
  for (auto _ : state) {
    auto p = mlprof::LoadProfile({path}, lo);
    benchmark::DoNotOptimize(p);
  }
  unlink(path);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes.size()));
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(st.device_events + st.host_events),
                                                  benchmark::Counter::kIsIterationInvariantRate);
  state.counters["MB"] = static_cast<double>(bytes.size()) / (1 << 20);
}
BENCHMARK(BM_IngestXPlaneFile)->Unit(benchmark::kMillisecond)->UseRealTime();

// HLO text parse of a synthetic after-optimisation TPU module.
void BM_ParseHloText(benchmark::State& state) {
  static mlprof::synth::HloTextStats st;
  static const std::string text = [] {
    mlprof::synth::HloTextOptions o;
    o.target_bytes = QuarterBytes();
    return mlprof::synth::MakeHloText(o, &st);
  }();
  auto check = mlprof::hlo::ParseHloText(text, "bench.hlo");
  if (!check.ok() || (*check)[0].instruction_count() != st.instructions) {
    state.SkipWithError(check.ok() ? "instruction count mismatch" : check.status().message().c_str());
    return;
  }
  for (auto _ : state) {
    auto m = mlprof::hlo::ParseHloText(text, "bench.hlo");
    benchmark::DoNotOptimize(m);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
  state.counters["instructions/s"] =
      benchmark::Counter(static_cast<double>(st.instructions), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["MB"] = static_cast<double>(text.size()) / (1 << 20);
}
BENCHMARK(BM_ParseHloText)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();

// The planner's full search: every TP/CP/PP/FSDP/DP/EP/V/micro-batch split
// of the cluster and every remat policy not dominated, memory and time
// computed for each. Counter: plans evaluated per second (one thread).
static void PlanSearchBench(benchmark::State& state, const char* model, const char* chip, int64_t chips,
                            int64_t batch) {
  auto db = mlprof::hw::ChipDb::WithFiles({});
  auto c = db->Find(chip);
  auto m = mlprof::plan::BuiltInModel(model);
  if (!db.ok() || !c || !m.ok()) {
    state.SkipWithError("no chip or model");
    return;
  }
  mlprof::plan::Cluster cl = mlprof::plan::MakeCluster(*c, chips, 0, {});
  mlprof::plan::TrainSpec t;
  t.global_batch = batch;
  t.seq = m->seq_len;
  mlprof::plan::Knobs k;
  int64_t plans = 0;
  for (auto _ : state) {
    auto s = mlprof::plan::SearchPlans(*m, cl, t, k, {});
    plans += s.evaluated;
    benchmark::DoNotOptimize(s.plans.data());
  }
  state.counters["plans_per_s"] = benchmark::Counter(static_cast<double>(plans), benchmark::Counter::kIsRate);
}
static void BM_PlanSearchLlama70B(benchmark::State& state) {
  PlanSearchBench(state, "llama3-70b", "h100-sxm", 1024, 1024);
}
BENCHMARK(BM_PlanSearchLlama70B)->Unit(benchmark::kMillisecond)->UseRealTime();
static void BM_PlanSearchDeepSeekV3(benchmark::State& state) {
  PlanSearchBench(state, "deepseek-v3", "h100-sxm", 2048, 3840);
}
BENCHMARK(BM_PlanSearchDeepSeekV3)->Unit(benchmark::kMillisecond)->UseRealTime();
