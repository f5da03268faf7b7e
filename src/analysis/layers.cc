#include "analysis/layers.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "analysis/stats.h"
#include "analysis/steps.h"

namespace mlprof {
namespace {

constexpr std::string_view kModulePrefix = "nn.Module: ";

// "nn.Module: Qwen2DecoderLayer_3" -> "Qwen2DecoderLayer"; "" for other names.
std::string_view ModuleClass(std::string_view name) {
  if (name.substr(0, kModulePrefix.size()) != kModulePrefix) return {};
  std::string_view c = name.substr(kModulePrefix.size());
  const size_t us = c.rfind('_');
  if (us != std::string_view::npos && us + 1 < c.size() &&
      std::all_of(c.begin() + static_cast<std::ptrdiff_t>(us) + 1, c.end(),
                  [](char ch) { return ch >= '0' && ch <= '9'; }))
    c = c.substr(0, us);
  return c;
}

}  // namespace

bool IsBackwardOpName(std::string_view name) {
  if (name.substr(0, 35) == "autograd::engine::evaluate_function") return true;
  if (name.find("::") != std::string_view::npos || name.find(' ') != std::string_view::npos) return false;
  size_t end = name.size();
  while (end > 0 && name[end - 1] >= '0' && name[end - 1] <= '9') --end;
  constexpr std::string_view kSuffix = "Backward";
  return end > kSuffix.size() && name.substr(end - kSuffix.size(), kSuffix.size()) == kSuffix;
}

LayerReport ComputeLayers(const ProfileView& view, int warmup) {
  LayerReport out;
  for (const RankView& rv : view.ranks) {
    const RankProfile& p = *rv.profile;
    if (!p.xla_ops.empty() || rv.gpu.empty()) continue;
    const size_t n = p.steps.size();
    const size_t kept = n - (rv.filtered && n > 0 ? 1 : 0);
    StepOptions so;
    so.warmup = warmup;
    const int32_t first = static_cast<int32_t>(WarmupSteps(n, so)), end = static_cast<int32_t>(kept);
    const bool by_step = n > 0;
    if (by_step && end <= first) continue;
    const size_t steps = by_step ? static_cast<size_t>(end - first) : 1;
    std::vector<std::array<Ps, 4>> phase(steps, std::array<Ps, 4>{});
    std::map<int32_t, Ps> instance;  // module frame op -> GPU time
    std::set<std::string_view> non_leaf;
    Ps measured = 0;
    std::vector<int32_t> chain;  // module frames from the innermost out
    for (const GpuOpRef& g : rv.gpu) {
      const OpKind k = p.ops.kind[g.op];
      if (k != OpKind::kKernel && k != OpKind::kMemcpy && k != OpKind::kMemset) continue;
      const int32_t s = p.ops.step[g.op];
      if (by_step && (s < first || s >= end)) continue;
      const Ps d = g.end - g.ts;
      measured += d;
      int ph = g.cls == KernelClass::kCommunication ? 3 : 0;
      chain.clear();
      for (int32_t q = p.ops.launch[g.op] >= 0 ? static_cast<int32_t>(p.ops.launch[g.op]) : -1; q >= 0;
           q = p.ops.parent[q]) {
        const std::string_view name = p.str(p.ops.name[q]);
        if (p.ops.kind[q] == OpKind::kPythonFunction) {
          if (!ModuleClass(name).empty()) chain.push_back(q);
        } else if (ph != 3 && IsBackwardOpName(name)) {
          ph = 1;
        } else if (ph == 0 && name.substr(0, 10) == "Optimizer.") {
          ph = 2;
        }
      }
      phase[by_step ? static_cast<size_t>(s - first) : 0][static_cast<size_t>(ph)] += d;
      for (size_t c = 0; c < chain.size(); ++c) {
        instance[chain[c]] += d;
        if (c > 0) non_leaf.insert(ModuleClass(p.str(p.ops.name[chain[c]])));
      }
    }
    PhaseRow pr;
    pr.rank = rv.rank;
    pr.steps = by_step ? static_cast<int64_t>(steps) : 0;
    Ps* dst[4] = {&pr.forward, &pr.backward, &pr.optimizer, &pr.communication};
    for (size_t ph = 0; ph < 4; ++ph) {
      std::vector<double> v;
      for (const auto& st : phase) v.push_back(static_cast<double>(st[ph]));
      *dst[ph] = static_cast<Ps>(std::llround(Median(v)));
    }
    out.phases.push_back(pr);

    // Module classes with two or more instances.
    std::map<std::string_view, std::vector<std::pair<Ps, int32_t>>> by_class;
    for (const auto& [op, t] : instance) by_class[ModuleClass(p.str(p.ops.name[op]))].push_back({t, op});
    if (instance.empty()) {
      out.ranks_without_modules.push_back(rv.rank);
      continue;
    }
    std::vector<LayerRow> rows;
    for (auto& [cls, v] : by_class) {
      if (v.size() < 2) continue;
      LayerRow r;
      r.rank = rv.rank;
      r.module = std::string(cls);
      r.instances = static_cast<int64_t>(v.size());
      r.per_step = static_cast<double>(v.size()) / static_cast<double>(steps);
      std::vector<double> t;
      for (const auto& [time, op] : v) t.push_back(static_cast<double>(time)), r.total += time;
      r.median = static_cast<Ps>(std::llround(Median(t)));
      const auto [mn, mx] = std::minmax_element(v.begin(), v.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first < b.first : a.second > b.second;
      });
      r.min = mn->first, r.max = mx->first;
      r.slowest = std::string(p.str(p.ops.name[mx->second]).substr(kModulePrefix.size()));
      r.pct = measured > 0 ? 100.0 * static_cast<double>(r.total) / static_cast<double>(measured) : 0;
      rows.push_back(std::move(r));
    }
    // The block: the repeated module with modules inside it that takes the
    // most GPU time (ties: more instances, then the name).
    LayerRow* block = nullptr;
    // Containers and wrappers (torch.nn's and the distributed ones) hold
    // layers but are none.
    static constexpr std::string_view kContainers[] = {"Sequential",
                                                       "ModuleList",
                                                       "ModuleDict",
                                                       "CheckpointWrapper",
                                                       "OffloadWrapper",
                                                       "FullyShardedDataParallel",
                                                       "DistributedDataParallel",
                                                       "DataParallel"};
    for (LayerRow& r : rows) {
      if (!non_leaf.count(r.module) ||
          std::find(std::begin(kContainers), std::end(kContainers), r.module) != std::end(kContainers))
        continue;
      if (!block || std::tie(r.total, r.instances) > std::tie(block->total, block->instances) ||
          (r.total == block->total && r.instances == block->instances && r.module < block->module))
        block = &r;
    }
    if (block) {
      block->block = true;
      // The block's GPU time by the module class just inside it.
      std::map<std::string, Ps> parts;
      Ps block_total = 0;
      for (const GpuOpRef& g : rv.gpu) {
        const OpKind k = p.ops.kind[g.op];
        if (k != OpKind::kKernel && k != OpKind::kMemcpy && k != OpKind::kMemset) continue;
        const int32_t s = p.ops.step[g.op];
        if (by_step && (s < first || s >= end)) continue;
        std::string_view inner;  // the module class seen just before reaching the block
        bool in_block = false;
        for (int32_t q = p.ops.launch[g.op] >= 0 ? static_cast<int32_t>(p.ops.launch[g.op]) : -1; q >= 0;
             q = p.ops.parent[q]) {
          if (p.ops.kind[q] != OpKind::kPythonFunction) continue;
          const std::string_view cls = ModuleClass(p.str(p.ops.name[q]));
          if (cls.empty()) continue;
          if (cls == block->module) {
            in_block = true;
            break;
          }
          inner = cls;
        }
        if (!in_block) continue;
        const Ps d = g.end - g.ts;
        parts[inner.empty() ? std::string("(own ops)") : std::string(inner)] += d;
        block_total += d;
      }
      std::vector<BlockPart> bp;
      for (const auto& [part, t] : parts)
        bp.push_back({rv.rank, part, t / block->instances,
                      block_total > 0 ? 100.0 * static_cast<double>(t) / static_cast<double>(block_total) : 0});
      std::sort(bp.begin(), bp.end(), [](const BlockPart& a, const BlockPart& b) {
        return a.per_instance != b.per_instance ? a.per_instance > b.per_instance : a.part < b.part;
      });
      for (auto& b : bp) out.block.push_back(std::move(b));
    }
    std::sort(rows.begin(), rows.end(), [](const LayerRow& a, const LayerRow& b) {
      return a.total != b.total ? a.total > b.total : a.module < b.module;
    });
    for (auto& r : rows) out.layers.push_back(std::move(r));
  }
  return out;
}

}  // namespace mlprof
