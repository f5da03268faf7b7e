// Tables for the chip database (`mlprof chips`) and the MFU calculator
// (`mlprof mfu`).
#pragma once

#include <string>

#include "analysis/gemm_tiles.h"
#include "analysis/mfu.h"
#include "analysis/roofline.h"
#include "hw/chip.h"
#include "report/table.h"

namespace mlprof {

// One row per chip: peaks, HBM, ridge point, scale-up link, confidence.
Table ChipsTable(const hw::ChipDb& db);
// Every field of one chip, with its sources.
Table ChipDetailTable(const hw::Chip& c);
// The calculator's rows: metric, value, unit, how it was computed.
Table MfuTable(const MfuResult& r);

// `mlprof roofline`: the chip's roofline, the categories (totals) and the
// heaviest ops (per execution).
Table RooflineSummaryTable(int64_t rank, const RooflineResult& r);
Table RooflineCategoryTable(int64_t rank, const RooflineResult& r);
// `mlprof hlo --chip`: each module's expected time from its HLO alone.
Table HloExpectedTable(const std::vector<HloExpected>& modules, const hw::Chip& chip, hw::DType dtype);
Table RooflineOpsTable(int64_t rank, const RooflineResult& r, int top);
// GEMMs against their kernels' tiles (analysis/gemm_tiles.h); --top rows
// (0: all), `hidden` counts the rest.
Table GemmTilesTable(const std::vector<GemmTileRow>& rows, int top, size_t* hidden);
// A self-contained SVG: log-log axes (FLOP/byte, TFLOP/s), the roofline
// (HBM slope and compute ceiling, ridge marked), one circle per op with
// known FLOPs and bytes, its area proportional to its time. Names are
// escaped (they come from the trace).
std::string RooflineSvg(const RooflineResult& r, const std::string& title);

}  // namespace mlprof
