#include "report/hw_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/columns.h"

namespace mlprof {

namespace {

Cell Peak(const hw::Chip& c, hw::DType t) { return c.peak(t) > 0 ? Cell::Real(c.peak(t)) : Cell::Null(); }

// The scale-up link per direction, in GB/s, with its name.
const hw::Link* ScaleUp(const hw::Chip& c) {
  for (const auto& l : c.interconnect)
    if (l.scope == "scale-up") return &l;
  return nullptr;
}

// "src", "mem" or "unverified": the weakest tag the chip's notes or
// sources carry (figures from memory or unverified are to be checked).
std::string Confidence(const hw::Chip& c) {
  std::string all = c.notes;
  for (const auto& s : c.sources) all += " " + s;
  if (all.find("[unverified") != std::string::npos) return "unverified";
  if (all.find("[mem") != std::string::npos) return "mem";
  return "src";
}

}  // namespace

Table ChipsTable(const hw::ChipDb& db) {
  Table t("chips", "Chips: dense peak TFLOP/s per chip, HBM, ridge point (bf16 FLOP per HBM byte), scale-up link");
  auto peak = [](const char* dtype) {
    return Measure(fmt::format("{}_peak", dtype), Unit::kFlopRate, fmt::format("dense {} peak per chip", dtype))
        .Show(dtype, 1e12, 1);
  };
  t.Add(Key("id", Unit::kText, "the chip's id (--chip)"))
      .Add(Measure("name", Unit::kText, "the chip's name"))
      .Add(Measure("kind", Unit::kText, "gpu, tpu or npu"))
      .Add(Measure("cores", Unit::kCount, "cores per chip the peak is shared by (TPU TensorCores)"))
      .Add(peak("fp32"))
      .Add(peak("tf32"))
      .Add(peak("bf16"))
      .Add(peak("fp8"))
      .Add(peak("int8"))
      .Add(Measure("hbm", Unit::kBytes, "HBM capacity").Show("hbm_gb", 1e9, 1))
      .Add(Measure("hbm_bandwidth", Unit::kByteRate, "HBM bandwidth").Show("hbm_tb_s", 1e12, 2))
      .Add(Measure("ridge_bf16", Unit::kIntensity, "bf16 (else fp16) peak / HBM bandwidth").Decimals(1))
      .Add(Measure("scale_up", Unit::kText, "the scale-up link"))
      .Add(Measure("link_bandwidth", Unit::kByteRate, "the scale-up link's bandwidth per direction")
               .Show("link_gb_s_per_dir", 1e9, 0))
      .Add(Measure("figures", Unit::kText, "how sure the figures are: src, mem or unverified"))
      .Add(Measure("origin", Unit::kText, "built-in, or the --chip-file it came from"));
  for (const auto& c : db.chips()) {
    const hw::Link* l = ScaleUp(c);
    const double dir = l ? l->bytes_per_s_per_dir() : 0;
    const double ridge = c.ridge(hw::DType::kBf16) > 0 ? c.ridge(hw::DType::kBf16) : c.ridge(hw::DType::kFp16);
    t.rows.push_back({Cell::Text(c.id), Cell::Text(c.name), Cell::Text(c.kind), Cell::Int(c.cores_per_chip),
                      Peak(c, hw::DType::kFp32), Peak(c, hw::DType::kTf32), Peak(c, hw::DType::kBf16),
                      Peak(c, hw::DType::kFp8), Peak(c, hw::DType::kInt8), Cell::Real(c.hbm_bytes),
                      Cell::Real(c.hbm_bytes_per_s), ridge > 0 ? Cell::Real(ridge) : Cell::Null(),
                      Cell::Text(l ? l->name : std::string()), dir > 0 ? Cell::Real(dir) : Cell::Null(),
                      Cell::Text(Confidence(c)), Cell::Text(c.origin)});
  }
  t.notes.push_back(
      "figures: src = read in a cited source; mem = from memory of a publication, unverified = sources conflict: "
      "check those before relying on them (`mlprof chips --chip ID` shows the sources). Your own chips: "
      "--chip-file FILE.json (same fields as data/chips/*.json).");
  return t;
}

Table ChipDetailTable(const hw::Chip& c) {
  Table t("chip", fmt::format("Chip {}: {}", c.id, c.name));
  t.Add(Key("field", Unit::kText, "what is described")).Add(Measure("value", Unit::kText, "its value").Whole());
  auto add = [&t](std::string f, std::string v) {
    t.rows.push_back({Cell::Text(std::move(f)), Cell::Text(std::move(v))});
  };
  add("vendor", c.vendor);
  add("kind", c.kind);
  add("cores_per_chip", std::to_string(c.cores_per_chip));
  for (int i = 0; i < static_cast<int>(hw::DType::kCount); ++i) {
    const auto d = static_cast<hw::DType>(i);
    if (c.peak(d) > 0)
      add(fmt::format("peak {} (dense)", hw::DTypeName(d)),
          fmt::format("{:g} TFLOP/s; ridge {:.1f} FLOP/byte", c.peak(d) / 1e12, c.ridge(d)));
  }
  add("HBM", fmt::format("{:g} GB, {:g} TB/s", c.hbm_bytes / 1e9, c.hbm_bytes_per_s / 1e12));
  for (const auto& m : c.on_chip) add("on-chip " + m.name, fmt::format("{:g} MiB", m.bytes / (1 << 20)));
  for (const auto& l : c.interconnect) {
    std::string v = l.scope;
    if (l.links > 0) v += fmt::format("; {} links", l.links);
    if (l.bytes_per_s_per_dir_per_link > 0)
      v += fmt::format("; {:g} GB/s per link per direction", l.bytes_per_s_per_dir_per_link / 1e9);
    if (l.bytes_per_s_per_dir_per_axis > 0)
      v += fmt::format("; {:g} GB/s per axis per direction", l.bytes_per_s_per_dir_per_axis / 1e9);
    if (l.bytes_per_s_per_chip_bidir > 0)
      v += fmt::format("; {:g} GB/s per chip, both directions", l.bytes_per_s_per_chip_bidir / 1e9);
    if (!l.note.empty()) v += "; " + l.note;
    add("link " + l.name, v);
  }
  if (!c.match.empty()) {
    std::string m;
    for (const auto& s : c.match) m += (m.empty() ? "" : ", ") + s;
    add("detected from", m);
  }
  for (const auto& s : c.sources) add("source", s);
  if (!c.notes.empty()) add("notes", c.notes);
  add("origin", c.origin);
  return t;
}

namespace {
std::string ConventionText(const MfuResult& r) {
  switch (r.convention) {
    case FlopsConvention::kPerStepGiven:
      return "model FLOPs per step as given";
    case FlopsConvention::kPerTokenGiven:
      return "model FLOPs per token as given";
    case FlopsConvention::kPerSampleGiven:
      return fmt::format("model FLOPs per sample as given, over {:g} tokens per sample", r.tokens_per_sample);
    case FlopsConvention::kSixN:
      break;
  }
  std::string c = "6 x parameters per token (2 forward + 4 backward per weight)";
  if (r.attention_counted)
    c += fmt::format(" + 12 x layers x context x d_model for attention scores{}",
                     r.causal ? ", halved for the causal mask" : " (full s x s, no causal halving)");
  else
    c += "; attention-score FLOPs not counted (give --layers, --context and --d-model)";
  return c;
}
}  // namespace

Table MfuTable(const MfuResult& r) {
  Table t("mfu", "Model FLOPs utilisation");
  t.Add(Key("metric", Unit::kText, "what is measured"))
      .Add(Measure("value", Unit::kPerRow, "its value, in the row's unit"))
      .Add(Measure("unit", Unit::kText, "the value's unit"))
      .Add(Measure("how", Unit::kText, "how it was found"));
  // Raw value and unit for JSON and CSV; text shows value / scale in `shown`.
  auto add = [&t](const char* metric, double value, const char* unit, const char* shown, double scale,
                  const std::string& how) {
    const double v = value / scale;
    const int prec = std::string_view(shown) == "%" ? 2 : (v >= 1e5 ? 0 : 3);
    t.rows.push_back({Cell::Text(metric), Cell::Real(value).Shown(fmt::format("{:.{}f}", v, prec)),
                      Cell::Text(unit).Shown(shown), Cell::Text(how)});
  };
  const std::string convention = ConventionText(r);
  const bool have_step = r.step_seconds > 0;
  if (r.tokens_per_s > 0) {
    add("tokens_per_s", r.tokens_per_s, "tokens/s", "tokens/s", 1,
        r.throughput == ThroughputSource::kTokensPerStep  ? "tokens per step / step time"
        : r.throughput == ThroughputSource::kTokensPerDay ? "tokens per day / 86400 s"
                                                          : "");
    add("tokens_per_device_per_s", r.tokens_per_device_per_s, "tokens/s", "tokens/s", 1, "tokens per s / devices");
  }
  if (r.flops_per_token > 0)
    add("model_flops_per_token", r.flops_per_token, "flop", "GFLOP", 1e9, "the convention below");
  if (have_step) {
    add("step_time", r.step_seconds, "s", "s", 1, r.step_from_profile ? "from the profile" : "given");
    add("model_flops_per_step", r.model_flops_per_step, "flop", "PFLOP", 1e15,
        r.convention == FlopsConvention::kPerStepGiven ? "given" : "FLOPs per token x tokens per s x step time");
    add("model_flops_per_device_per_step", r.flops_per_device_per_step, "flop", "TFLOP", 1e12,
        "model FLOPs per step / devices");
  }
  add("achieved_flops_per_device", r.achieved_flops_per_device, "flop/s", "TFLOP/s", 1e12,
      "model FLOPs per s / devices");
  std::string peak_how = "given (--peak-tflops)";
  if (r.peak_source == PeakSource::kChip) {
    peak_how = fmt::format("{} {} peak (dense)", r.chip, hw::DTypeName(r.dtype));
    if (r.cores_per_chip > 0) peak_how += fmt::format(" / {} cores per chip", r.cores_per_chip);
  }
  add("peak_flops_per_device", r.peak_flops_per_device, "flop/s", "TFLOP/s", 1e12, peak_how);
  add("mfu", r.mfu, "ratio", "%", 0.01, "achieved / peak");
  if (r.hfu >= 0) {
    add("hardware_flops_per_device", r.hardware_flops_per_device_per_s, "flop/s", "TFLOP/s", 1e12,
        "the profile's op FLOPs per device per step / step time");
    add("hfu", r.hfu, "ratio", "%", 0.01, "hardware FLOP/s / peak (recomputation included)");
  }
  t.notes.push_back("Convention: " + convention + ". MFU counts model FLOPs only (no recomputation).");
  if (r.mfu > 1)
    t.notes.push_back("MFU above 100 %: the model FLOPs, the throughput or the device count do not fit together.");
  return t;
}

namespace {
Cell Seconds(double s) { return s >= 0 ? TimeCell(s * 1e12) : Cell::Null(); }
Column Ratio(std::string name, std::string description, int decimals) {
  return Measure(std::move(name), Unit::kRatio, std::move(description)).Decimals(decimals);
}
Column Efficiency() { return Ratio("efficiency", "expected / measured time", 3); }
Column Intensity() { return Measure("intensity", Unit::kIntensity, "FLOPs / bytes").Show("flop_per_byte", 1, 1); }
Column VsRidge() { return Ratio("vs_ridge", "intensity / the ridge point", 3); }
Column Ceiling() {
  return Measure("ceiling_pct", Unit::kPercent, "the roofline's ceiling at this intensity / peak").Decimals(1);
}
Column AchievedRate() {
  return Measure("flops_per_s", Unit::kFlopRate, "FLOPs / measured time").Show("tflops_s", 1e12, 2);
}
Column Bound() { return Measure("bound", Unit::kText, "what the roofline says limits it: compute, memory or network"); }
}  // namespace

Table RooflineSummaryTable(int64_t rank, const RooflineResult& r) {
  Table t("roofline_summary", "Roofline: the chip, and how close the ops come to it");
  t.Add(RankKey())
      .Add(Measure("chip", Unit::kText, "the chip's id"))
      .Add(Measure("dtype", Unit::kText, "the dtype whose peak is the ceiling"))
      .Add(Measure("peak", Unit::kFlopRate, "dense peak per device").Show("peak_tflops", 1e12, 1))
      .Add(Measure("hbm_bandwidth", Unit::kByteRate, "HBM bandwidth").Show("hbm_tb_s", 1e12, 2))
      .Add(Measure("ridge", Unit::kIntensity, "peak / HBM bandwidth").Show("ridge_flop_per_byte", 1, 1))
      .Add(Measure("link_bandwidth", Unit::kByteRate, "the link collectives are timed over, per direction")
               .Show("link_gb_s", 1e9, 0))
      .Add(Measure("op_time", Unit::kTime, "device time of all ops").Ms())
      .Add(Measure("costed_time", Unit::kTime, "device time of the ops with a known cost").Ms())
      .Add(Measure("expected", Unit::kTime, "the roofline's time for the costed ops").Ms())
      .Add(Ratio("efficiency", "expected / costed_time", 3))
      .Add(Measure("ops_without_cost", Unit::kCount, "ops with no known FLOPs or bytes"));
  t.rows.push_back({Cell::Int(rank), Cell::Text(r.chip), Cell::Text(hw::DTypeName(r.dtype)), Cell::Real(r.peak),
                    Cell::Real(r.hbm_bw), Cell::Real(r.ridge), r.link_bw > 0 ? Cell::Real(r.link_bw) : Cell::Null(),
                    Seconds(r.time_s), Seconds(r.time_with_cost_s), Seconds(r.expected_s),
                    r.time_with_cost_s > 0 ? Cell::Real(r.expected_s / r.time_with_cost_s) : Cell::Null(),
                    Cell::Int(r.ops_without_cost)});
  t.notes.push_back(
      "Expected time = max(FLOPs / peak, bytes / HBM bandwidth) per execution; collectives: the bytes each "
      "participant sends in a ring (from the buffer and the group size: 2(n-1)/n of it for all-reduce, (n-1)/n for "
      "all-gather, reduce-scatter and all-to-all) / the link bandwidth per direction. Efficiency = expected / "
      "measured over the ops with a known cost. Peaks are per device (chip) and dense.");
  std::string dims;
  for (int64_t a : r.ici_axes) dims += (dims.empty() ? "" : "x") + std::to_string(a);
  switch (r.link_model) {
    case LinkModel::kOneAxisRing:
      t.notes.push_back(fmt::format("Collectives timed as: ring on one {} axis, {:.0f} GB/s per direction.",
                                    r.link_name, r.link_bw / 1e9));
      break;
    case LinkModel::kAllLinksRing:
      t.notes.push_back(
          fmt::format("Collectives timed as: ring over {}, {:.0f} GB/s per direction.", r.link_name, r.link_bw / 1e9));
      break;
    case LinkModel::kTorusAxes:
      t.notes.push_back(fmt::format(
          "Collectives timed as: over the axes of the {} torus each group spans (innermost first), {:.0f} GB/s per "
          "axis, all spanned axes at once, at least 1 us per hop.",
          dims, r.link_bw / 1e9));
      break;
    case LinkModel::kNone:
      break;
  }
  if (r.host_memory_ops > 0)
    t.notes.push_back(fmt::format(
        "{} ops copy to or from host memory (S(5)/S(6), host offload; {:.3f} ms): left off the roofline, whose "
        "ceilings are HBM and compute, not the host link.",
        r.host_memory_ops, r.host_memory_s * 1e3));
  if (r.above_roof_ops > 0)
    t.notes.push_back(fmt::format(
        "{} ops ({:.3f} ms, {:.1f} % of the costed time) ran faster than the roofline allows (efficiency above {:g}): "
        "not efficiency but an error: their FLOPs or bytes are overcounted, some of their device time was "
        "attributed to another op, or the chip (--chip) is not the one that ran them.{}",
        r.above_roof_ops, r.above_roof_s * 1e3,
        r.time_with_cost_s > 0 ? 100.0 * r.above_roof_s / r.time_with_cost_s : 0.0, kAboveRoof,
        r.time_with_cost_s > 0 && r.expected_s > r.time_with_cost_s
            ? " The summary's efficiency above 1 rests on them: do not read it as headroom used."
            : ""));
  if (r.above_roof_fp32_s > 0)
    t.notes.push_back(fmt::format(
        "{:.3f} ms of it is float ops held to the fp32 peak: float matmuls and convolutions that fast ran on TF32 "
        "tensor cores (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32, on by default for "
        "convolutions): --dtype tf32 holds every op to the TF32 peak.",
        r.above_roof_fp32_s * 1e3));
  if (!r.dtype_time.empty()) {
    std::string shares;
    double all = 0;
    for (const auto& [d, s] : r.dtype_time) all += s;
    for (const auto& [d, s] : r.dtype_time)
      shares += fmt::format("{}{} {:.1f} %", shares.empty() ? "" : ", ", hw::DTypeName(d), all > 0 ? 100 * s / all : 0);
    t.notes.push_back(fmt::format(
        "Each op is held to the peak of its own dtype (no --dtype): {} of the costed time; dtype, peak and ridge "
        "above are {}'s, the dtype holding the most.",
        shares, hw::DTypeName(r.dtype)));
  }
  return t;
}

Table HloExpectedTable(const std::vector<HloExpected>& modules, const hw::Chip& chip, hw::DType dtype) {
  Table t("hlo_expected",
          fmt::format("Expected time from the HLO alone on {} ({}, dense)", chip.id, hw::DTypeName(dtype)));
  t.Add(Key("module", Unit::kText, "module name"))
      .Add(Measure("flops", Unit::kFlops, "FLOPs of one execution of the entry computation").Show("gflop", 1e9, 3))
      .Add(Measure("bytes", Unit::kBytes, "bytes it accesses").Show("gb", 1e9, 3))
      .Add(Measure("devices", Unit::kCount, "devices the work is spread over"))
      .Add(Measure("peak_per_device", Unit::kFlopRate, "dense peak of one device").Show("peak_tflops", 1e12, 1))
      .Add(Measure("compute", Unit::kTime, "flops / (devices x peak)").Ms())
      .Add(Measure("memory", Unit::kTime, "bytes / (devices x HBM bandwidth)").Ms())
      .Add(Measure("expected", Unit::kTime, "max(compute, memory): the roofline's time").Ms())
      .Add(Measure("bound", Unit::kText, "compute or memory"));
  for (const HloExpected& e : modules)
    t.rows.push_back({Cell::Text(e.module->name), Cell::Real(e.flops), Cell::Real(e.bytes), Cell::Real(e.devices),
                      Cell::Real(e.peak_per_device), Seconds(e.compute_s), Seconds(e.memory_s), Seconds(e.expected_s),
                      Cell::Text(RoofBoundName(e.bound))});
  t.notes.push_back(
      "The entry computation's FLOPs and bytes (XLA's cost rules; while loops: one iteration) spread evenly over "
      "the devices. An SPMD-partitioned module (partitions > 1) is one device's program already: use --devices 1.");
  return t;
}

Table RooflineCategoryTable(int64_t rank, const RooflineResult& r) {
  Table t("roofline_categories", "Roofline by category (totals over executions)");
  t.Add(RankKey())
      .Add(Key("category", Unit::kText, "mlprof's op category"))
      .Add(Measure("count", Unit::kCount, "executions"))
      .Add(Measure("time", Unit::kTime, "measured device time").Ms())
      .Add(Measure("flops", Unit::kFlops, "FLOPs over all executions").Show("tflop", 1e12, 3))
      .Add(Measure("bytes", Unit::kBytes, "bytes over all executions").Show("gb", 1e9, 3))
      .Add(Intensity())
      .Add(VsRidge())
      .Add(Ceiling())
      .Add(Measure("expected", Unit::kTime, "the roofline's time").Ms())
      .Add(Efficiency())
      .Add(AchievedRate())
      .Add(Bound());
  for (const auto& c : r.categories)
    t.rows.push_back({Cell::Int(rank), Cell::Text(c.name), Cell::Int(c.count), Seconds(c.time_s), Known(c.flops),
                      Known(c.bytes), Known(c.intensity), Known(c.vs_ridge), Known(c.ceiling_pct),
                      Seconds(c.expected_s), Known(c.efficiency), Known(c.achieved_flops_per_s),
                      Cell::Text(RoofBoundName(c.bound))});
  return t;
}

Table GemmTilesTable(const std::vector<GemmTileRow>& rows, int top, size_t* hidden) {
  Table t("gemm_tiles", "GEMM shape against the kernel's tile: padding and wave quantisation");
  auto ratio = [](const char* name, const char* description) {
    return Measure(name, Unit::kRatio, description).Decimals(3);
  };
  t.Add(RankKey())
      .Add(Key("op", Unit::kText, "the GEMM op").Symbol())
      .Add(Key("input_dims", Unit::kText, "its Input Dims"))
      .Add(Key("kernel", Unit::kText, "the kernel it launched"))
      .Add(Measure("count", Unit::kCount, "launches"))
      .Add(Measure("gpu", Unit::kTime, "their GPU time").Us())
      .Add(Measure("m", Unit::kCount, "output rows (the op's M)"))
      .Add(Measure("n", Unit::kCount, "output columns (N)"))
      .Add(Measure("k", Unit::kCount, "inner dimension (K)"))
      .Add(Measure("tile", Unit::kText, "the kernel's tile, M x N (swapped when it runs along N x M), from its name"))
      .Add(Measure("tiles", Unit::kCount, "tiles to cover the output: batch x ceil(M/tm) x ceil(N/tn)"))
      .Add(Measure("ctas", Unit::kCount, "the grid where it is the tiles x a split-K factor, else the tiles"))
      .Add(ratio("tile_eff", "M x N / the tiles' area: the share that is not padding"))
      .Add(Measure("sms", Unit::kCount, "SMs / CUs (deviceProperties)"))
      .Add(Measure("waves", Unit::kCount, "ceil(ctas / SMs)"))
      .Add(ratio("wave_eff", "ctas / (waves x SMs): how full the waves are"))
      .Add(ratio("shape_eff", "tile_eff x wave_eff"))
      .Add(Measure("grid", Unit::kText, "yes: the kernel's grid is this many tiles (or a split-K multiple)"));
  auto opt = [](double v) { return v >= 0 ? Cell::Real(v) : Cell::Null(); };
  LimitedRows(t, rows, top, hidden, [&](const GemmTileRow& r) -> std::vector<Cell> {
    const std::string tile =
        r.swapped ? fmt::format("{}x{} (N x M)", r.tile.m, r.tile.n) : fmt::format("{}x{}", r.tile.m, r.tile.n);
    return {Cell::Int(r.rank),
            Cell::Text(r.op),
            Cell::Text(r.input_dims),
            Cell::Text(r.kernel),
            Cell::Int(r.count),
            Cell::Int(r.gpu),
            Cell::Int(r.m),
            Cell::Int(r.n),
            Cell::Int(r.k),
            Cell::Text(tile),
            Cell::Int(r.tiles),
            Cell::Int(r.ctas),
            Cell::Real(r.tile_eff),
            r.sms > 0 ? Cell::Int(r.sms) : Cell::Null(),
            r.waves > 0 ? Cell::Int(r.waves) : Cell::Null(),
            opt(r.wave_eff),
            opt(r.shape_eff),
            Cell::Text(r.grid_confirms ? "yes" : "")};
  });
  t.notes.push_back(
      "Tiles from kernel names: Tensile/hipBLASLt MT<m>x<n>x<k>, cuBLAS tilesize<m>x<n>x<k>, CUTLASS and cuBLAS "
      "nvjet <m>x<n>_<k>x<stages>. One CTA per SM at a time; persistent kernels (grid = the SM count: grid blank) "
      "and stream-K schedule otherwise.");
  return t;
}

Table RooflineOpsTable(int64_t rank, const RooflineResult& r, int top) {
  Table t("roofline_ops", "Roofline per op (per execution), heaviest first");
  t.Add(RankKey())
      .Add(Key("op", Unit::kText, "the op (HLO instruction, or framework op with its shapes)"))
      .Add(Measure("category", Unit::kText, "mlprof's op category"))
      .Add(Measure("count", Unit::kCount, "executions"))
      .Add(Measure("time", Unit::kTime, "measured device time over all executions").Ms())
      .Add(Measure("flops", Unit::kFlops, "FLOPs of one execution").Show("gflop", 1e9, 3))
      .Add(Measure("bytes", Unit::kBytes, "bytes of one execution").Show("mb", 1e6, 3))
      .Add(Intensity())
      .Add(VsRidge())
      .Add(Ceiling())
      .Add(Measure("expected", Unit::kTime, "the roofline's time for one execution").Us())
      .Add(Measure("measured", Unit::kTime, "mean measured time of one execution").Us())
      .Add(Efficiency())
      .Add(AchievedRate())
      .Add(Bound());
  size_t n = 0;
  for (const auto& o : r.ops) {
    if (top > 0 && n++ >= static_cast<size_t>(top)) break;
    t.rows.push_back({Cell::Int(rank), Cell::Text(o.name), Cell::Text(o.category), Cell::Int(o.count),
                      Seconds(o.time_s), Known(o.flops), Known(o.bytes), Known(o.intensity), Known(o.vs_ridge),
                      Known(o.ceiling_pct), Seconds(o.expected_s), Seconds(o.measured_s), Known(o.efficiency),
                      Known(o.achieved_flops_per_s), Cell::Text(RoofBoundName(o.bound))});
  }
  NoteHiddenRows(t, r.ops.size() - t.rows.size());
  return t;
}

namespace {
std::string XmlEscape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t')
          out += ' ';  // XML 1.0 forbids most controls
        else
          out += c;
    }
  }
  return out;
}
}  // namespace

std::string RooflineSvg(const RooflineResult& r, const std::string& title) {
  // Plot area and axis ranges (decades), widened to hold every point.
  const double W = 900, H = 600, L = 80, R = 30, T = 50, B = 60;
  double xmin = 1e-2, xmax = 1e4, ymin = 1e-3, ymax = std::max(1.0, r.peak / 1e12 * 2);
  for (const auto& o : r.ops) {
    if (o.intensity <= 0 || o.achieved_flops_per_s <= 0) continue;
    xmin = std::min(xmin, o.intensity / 2), xmax = std::max(xmax, o.intensity * 2);
    ymin = std::min(ymin, o.achieved_flops_per_s / 1e12 / 2), ymax = std::max(ymax, o.achieved_flops_per_s / 1e12 * 2);
  }
  xmin = std::pow(10, std::floor(std::log10(xmin))), xmax = std::pow(10, std::ceil(std::log10(xmax)));
  ymin = std::pow(10, std::floor(std::log10(ymin))), ymax = std::pow(10, std::ceil(std::log10(ymax)));
  auto X = [&](double v) {
    return L + (W - L - R) * (std::log10(v) - std::log10(xmin)) / (std::log10(xmax) - std::log10(xmin));
  };
  auto Y = [&](double v) {
    return H - B - (H - T - B) * (std::log10(v) - std::log10(ymin)) / (std::log10(ymax) - std::log10(ymin));
  };
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{}\" y=\"24\" font-size=\"15\">{}</text>\n",
      W, H, W, H, L, XmlEscape(title));
  // Grid and axis labels, one per decade.
  for (double v = xmin; v <= xmax * 1.0001; v *= 10)
    s += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#ddd\"/><text x=\"{0:.1f}\" "
        "y=\"{3}\" text-anchor=\"middle\">{4:g}</text>\n",
        X(v), T, H - B, H - B + 16, v);
  for (double v = ymin; v <= ymax * 1.0001; v *= 10)
    s += fmt::format(
        "<line x1=\"{1}\" y1=\"{0:.1f}\" x2=\"{2}\" y2=\"{0:.1f}\" stroke=\"#ddd\"/><text x=\"{3}\" "
        "y=\"{0:.1f}\" text-anchor=\"end\" dominant-baseline=\"middle\">{4:g}</text>\n",
        Y(v), L, W - R, L - 6, v);
  s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">arithmetic intensity (FLOP per HBM byte)</text>\n",
                   (L + W - R) / 2, H - 15);
  s += fmt::format("<text transform=\"translate(20 {}) rotate(-90)\" text-anchor=\"middle\">TFLOP/s</text>\n",
                   (T + H - B) / 2);
  // The roofline: bandwidth slope up to the ridge, then the compute ceiling.
  if (r.peak > 0 && r.hbm_bw > 0) {
    const double peak_tf = r.peak / 1e12, bw_tb = r.hbm_bw / 1e12;
    const double x0 = std::max(xmin, ymin / bw_tb);
    s += fmt::format(
        "<polyline fill=\"none\" stroke=\"#c00\" stroke-width=\"2\" points=\"{:.1f},{:.1f} {:.1f},{:.1f} "
        "{:.1f},{:.1f}\"/>\n",
        X(x0), Y(x0 * bw_tb), X(r.ridge), Y(peak_tf), X(xmax), Y(peak_tf));
    s += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#c00\" "
        "stroke-dasharray=\"4 4\"/><text x=\"{3:.1f}\" y=\"{4:.1f}\" fill=\"#c00\" text-anchor=\"end\">ridge {5:.0f} "
        "FLOP/B, "
        "peak {6:g} TFLOP/s ({7} {8})</text>\n",
        X(r.ridge), T, H - B, X(r.ridge) - 6, Y(peak_tf) - 8, r.ridge, peak_tf, XmlEscape(r.chip),
        XmlEscape(hw::DTypeName(r.dtype)));
  }
  // Points, largest first so that small ones stay visible on top.
  double tmax = 0;
  for (const auto& o : r.ops) tmax = std::max(tmax, o.time_s);
  for (const auto& o : r.ops) {
    if (o.intensity <= 0 || o.achieved_flops_per_s <= 0 || tmax <= 0) continue;
    const double rad = 3 + 22 * std::sqrt(o.time_s / tmax);
    const char* color = o.bound == RoofBound::kCompute  ? "#1f77b4"
                        : o.bound == RoofBound::kMemory ? "#2ca02c"
                                                        : "#ff7f0e";
    s += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" fill=\"{}\" fill-opacity=\"0.45\" stroke=\"{}\">"
        "<title>{} ({}): {:.1f} FLOP/B, {:.2f} TFLOP/s, {:.3f} ms total, efficiency {:.2f}</title></circle>\n",
        X(o.intensity), Y(o.achieved_flops_per_s / 1e12), rad, color, color, XmlEscape(o.name), XmlEscape(o.category),
        o.intensity, o.achieved_flops_per_s / 1e12, o.time_s * 1e3, o.efficiency);
  }
  s += "</svg>\n";
  return s;
}

}  // namespace mlprof
