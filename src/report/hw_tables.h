// Tables for the chip database (`mlprof chips`) and the MFU calculator
// (`mlprof mfu`).
#pragma once

#include "analysis/mfu.h"
#include "hw/chip.h"
#include "report/table.h"

namespace mlprof {

// One row per chip: peaks, HBM, ridge point, scale-up link, confidence.
Table ChipsTable(const hw::ChipDb& db);
// Every field of one chip, with its sources.
Table ChipDetailTable(const hw::Chip& c);
// The calculator's rows: metric, value, unit, how it was computed.
Table MfuTable(const MfuResult& r);

}  // namespace mlprof
