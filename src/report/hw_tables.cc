#include "report/hw_tables.h"

#include <fmt/format.h>

namespace mlprof {

namespace {

Cell Tflops(const hw::Chip& c, hw::DType t) {
  return c.peak(t) > 0 ? Cell::Real(c.peak(t) / 1e12, 1) : Cell::Null();
}

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
  Table t{"chips", "Chips: dense peak TFLOP/s per chip, HBM, ridge point (bf16 FLOP per HBM byte), scale-up link",
          {}, {}, {}};
  t.AddColumn("id", false)
      .AddColumn("name", false)
      .AddColumn("kind", false)
      .AddColumn("cores", true)
      .AddColumn("fp32", true)
      .AddColumn("tf32", true)
      .AddColumn("bf16", true)
      .AddColumn("fp8", true)
      .AddColumn("int8", true)
      .AddColumn("hbm_gb", true)
      .AddColumn("hbm_tb_s", true)
      .AddColumn("ridge_bf16", true)
      .AddColumn("scale_up", false)
      .AddColumn("link_gb_s_per_dir", true)
      .AddColumn("figures", false)
      .AddColumn("origin", false);
  for (const auto& c : db.chips()) {
    const hw::Link* l = ScaleUp(c);
    const double dir = l ? l->bytes_per_s_per_dir() : 0;
    const double ridge = c.ridge(hw::DType::kBf16) > 0 ? c.ridge(hw::DType::kBf16) : c.ridge(hw::DType::kFp16);
    t.rows.push_back({Cell::Text(c.id), Cell::Text(c.name), Cell::Text(c.kind), Cell::Int(c.cores_per_chip),
                      Tflops(c, hw::DType::kFp32), Tflops(c, hw::DType::kTf32), Tflops(c, hw::DType::kBf16),
                      Tflops(c, hw::DType::kFp8), Tflops(c, hw::DType::kInt8), Cell::Real(c.hbm_bytes / 1e9, 1),
                      Cell::Real(c.hbm_bytes_per_s / 1e12, 2), ridge > 0 ? Cell::Real(ridge, 1) : Cell::Null(),
                      Cell::Text(l ? l->name : std::string()), dir > 0 ? Cell::Real(dir / 1e9, 0) : Cell::Null(),
                      Cell::Text(Confidence(c)), Cell::Text(c.origin)});
  }
  t.notes.push_back(
      "figures: src = read in a cited source; mem = from memory of a publication, unverified = sources conflict: "
      "check those before relying on them (`mlprof chips --chip ID` shows the sources). Your own chips: "
      "--chip-file FILE.json (same fields as data/chips/*.json).");
  return t;
}

Table ChipDetailTable(const hw::Chip& c) {
  Table t{"chip", fmt::format("Chip {}: {}", c.id, c.name), {}, {}, {}};
  t.AddColumn("field", false).AddColumn("value", false);
  auto add = [&t](std::string f, std::string v) { t.rows.push_back({Cell::Text(std::move(f)), Cell::Text(std::move(v))}); };
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
    if (l.bytes_per_s_per_dir_per_link > 0) v += fmt::format("; {:g} GB/s per link per direction", l.bytes_per_s_per_dir_per_link / 1e9);
    if (l.bytes_per_s_per_dir_per_axis > 0) v += fmt::format("; {:g} GB/s per axis per direction", l.bytes_per_s_per_dir_per_axis / 1e9);
    if (l.bytes_per_s_per_chip_bidir > 0) v += fmt::format("; {:g} GB/s per chip, both directions", l.bytes_per_s_per_chip_bidir / 1e9);
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

Table MfuTable(const MfuResult& r) {
  Table t{"mfu", "Model FLOPs utilisation", {}, {}, {}};
  t.AddColumn("metric", false).AddColumn("value", true).AddColumn("unit", false).AddColumn("how", false);
  for (const auto& row : r.rows) {
    const int prec = row.unit == "%" ? 2 : (row.value >= 1e5 ? 0 : 3);
    t.rows.push_back({Cell::Text(row.metric), Cell::Real(row.value, prec), Cell::Text(row.unit), Cell::Text(row.how)});
  }
  t.notes.push_back("Convention: " + r.convention + ". MFU counts model FLOPs only (no recomputation).");
  return t;
}

}  // namespace mlprof
