// `mlprof roofline`: each op and category of every selected rank against its
// chip's roofline (XLA ops, or PyTorch ops costed from their shapes).
#include "analysis/roofline.h"

#include <fmt/format.h>

#include <filesystem>

#include "analysis/gemm_tiles.h"
#include "analysis/ops.h"
#include "analysis/xla.h"
#include "app/chip.h"
#include "app/commands.h"
#include "report/columns.h"
#include "report/hw_tables.h"
#include "report/tables.h"

namespace mlprof::app {

StatusOr<RooflineOutput> Roofline(const Session& s, const RooflineOptions& o) {
  ASSIGN_OR_RETURN(hw::ChipDb db, hw::ChipDb::WithFiles(o.chip_files));
  ASSIGN_OR_RETURN(hw::DType dtype, ParseDTypeOption(o.dtype));
  const hw::Chip* forced = nullptr;
  if (!o.chip.empty()) {
    ASSIGN_OR_RETURN(forced, FindChip(db, o.chip, s.profile.AllDevices()));
  }
  std::vector<int64_t> ici_axes;
  if (!o.ici_axes.empty()) {
    ASSIGN_OR_RETURN(ici_axes, ParseAxes(o.ici_axes));
  }

  RooflineOutput out;
  Report& r = out.report;
  r.warnings = ImportWarnings(s.profile);
  bool any = false;
  std::vector<OpGpuTime> framework_ops;  // PyTorch traces: GPU time and cost per (op, shapes)
  for (const auto& rv : s.view.ranks)
    if (rv.profile->xla_ops.empty() && !rv.gpu.empty()) {
      framework_ops = ComputeOpGpuTime(s.view, {true});
      break;
    }
  for (const auto& rank : s.profile.ranks) {
    if (!s.Selected(rank)) continue;
    const bool xla = !rank.xla_ops.empty();
    bool framework = false;
    for (const auto& f : framework_ops) framework = framework || f.rank == rank.rank_or(0);
    if (!xla && !framework) continue;
    any = true;
    DetectedChip detected = DetectChip(db, rank.meta.devices);
    const hw::Chip* chip = forced ? forced : detected.chip;
    if (!chip) {
      std::string seen;
      for (const auto& n : detected.seen) seen += (seen.empty() ? "" : ", ") + ("'" + n + "'");
      return InvalidArgument(fmt::format(
          "{}: cannot tell the chip from the profile (devices: {}); pass --chip (`mlprof chips` lists them) "
          "or --chip-file for your own",
          rank.path, seen.empty() ? "none named" : seen));
    }
    if (!(chip->peak(dtype) > 0))
      return InvalidArgument(
          fmt::format("chip '{}' has no {} peak; pick another --dtype", chip->id, hw::DTypeName(dtype)));
    RooflineResult rr;
    if (xla) {
      XlaOps x = ResolveXlaOps(rank);
      rr = RooflineXla(rank, x, *chip, dtype, ici_axes);
      for (const auto& problem : x.problems) r.warnings.push_back(problem);
    } else {
      rr = RooflineFrameworkOps(framework_ops, rank.rank_or(0), *chip, dtype, !o.dtype_given);
    }
    r.tables.push_back(RooflineSummaryTable(rank.rank_or(0), rr));
    if (!forced)
      r.tables.back().notes.push_back(fmt::format("Chip detected from the profile: {} ({}).", chip->id, chip->name));
    r.tables.push_back(RooflineCategoryTable(rank.rank_or(0), rr));
    r.tables.push_back(RooflineOpsTable(rank.rank_or(0), rr, o.top));
    if (o.want_svg && out.svg.empty())
      out.svg = RooflineSvg(rr, fmt::format("{} on {} ({})", std::filesystem::path(rank.path).filename().string(),
                                            chip->name, hw::DTypeName(dtype)));
  }
  if (!any)
    return InvalidArgument(
        "nothing to put on a roofline: no XLA ops and no GPU kernels in these inputs (`mlprof roofline` reads "
        "JAX/XLA profiles and PyTorch GPU traces)");
  if (!framework_ops.empty()) {
    // GEMMs' shape against the tile their kernel computes.
    std::vector<GemmTileRow> tiles = ComputeGemmTiles(s.view);
    std::erase_if(tiles, [&](const GemmTileRow& t) { return s.inputs.rank >= 0 && t.rank != s.inputs.rank; });
    size_t hidden = 0;
    r.tables.push_back(GemmTilesTable(tiles, o.top, &hidden));
    NoteHiddenRows(r.tables.back(), hidden);
    if (tiles.empty())
      r.tables.back().notes.push_back(
          "No GEMM op (with shapes) launched a kernel whose name gives its tile (Tensile MT<m>x<n>x<k>, cuBLAS "
          "tilesize<m>x<n>x<k>, CUTLASS and nvjet <m>x<n>_<k>x<stages>; Triton names are not read).");
    for (std::string& w : UncostedWarnings(s.view)) r.warnings.push_back(std::move(w));
    r.tables.front().notes.push_back(
        "PyTorch traces: FLOPs and bytes come from input shapes and scalar arguments (GEMM, convolution, "
        "attention, elementwise, softmax, norms, reductions, embedding) and, for collectives, from the "
        "record_param_comms arguments; the time of an op is the GPU time of the kernels it launched.");
  }
  return out;
}

}  // namespace mlprof::app
