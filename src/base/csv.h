// A CSV table read whole (RFC 4180: fields in double quotes may hold commas,
// line breaks and "" for a quote; CRLF, LF or CR line ends; a UTF-8 BOM and
// blank lines are skipped). Fields keep their text as written, quotes removed: callers trim
// what their format pads (torch_npu ends its time fields with a TAB inside
// the quotes). Rows may have fewer fields than the header (missing ones read
// as empty) but not more.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace mlprof {

struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<uint32_t> line;    // 1-based line of each row in the file
  std::vector<uint64_t> offset;  // byte offset of each row's start

  // The column named `name` (exactly, after trimming spaces), or -1.
  int Column(std::string_view name) const;
  // Field `col` of row `r`, "" where the row is short or col < 0.
  std::string_view Get(size_t r, int col) const {
    return col >= 0 && static_cast<size_t>(col) < rows[r].size() ? std::string_view(rows[r][col]) : std::string_view();
  }
};

// `path` names the file in errors: an unterminated quote, a row with more
// fields than the header, text after a closing quote.
StatusOr<CsvTable> ParseCsv(std::string_view text, const std::string& path);

// Leading and trailing spaces, TABs, CR and LF removed.
std::string_view TrimCsvField(std::string_view s);

}  // namespace mlprof
