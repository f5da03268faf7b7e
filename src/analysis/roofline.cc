#include "analysis/roofline.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "analysis/op_cost.h"

namespace mlprof {

HloExpected ExpectHloModule(const HloModuleSummary& s, const hw::Chip& chip, hw::DType dtype, double devices,
                            bool per_core) {
  HloExpected e;
  e.module = s.module;
  e.flops = s.entry_cost.flops;
  e.bytes = s.entry_cost.bytes_accessed;
  e.devices = devices;
  const double split = per_core && chip.cores_per_chip > 0 ? chip.cores_per_chip : 1;
  e.peak_per_device = chip.peak(dtype) / split;
  e.hbm_per_device = chip.hbm_bytes_per_s / split;
  if (e.peak_per_device > 0 && devices > 0) e.compute_s = e.flops / (devices * e.peak_per_device);
  if (e.hbm_per_device > 0 && devices > 0) e.memory_s = e.bytes / (devices * e.hbm_per_device);
  e.expected_s = std::max(e.compute_s, e.memory_s);
  if (e.expected_s > 0) e.bound = e.compute_s >= e.memory_s ? RoofBound::kCompute : RoofBound::kMemory;
  return e;
}

RoofPoint RoofAt(double flops, double bytes, double seconds, double peak, double bandwidth) {
  RoofPoint p;
  const bool have_flops = flops > 0, have_bytes = bytes > 0;
  if (!have_flops && !have_bytes) return p;
  const double ridge = peak > 0 && bandwidth > 0 ? peak / bandwidth : 0;
  if (flops >= 0 && have_bytes) {  // a data-movement op has intensity 0
    p.intensity = flops / bytes;
    if (ridge > 0) p.vs_ridge = p.intensity / ridge, p.ceiling_pct = 100.0 * std::min(1.0, p.vs_ridge);
  }
  const double compute_s = have_flops && peak > 0 ? flops / peak : 0;
  const double memory_s = have_bytes && bandwidth > 0 ? bytes / bandwidth : 0;
  p.expected_s = std::max(compute_s, memory_s);
  p.bound = compute_s >= memory_s ? RoofBound::kCompute : RoofBound::kMemory;
  if (seconds > 0 && p.expected_s > 0) p.efficiency = p.expected_s / seconds;
  return p;
}

const char* RoofBoundName(RoofBound b) {
  switch (b) {
    case RoofBound::kCompute:
      return "compute";
    case RoofBound::kMemory:
      return "memory";
    case RoofBound::kCommunication:
      return "communication";
    case RoofBound::kMixed:
      return "mixed";
    case RoofBound::kUnknown:
      break;
  }
  return "unknown";
}

namespace {

// The chip's side of a roofline: peak, HBM bandwidth, ridge, scale-up link.
RooflineResult Header(const hw::Chip& chip, hw::DType dtype) {
  RooflineResult res;
  res.chip = chip.id;
  res.dtype = dtype;
  res.peak = chip.peak(dtype);
  res.hbm_bw = chip.hbm_bytes_per_s;
  res.ridge = chip.ridge(dtype);
  for (const auto& l : chip.interconnect) {
    if (l.scope != "scale-up") continue;
    if (l.bytes_per_s_per_dir_per_axis > 0) {
      res.link_bw = l.bytes_per_s_per_dir_per_axis;
      res.link_model = LinkModel::kOneAxisRing;
      res.link_name = l.name;
      break;
    }
    if (l.bytes_per_s_per_dir() > 0) {
      res.link_bw = l.bytes_per_s_per_dir();
      res.link_model = LinkModel::kAllLinksRing;
      res.link_name = l.name;
      break;
    }
  }
  return res;
}

// Fills a row's derived fields from its count, time, FLOPs and bytes per
// execution against `peak` and the result's HBM bandwidth; collectives are
// held to the scale-up link instead of HBM.
void Fill(const RooflineResult& res, double peak, bool collective, RooflineRow* row) {
  row->measured_s = row->count > 0 ? row->time_s / static_cast<double>(row->count) : 0;
  const RoofPoint p = RoofAt(row->flops, row->bytes, row->measured_s, peak, res.hbm_bw);
  row->intensity = p.intensity;
  row->vs_ridge = p.vs_ridge;
  row->ceiling_pct = p.ceiling_pct;
  row->expected_s = p.expected_s;
  row->efficiency = p.efficiency;
  row->bound = p.bound;
  if (collective && (p.bound != RoofBound::kUnknown || row->wire_bytes >= 0)) {
    const double compute_s = row->flops > 0 && peak > 0 ? row->flops / peak : 0;
    const double wire = row->wire_bytes >= 0 ? row->wire_bytes : row->bytes;
    const double t = CollectiveSeconds(row->collective, wire, row->group, res.link_bw, res.ici_axes);
    const double link_s = t > 0 ? t : 0;
    row->expected_s = std::max(compute_s, link_s);
    row->bound = link_s > 0 ? RoofBound::kCommunication : RoofBound::kUnknown;
    row->efficiency = row->measured_s > 0 && row->expected_s > 0 ? row->expected_s / row->measured_s : -1;
  }
  if (row->flops >= 0 && row->measured_s > 0) row->achieved_flops_per_s = row->flops / row->measured_s;
}

// Per-category totals over executions, and the result's totals, from the
// op rows as they are added.
class Totals {
 public:
  explicit Totals(RooflineResult* res) : res_(res) {}

  void Add(RooflineRow row, bool collective) {
    res_->time_s += row.time_s;
    Group& g = groups_[row.category];
    g.row.name = g.row.category = row.category;
    g.row.count += row.count;
    g.row.time_s += row.time_s;
    g.collective = collective;
    if (row.bound == RoofBound::kUnknown) {
      ++res_->ops_without_cost;
    } else {
      const double n = static_cast<double>(row.count);
      res_->time_with_cost_s += row.time_s;
      res_->expected_s += row.expected_s * n;
      if (row.efficiency > kAboveRoof) ++res_->above_roof_ops, res_->above_roof_s += row.time_s;
      g.expected += row.expected_s * n;
      g.time_with_cost += row.time_s;
      if (row.flops >= 0) g.flops += row.flops * n, g.have_flops = true;
      if (row.bytes > 0) g.bytes += row.bytes * n, g.have_bytes = true;
    }
    res_->ops.push_back(std::move(row));
  }

  // Category rows: ratios of totals (intensity, efficiency), bound by the
  // category's intensity against the summary's ridge.
  void Finish() {
    for (auto& [name, g] : groups_) {
      RooflineRow& gr = g.row;
      gr.measured_s = gr.time_s / static_cast<double>(gr.count);
      gr.flops = g.have_flops ? g.flops : -1;
      gr.bytes = g.have_bytes ? g.bytes : -1;
      if (g.have_flops && g.have_bytes) {
        gr.intensity = gr.flops / gr.bytes;
        if (res_->ridge > 0)
          gr.vs_ridge = gr.intensity / res_->ridge, gr.ceiling_pct = 100.0 * std::min(1.0, gr.vs_ridge);
      }
      if (g.time_with_cost > 0) {
        gr.expected_s = g.expected;  // total, over executions with a cost
        gr.efficiency = g.expected / g.time_with_cost;
        if (g.have_flops) gr.achieved_flops_per_s = gr.flops / g.time_with_cost;
        gr.bound = g.collective ? RoofBound::kCommunication
                   : gr.intensity >= 0 && res_->ridge > 0
                       ? (gr.intensity >= res_->ridge ? RoofBound::kCompute : RoofBound::kMemory)
                       : RoofBound::kMixed;
      } else {
        gr.bound = RoofBound::kUnknown;
      }
      res_->categories.push_back(gr);
    }
    auto by_time = [](const RooflineRow& a, const RooflineRow& b) {
      return a.time_s != b.time_s ? a.time_s > b.time_s : a.name < b.name;
    };
    std::sort(res_->ops.begin(), res_->ops.end(), by_time);
    std::sort(res_->categories.begin(), res_->categories.end(), by_time);
  }

 private:
  struct Group {
    RooflineRow row;
    double expected = 0, time_with_cost = 0, flops = 0, bytes = 0;
    bool have_flops = false, have_bytes = false, collective = false;
  };
  RooflineResult* res_;
  std::map<std::string, Group> groups_;
};

}  // namespace

double CollectiveSeconds(std::string_view collective, double wire_bytes, int64_t group, double link_bw,
                         const std::vector<int64_t>& axes) {
  if (!(wire_bytes >= 0) || !(link_bw > 0)) return -1;
  const bool spread = collective == "all-reduce" || collective == "all-gather" || collective == "reduce-scatter";
  if (!axes.empty() && group > 1 && spread) {
    // The axes the group spans, innermost first: each must be taken whole,
    // or be the last, partly filled one.
    int64_t left = group, hops = 0, k = 0;
    for (int64_t a : axes) {
      if (left == 1) break;
      if (a <= 1) continue;
      const int64_t take = left % a == 0 ? a : (a % left == 0 ? left : 0);
      if (take == 0) break;
      ++k, hops += take;
      left /= take;
    }
    // Over k axes the data moves on all of them at once (scaling-book:
    // divide by k); at least ~1 us per hop around half of each ring.
    if (left == 1 && k > 0) return std::max(1e-6 * static_cast<double>(hops) / 2, wire_bytes / (link_bw * k));
  }
  return wire_bytes / link_bw;
}

RooflineResult RooflineXla(const RankProfile& r, const XlaOps& x, const hw::Chip& chip, hw::DType dtype,
                           const std::vector<int64_t>& ici_axes) {
  RooflineResult res = Header(chip, dtype);
  res.ici_axes = ici_axes;
  if (!ici_axes.empty() && res.link_bw > 0) res.link_model = LinkModel::kTorusAxes;
  struct Acc {
    int64_t count = 0;
    Ps time = 0;
  };
  std::vector<Acc> per_op(x.ops.size());
  for (size_t i = 0; i < r.ops.size(); ++i) {
    const int32_t xi = r.ops.xla[i];
    if (xi < 0 || static_cast<size_t>(xi) >= per_op.size()) continue;
    ++per_op[static_cast<size_t>(xi)].count;
    per_op[static_cast<size_t>(xi)].time += r.ops.dur[i];
  }
  // One row per (program, module, op): the same op on several devices is
  // one row. An op name found in several programs is named with its module
  // and, where programs share a module name (one jit function compiled for
  // several shapes), the program id.
  using Key = std::tuple<int64_t, std::string_view, std::string_view>;
  std::map<Key, std::pair<size_t, Acc>> merged;
  std::map<std::string_view, std::set<std::pair<int64_t, std::string_view>>> programs_of;
  std::map<std::string_view, std::set<std::string_view>> modules_of;
  for (size_t k = 0; k < per_op.size(); ++k) {
    if (per_op[k].count == 0) continue;
    const int64_t program = k < r.xla_ops.size() ? r.xla_ops[k].program_id : -1;
    auto [it, fresh] = merged.try_emplace(Key{program, x.ops[k].module, x.ops[k].hlo_op}, k, Acc{});
    it->second.second.count += per_op[k].count;
    it->second.second.time += per_op[k].time;
    programs_of[x.ops[k].hlo_op].insert({program, x.ops[k].module});
    modules_of[x.ops[k].hlo_op].insert(x.ops[k].module);
  }
  Totals totals(&res);
  for (const auto& [key, entry] : merged) {
    const auto& [k, acc] = entry;
    const int64_t program = std::get<0>(key);
    const XlaOpInfo& info = x.ops[k];
    if (info.host_memory) {
      ++res.host_memory_ops;
      res.host_memory_s += static_cast<double>(acc.time) / 1e12;
      continue;
    }
    RooflineRow row;
    row.name = info.hlo_op.empty() ? "(unnamed)" : info.hlo_op;
    if (programs_of[info.hlo_op].size() > 1) {
      const std::string module = info.module.empty() ? "?" : info.module;
      row.name += modules_of[info.hlo_op].size() == programs_of[info.hlo_op].size() || program < 0
                      ? " (" + module + ")"
                      : fmt::format(" ({} #{})", module, program);
    }
    row.category = OpCategoryName(info.group);
    row.count = acc.count;
    row.time_s = static_cast<double>(acc.time) / 1e12;
    row.flops = info.flops;
    row.bytes = info.bytes;
    row.wire_bytes = info.network_bytes;
    row.group = info.group_size;
    row.collective = info.collective;
    const bool collective = info.group == OpCategory::kCollective;
    Fill(res, res.peak, collective, &row);
    totals.Add(std::move(row), collective);
  }
  totals.Finish();
  res.time_s += res.host_memory_s;  // device time of all ops, these included
  return res;
}

RooflineResult RooflineFrameworkOps(const std::vector<OpGpuTime>& ops, int64_t rank, const hw::Chip& chip,
                                    hw::DType dtype, bool per_op_dtype) {
  RooflineResult res = Header(chip, dtype);
  Totals totals(&res);
  std::map<hw::DType, double> held;  // costed time by the dtype whose peak held it
  for (const OpGpuTime& o : ops) {
    if (o.rank != rank || o.calls <= 0 || o.gpu_time <= 0) continue;
    RooflineRow row;
    row.name = o.input_dims.empty() ? o.name : o.name + " " + o.input_dims;
    row.category = OpCategoryName(CostCategory(o.cost_kind));
    row.count = o.calls;
    row.time_s = static_cast<double>(o.gpu_time) / 1e12;
    row.flops = o.flops_per_call;
    row.bytes = o.bytes_per_call;
    if (!o.comm.empty()) {
      row.name = o.name + " " + o.comm;
      row.wire_bytes = o.bytes_per_call;  // already the ring's bytes on the wire
      row.group = o.group_size;
      row.collective = o.collective;
    }
    hw::DType d = dtype;
    if (per_op_dtype && !o.cost_dtype.empty()) PeakDtypeOf(o.cost_dtype, &d);
    const bool collective = CostCategory(o.cost_kind) == OpCategory::kCollective;
    if (chip.peak(d) <= 0) d = dtype;
    Fill(res, chip.peak(d), collective, &row);
    if (per_op_dtype && row.bound != RoofBound::kUnknown && !collective) held[d] += row.time_s;
    // TF32 explains only matmuls and convolutions above the fp32 roof (an
    // elementwise op there is miscounted bytes or misattributed time).
    const OpCategory cat = CostCategory(o.cost_kind);
    if (d == hw::DType::kFp32 && (cat == OpCategory::kMatmul || cat == OpCategory::kAttention) &&
        row.efficiency > kAboveRoof)
      res.above_roof_fp32_s += row.time_s;
    totals.Add(std::move(row), collective);
  }
  totals.Finish();
  if (!held.empty()) {
    for (const auto& [d, t] : held) res.dtype_time.emplace_back(d, t);
    std::stable_sort(res.dtype_time.begin(), res.dtype_time.end(),
                     [](const auto& a, const auto& b) { return a.second > b.second; });
    const hw::DType top = res.dtype_time.front().first;
    res.dtype = top;
    res.peak = chip.peak(top);
    res.ridge = chip.ridge(top);
  }
  return res;
}

}  // namespace mlprof
