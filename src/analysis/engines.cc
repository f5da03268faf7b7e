#include "analysis/engines.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <span>
#include <tuple>

#include "analysis/intervals.h"
#include "analysis/kernel_class.h"
#include "analysis/xla.h"

namespace mlprof {
namespace {

enum class Work : uint8_t { kCompute, kTransfer, kOther };

}  // namespace

void AddToBins(const std::vector<Interval>& busy, Ps start, Ps end, std::vector<float>& bins) {
  if (bins.empty() || end <= start) return;
  const double n = static_cast<double>(bins.size());
  const double width = static_cast<double>(end - start) / n;
  // Bin b is [edge(b), edge(b + 1)); the last ends at `end` exactly.
  auto edge = [&](size_t b) {
    return b >= bins.size() ? end : start + static_cast<Ps>(static_cast<double>(b) * width);
  };
  for (const Interval& iv : busy) {
    const Ps a = std::max(iv.start, start), z = std::min(iv.end, end);
    if (a >= z) continue;
    size_t b = std::min(bins.size() - 1, static_cast<size_t>(static_cast<double>(a - start) / width));
    while (b > 0 && edge(b) > a) --b;  // rounding
    for (; b < bins.size(); ++b) {
      const Ps lo = edge(b), hi = edge(b + 1);
      const Ps overlap = std::min(z, hi) - std::max(a, lo);
      if (overlap > 0 && hi > lo)
        bins[b] += static_cast<float>(static_cast<double>(overlap) / static_cast<double>(hi - lo));
      if (hi >= z) break;
    }
  }
  for (float& f : bins) f = std::min(f, 1.0f);
}

std::pair<Ps, Ps> EngineWindow(const ProfileView& view) {
  Ps first = std::numeric_limits<Ps>::max(), last = std::numeric_limits<Ps>::min();
  for (const RankView& rv : view.ranks) {
    for (size_t i = 0; i < rv.profile->ops.size(); ++i) {
      if ((!rv.keep.empty() && !rv.keep[i]) || rv.profile->ops.kind[i] == OpKind::kTraceSpan) continue;
      first = std::min(first, rv.Ts(static_cast<uint32_t>(i)));
      last = std::max(last, rv.End(static_cast<uint32_t>(i)));
    }
  }
  return {first, last};
}

std::vector<EngineRow> ComputeEngines(const ProfileView& view, EngineTimeline* timeline) {
  std::vector<EngineRow> out;
  const bool binned = timeline != nullptr && timeline->bins > 0;
  if (binned && !timeline->given) {
    const auto [first, last] = EngineWindow(view);
    timeline->start = first <= last ? first : 0;
    timeline->end = first <= last ? last : 0;
  }
  auto bin = [&](EngineRow& r, const std::vector<Interval>& busy) {
    if (!binned) return;
    r.busy_bins.assign(static_cast<size_t>(timeline->bins), 0.0f);
    AddToBins(busy, timeline->start, timeline->end, r.busy_bins);
  };
  for (const RankView& rv : view.ranks) {
    const RankProfile& p = *rv.profile;
    const OpTable& o = p.ops;
    auto kept = [&](size_t i) { return rv.keep.empty() || rv.keep[i]; };
    Ps first = std::numeric_limits<Ps>::max(), last = std::numeric_limits<Ps>::min();
    for (size_t i = 0; i < o.size(); ++i) {
      // The profiler's envelope span ("PyTorch Profiler (0)") is not work:
      // it would stretch the window over the whole profiling session.
      if (!kept(i) || o.kind[i] == OpKind::kTraceSpan) continue;
      first = std::min(first, rv.Ts(static_cast<uint32_t>(i)));
      last = std::max(last, rv.End(static_cast<uint32_t>(i)));
    }
    if (first > last) continue;
    const Ps window = last - first;

    struct Acc {
      std::vector<Interval> all, compute, transfer;
      int64_t ops = 0, bytes = -1;
      std::vector<Interval> with_bytes;
      bool device = false, launches = false;
    };
    std::vector<Acc> acc(p.tracks.size());
    KernelClassCache classes = view.Classes(p);
    for (size_t i = 0; i < o.size(); ++i) {
      if (!kept(i)) continue;
      const auto op = static_cast<uint32_t>(i);
      Acc& a = acc[o.track[i]];
      const Interval iv{rv.Ts(op), rv.End(op)};
      const OpKind k = o.kind[i];
      // A GPU stream's busy time is its GPU work: annotations that Kineto
      // writes on the stream's track (gpu_user_annotation) and instants are
      // not (as `idle`, which sees only GPU ops).
      const bool device_work = IsGpuOp(k) || o.xla[i] >= 0;
      if (p.tracks[o.track[i]].kind != TrackKind::kHostThread && !device_work) continue;
      a.all.push_back(iv);
      ++a.ops;
      if (IsLaunchOp(k)) a.launches = true;
      Work w = Work::kOther;
      if (o.xla[i] >= 0) {
        a.device = true;
        const XlaOp& x = p.xla_ops[static_cast<size_t>(o.xla[i])];
        const OpCategory c = GroupFromCategory(p.str(x.category), p.str(x.hlo_op ? x.hlo_op : o.name[i]));
        w = c == OpCategory::kCollective || c == OpCategory::kMemoryTransfer ? Work::kTransfer
            : c == OpCategory::kAsyncWait                                    ? Work::kOther
                                                                             : Work::kCompute;
      } else if (IsGpuOp(k)) {
        a.device = true;
        if (k == OpKind::kMemcpy || k == OpKind::kMemset) {
          w = Work::kTransfer;
        } else if (k == OpKind::kKernel) {
          const KernelClass c = classes.Get(o.name[i]);
          w = c == KernelClass::kComputation                                  ? Work::kCompute
              : c == KernelClass::kCommunication || c == KernelClass::kMemory ? Work::kTransfer
                                                                              : Work::kOther;
        }
      }
      if (w == Work::kCompute) a.compute.push_back(iv);
      if (w == Work::kTransfer) a.transfer.push_back(iv);
      if ((k == OpKind::kMemcpy || k == OpKind::kMemset) && o.bytes_of(i) >= 0) {
        a.bytes = std::max<int64_t>(a.bytes, 0) + o.bytes_of(i);
        a.with_bytes.push_back(iv);
      }
    }
    EngineRow overall;
    overall.rank = rv.rank;
    overall.engine = "all devices";
    overall.kind = "all";
    overall.window = window;
    std::vector<Interval> dev_all, dev_compute, dev_transfer, dev_bytes;
    std::vector<EngineRow> rows;
    for (size_t t = 0; t < p.tracks.size(); ++t) {
      Acc& a = acc[t];
      const Track& tr = p.tracks[t];
      if (a.ops == 0) continue;
      const bool device = a.device || tr.kind == TrackKind::kGpuStream;
      const bool host_launcher = tr.kind == TrackKind::kHostThread && a.launches;
      if (!device && !host_launcher) continue;
      EngineRow r;
      r.rank = rv.rank;
      r.window = window;
      r.ops = a.ops;
      const std::string name(p.str(tr.name));
      if (tr.kind == TrackKind::kGpuStream) {
        // Ascend lanes by their own names ("NPU 0 Stream 2", "NPU 0 Group 0 Communication").
        r.engine = (p.str(tr.process_name) == "Ascend Hardware" || p.str(tr.process_name) == "HCCL") && !name.empty()
                       ? fmt::format("NPU {} {}", tr.device, name)
                       : fmt::format("GPU {} stream {}", tr.device, tr.stream);
        r.kind = "stream";
      } else if (device) {
        const std::string_view proc = p.str(tr.process_name);
        r.engine = proc.empty() ? name : fmt::format("{} {}", proc, name);
        r.kind = "device";
      } else {
        const std::string tid = std::to_string(tr.tid);
        r.engine = name.empty() || name.find(tid) != std::string::npos ? (name.empty() ? "thread " + tid : name)
                                                                       : fmt::format("{} ({})", name, tid);
        r.kind = "host";
      }
      std::vector<Interval> all = Union(std::move(a.all));
      r.busy = TotalLength(all);
      bin(r, all);
      if (device) {
        std::vector<Interval> compute = Union(std::move(a.compute)), transfer = Union(std::move(a.transfer));
        r.compute = TotalLength(compute);
        r.transfer = TotalLength(transfer);
        r.bytes = a.bytes;
        std::vector<Interval> wb = Union(a.with_bytes);
        r.bytes_time = TotalLength(wb);
        // The overall row: unions over the device tracks.
        dev_all.insert(dev_all.end(), all.begin(), all.end());
        dev_compute.insert(dev_compute.end(), compute.begin(), compute.end());
        dev_transfer.insert(dev_transfer.end(), transfer.begin(), transfer.end());
        dev_bytes.insert(dev_bytes.end(), a.with_bytes.begin(), a.with_bytes.end());
        overall.ops += r.ops;
        if (r.bytes >= 0) overall.bytes = std::max<int64_t>(overall.bytes, 0) + r.bytes;
      }
      rows.push_back(std::move(r));
    }
    std::stable_sort(rows.begin(), rows.end(), [](const EngineRow& a, const EngineRow& b) {
      const bool ha = a.kind == "host", hb = b.kind == "host";
      return ha != hb ? hb : a.engine < b.engine;
    });
    out.insert(out.end(), rows.begin(), rows.end());
    if (!dev_all.empty()) {
      const std::vector<Interval> busy = Union(std::move(dev_all));
      overall.busy = TotalLength(busy);
      bin(overall, busy);
      overall.compute = TotalLength(Union(std::move(dev_compute)));
      overall.transfer = TotalLength(Union(std::move(dev_transfer)));
      overall.bytes_time = TotalLength(Union(std::move(dev_bytes)));
      out.push_back(std::move(overall));
    }
  }
  return out;
}

UnitReport ComputeUnitUtilisation(const Profile& profile) {
  UnitReport out;
  std::map<std::string, size_t> unit_index;
  struct Acc {
    int64_t kernels = 0;
    Ps time = 0;
    std::vector<double> sum, weight;  // per unit: sum of ratio x duration, sum of durations
  };
  for (size_t ri = 0; ri < profile.ranks.size(); ++ri) {
    const RankProfile& p = profile.ranks[ri];
    const OpTable& o = p.ops;
    const StringId op_type = p.strings.Find("OP Type"), core = p.strings.Find("Accelerator Core");
    // Which arg keys are counters: names ending in "_ratio".
    std::unordered_map<StringId, size_t> key_unit;
    std::map<std::pair<std::string, std::string>, Acc> groups;
    for (size_t i = 0; i < o.size(); ++i) {
      if (o.kind[i] != OpKind::kKernel) continue;
      const std::span<const Arg> args = p.args.Of(ArgOwner::kOp, static_cast<uint32_t>(i));
      if (args.empty()) continue;
      std::string type, core_type;
      std::vector<std::pair<size_t, double>> values;
      for (const Arg& a : args) {
        const ArgValue& v = a.value;
        if (v.key == op_type && v.type == ArgType::kString) type = p.str(v.s);
        if (v.key == core && v.type == ArgType::kString) core_type = p.str(v.s);
        if (v.type != ArgType::kReal || !std::isfinite(v.r) || v.r < 0) continue;
        auto k = key_unit.find(v.key);
        if (k == key_unit.end()) {
          const std::string_view name = p.str(v.key);
          size_t unit = SIZE_MAX;
          if (name.size() > 6 && name.ends_with("_ratio")) {
            auto [it, fresh] = unit_index.emplace(std::string(name), out.units.size());
            if (fresh) out.units.emplace_back(name);
            unit = it->second;
          }
          k = key_unit.emplace(v.key, unit).first;
        }
        if (k->second != SIZE_MAX) values.emplace_back(k->second, v.r);
      }
      if (values.empty()) continue;
      const Ps dur = o.dur[i];
      for (const std::string& t : {type.empty() ? std::string("(no op type)") : type, std::string("all")}) {
        Acc& g = groups[{t, core_type}];
        ++g.kernels;
        g.time += dur;
        for (const auto& [u, r] : values) {
          if (g.sum.size() <= u) g.sum.resize(u + 1, 0), g.weight.resize(u + 1, 0);
          g.sum[u] += r * static_cast<double>(dur);
          g.weight[u] += static_cast<double>(dur);
        }
      }
    }
    std::vector<UnitRow> rows;
    for (auto& [key, g] : groups) {
      UnitRow r;
      r.rank = p.rank_or(static_cast<int64_t>(ri));
      r.op_type = key.first;
      r.core = key.second;
      r.kernels = g.kernels;
      r.time = g.time;
      rows.push_back(std::move(r));
      std::vector<double>& ratios = rows.back().ratios;
      for (size_t u = 0; u < g.sum.size(); ++u) {
        if (ratios.size() <= u) ratios.resize(u + 1, -1);
        ratios[u] = g.weight[u] > 0 ? g.sum[u] / g.weight[u] : -1;
      }
    }
    // The "all" rows first, then the op types; each by time, largest first.
    std::stable_sort(rows.begin(), rows.end(), [](const UnitRow& a, const UnitRow& b) {
      const bool all_a = a.op_type == "all", all_b = b.op_type == "all";
      if (all_a != all_b) return all_a;
      return a.time != b.time ? a.time > b.time : std::tie(a.op_type, a.core) < std::tie(b.op_type, b.core);
    });
    for (UnitRow& r : rows) out.rows.push_back(std::move(r));
  }
  for (UnitRow& r : out.rows) r.ratios.resize(out.units.size(), -1);
  return out;
}

std::vector<MetricRow> ComputeGpuMetrics(const Profile& profile, int top) {
  std::vector<MetricRow> out;
  for (size_t ri = 0; ri < profile.ranks.size(); ++ri) {
    const RankProfile& p = profile.ranks[ri];
    const StringId counter = p.strings.Find("GPU metrics");
    if (counter == StringPool::kNotFound) continue;
    const int64_t rank = p.rank_or(static_cast<int64_t>(ri));
    // Samples per (device, metric), in time order.
    std::map<std::pair<int32_t, std::string>, std::vector<std::pair<Ps, double>>> series;
    for (const CounterSample& c : p.counters)
      if (c.name == counter && std::isfinite(c.value))
        series[{p.tracks[c.track].device, std::string(p.str(c.series))}].emplace_back(c.ts, c.value);
    if (series.empty()) continue;
    // Kernels per device, by time (largest first, `top` of them): their
    // busy spans (instances overlapping on several streams merged, so a
    // sample counts once), built once for every metric of the device.
    struct KernelSpans {
      StringId name;
      Ps time = 0;
      std::vector<std::pair<Ps, Ps>> spans;
    };
    std::map<int32_t, std::vector<KernelSpans>> kernels;
    {
      std::map<int32_t, std::unordered_map<StringId, KernelSpans>> by_name;
      const OpTable& o = p.ops;
      for (size_t i = 0; i < o.size(); ++i) {
        if (o.kind[i] != OpKind::kKernel) continue;
        KernelSpans& k = by_name[p.tracks[o.track[i]].device][o.name[i]];
        k.name = o.name[i];
        k.time += o.dur[i];
        k.spans.emplace_back(o.ts[i], o.end(i));
      }
      for (auto& [device, names] : by_name) {
        std::vector<KernelSpans>& v = kernels[device];
        for (auto& [name, k] : names) v.push_back(std::move(k));
        std::sort(v.begin(), v.end(), [&](const KernelSpans& a, const KernelSpans& b) {
          return a.time != b.time ? a.time > b.time : p.str(a.name) < p.str(b.name);
        });
        if (top > 0 && v.size() > static_cast<size_t>(top)) v.resize(static_cast<size_t>(top));
        for (KernelSpans& k : v) {
          std::sort(k.spans.begin(), k.spans.end());
          std::vector<std::pair<Ps, Ps>> merged;
          for (const auto& sp : k.spans)
            if (!merged.empty() && sp.first <= merged.back().second)
              merged.back().second = std::max(merged.back().second, sp.second);
            else
              merged.push_back(sp);
          k.spans = std::move(merged);
        }
      }
    }
    for (auto& [key, samples] : series) {
      std::stable_sort(samples.begin(), samples.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      MetricRow whole;
      whole.rank = rank;
      whole.device = key.first;
      whole.metric = key.second;
      whole.max = samples.front().second;
      double sum = 0;
      for (const auto& [ts, v] : samples) sum += v, whole.max = std::max(whole.max, v);
      whole.samples = static_cast<int64_t>(samples.size());
      whole.mean = sum / static_cast<double>(samples.size());
      out.push_back(whole);
      for (const KernelSpans& k : kernels[key.first]) {
        MetricRow r;
        r.rank = rank;
        r.device = key.first;
        r.metric = key.second;
        r.kernel = p.str(k.name);
        r.kernel_time = k.time;
        double s = 0;
        bool any = false;
        for (const auto& [start, end] : k.spans) {
          auto it = std::lower_bound(samples.begin(), samples.end(), start,
                                     [](const auto& smp, Ps t) { return smp.first < t; });
          for (; it != samples.end() && it->first < end; ++it) {
            s += it->second;
            r.max = any ? std::max(r.max, it->second) : it->second;
            any = true;
            ++r.samples;
          }
        }
        if (r.samples == 0) continue;
        r.mean = s / static_cast<double>(r.samples);
        out.push_back(std::move(r));
      }
    }
  }
  return out;
}

}  // namespace mlprof
