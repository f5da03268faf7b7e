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

    // torch_npu's op_statistic: kernels with an OP Type, by (type, core).
    const StringId op_type = p.strings.Find("OP Type"), core = p.strings.Find("Accelerator Core");
    if (op_type != StringPool::kNotFound) {
      std::map<std::pair<std::string, std::string>, std::vector<double>> by_type;
      for (size_t i = 0; i < o.size(); ++i) {
        if (o.kind[i] != OpKind::kKernel) continue;
        const ArgValue* t = p.args.Find(ArgOwner::kOp, static_cast<uint32_t>(i), op_type);
        if (!t || t->type != ArgType::kString) continue;
        const ArgValue* c =
            core == StringPool::kNotFound ? nullptr : p.args.Find(ArgOwner::kOp, static_cast<uint32_t>(i), core);
        const std::string core_type = c && c->type == ArgType::kString ? std::string(p.str(c->s)) : "";
        if (core_type == "HCCL") continue;
        by_type[{std::string(p.str(t->s)), core_type}].push_back(static_cast<double>(o.dur[i]));
      }
      for (SummaryRow& r : Rows<std::pair<std::string, std::string>>(rank, by_type, First, Second))
        out.op_statistic.push_back(std::move(r));
    }
    for (const CommOpStat& c : p.comm_ops) {
      HcclOpRow r;
      r.rank = rank, r.step = c.step;
      r.name = p.str(c.name);
      r.kind = c.p2p ? "p2p" : "collective";
      r.has_start = c.has_start;
      r.start = c.start, r.elapse = c.elapse, r.transit = c.transit, r.wait = c.wait, r.sync = c.sync, r.idle = c.idle;
      auto ratio = [&](Ps part) {
        return part >= 0 && c.transit >= 0 && part + c.transit > 0
                   ? static_cast<double>(part) / static_cast<double>(part + c.transit)
                   : -1.0;
      };
      r.wait_ratio = ratio(c.wait);
      r.sync_ratio = ratio(c.sync);
      if (c.op >= 0) r.trace_dur = o.dur[c.op];
      out.hccl_ops.push_back(std::move(r));
    }
    for (int pass = 0; pass < 2; ++pass)
      for (const LinkTransfer& l : p.links) {
        if ((l.comm_op >= 0) != (pass == 0)) continue;
        HcclLinkRow r;
        r.rank = rank, r.step = l.step;
        r.source = l.comm_op >= 0 ? "op" : "matrix";
        r.group = l.comm_op >= 0 ? std::string(p.str(p.comm_ops[l.comm_op].name)) : std::string(p.str(l.group));
        r.op = p.str(l.op_name);
        r.src = l.src, r.dst = l.dst;
        r.transport = p.str(l.transport);
        r.megabytes = l.megabytes;
        r.time = l.time;
        r.gbps = l.time > 0 ? l.megabytes / (static_cast<double>(l.time) / kPsPerMs) : -1;
        r.reported_gbps = l.reported_gbps;
        out.hccl_links.push_back(std::move(r));
      }
  }
  return out;
}

}  // namespace mlprof
