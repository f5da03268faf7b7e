#include "analysis/roofline.h"

#include <algorithm>
#include <array>
#include <map>

#include "analysis/op_cost.h"

namespace mlprof {

namespace {

struct Acc {
  int64_t count = 0;
  Ps time = 0;
};

}  // namespace

RoofPoint RoofAt(double flops, double bytes, double seconds, double peak, double bandwidth) {
  RoofPoint p;
  const bool have_flops = flops > 0, have_bytes = bytes > 0;
  if (!have_flops && !have_bytes) return p;
  const double ridge = peak > 0 && bandwidth > 0 ? peak / bandwidth : 0;
  if (have_flops && have_bytes) {
    p.intensity = flops / bytes;
    if (ridge > 0) p.vs_ridge = p.intensity / ridge, p.ceiling_pct = 100.0 * std::min(1.0, p.vs_ridge);
  }
  const double compute_s = have_flops && peak > 0 ? flops / peak : 0;
  const double memory_s = have_bytes && bandwidth > 0 ? bytes / bandwidth : 0;
  p.expected_s = std::max(compute_s, memory_s);
  p.bound = compute_s >= memory_s ? "compute" : "memory";
  if (seconds > 0 && p.expected_s > 0) p.efficiency = p.expected_s / seconds;
  return p;
}

namespace {

// The chip's side of a roofline: peak, HBM bandwidth, ridge, scale-up link.
RooflineResult Header(const hw::Chip& chip, hw::DType dtype) {
  RooflineResult res;
  res.chip = chip.id;
  res.dtype = hw::DTypeName(dtype);
  res.peak = chip.peak(dtype);
  res.hbm_bw = chip.hbm_bytes_per_s;
  res.ridge = chip.ridge(dtype);
  for (const auto& l : chip.interconnect)
    if (l.scope == "scale-up" && l.bytes_per_s_per_dir() > 0) {
      res.link_bw = l.bytes_per_s_per_dir();
      break;
    }
  return res;
}

// Fills the derived fields of a row from its per-execution cost.
void Derive(const RooflineResult& res, bool collective, RooflineRow* row) {
  row->measured_s = row->count > 0 ? row->time_s / static_cast<double>(row->count) : 0;
  const bool have_flops = row->flops >= 0, have_bytes = row->bytes > 0;
  if (!have_flops && !have_bytes) {
    row->bound = "unknown";
    return;
  }
  if (have_flops && have_bytes) {
    row->intensity = row->flops / row->bytes;
    if (res.ridge > 0) {
      row->vs_ridge = row->intensity / res.ridge;
      row->ceiling_pct = 100.0 * std::min(1.0, row->vs_ridge);
    }
  }
  if (collective) {
    const double compute_s = have_flops && res.peak > 0 ? row->flops / res.peak : 0;
    const double link_s = have_bytes && res.link_bw > 0 ? row->bytes / res.link_bw : 0;
    row->expected_s = std::max({compute_s, link_s});
    row->bound = link_s > 0 ? "communication" : "unknown";
  } else {
    const RoofPoint p = RoofAt(row->flops, row->bytes, row->measured_s, res.peak, res.hbm_bw);
    row->expected_s = p.expected_s;
    row->bound = p.bound;
  }
  if (row->measured_s > 0 && row->expected_s > 0) row->efficiency = row->expected_s / row->measured_s;
  if (have_flops && row->measured_s > 0) row->achieved_tflops = row->flops / row->measured_s / 1e12;
}

}  // namespace

RooflineResult RooflineXla(const RankProfile& r, const XlaOps& x, const hw::Chip& chip, hw::DType dtype) {
  RooflineResult res = Header(chip, dtype);

  std::vector<Acc> per_op(x.ops.size());
  for (size_t i = 0; i < r.ops.size(); ++i) {
    const int32_t xi = r.ops.xla[i];
    if (xi < 0 || static_cast<size_t>(xi) >= per_op.size()) continue;
    ++per_op[static_cast<size_t>(xi)].count;
    per_op[static_cast<size_t>(xi)].time += r.ops.dur[i];
  }
  constexpr size_t kGroups = static_cast<size_t>(XlaGroup::kCount);
  std::array<RooflineRow, kGroups> groups{};
  std::array<double, kGroups> group_expected{}, group_time_with_cost{};
  std::array<bool, kGroups> group_flops{}, group_bytes{};
  for (size_t k = 0; k < per_op.size(); ++k) {
    const Acc& a = per_op[k];
    if (a.count == 0) continue;
    const XlaOpInfo& info = x.ops[k];
    RooflineRow row;
    row.name = info.hlo_op.empty() ? "(unnamed)" : info.hlo_op;
    row.category = XlaGroupName(info.group);
    row.count = a.count;
    row.time_s = static_cast<double>(a.time) / 1e12;
    row.flops = info.flops;
    row.bytes = info.bytes;
    const bool collective = info.group == XlaGroup::kCollective;
    Derive(res, collective, &row);
    res.time_s += row.time_s;
    const size_t g = static_cast<size_t>(info.group);
    RooflineRow& gr = groups[g];
    gr.count += row.count;
    gr.time_s += row.time_s;
    if (row.bound == "unknown") {
      ++res.ops_without_cost;
    } else {
      res.time_with_cost_s += row.time_s;
      res.expected_s += row.expected_s * static_cast<double>(row.count);
      group_expected[g] += row.expected_s * static_cast<double>(row.count);
      group_time_with_cost[g] += row.time_s;
      if (row.flops >= 0) gr.flops = std::max(0.0, gr.flops) + row.flops * static_cast<double>(row.count), group_flops[g] = true;
      if (row.bytes > 0) gr.bytes = std::max(0.0, gr.bytes) + row.bytes * static_cast<double>(row.count), group_bytes[g] = true;
    }
    res.ops.push_back(std::move(row));
  }
  std::sort(res.ops.begin(), res.ops.end(), [](const RooflineRow& a, const RooflineRow& b) {
    return a.time_s != b.time_s ? a.time_s > b.time_s : a.name < b.name;
  });
  for (size_t g = 0; g < kGroups; ++g) {
    RooflineRow& gr = groups[g];
    if (gr.count == 0) continue;
    gr.name = gr.category = XlaGroupName(static_cast<XlaGroup>(g));
    // Per-execution figures of a category: totals over its costed
    // executions / their number would mix ops; report totals' ratios.
    if (group_flops[g] && group_bytes[g] && gr.bytes > 0) {
      gr.intensity = gr.flops / gr.bytes;
      if (res.ridge > 0) gr.vs_ridge = gr.intensity / res.ridge, gr.ceiling_pct = 100.0 * std::min(1.0, gr.vs_ridge);
    }
    gr.measured_s = gr.time_s / static_cast<double>(gr.count);
    if (group_time_with_cost[g] > 0) {
      gr.expected_s = group_expected[g];  // total, over executions with a cost
      gr.efficiency = group_expected[g] / group_time_with_cost[g];
      if (group_flops[g]) gr.achieved_tflops = gr.flops / group_time_with_cost[g] / 1e12;
      gr.bound = static_cast<XlaGroup>(g) == XlaGroup::kCollective ? "communication"
                 : gr.intensity >= 0 && res.ridge > 0 ? (gr.intensity >= res.ridge ? "compute" : "memory")
                                                       : "mixed";
    } else {
      gr.bound = "unknown";
    }
    if (!group_flops[g]) gr.flops = -1;
    if (!group_bytes[g]) gr.bytes = -1;
    res.categories.push_back(gr);
  }
  std::sort(res.categories.begin(), res.categories.end(),
            [](const RooflineRow& a, const RooflineRow& b) { return a.time_s > b.time_s; });
  return res;
}

RooflineResult RooflineFrameworkOps(const std::vector<OpGpuTime>& ops, int64_t rank, const hw::Chip& chip,
                                    hw::DType dtype, bool per_op_dtype) {
  RooflineResult res = Header(chip, dtype);
  struct Group {
    RooflineRow row;
    double expected = 0, time_with_cost = 0;
  };
  std::map<std::string, Group> groups;
  for (const OpGpuTime& o : ops) {
    if (o.rank != rank || o.calls <= 0 || o.gpu_time <= 0) continue;
    RooflineRow row;
    row.name = o.input_dims.empty() ? o.name : o.name + " " + o.input_dims;
    row.category = o.cost_kind == "gemm" ? "matmul/convolution" : "other";
    row.count = o.calls;
    row.time_s = static_cast<double>(o.gpu_time) / 1e12;
    row.flops = o.flops_per_call;
    row.bytes = o.bytes_per_call;
    row.measured_s = row.time_s / static_cast<double>(row.count);
    hw::DType d = dtype;
    if (per_op_dtype && !o.cost_dtype.empty()) PeakDtypeOf(o.cost_dtype, &d);
    const double peak = chip.peak(d) > 0 ? chip.peak(d) : res.peak;
    const RoofPoint p = RoofAt(row.flops, row.bytes, row.measured_s, peak, res.hbm_bw);
    row.intensity = p.intensity;
    if (p.intensity >= 0 && peak > 0 && res.hbm_bw > 0) {
      row.vs_ridge = p.intensity / (peak / res.hbm_bw);
      row.ceiling_pct = 100.0 * std::min(1.0, row.vs_ridge);
    }
    row.expected_s = p.expected_s;
    row.efficiency = p.efficiency;
    row.bound = p.bound;
    if (row.flops > 0) row.achieved_tflops = row.flops / row.measured_s / 1e12;
    res.time_s += row.time_s;
    Group& g = groups[row.category];
    g.row.name = g.row.category = row.category;
    g.row.count += row.count;
    g.row.time_s += row.time_s;
    if (row.bound == "unknown") {
      ++res.ops_without_cost;
    } else {
      res.time_with_cost_s += row.time_s;
      res.expected_s += row.expected_s * static_cast<double>(row.count);
      g.expected += row.expected_s * static_cast<double>(row.count);
      g.time_with_cost += row.time_s;
      g.row.flops = std::max(0.0, g.row.flops) + std::max(0.0, row.flops) * static_cast<double>(row.count);
      g.row.bytes = std::max(0.0, g.row.bytes) + std::max(0.0, row.bytes) * static_cast<double>(row.count);
    }
    res.ops.push_back(std::move(row));
  }
  for (auto& [name, g] : groups) {
    RooflineRow& gr = g.row;
    gr.measured_s = gr.time_s / static_cast<double>(gr.count);
    if (g.time_with_cost > 0) {
      if (gr.bytes > 0) {
        gr.intensity = gr.flops / gr.bytes;
        if (res.ridge > 0) gr.vs_ridge = gr.intensity / res.ridge, gr.ceiling_pct = 100.0 * std::min(1.0, gr.vs_ridge);
      }
      gr.expected_s = g.expected;
      gr.efficiency = g.expected / g.time_with_cost;
      if (gr.flops > 0) gr.achieved_tflops = gr.flops / g.time_with_cost / 1e12;
      gr.bound = gr.intensity >= 0 && res.ridge > 0 ? (gr.intensity >= res.ridge ? "compute" : "memory") : "mixed";
    } else {
      gr.bound = "unknown";
    }
    res.categories.push_back(gr);
  }
  auto by_time = [](const RooflineRow& a, const RooflineRow& b) {
    return a.time_s != b.time_s ? a.time_s > b.time_s : a.name < b.name;
  };
  std::sort(res.ops.begin(), res.ops.end(), by_time);
  std::sort(res.categories.begin(), res.categories.end(), by_time);
  return res;
}

}  // namespace mlprof
