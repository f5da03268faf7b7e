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
#include "app/shards.h"
#include "report/columns.h"
#include "report/hw_tables.h"

namespace mlprof::app {

namespace {

const char* const kPyTorchNote =
    "PyTorch traces: FLOPs and bytes come from input shapes and scalar arguments (GEMM, convolution, "
    "attention, elementwise, softmax, norms, reductions, embedding) and, for collectives, from the "
    "record_param_comms arguments; the time of an op is the GPU time of the kernels it launched.";
const char* const kNoTilesNote =
    "No GEMM op (with shapes) launched a kernel whose name gives its tile (Tensile MT<m>x<n>x<k>, cuBLAS "
    "tilesize<m>x<n>x<k>, CUTLASS and nvjet <m>x<n>_<k>x<stages>; Triton names are not read).";

// The shard: each rank's three tables (a group), the first error in rank
// order (one process stops there: the combine returns the lowest rank's),
// the GEMM tiles' first rows, and the facts the notes need.
StatusOr<Report> RooflineShard(const Session& s, const RooflineOptions& o) {
  ASSIGN_OR_RETURN(hw::ChipDb db, hw::ChipDb::WithFiles(o.chip_files));
  ASSIGN_OR_RETURN(hw::DType dtype, ParseDTypeOption(o.dtype));
  const hw::Chip* forced = nullptr;
  if (!o.chip.empty()) {
    ASSIGN_OR_RETURN(forced, FindChip(db, o.chip, s.JobDevices()));
  }
  std::vector<int64_t> ici_axes;
  if (!o.ici_axes.empty()) {
    ASSIGN_OR_RETURN(ici_axes, ParseAxes(o.ici_axes));
  }
  Report r;
  Table error("_error", "");
  error.Add(RankKey()).Add(Count("code", "")).Add(Measure("message", Unit::kText, ""));
  Table rank_warnings("_rank_warnings", "");
  rank_warnings.Add(RankKey()).Add(Measure("text", Unit::kText, ""));
  Table svg("_svg", "");
  svg.Add(RankKey()).Add(Measure("svg", Unit::kText, ""));
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
    Status bad = OkStatus();
    if (!chip) {
      std::string seen;
      for (const auto& n : detected.seen) seen += (seen.empty() ? "" : ", ") + ("'" + n + "'");
      bad = InvalidArgument(fmt::format(
          "{}: cannot tell the chip from the profile (devices: {}){}; pass --chip (`mlprof chips` lists them) "
          "or --chip-file for your own",
          rank.path, seen.empty() ? "none named" : seen, detected.ClosestHint(db)));
    }
    // No --dtype: bf16's peak, or the chip's half (fp16) where it has no
    // bf16 (V100, T4, RTX 20); PyTorch ops are held to their own dtype anyway.
    const hw::DType d = chip && !o.dtype_given ? DefaultPeakDtype(*chip) : dtype;
    if (chip && !(chip->peak(d) > 0)) {
      bad = InvalidArgument(fmt::format("chip '{}' has no {} peak; pick another --dtype", chip->id, hw::DTypeName(d)));
    }
    if (!bad.ok()) {
      error.rows.push_back(
          {Cell::Int(rank.rank_or(0)), Cell::Int(static_cast<int64_t>(bad.code())), Cell::Text(bad.message())});
      break;
    }
    RooflineResult rr;
    if (xla) {
      XlaOps x = ResolveXlaOps(rank);
      rr = RooflineXla(rank, x, *chip, d, ici_axes);
      for (const auto& problem : x.problems)
        rank_warnings.rows.push_back({Cell::Int(rank.rank_or(0)), Cell::Text(problem)});
    } else {
      rr = RooflineFrameworkOps(framework_ops, rank.rank_or(0), *chip, d, !o.dtype_given);
    }
    const size_t first = r.tables.size();
    r.tables.push_back(RooflineSummaryTable(rank.rank_or(0), rr));
    if (!forced)
      r.tables.back().notes.push_back(fmt::format("Chip detected from the profile: {} ({}).", chip->id, chip->name));
    r.tables.push_back(RooflineCategoryTable(rank.rank_or(0), rr));
    r.tables.push_back(RooflineOpsTable(rank.rank_or(0), rr, o.top));
    MarkRankGroup(r, rank.rank_or(0), first, 3);
    if (o.want_svg && svg.rows.empty())
      svg.rows.push_back(
          {Cell::Int(rank.rank_or(0)),
           Cell::Text(RooflineSvg(rr, fmt::format("{} on {} ({})", std::filesystem::path(rank.path).filename().string(),
                                                  chip->name, hw::DTypeName(rr.dtype))))});
  }
  Table facts("_roofline", "");
  facts.Add(Count("any", "")).Add(Count("framework", "")).Add(Count("tiles", "")).Add(Count("hidden_tiles", ""));
  size_t hidden = 0, tiles_found = 0;
  if (!framework_ops.empty()) {
    // GEMMs' shape against the tile their kernel computes.
    std::vector<GemmTileRow> tiles = ComputeGemmTiles(s.view);
    std::erase_if(tiles, [&](const GemmTileRow& t) { return s.inputs.rank >= 0 && t.rank != s.inputs.rank; });
    tiles_found = tiles.size();
    r.tables.push_back(GemmTilesTable(tiles, o.top, &hidden));
  }
  facts.rows.push_back({Cell::Int(any), Cell::Int(!framework_ops.empty()), Cell::Int(static_cast<int64_t>(tiles_found)),
                        Cell::Int(static_cast<int64_t>(hidden))});
  r.tables.push_back(std::move(facts));
  r.tables.push_back(UncostedShard(s.view));
  r.tables.push_back(std::move(error));
  r.tables.push_back(std::move(rank_warnings));
  if (o.want_svg) r.tables.push_back(std::move(svg));
  return r;
}

Status RooflineFinish(Report& r, const std::vector<Report>& shards, const RooflineOptions& o) {
  // The lowest rank's error is the one a single process meets first.
  const std::vector<Cell>* error = nullptr;
  for (const Table* t : TablesWithId(shards, "_error"))
    for (const auto& row : t->rows)
      if (!error || IntAt(row, 0) < IntAt(*error, 0)) error = &row;
  if (error) return Status(static_cast<StatusCode>(IntAt(*error, 1)), TextAt(*error, 2));
  bool any = false, framework = false;
  int64_t tiles = 0, hidden = 0;
  for (const Table* t : TablesWithId(shards, "_roofline")) {
    const auto& row = t->rows.at(0);
    any |= IntAt(row, 0) != 0, framework |= IntAt(row, 1) != 0, tiles += IntAt(row, 2), hidden += IntAt(row, 3);
  }
  if (!any)
    return InvalidArgument(
        "nothing to put on a roofline: no XLA ops and no GPU kernels in these inputs (`mlprof roofline` reads "
        "JAX/XLA profiles and PyTorch GPU traces)");
  if (framework) {
    for (Table& t : r.tables)
      if (t.id == "gemm_tiles") {
        // --top keeps the job's first rows (rank order).
        if (o.top > 0 && t.rows.size() > static_cast<size_t>(o.top)) {
          hidden += static_cast<int64_t>(t.rows.size()) - o.top;
          t.rows.resize(static_cast<size_t>(o.top));
        }
        NoteHiddenRows(t, static_cast<size_t>(hidden));
        if (tiles == 0) t.notes.push_back(kNoTilesNote);
      }
    for (std::string& w : UncostedWarnings(shards)) r.warnings.push_back(std::move(w));
    r.tables.front().notes.push_back(kPyTorchNote);
  }
  // The plot of the lowest rank, for Roofline() (never shown as a table).
  const std::vector<Cell>* svg = nullptr;
  for (const Table* t : TablesWithId(shards, "_svg"))
    for (const auto& row : t->rows)
      if (!svg || IntAt(row, 0) < IntAt(*svg, 0)) svg = &row;
  if (svg) {
    Table t("_svg", "");
    t.Add(Measure("svg", Unit::kText, ""));
    t.rows.push_back({Cell::Text(TextAt(*svg, 1))});
    r.tables.push_back(std::move(t));
  }
  return OkStatus();
}

}  // namespace

Sharded RooflineSharded(const RooflineOptions& o) {
  return PerRankSharded([o](const Session& s) { return RooflineShard(s, o); },
                        [o](Report& r, const std::vector<Report>& shards) { return RooflineFinish(r, shards, o); });
}

StatusOr<RooflineOutput> Roofline(const Session& s, const RooflineOptions& o) {
  ASSIGN_OR_RETURN(Report r, RunSharded(s, RooflineSharded(o)));
  RooflineOutput out;
  for (auto it = r.tables.begin(); it != r.tables.end(); ++it)
    if (it->id == "_svg") {
      out.svg = TextAt(it->rows.at(0), 0);
      r.tables.erase(it);
      break;
    }
  out.report = std::move(r);
  return out;
}

}  // namespace mlprof::app
