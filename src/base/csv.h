// CSV (RFC 4180: fields in double quotes may hold commas, line breaks and ""
// for a quote; CRLF, LF or CR line ends; a UTF-8 BOM and blank lines are
// skipped). Fields keep their text as written, quotes removed: callers trim
// what their format pads (torch_npu ends its time fields with a TAB inside
// the quotes). Rows may have fewer fields than the header (missing ones read
// as empty) but not more.
//
// CsvReader streams the rows (fields are views into the text, or into the
// reader for a field with "" escapes, valid until the next row): a file of
// a million rows costs no more than one row. ParseCsv reads a whole table.
#pragma once

#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace mlprof {

class CsvReader {
 public:
  // `path` names the file in errors.
  CsvReader(std::string_view text, std::string path);

  // Reads the header (the first line that is not blank): an error for an
  // empty file or a broken first line.
  Status ReadHeader();
  const std::vector<std::string>& header() const { return header_; }
  // The column named `name` (exactly, after trimming spaces), or -1.
  int Column(std::string_view name) const;

  // The next data row into fields(); false at the end or on an error
  // (status(): an unterminated quote, a row with more fields than the
  // header, text after a closing quote; each naming the line).
  bool Next();
  const std::vector<std::string_view>& fields() const { return fields_; }
  // Field `col` of the row, "" where the row is short or col < 0.
  std::string_view Get(int col) const {
    return col >= 0 && static_cast<size_t>(col) < fields_.size() ? fields_[col] : std::string_view();
  }
  uint32_t line() const { return row_line_; }      // 1-based line of the row
  uint64_t offset() const { return row_offset_; }  // byte offset of the row
  const Status& status() const { return status_; }

 private:
  bool ReadRow();  // any row, blank ones included; false at the end or on an error

  std::string_view text_;
  std::string path_;
  uint64_t bom_ = 0;
  size_t pos_ = 0;
  uint32_t line_ = 1, row_line_ = 1;
  uint64_t row_offset_ = 0;
  bool row_quoted_ = false;
  std::vector<std::string> header_;
  std::vector<std::string_view> fields_;
  std::deque<std::string> unescaped_;  // fields with "" escapes (stable addresses)
  Status status_;
};

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

// The whole table (small files; stream large ones with CsvReader).
StatusOr<CsvTable> ParseCsv(std::string_view text, const std::string& path);

// Leading and trailing spaces, TABs, CR and LF removed.
std::string_view TrimCsvField(std::string_view s);

}  // namespace mlprof
