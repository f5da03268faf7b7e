#include "analysis/summaries.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace mlprof {
namespace {

// Rows of `groups` (name -> values), largest total first (ties: name), with
// each row's share of all rows' total.
template <typename Key>
std::vector<SummaryRow> Rows(int64_t rank, std::map<Key, std::vector<double>>& groups, std::string (*name)(const Key&),
                             std::string (*style)(const Key&)) {
  std::vector<SummaryRow> out;
  double all = 0;
  for (auto& [key, v] : groups) {
    SummaryRow r;
    r.rank = rank;
    r.name = name(key);
    r.style = style ? style(key) : "";
    r.time = DescribeValues(std::move(v));
    all += r.time.sum;
    out.push_back(std::move(r));
  }
  for (SummaryRow& r : out) r.pct = all > 0 ? 100 * r.time.sum / all : 0;
  std::sort(out.begin(), out.end(), [](const SummaryRow& a, const SummaryRow& b) {
    return a.time.sum != b.time.sum ? a.time.sum > b.time.sum : a.name < b.name;
  });
  return out;
}

std::string Same(const std::string& s) { return s; }
std::string First(const std::pair<std::string, std::string>& k) { return k.first; }
std::string Second(const std::pair<std::string, std::string>& k) { return k.second; }

}  // namespace

std::string MemOperation(std::string_view name, OpKind kind) {
  if (kind == OpKind::kMemset) return "[CUDA memset]";
  if (kind != OpKind::kMemcpy) return "";
  static constexpr std::pair<std::string_view, std::string_view> kKinds[] = {
      {"HtoD", "Host-to-Device"},  {"DtoH", "Device-to-Host"}, {"DtoD", "Device-to-Device"}, {"HtoH", "Host-to-Host"},
      {"PtoP", "Peer-to-Peer"},    {"HtoA", "Host-to-Array"},  {"AtoH", "Array-to-Host"},    {"AtoA", "Array-to-Array"},
      {"AtoD", "Array-to-Device"}, {"DtoA", "Device-to-Array"}};
  for (const auto& [abbr, full] : kKinds)
    if (name.find(abbr) != std::string_view::npos) return "[CUDA memcpy " + std::string(full) + "]";
  return "[CUDA memcpy]";
}

Summaries ComputeSummaries(const Profile& profile) {
  Summaries out;
  for (size_t ri = 0; ri < profile.ranks.size(); ++ri) {
    const RankProfile& p = profile.ranks[ri];
    const int64_t rank = p.rank_or(static_cast<int64_t>(ri));
    const OpTable& o = p.ops;
    // Grouped by interned name (no string per op), named once per group.
    std::map<StringId, std::vector<double>> kernels, api;
    std::map<std::string, std::vector<double>> mem_time, mem_size;  // by nsys operation
    std::map<std::pair<StringId, bool>, std::vector<double>> nvtx;  // (name, start/end)
    struct Exec {
      std::vector<double> api, queue, kernel;
    };
    std::map<std::pair<StringId, StringId>, Exec> exec_by_id;  // (api, kernel)
    for (size_t i = 0; i < o.size(); ++i) {
      const OpKind k = o.kind[i];
      const auto dur = static_cast<double>(o.dur[i]);
      if (k == OpKind::kKernel) {
        kernels[o.name[i]].push_back(dur);
        if (o.launch[i] >= 0) {
          const auto l = static_cast<size_t>(o.launch[i]);
          Exec& e = exec_by_id[{o.name[l], o.name[i]}];
          e.api.push_back(static_cast<double>(o.dur[l]));
          e.queue.push_back(static_cast<double>(std::max<Ps>(0, o.ts[i] - (o.ts[l] + o.dur[l]))));
          e.kernel.push_back(dur);
        }
      } else if (k == OpKind::kRuntime || k == OpKind::kDriver) {
        api[o.name[i]].push_back(dur);
      } else if (k == OpKind::kMemcpy || k == OpKind::kMemset) {
        const std::string op = MemOperation(p.str(o.name[i]), k);
        mem_time[op].push_back(dur);
        if (o.bytes_of(i) >= 0) mem_size[op].push_back(static_cast<double>(o.bytes_of(i)));
      } else if (k == OpKind::kUserAnnotation) {
        // Start/end NVTX ranges sit on a track of their own (io/nsys.cc).
        const int64_t tid = p.tracks[o.track[i]].tid;
        nvtx[{o.name[i], tid >= (int64_t{1} << 32) && tid < kStringIdBase}].push_back(dur);
      }
    }
    auto named = [&](std::map<StringId, std::vector<double>>& by_id) {
      std::map<std::string, std::vector<double>> out_map;
      for (auto& [id, v] : by_id) out_map[std::string(p.str(id))] = std::move(v);
      return out_map;
    };
    auto emit = [&](std::map<std::string, std::vector<double>> src, std::vector<SummaryRow>& dst) {
      for (SummaryRow& r : Rows<std::string>(rank, src, Same, nullptr)) dst.push_back(std::move(r));
    };
    emit(named(kernels), out.kernels);
    emit(named(api), out.api);
    emit(std::move(mem_time), out.mem_time);
    emit(std::move(mem_size), out.mem_size);
    std::map<std::pair<std::string, std::string>, std::vector<double>> nvtx_named;  // (name, style)
    for (auto& [key, v] : nvtx)
      nvtx_named[{std::string(p.str(key.first)), key.second ? "StartEnd" : "PushPop"}] = std::move(v);
    for (SummaryRow& r : Rows<std::pair<std::string, std::string>>(rank, nvtx_named, First, Second))
      out.nvtx.push_back(std::move(r));
    std::map<std::pair<std::string, std::string>, Exec> exec;
    for (auto& [key, e] : exec_by_id)
      exec[{std::string(p.str(key.first)), std::string(p.str(key.second))}] = std::move(e);
    std::vector<KernExecRow> rows;
    for (auto& [key, e] : exec) {
      KernExecRow r;
      r.rank = rank;
      r.api = key.first, r.kernel = key.second;
      r.api_time = DescribeValues(std::move(e.api));
      r.queue = DescribeValues(std::move(e.queue));
      r.kernel_time = DescribeValues(std::move(e.kernel));
      rows.push_back(std::move(r));
    }
    std::sort(rows.begin(), rows.end(), [](const KernExecRow& a, const KernExecRow& b) {
      return a.kernel_time.sum != b.kernel_time.sum ? a.kernel_time.sum > b.kernel_time.sum
                                                    : std::tie(a.kernel, a.api) < std::tie(b.kernel, b.api);
    });
    for (KernExecRow& r : rows) out.kern_exec.push_back(std::move(r));
  }
  return out;
}

}  // namespace mlprof
