// mlprof_gen: writes deterministic synthetic Kineto traces, one per rank, or
// a synthetic JAX TPU XSpace / a large HLO text module (bench/xla_synth.h).
//   mlprof_gen --out DIR [--ranks 2] [--steps 4] [--layers 4] [--size-mb N] [--gzip] [--seed 1]
//   mlprof_gen --xplane FILE [--size-mb N] [--devices 4] [--seed 1]
//   mlprof_gen --trace-json FILE[.gz] [--size-mb N] [--devices 4] [--seed 1]
//   mlprof_gen --hlo FILE [--size-mb N]
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "trace_synth.h"
#include "xla_synth.h"

namespace {

int Usage() {
  std::fprintf(stderr,
               "usage: mlprof_gen --out DIR [--ranks N] [--steps N] [--layers N] [--size-mb N] [--gzip] [--seed N]\n"
               "       mlprof_gen --xplane FILE [--size-mb N] [--devices N] [--seed N]\n"
               "       mlprof_gen --trace-json FILE[.gz] [--size-mb N] [--devices N] [--seed N]\n"
               "       mlprof_gen --hlo FILE [--size-mb N]\n"
               "Writes DIR/rank-<r>.json (or .json.gz): deterministic synthetic PyTorch profiler traces;\n"
               "or a synthetic JAX TPU profile (.xplane.pb), the same profile as xprof's trace viewer\n"
               "exports it (trace.json; --size-mb sizes the XSpace), or an after-optimisation HLO text module.\n");
  return 1;
}

bool WriteFile(const std::string& path, const std::string& data, bool gzip) {
  if (gzip) {
    gzFile f = gzopen(path.c_str(), "wb6");
    if (!f) return false;
    size_t off = 0;
    while (off < data.size()) {
      unsigned chunk = static_cast<unsigned>(std::min<size_t>(data.size() - off, 1u << 30));
      if (gzwrite(f, data.data() + off, chunk) != static_cast<int>(chunk)) return gzclose(f), false;
      off += chunk;
    }
    return gzclose(f) == Z_OK;
  }
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size();
  return std::fclose(f) == 0 && ok;
}

}  // namespace

int main(int argc, char** argv) {
  mlprof::synth::SynthOptions o;
  std::string out, xplane, trace_json, hlo;
  int ranks = 2, devices = 4;
  bool gzip = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (a == "--gzip")
      gzip = true;
    else if (a == "--out" && (v = next()))
      out = v;
    else if (a == "--xplane" && (v = next()))
      xplane = v;
    else if (a == "--trace-json" && (v = next()))
      trace_json = v;
    else if (a == "--hlo" && (v = next()))
      hlo = v;
    else if (a == "--devices" && (v = next()))
      devices = std::atoi(v);
    else if (a == "--ranks" && (v = next()))
      ranks = std::atoi(v);
    else if (a == "--steps" && (v = next()))
      o.steps = std::atoi(v);
    else if (a == "--layers" && (v = next()))
      o.layers = std::atoi(v);
    else if (a == "--seed" && (v = next()))
      o.seed = std::strtoull(v, nullptr, 10);
    else if (a == "--size-mb" && (v = next()))
      o.target_bytes = std::strtoull(v, nullptr, 10) << 20;
    else
      return Usage();
  }
  if (!xplane.empty() || !trace_json.empty() || !hlo.empty()) {
    const uint64_t bytes = o.target_bytes ? o.target_bytes : uint64_t{64} << 20;
    if ((!xplane.empty() || !trace_json.empty()) && devices < 1) return Usage();
    mlprof::synth::XSpaceOptions x;  // one profile, written as XSpace and/or trace-viewer JSON
    x.target_bytes = bytes;
    x.devices = devices;
    x.seed = o.seed;
    if (!xplane.empty()) {
      mlprof::synth::XSpaceStats st;
      std::string data = mlprof::synth::MakeXSpace(x, &st);
      if (!WriteFile(xplane, data, false))
        return std::fprintf(stderr, "mlprof_gen: cannot write %s\n", xplane.c_str()), 2;
      std::printf("%s: %zu bytes, %d steps, %llu XLA Ops events, %llu host events\n", xplane.c_str(), data.size(),
                  st.steps, static_cast<unsigned long long>(st.xla_op_events),
                  static_cast<unsigned long long>(st.host_events));
    }
    if (!trace_json.empty()) {
      mlprof::synth::XSpaceStats st;
      std::string data = mlprof::synth::MakeTraceViewerJson(x, &st);
      const bool gz = gzip || (trace_json.size() > 3 && trace_json.substr(trace_json.size() - 3) == ".gz");
      if (!WriteFile(trace_json, data, gz))
        return std::fprintf(stderr, "mlprof_gen: cannot write %s\n", trace_json.c_str()), 2;
      std::printf("%s: %zu bytes of JSON, %d steps, %llu XLA Ops events, %llu host events\n", trace_json.c_str(),
                  data.size(), st.steps, static_cast<unsigned long long>(st.xla_op_events),
                  static_cast<unsigned long long>(st.host_events));
    }
    if (!hlo.empty()) {
      mlprof::synth::HloTextOptions h;
      h.target_bytes = bytes;
      mlprof::synth::HloTextStats st;
      std::string data = mlprof::synth::MakeHloText(h, &st);
      if (!WriteFile(hlo, data, false)) return std::fprintf(stderr, "mlprof_gen: cannot write %s\n", hlo.c_str()), 2;
      std::printf("%s: %zu bytes, %llu computations, %llu instructions\n", hlo.c_str(), data.size(),
                  static_cast<unsigned long long>(st.computations), static_cast<unsigned long long>(st.instructions));
    }
    return 0;
  }
  if (out.empty() || ranks < 1 || o.steps < 1 || o.layers < 1) return Usage();
  std::filesystem::create_directories(out);
  o.world_size = ranks;
  for (int r = 0; r < ranks; ++r) {
    o.rank = r;
    mlprof::synth::SynthStats st;
    std::string json = mlprof::synth::MakeKinetoTrace(o, &st);
    std::string path = out + "/rank-" + std::to_string(r) + (gzip ? ".json.gz" : ".json");
    if (!WriteFile(path, json, gzip)) {
      std::fprintf(stderr, "mlprof_gen: cannot write %s\n", path.c_str());
      return 2;
    }
    std::printf("%s: %zu bytes of JSON, %llu events, %d steps\n", path.c_str(), json.size(),
                static_cast<unsigned long long>(st.events), st.steps);
  }
  return 0;
}
