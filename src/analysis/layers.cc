#include "analysis/layers.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <iterator>
#include <map>
#include <set>
#include <unordered_map>

#include "analysis/attribution.h"
#include "analysis/stats.h"
#include "analysis/steps.h"

namespace mlprof {
namespace {

// The least share of its phase's GPU time a repeating kernel sequence must
// cover to be reported.
constexpr double kMinBlockPct = 10;

// The innermost cpu_op above a GPU op's launch, else the GPU op's own name.
std::string_view LaunchingOpName(const RankProfile& p, uint32_t op) {
  std::string_view found = p.str(p.ops.name[op]);
  ForEachLaunchAncestor(p, op, [&](size_t q) {
    if (!p.IsFrameworkOp(q)) return true;
    found = p.str(p.ops.name[q]);
    return false;
  });
  return found;
}

// The repeating kernel sequence of one phase over the measured steps:
// `seqs[s]` holds indices into rv.gpu, in start order, for step s.
void AddKernelBlock(const RankView& rv, const std::vector<std::vector<uint32_t>>& seqs,
                    const std::vector<int64_t>& step_numbers, std::string_view phase, Ps phase_total,
                    LayerReport& out) {
  const RankProfile& p = *rv.profile;
  struct Found {
    size_t step, start, period, repeats;
  };
  // Each step's best run, grouped by its kernel sequence up to rotation (a
  // run may start elsewhere in the same layer); the group with the most GPU
  // time over the steps is the block, as the sequence (rotation) that
  // covered the most of it.
  std::vector<std::vector<uint32_t>> syms(seqs.size());
  std::map<std::vector<uint32_t>, std::pair<Ps, std::map<std::vector<uint32_t>, Ps>>> by_canon;
  for (size_t s = 0; s < seqs.size(); ++s) {
    std::vector<uint32_t>& sym = syms[s];
    std::vector<Ps> w;
    for (uint32_t i : seqs[s]) {
      sym.push_back(p.ops.name[rv.gpu[i].op]);
      w.push_back(rv.gpu[i].end - rv.gpu[i].ts);
    }
    const RepeatingRun run = FindRepeatingRun(sym, w);
    if (run.repeats < 2) continue;
    std::vector<uint32_t> sig(sym.begin() + static_cast<std::ptrdiff_t>(run.start),
                              sym.begin() + static_cast<std::ptrdiff_t>(run.start + run.period));
    std::vector<uint32_t> canon = sig, rot = sig;
    for (size_t r = 1; r < sig.size(); ++r) {
      std::rotate(rot.begin(), rot.begin() + 1, rot.end());
      if (rot < canon) canon = rot;
    }
    Ps time = 0;
    for (size_t i = run.start; i < run.start + run.period * run.repeats; ++i) time += w[i];
    auto& [total, variants] = by_canon[std::move(canon)];
    total += time;
    variants[std::move(sig)] += time;
  }
  if (by_canon.empty()) return;
  auto best = by_canon.begin();
  for (auto it = by_canon.begin(); it != by_canon.end(); ++it)
    if (it->second.first > best->second.first) best = it;
  auto variant = best->second.second.begin();
  for (auto it = variant; it != best->second.second.end(); ++it)
    if (it->second > variant->second) variant = it;
  const std::vector<uint32_t>& sig = variant->first;
  const size_t period = sig.size();
  // Every step's back-to-back runs (two or more) of exactly that sequence.
  std::vector<Found> found;
  for (size_t s = 0; s < syms.size(); ++s) {
    const std::vector<uint32_t>& sym = syms[s];
    auto at = [&](size_t i) {
      return i + period <= sym.size() &&
             std::equal(sig.begin(), sig.end(), sym.begin() + static_cast<std::ptrdiff_t>(i));
    };
    for (size_t i = 0; i + period <= sym.size();) {
      size_t k = 0;
      while (at(i + k * period)) ++k;
      if (k >= 2) {
        found.push_back({s, i, period, k});
        i += k * period;
      } else {
        ++i;
      }
    }
  }
  if (found.empty()) return;
  KernelBlock b;
  b.rank = rv.rank;
  b.phase = std::string(phase);
  b.kernels = static_cast<int64_t>(period);
  b.first_kernel = std::string(p.str(sig.front()));
  std::vector<double> times, spans;
  std::map<std::string_view, Ps> parts;
  Ps slowest = -1;
  for (const Found& f : found) {
    const std::vector<uint32_t>& seq = seqs[f.step];
    for (size_t k = 0; k < f.repeats; ++k) {
      Ps t = 0, end = 0;
      const size_t lo = f.start + k * f.period;
      for (size_t i = lo; i < lo + f.period; ++i) {
        const GpuOpRef& g = rv.gpu[seq[i]];
        t += g.end - g.ts;
        end = std::max(end, g.end);
        parts[LaunchingOpName(p, g.op)] += g.end - g.ts;
      }
      times.push_back(static_cast<double>(t));
      spans.push_back(static_cast<double>(end - rv.gpu[seq[lo]].ts));
      b.total += t;
      if (t > slowest) {
        slowest = t;
        b.slowest =
            step_numbers.empty() ? fmt::format("#{}", k + 1) : fmt::format("step {} #{}", step_numbers[f.step], k + 1);
      }
    }
  }
  b.instances = static_cast<int64_t>(times.size());
  b.per_step = static_cast<double>(b.instances) / static_cast<double>(seqs.size());
  b.median = static_cast<Ps>(std::llround(Median(times)));
  b.span = static_cast<Ps>(std::llround(Median(spans)));
  b.min = static_cast<Ps>(*std::min_element(times.begin(), times.end()));
  b.max = static_cast<Ps>(*std::max_element(times.begin(), times.end()));
  b.pct = phase_total > 0 ? 100.0 * static_cast<double>(b.total) / static_cast<double>(phase_total) : 0;
  // A repeat that covers little of the phase (a pair of small kernels run
  // twice) is no layer.
  if (b.pct < kMinBlockPct) return;
  std::vector<KernelBlockPart> bp;
  for (const auto& [name, t] : parts)
    bp.push_back({rv.rank, b.phase, std::string(name), t / b.instances,
                  b.total > 0 ? 100.0 * static_cast<double>(t) / static_cast<double>(b.total) : 0});
  std::sort(bp.begin(), bp.end(), [](const KernelBlockPart& x, const KernelBlockPart& y) {
    return x.per_instance != y.per_instance ? x.per_instance > y.per_instance : x.part < y.part;
  });
  out.kernel_blocks.push_back(std::move(b));
  for (auto& x : bp) out.kernel_block_parts.push_back(std::move(x));
}

}  // namespace

bool LooksBackwardName(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (lower.find("backward") != std::string::npos || lower.find("bwd") != std::string::npos) return true;
  while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  return name.ends_with("(B)") || name.ends_with("(W)");
}

bool IsBackwardOpName(std::string_view name) {
  if (name.substr(0, 35) == "autograd::engine::evaluate_function") return true;
  if (name.find("::") != std::string_view::npos || name.find(' ') != std::string_view::npos) return false;
  size_t end = name.size();
  while (end > 0 && name[end - 1] >= '0' && name[end - 1] <= '9') --end;
  constexpr std::string_view kSuffix = "Backward";
  return end > kSuffix.size() && name.substr(end - kSuffix.size(), kSuffix.size()) == kSuffix;
}

namespace {

// The block's GPU time by the module class just inside it (one row per
// part, per instance of the block), over the steady steps.
void AddBlockParts(const RankView& rv, const LayerRow& block, bool by_step, int32_t first, int32_t end,
                   LayerReport& out) {
  const RankProfile& p = *rv.profile;
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
    ForEachLaunchAncestor(p, g.op, [&](size_t q) {
      const std::string_view cls = ModuleFrameClass(p, q);
      if (cls.empty()) return true;
      if (cls == block.module) {
        in_block = true;
        return false;
      }
      inner = cls;
      return true;
    });
    if (!in_block) continue;
    const Ps d = g.end - g.ts;
    parts[inner.empty() ? std::string("(own ops)") : std::string(inner)] += d;
    block_total += d;
  }
  std::vector<BlockPart> bp;
  for (const auto& [part, t] : parts)
    bp.push_back({rv.rank, part, t / block.instances,
                  block_total > 0 ? 100.0 * static_cast<double>(t) / static_cast<double>(block_total) : 0});
  std::sort(bp.begin(), bp.end(), [](const BlockPart& a, const BlockPart& b) {
    return a.per_instance != b.per_instance ? a.per_instance > b.per_instance : a.part < b.part;
  });
  for (auto& b : bp) out.block.push_back(std::move(b));
}

}  // namespace

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
    std::vector<Ps> outside(steps, 0);  // forward GPU time under backward-named ranges, per step
    std::map<std::string_view, Ps> outside_by_name;
    std::map<int32_t, Ps> instance;  // module frame op -> GPU time
    std::set<std::string_view> non_leaf;
    Ps measured = 0;
    std::vector<int32_t> chain;  // module frames from the innermost out
    // Per step, the forward and backward GPU ops (not communication), in start order.
    std::array<std::vector<std::vector<uint32_t>>, 2> seqs;
    for (auto& v : seqs) v.resize(steps);
    for (size_t gi = 0; gi < rv.gpu.size(); ++gi) {
      const GpuOpRef& g = rv.gpu[gi];
      const OpKind k = p.ops.kind[g.op];
      if (k != OpKind::kKernel && k != OpKind::kMemcpy && k != OpKind::kMemset) continue;
      const int32_t s = p.ops.step[g.op];
      if (by_step && (s < first || s >= end)) continue;
      const Ps d = g.end - g.ts;
      measured += d;
      int ph = g.cls == KernelClass::kCommunication ? 3 : 0;
      chain.clear();
      int32_t backward_range = -1;  // the innermost host range named as backward
      ForEachLaunchAncestor(p, g.op, [&](size_t q) {
        const std::string_view name = p.str(p.ops.name[q]);
        const OpKind qk = p.ops.kind[q];
        if (qk == OpKind::kPythonFunction) {
          if (!ModuleClass(name).empty()) chain.push_back(static_cast<int32_t>(q));
        } else if (ph != 3 && IsBackwardOpName(name)) {
          ph = 1;
        } else if (ph == 0 && name.substr(0, 10) == "Optimizer.") {
          ph = 2;
        }
        if (backward_range < 0 &&
            (p.IsFrameworkOp(q) || qk == OpKind::kUserAnnotation || qk == OpKind::kGpuUserAnnotation) &&
            LooksBackwardName(name))
          backward_range = static_cast<int32_t>(q);
        return true;
      });
      const size_t si = by_step ? static_cast<size_t>(s - first) : 0;
      phase[si][static_cast<size_t>(ph)] += d;
      if (ph == 0 && backward_range >= 0) {
        outside[si] += d;
        outside_by_name[p.str(p.ops.name[static_cast<size_t>(backward_range)])] += d;
      }
      if (ph < 2)
        seqs[static_cast<size_t>(ph)][by_step ? static_cast<size_t>(s - first) : 0].push_back(
            static_cast<uint32_t>(gi));
      for (size_t c = 0; c < chain.size(); ++c) {
        // A class inside itself (a GraphModule in a GraphModule, as
        // --capture copies nest under the replay's): the outermost frame
        // only, so the instances' times do not count the same kernel twice.
        const std::string_view cls = ModuleClass(p.str(p.ops.name[chain[c]]));
        bool outer_same = false;
        for (size_t up = c + 1; up < chain.size() && !outer_same; ++up)
          outer_same = ModuleClass(p.str(p.ops.name[chain[up]])) == cls;
        if (outer_same) continue;
        instance[chain[c]] += d;
        if (c > 0) non_leaf.insert(cls);
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
    {
      std::vector<double> v(outside.begin(), outside.end());
      pr.backward_outside_engine = static_cast<Ps>(std::llround(Median(v)));
    }
    Ps outside_total = 0, fwd_bwd_total = 0;
    for (size_t st = 0; st < steps; ++st) outside_total += outside[st], fwd_bwd_total += phase[st][0] + phase[st][1];
    for (const auto& [name, t] : outside_by_name) pr.backward_ranges.emplace_back(std::string(name), t);
    std::sort(pr.backward_ranges.begin(), pr.backward_ranges.end(), [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    pr.split_known =
        !(fwd_bwd_total > 0 &&
          100.0 * static_cast<double>(outside_total) / static_cast<double>(fwd_bwd_total) >= kPhaseSplitUnknownPct);
    out.phases.push_back(pr);
    std::vector<int64_t> step_numbers;
    if (by_step)
      for (int32_t st = first; st < end; ++st) step_numbers.push_back(p.steps[static_cast<size_t>(st)].number);
    if (pr.split_known) {
      for (size_t ph = 0; ph < 2; ++ph) {
        Ps total = 0;
        for (const auto& st : phase) total += st[ph];
        AddKernelBlock(rv, seqs[ph], step_numbers, ph == 0 ? "forward" : "backward", total, out);
      }
    } else {
      // Forward and backward cannot be told apart: one sequence of both, in start order.
      std::vector<std::vector<uint32_t>> all(steps);
      for (size_t st = 0; st < steps; ++st) {
        std::merge(seqs[0][st].begin(), seqs[0][st].end(), seqs[1][st].begin(), seqs[1][st].end(),
                   std::back_inserter(all[st]));
      }
      AddKernelBlock(rv, all, step_numbers, "all", fwd_bwd_total, out);
    }

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
      AddBlockParts(rv, *block, by_step, first, end, out);
    }
    std::sort(rows.begin(), rows.end(), [](const LayerRow& a, const LayerRow& b) {
      return a.total != b.total ? a.total > b.total : a.module < b.module;
    });
    for (auto& r : rows) out.layers.push_back(std::move(r));
  }
  return out;
}

}  // namespace mlprof
