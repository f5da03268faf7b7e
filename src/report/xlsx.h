// xlsx: a Report as a workbook (libxlsxwriter): a cover sheet (what was read,
// the sheets and their titles) and one sheet per table with the raw values
// the JSON and CSV outputs have (numbers as numbers, units in the headers as
// CSV writes them), a frozen header row, an autofilter and column widths
// from the content. Strings are written as strings, never as formulas.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "report/table.h"

namespace mlprof {

// Writes `r` to `path`; `cover` lines go on the first sheet ("inputs").
Status WriteXlsx(const Report& r, const std::vector<std::string>& cover, const std::string& path);

}  // namespace mlprof
