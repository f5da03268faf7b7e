// Neutral tables: what analyses' results become before rendering. Renderers
// (text, CSV, JSON) only format; they never compute.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace mlprof {

struct Cell {
  // null, integer, real (with a display precision), or text
  std::variant<std::monostate, int64_t, double, std::string> value;
  int precision = 2;  // for doubles in text/CSV output

  static Cell Null() { return {}; }
  static Cell Int(int64_t v) { return {v, 0}; }
  static Cell Real(double v, int precision = 2) { return {v, precision}; }
  static Cell Text(std::string v) { return {std::move(v), 0}; }
  static Cell Text(std::string_view v) { return {std::string(v), 0}; }
  static Cell Text(const char* v) { return {std::string(v), 0}; }
};

struct Column {
  std::string name;  // header, also the JSON key and CSV header
  bool numeric = false;
};

struct Table {
  std::string id;     // machine name ("temporal"), JSON key
  std::string title;  // human title
  std::vector<Column> columns;
  std::vector<std::vector<Cell>> rows;
  std::vector<std::string> notes;  // printed under the table in text

  Table& AddColumn(std::string name, bool numeric) {
    columns.push_back({std::move(name), numeric});
    return *this;
  }
};

struct Report {
  std::vector<Table> tables;
  std::vector<std::string> warnings;  // import problems etc., printed to stderr in text mode
};

// Text: aligned columns; long text cells are cut to `max_width` with "...".
std::string RenderText(const Report& r, int max_width = 80);
// JSON: {"tables": {id: [{col: value, ...}, ...]}, "warnings": [...]}.
std::string RenderJson(const Report& r);
// CSV: one block per table, preceded by "# <id>" when there are several.
// Cells are RFC 4180-quoted; cells starting with = + - @ TAB CR are prefixed
// with ' so spreadsheets do not evaluate them as formulas.
std::string RenderCsv(const Report& r);

std::string JsonEscape(std::string_view s);
std::string CsvEscape(std::string_view s);

}  // namespace mlprof
