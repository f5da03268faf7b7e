// What the typed table families (report/*_tables.cc) share.
#pragma once

#include "base/time.h"
#include "report/table.h"

namespace mlprof {

// A time cell: picoseconds, the raw value (renderers choose the unit).
inline Cell Time(Ps ps) { return Cell::Int(ps); }

}  // namespace mlprof
