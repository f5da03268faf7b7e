// Typed tables: what analyses' results become before rendering. Each column
// is declared once with its unit, its role and a one-line description; cells
// hold raw values in the column's unit (picoseconds, bytes, FLOPs, FLOP/s,
// ...). Renderers only format: text scales each column for people (its
// label, scale and decimals), JSON and CSV carry the exact values and say
// their units (JSON: a schema block per table; CSV: a unit suffix on the
// header).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace mlprof {

// What a column's cells measure, in the raw unit they hold.
enum class Unit : uint8_t {
  kText,       // text
  kId,         // an integer that names something: a rank, a step, a stream
  kCount,      // how many
  kTime,       // picoseconds
  kBytes,      // bytes
  kFlops,      // floating-point operations
  kFlopRate,   // FLOP per second
  kByteRate,   // bytes per second
  kIntensity,  // FLOP per byte
  kPercent,    // 0 to 100
  kRatio,      // a plain number: a fraction, an efficiency, a multiple
  kPerRow,     // numbers whose unit another column of the same row names
};
// The unit's name in JSON schemas ("ps", "bytes", "flop/s", ...).
const char* UnitName(Unit u);
// What CSV headers add to a column's name ("_ps"; "" for text, ids, counts,
// ratios).
const char* UnitSuffix(Unit u);

// A key identifies the row (rank, name, category); a measure is a value about it.
enum class Role : uint8_t { kKey, kMeasure };

struct Column {
  std::string name;  // JSON key; the CSV header adds the unit suffix
  Unit unit = Unit::kText;
  Role role = Role::kMeasure;
  std::string description;  // one line: what the column means
  // Text: the header (the name when empty), and numbers shown as value / scale
  // with `precision` decimals.
  std::string label;
  double scale = 1;
  int precision = 0;
  bool whole = false;   // text: never shortened (arithmetic, sources)
  bool symbol = false;  // text: a C++ symbol (kernel name), shortened by its parts first

  bool numeric() const { return unit != Unit::kText; }
  const std::string& text_label() const { return label.empty() ? name : label; }
  // Text display: header, divisor, decimals.
  Column& Show(std::string text_label, double divisor, int decimals) {
    label = std::move(text_label), scale = divisor, precision = decimals;
    return *this;
  }
  Column& Symbol() {
    symbol = true;
    return *this;
  }
  Column& Whole() {
    whole = true;
    return *this;
  }
  Column& Decimals(int decimals) {
    precision = decimals;
    return *this;
  }
  // Common displays: "<name>_us" / "_ms" with 3 decimals (times are ps).
  Column& Us() { return Show(name + "_us", 1e6, 3); }
  Column& Ms() { return Show(name + "_ms", 1e9, 3); }
};

Column Key(std::string name, Unit unit, std::string description);
Column Measure(std::string name, Unit unit, std::string description);

struct Cell {
  // null, integer, real or text, in the column's raw unit
  std::variant<std::monostate, int64_t, double, std::string> value;
  // Text only: shown instead of the formatted value when not empty (for
  // key/value tables whose rows have units of their own).
  std::string shown;

  static Cell Null() { return {}; }
  static Cell Int(int64_t v) { return {v, {}}; }
  static Cell Real(double v) { return {v, {}}; }
  static Cell Text(std::string v) { return {std::move(v), {}}; }
  static Cell Text(std::string_view v) { return {std::string(v), {}}; }
  static Cell Text(const char* v) { return {std::string(v), {}}; }
  Cell&& Shown(std::string s) && {
    shown = std::move(s);
    return std::move(*this);
  }
};

struct Table {
  std::string id;     // machine name ("temporal"), JSON key
  std::string title;  // human title
  std::vector<Column> columns;
  std::vector<std::vector<Cell>> rows;
  std::vector<std::string> notes;  // printed under the table in text; in the JSON schema

  Table() = default;
  Table(std::string id_, std::string title_) : id(std::move(id_)), title(std::move(title_)) {}
  Table& Add(Column c) {
    columns.push_back(std::move(c));
    return *this;
  }
  // The index of the column named `name`, or -1.
  int ColumnIndex(std::string_view name) const;
};

struct Report {
  std::vector<Table> tables;
  std::vector<std::string> warnings;  // import problems etc., printed to stderr in text mode
  bool gate_failed = false;           // a --fail-if gate was violated (mlprof diff): its own exit code
  // The profile's grade, every item (analysis/grade.h; set for profile
  // commands): JSON's "grade" table, first, in place of any table of that id
  // (a command that leads its text with the grade's warnings); not in text.
  std::optional<Table> grade{};
};

// Text: aligned columns, numbers scaled per column (no decimals where every
// value is a whole number of display units); each table fitted to
// `max_width` columns by shortening its widest text columns in the middle
// ("..."), except columns marked whole; notes wrapped to the same width.
std::string RenderText(const Report& r, int max_width = 120);
// JSON: {"tables": {id: [{col: raw value, ...}, ...]} (the grade first),
//        "schema": {id: {"title", "columns": [{name, unit, role, description}], "notes"}},
//        "warnings": [...]}.
// Tables repeating an id with the same columns (one per rank) are one key
// holding all their rows; with other columns the id gets a suffix ("_2").
std::string RenderJson(const Report& r);
// The tables JSON and Python show, in order: the grade first (Report::grade,
// in place of any table of its id), then the rest.
std::vector<const Table*> TablesWithGrade(const Report& r);
// CSV: one block per table, preceded by "# <id>" when there are several;
// headers carry the unit (idle_ps), cells the raw values. Cells are RFC
// 4180-quoted; cells starting with = + - @ TAB CR are prefixed with ' so
// spreadsheets do not evaluate them as formulas.
std::string RenderCsv(const Report& r);

// Every cell as the text renderer shows it (scaled, rounded, control
// characters blanked), without fitting to a width.
std::vector<std::vector<std::string>> TextCells(const Table& t);

// A column's name with its unit, as CSV and xlsx headers write it
// ("idle_ps"; a name that already says its unit is kept: "file_bytes").
std::string HeaderWithUnit(const Column& col);

std::string JsonEscape(std::string_view s);
std::string CsvEscape(std::string_view s);

}  // namespace mlprof
