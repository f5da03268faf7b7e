// Google Benchmark of trace ingest (decode + parse + build) and of the HTA
// analyses, on a deterministic synthetic Kineto trace held in memory.
// Size: MLPROF_BENCH_MB (default 64). Each benchmark checks the answer (event
// count, rank) before timing and reports bytes/s and events/s.
#include <benchmark/benchmark.h>
#include <zlib.h>

#include <cstdlib>
#include <string>

#include "analysis/gpu_time.h"
#include "analysis/idle.h"
#include "io/load.h"
#include "trace_synth.h"

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

}  // namespace

BENCHMARK_MAIN();
