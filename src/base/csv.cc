#include "base/csv.h"

#include <fmt/format.h>

namespace mlprof {

std::string_view TrimCsvField(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

namespace {
int FindColumn(const std::vector<std::string>& header, std::string_view name) {
  for (size_t i = 0; i < header.size(); ++i)
    if (TrimCsvField(header[i]) == name) return static_cast<int>(i);
  return -1;
}
}  // namespace

int CsvTable::Column(std::string_view name) const { return FindColumn(header, name); }
int CsvReader::Column(std::string_view name) const { return FindColumn(header_, name); }

CsvReader::CsvReader(std::string_view text, std::string path) : text_(text), path_(std::move(path)) {
  if (text_.substr(0, 3) == "\xEF\xBB\xBF") bom_ = 3, text_.remove_prefix(3);
}

bool CsvReader::ReadRow() {
  fields_.clear();
  unescaped_.clear();
  row_quoted_ = false;
  const size_t n = text_.size();
  if (pos_ >= n) return false;
  row_line_ = line_;
  row_offset_ = pos_ + bom_;
  size_t i = pos_;
  while (true) {
    // One field, from i.
    if (i < n && text_[i] == '"') {
      // Quoted: up to the closing quote, "" being one quote.
      const uint32_t open_line = line_;
      row_quoted_ = true;
      const size_t start = ++i;
      bool escaped = false, closed = false;
      while (i < n) {
        const char q = text_[i++];
        if (q == '"') {
          if (i < n && text_[i] == '"') {
            escaped = true;
            ++i;
            continue;
          }
          closed = true;
          break;
        }
        if (q == '\n' || (q == '\r' && (i >= n || text_[i] != '\n'))) ++line_;
      }
      if (!closed) {
        status_ = DataLoss(fmt::format("{}: line {}: a quoted field opened here is not closed by the end of the file",
                                       path_, open_line));
        return false;
      }
      std::string_view raw = text_.substr(start, i - 1 - start);
      if (escaped) {
        std::string& s = unescaped_.emplace_back();
        s.reserve(raw.size());
        for (size_t k = 0; k < raw.size(); ++k) {
          s.push_back(raw[k]);
          if (raw[k] == '"') ++k;  // "" -> "
        }
        raw = s;
      }
      fields_.push_back(raw);
      if (i < n && text_[i] != ',' && text_[i] != '\n' && text_[i] != '\r') {
        status_ = DataLoss(
            fmt::format("{}: line {}: text after a closing quote (expected a comma or a line end)", path_, line_));
        return false;
      }
    } else {
      const size_t start = i;
      while (i < n && text_[i] != ',' && text_[i] != '\n' && text_[i] != '\r') ++i;
      fields_.push_back(text_.substr(start, i - start));
    }
    if (i < n && text_[i] == ',') {
      ++i;
      continue;
    }
    // A line end, or the end of the text.
    if (i < n) {
      if (text_[i] == '\r' && i + 1 < n && text_[i + 1] == '\n') ++i;
      ++i;
      ++line_;
    }
    pos_ = i;
    return true;
  }
}

Status CsvReader::ReadHeader() {
  while (ReadRow()) {
    if (fields_.size() == 1 && fields_[0].empty() && !row_quoted_) continue;  // blank
    header_.assign(fields_.begin(), fields_.end());
    return OkStatus();
  }
  if (!status_.ok()) return status_;
  return DataLoss(fmt::format("{}: empty file: expected a CSV header line", path_));
}

bool CsvReader::Next() {
  while (ReadRow()) {
    if (fields_.size() == 1 && fields_[0].empty() && !row_quoted_) continue;  // blank
    if (fields_.size() > header_.size()) {
      status_ = DataLoss(
          fmt::format("{}: line {}: {} fields, the header has {}", path_, row_line_, fields_.size(), header_.size()));
      return false;
    }
    return true;
  }
  return false;
}

StatusOr<CsvTable> ParseCsv(std::string_view text, const std::string& path) {
  CsvReader r(text, path);
  RETURN_IF_ERROR(r.ReadHeader());
  CsvTable t;
  t.header = r.header();
  while (r.Next()) {
    t.rows.emplace_back(r.fields().begin(), r.fields().end());
    t.line.push_back(r.line());
    t.offset.push_back(r.offset());
  }
  RETURN_IF_ERROR(r.status());
  return t;
}

}  // namespace mlprof
