// mlprof_gen: writes deterministic synthetic Kineto traces, one per rank.
//   mlprof_gen --out DIR [--ranks 2] [--steps 4] [--layers 4] [--size-mb N] [--gzip] [--seed 1]
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "trace_synth.h"

namespace {

int Usage() {
  std::fprintf(stderr,
               "usage: mlprof_gen --out DIR [--ranks N] [--steps N] [--layers N] [--size-mb N] [--gzip] [--seed N]\n"
               "Writes DIR/rank-<r>.json (or .json.gz): deterministic synthetic PyTorch profiler traces.\n");
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
  std::string out;
  int ranks = 2;
  bool gzip = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (a == "--gzip")
      gzip = true;
    else if (a == "--out" && (v = next()))
      out = v;
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
