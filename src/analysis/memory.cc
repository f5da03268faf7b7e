#include "analysis/memory.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <unordered_map>

namespace mlprof {
namespace {

// c10::DeviceType's numbers, by the names torch prints.
std::string DeviceName(int64_t type, int64_t id) {
  std::string name;
  switch (type) {
    case 0:
      return "cpu";
    case 1:
      name = "cuda";
      break;
    case 6:
      name = "hip";
      break;
    case 9:
      name = "xla";
      break;
    case 12:
      name = "xpu";
      break;
    case 13:
      name = "mps";
      break;
    case 19:
      name = "mtia";
      break;
    case 20:
      name = "npu";  // PrivateUse1, as torch_npu names it
      break;
    default:
      name = fmt::format("type {}", type);
  }
  return id >= 0 ? fmt::format("{}:{}", name, id) : name;
}

struct Keys {
  StringId bytes, total_allocated, total_reserved, device_type, device_id, addr;
  explicit Keys(const StringPool& s)
      : bytes(s.Find("Bytes")),
        total_allocated(s.Find("Total Allocated")),
        total_reserved(s.Find("Total Reserved")),
        device_type(s.Find("Device Type")),
        device_id(s.Find("Device Id")),
        addr(s.Find("Addr")) {}
};

bool IntArg(const RankProfile& p, uint32_t op, StringId key, int64_t* out) {
  if (key == StringPool::kNotFound) return false;
  const ArgValue* v = p.args.Find(ArgOwner::kOp, op, key);
  if (!v) return false;
  // Byte counts beyond 2^50 (a pebibyte) are not a real allocator's: the
  // event is skipped (counted), which also keeps every sum below overflow.
  constexpr int64_t kMax = int64_t{1} << 50;
  if (v->type == ArgType::kInt) {
    if (v->i > kMax || v->i < -kMax) return false;
    *out = v->i;
  } else if (v->type == ArgType::kReal) {
    if (!std::isfinite(v->r) || std::abs(v->r) > static_cast<double>(kMax)) return false;
    *out = static_cast<int64_t>(v->r);
  } else {
    return false;
  }
  return true;
}

// a + b, held at the int64 limits.
int64_t SatAdd(int64_t a, int64_t b) {
  int64_t r = 0;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b > 0 ? INT64_MAX : INT64_MIN;
}

// Groups (op, inner) -> site, largest bytes first; `inner` of a group is its
// most frequent innermost op.
struct SiteAcc {
  int64_t count = 0, bytes = 0;
  std::map<StringId, int64_t> inner;
};
std::vector<MemorySite> Sites(const RankProfile& p, const std::unordered_map<StringId, SiteAcc>& by_op) {
  std::vector<MemorySite> out;
  for (const auto& [op, acc] : by_op) {
    MemorySite s;
    s.op = op == StringPool::kNotFound ? "(no cpu_op)" : std::string(p.str(op));
    StringId best = StringPool::kNotFound;
    int64_t best_n = -1;
    for (const auto& [id, n] : acc.inner)
      if (n > best_n) best = id, best_n = n;
    s.inner = best == StringPool::kNotFound ? "" : std::string(p.str(best));
    s.count = acc.count;
    s.bytes = acc.bytes;
    out.push_back(std::move(s));
  }
  std::sort(out.begin(), out.end(), [](const MemorySite& a, const MemorySite& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.op < b.op;
  });
  return out;
}

}  // namespace

std::vector<DeviceMemory> ComputeMemory(const Profile& profile) {
  std::vector<DeviceMemory> out;
  for (size_t ri = 0; ri < profile.ranks.size(); ++ri) {
    const RankProfile& p = profile.ranks[ri];
    const OpTable& o = p.ops;
    const Keys k(p.strings);
    if (k.bytes == StringPool::kNotFound) continue;
    const StringId memory = p.strings.Find("[memory]");
    if (memory == StringPool::kNotFound) continue;
    // The memory events in time order, ties in file order.
    std::vector<uint32_t> events;
    for (size_t i = 0; i < o.size(); ++i)
      if (o.name[i] == memory || o.cat[i] == memory) events.push_back(static_cast<uint32_t>(i));
    std::stable_sort(events.begin(), events.end(), [&](uint32_t a, uint32_t b) {
      return o.ts[a] != o.ts[b] ? o.ts[a] < o.ts[b] : o.offset[a] < o.offset[b];
    });
    struct Event {
      uint32_t op;
      int64_t bytes, total = -1, reserved = -1, addr = -1;
    };
    std::map<std::pair<int64_t, int64_t>, std::vector<Event>> by_device;
    int64_t skipped = 0;  // memory events without a usable Bytes
    for (uint32_t i : events) {
      Event e{i, 0};
      if (!IntArg(p, i, k.bytes, &e.bytes)) {
        ++skipped;
        continue;
      }
      int64_t type = -1, id = -1;
      IntArg(p, i, k.device_type, &type);
      IntArg(p, i, k.device_id, &id);
      if (!IntArg(p, i, k.total_allocated, &e.total) || e.total < 0) e.total = -1;
      if (!IntArg(p, i, k.total_reserved, &e.reserved) || e.reserved < 0) e.reserved = -1;
      IntArg(p, i, k.addr, &e.addr);
      by_device[{type, id}].push_back(e);
    }
    // The cpu_ops enclosing an op on its track: (outermost, innermost).
    const StringId op_name = p.strings.Find("Op Name");
    auto sites = [&](uint32_t i) {
      StringId outer = StringPool::kNotFound, inner = StringPool::kNotFound;
      // Allocations read from a per-op file (torch_npu's operator_memory.csv) name their op.
      if (op_name != StringPool::kNotFound)
        if (const ArgValue* v = p.args.Find(ArgOwner::kOp, i, op_name); v && v->type == ArgType::kString)
          return std::pair{v->s, v->s};
      for (int32_t q = o.parent[i]; q >= 0; q = o.parent[q])
        if (o.kind[q] == OpKind::kCpuOp && !p.str(o.name[q]).starts_with("ProfilerStep#")) {
          if (inner == StringPool::kNotFound) inner = o.name[q];
          outer = o.name[q];
        }
      return std::pair{outer, inner};
    };
    for (auto& [dev, evs] : by_device) {
      DeviceMemory d;
      d.rank = p.rank_or(static_cast<int64_t>(ri));
      d.device = DeviceName(dev.first, dev.second);
      d.events = static_cast<int64_t>(evs.size());
      d.skipped = skipped;
      if (op_name != StringPool::kNotFound)
        for (const Event& e : evs) d.op_file = d.op_file || p.args.Find(ArgOwner::kOp, e.op, op_name) != nullptr;
      // Totals from the first event that has them (old traces: none); what
      // was allocated before the trace: that total less the window's bytes
      // up to and including its event.
      std::unordered_map<StringId, SiteAcc> allocators;
      int64_t net = 0, running = 0;
      size_t peak_index = 0;
      for (const Event& e : evs) {
        net = SatAdd(net, e.bytes);
        if (e.total < 0) continue;
        d.has_totals = true;
        running = d.before_trace = SatAdd(e.total, -net);
        break;
      }
      net = 0;
      for (size_t j = 0; j < evs.size(); ++j) {
        const Event& e = evs[j];
        const Ps ts = o.ts[e.op];
        if (e.bytes > 0) {
          ++d.allocs;
          d.allocated_bytes = SatAdd(d.allocated_bytes, e.bytes);
          auto [outer, inner] = sites(e.op);
          SiteAcc& a = allocators[outer];
          ++a.count;
          a.bytes = SatAdd(a.bytes, e.bytes);
          ++a.inner[inner];
        } else if (e.bytes < 0) {
          ++d.frees;
          d.freed_bytes = SatAdd(d.freed_bytes, -e.bytes);
        }
        net = SatAdd(net, e.bytes);
        if (net > d.peak_net) d.peak_net = net, d.peak_net_ts = ts;
        running = SatAdd(running, e.bytes);
        if (e.total >= 0) {
          if (running != e.total) {
            if (d.mismatches++ == 0) d.first_mismatch_ts = ts;
            running = e.total;
          }
          if (e.total > d.peak) d.peak = e.total, d.peak_ts = ts, peak_index = j;
          d.end_allocated = e.total;
        }
        if (e.reserved > d.peak_reserved) d.peak_reserved = e.reserved, d.peak_reserved_ts = ts;
        d.series.emplace_back(ts, d.has_totals ? running : net);
      }
      if (d.has_totals) {
        for (const Step& s : p.steps)
          if (d.peak_ts >= s.ts && d.peak_ts < s.ts + s.dur) d.peak_step = s.number;
        // Blocks alive at the peak: replay up to it, by address.
        std::unordered_map<int64_t, std::pair<int64_t, uint32_t>> alive;  // addr -> (bytes, op)
        for (size_t j = 0; j <= peak_index; ++j) {
          const Event& e = evs[j];
          if (e.addr < 0) continue;
          if (e.bytes > 0) {
            alive[e.addr] = {e.bytes, e.op};
          } else if (e.bytes < 0) {
            alive.erase(e.addr);
          }
        }
        std::unordered_map<StringId, SiteAcc> at_peak;
        for (const auto& [addr, v] : alive) {
          auto [outer, inner] = sites(v.second);
          SiteAcc& a = at_peak[outer];
          ++a.count;
          a.bytes = SatAdd(a.bytes, v.first);
          ++a.inner[inner];
          d.alive_known = SatAdd(d.alive_known, v.first);
        }
        d.alive_at_peak = Sites(p, at_peak);
      }
      d.allocators = Sites(p, allocators);
      out.push_back(std::move(d));
    }
  }
  return out;
}

std::vector<CategoryMemory> ComputeMemoryCategories(const Profile& profile) {
  std::vector<CategoryMemory> out;
  // Bytes from a counter's double, held within +-2^62 (a NaN reads 0).
  auto bytes = [](double v) {
    constexpr double kLim = 4.6e18;
    return std::isfinite(v) ? static_cast<int64_t>(std::max(-kLim, std::min(kLim, v))) : int64_t{0};
  };
  for (size_t ri = 0; ri < profile.ranks.size(); ++ri) {
    const RankProfile& p = profile.ranks[ri];
    const StringId name = p.strings.Find("memory by category");
    if (name == StringPool::kNotFound) continue;
    // Each series' samples in the order read (one per timestamp each).
    std::vector<StringId> order;
    std::unordered_map<StringId, std::vector<const CounterSample*>> series;
    for (const CounterSample& c : p.counters) {
      if (c.name != name) continue;
      auto [it, fresh] = series.try_emplace(c.series);
      if (fresh) order.push_back(c.series);
      it->second.push_back(&c);
    }
    const StringId total_id = p.strings.Find("Total");
    auto total = series.find(total_id);
    if (total == series.end() || total->second.empty()) continue;
    CategoryMemory m;
    m.rank = p.rank_or(static_cast<int64_t>(ri));
    size_t peak = 0;
    for (size_t i = 0; i < total->second.size(); ++i)
      if (total->second[i]->value > total->second[peak]->value) peak = i;
    m.peak = bytes(total->second[peak]->value);
    m.peak_ts = total->second[peak]->ts;
    for (StringId id : order) {
      if (id == total_id) continue;
      const std::vector<const CounterSample*>& v = series[id];
      CategoryMemory::Category c;
      c.name = p.str(id);
      if (peak < v.size()) c.at_peak = bytes(v[peak]->value);
      for (const CounterSample* x : v) c.max = std::max(c.max, bytes(x->value));
      c.end = v.empty() ? 0 : bytes(v.back()->value);
      m.categories.push_back(std::move(c));
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace mlprof
