#include "base/csv.h"

#include <fmt/format.h>

namespace mlprof {

std::string_view TrimCsvField(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

int CsvTable::Column(std::string_view name) const {
  for (size_t i = 0; i < header.size(); ++i)
    if (TrimCsvField(header[i]) == name) return static_cast<int>(i);
  return -1;
}

StatusOr<CsvTable> ParseCsv(std::string_view text, const std::string& path) {
  const uint64_t bom = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  text.remove_prefix(bom);
  CsvTable t;
  std::vector<std::string> row;
  std::string field;
  uint32_t line = 1, row_line = 1;
  uint64_t row_offset = 0;
  size_t i = 0;
  const size_t n = text.size();
  bool in_row = false;      // something of the current row was read
  bool row_quoted = false;  // the row has a quoted field (then it is not blank)
  auto end_row = [&]() -> Status {
    row.push_back(std::move(field));
    field.clear();
    const bool blank = row.size() == 1 && row[0].empty() && !row_quoted;  // skipped, before the header too
    if (blank) {
    } else if (t.header.empty()) {
      t.header = std::move(row);
    } else {
      if (row.size() > t.header.size())
        return DataLoss(
            fmt::format("{}: line {}: {} fields, the header has {}", path, row_line, row.size(), t.header.size()));
      t.rows.push_back(std::move(row));
      t.line.push_back(row_line);
      t.offset.push_back(row_offset);
    }
    row.clear();
    in_row = false;
    row_quoted = false;
    return OkStatus();
  };
  while (i < n) {
    const char c = text[i];
    if (!in_row) row_line = line, row_offset = i + bom, in_row = true;
    if (c == '"' && field.empty()) {
      // A quoted field: up to the closing quote, "" being one quote.
      const uint32_t open_line = line;
      row_quoted = true;
      ++i;
      bool closed = false;
      while (i < n) {
        const char q = text[i++];
        if (q == '"') {
          if (i < n && text[i] == '"') {
            field.push_back('"');
            ++i;
            continue;
          }
          closed = true;
          break;
        }
        if (q == '\n' || (q == '\r' && (i >= n || text[i] != '\n'))) ++line;
        field.push_back(q);
      }
      if (!closed)
        return DataLoss(fmt::format("{}: line {}: a quoted field opened here is not closed by the end of the file",
                                    path, open_line));
      if (i < n && text[i] != ',' && text[i] != '\n' && text[i] != '\r')
        return DataLoss(
            fmt::format("{}: line {}: text after a closing quote (expected a comma or a line end)", path, line));
      continue;
    }
    if (c == ',') {
      row.push_back(std::move(field));
      field.clear();
      ++i;
      continue;
    }
    if (c == '\r' && i + 1 < n && text[i + 1] == '\n') ++i;
    if (c == '\n' || c == '\r') {
      ++i;
      RETURN_IF_ERROR(end_row());
      ++line;
      continue;
    }
    field.push_back(c);
    ++i;
  }
  if (in_row) RETURN_IF_ERROR(end_row());
  if (t.header.empty()) return DataLoss(fmt::format("{}: empty file: expected a CSV header line", path));
  return t;
}

}  // namespace mlprof
