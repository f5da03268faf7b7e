#include "report/table.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace mlprof {

namespace {

// Text: numbers scaled and rounded as the column says.
std::string FormatText(const Cell& c, const Column& col, int precision) {
  if (!c.shown.empty()) return c.shown;
  return std::visit(
      [&](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return "-";
        } else if constexpr (std::is_same_v<T, int64_t>) {
          if (col.scale == 1 && precision == 0) return fmt::format("{}", v);
          return fmt::format("{:.{}f}", static_cast<double>(v) / col.scale, precision);
        } else if constexpr (std::is_same_v<T, double>) {
          if (std::isnan(v)) return "NaN";
          return fmt::format("{:.{}f}", v / col.scale, precision);
        } else {
          return v;
        }
      },
      c.value);
}

// JSON and CSV: the exact raw value (integers as integers, reals in their
// shortest round-trip form); empty for null and non-finite reals.
std::string FormatRaw(const Cell& c) {
  return std::visit(
      [&](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return "";
        } else if constexpr (std::is_same_v<T, int64_t>) {
          return fmt::format("{}", v);
        } else if constexpr (std::is_same_v<T, double>) {
          return std::isfinite(v) ? fmt::format("{}", v) : "";
        } else {
          return v;
        }
      },
      c.value);
}

// Display width in code points (good enough for names; no East Asian widths).
size_t DisplayWidth(std::string_view s) {
  size_t w = 0;
  for (unsigned char ch : s)
    if ((ch & 0xC0) != 0x80) ++w;
  return w;
}

// The first `n` code points of `s`, and the last `n`.
std::string HeadChars(const std::string& s, size_t n) {
  size_t w = 0, i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (w == n) break;
      ++w;
    }
  }
  return s.substr(0, i);
}
std::string TailChars(const std::string& s, size_t n) {
  size_t w = 0, i = s.size();
  while (i > 0 && w < n) {
    --i;
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) ++w;
  }
  return s.substr(i);
}

// Shortened in the middle to `max_width`: the start and the end of a name
// say the most (a template kernel's name and its last arguments).
std::string CutMiddle(const std::string& s, size_t max_width) {
  if (DisplayWidth(s) <= max_width) return s;
  if (max_width <= 3) return HeadChars(s, max_width);
  const size_t tail = (max_width - 3) / 2, head = max_width - 3 - tail;
  return HeadChars(s, head) + "..." + TailChars(s, tail);
}

// A C++ symbol that must be shortened loses what says least first: a
// leading "void " and the trailing parameter list ("(int, float*, ...)"),
// then its middle.
std::string CutSymbol(std::string s, size_t max_width) {
  if (DisplayWidth(s) <= max_width) return s;
  if (s.rfind("void ", 0) == 0) s.erase(0, 5);
  if (!s.empty() && s.back() == ')') {
    int depth = 0;
    for (size_t i = s.size(); i-- > 0;) {
      depth += s[i] == ')' ? 1 : s[i] == '(' ? -1 : 0;
      if (depth == 0) {
        if (i > 0) s.erase(i);
        break;
      }
    }
  }
  return CutMiddle(s, max_width);
}

// Words wrapped to `width` columns (a word longer than that stands alone).
std::string Wrap(const std::string& text, size_t width) {
  std::string out, line;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && DisplayWidth(line) + 1 + DisplayWidth(word) > width) out += line + "\n", line.clear();
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  return out + line + "\n";
}

// A column whose every value is a whole number of display units (times in
// whole microseconds) is shown without decimals: no ".000" on integer data.
int TextPrecision(const Table& t, size_t c) {
  const Column& col = t.columns[c];
  if (col.precision == 0 || col.scale < 1 || col.scale != std::floor(col.scale)) return col.precision;
  const auto scale = static_cast<int64_t>(col.scale);
  bool any = false;
  for (const auto& row : t.rows) {
    if (c >= row.size() || std::holds_alternative<std::monostate>(row[c].value)) continue;
    const int64_t* v = std::get_if<int64_t>(&row[c].value);
    if (!v || *v % scale != 0 || !row[c].shown.empty()) return col.precision;
    any = true;
  }
  return any ? 0 : col.precision;
}

// Control characters in names would break a terminal table.
std::string Printable(std::string s) {
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return s;
}

// Whether a column's name already says its unit: the suffix's words start a
// word of the name ("flops_per_call" says flop, "pct_of_class" says pct).
bool SaysUnit(std::string_view name, Unit u) {
  std::string_view core = UnitSuffix(u);
  if (core.empty()) return true;
  core.remove_prefix(1);  // the leading '_'
  for (size_t at = name.find(core); at != std::string_view::npos; at = name.find(core, at + 1))
    if (at == 0 || name[at - 1] == '_') return true;
  return false;
}

}  // namespace

std::string HeaderWithUnit(const Column& col) {
  std::string header = col.name;
  if (!SaysUnit(header, col.unit)) header += UnitSuffix(col.unit);
  return header;
}

std::string JsonEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('"');
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
        else
          out.push_back(c);
    }
  }
  out.push_back('"');
  return out;
}

std::vector<std::vector<std::string>> TextCells(const Table& t) {
  std::vector<int> precision(t.columns.size());
  for (size_t c = 0; c < t.columns.size(); ++c) precision[c] = TextPrecision(t, c);
  std::vector<std::vector<std::string>> out;
  out.reserve(t.rows.size());
  for (const auto& row : t.rows) {
    std::vector<std::string> line;
    for (size_t c = 0; c < t.columns.size(); ++c)
      line.push_back(c < row.size() ? Printable(FormatText(row[c], t.columns[c], precision[c])) : "");
    out.push_back(std::move(line));
  }
  return out;
}

std::string CsvEscape(std::string_view s) {
  std::string v(s);
  if (!v.empty() && (v[0] == '=' || v[0] == '+' || v[0] == '-' || v[0] == '@' || v[0] == '\t' || v[0] == '\r')) {
    // A cell that is wholly one number (-3.5, -1e-9) is data, not a formula;
    // anything more (-1+1, -cmd|...) is neutralised.
    double d;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
    const bool numeric = ec == std::errc() && end == v.data() + v.size();
    if (!numeric) v.insert(v.begin(), '\'');
  }
  if (v.find_first_of(",\"\n\r") == std::string::npos) return v;
  std::string out = "\"";
  for (char c : v) {
    if (c == '"')
      out += "\"\"";
    else
      out.push_back(c);
  }
  return out + "\"";
}

std::string RenderText(const Report& r, int max_width) {
  // 0 (or less): no limit.
  const size_t W = max_width <= 0 ? SIZE_MAX / 4 : static_cast<size_t>(std::max(max_width, 20));
  std::string out;
  for (const Table& t : r.tables) {
    if (!out.empty()) out += "\n";
    if (!t.title.empty()) out += t.title + "\n";
    const size_t n = t.columns.size();
    std::vector<std::vector<std::string>> cells;
    std::vector<size_t> width(n, 0);
    std::vector<int> precision(n);
    for (size_t c = 0; c < n; ++c) {
      width[c] = DisplayWidth(t.columns[c].text_label());
      precision[c] = TextPrecision(t, c);
    }
    for (const auto& row : t.rows) {
      std::vector<std::string> line;
      for (size_t c = 0; c < n; ++c) {
        std::string s = c < row.size() ? Printable(FormatText(row[c], t.columns[c], precision[c])) : "";
        width[c] = std::max(width[c], DisplayWidth(s));
        line.push_back(std::move(s));
      }
      cells.push_back(std::move(line));
    }
    // Fit the table to W columns: shorten the widest text column (not one
    // that must stay whole) step by step, down to its header or 12 (measures
    // before keys, which say what a row is).
    size_t total = n ? 2 * (n - 1) : 0;
    for (size_t w : width) total += w;
    auto floor_of = [&](size_t c) { return std::max<size_t>(12, DisplayWidth(t.columns[c].text_label())); };
    // A table that cannot fit even so (a whole column wider than the width)
    // is left as it is: cutting its other columns would only lose words.
    size_t least = n ? 2 * (n - 1) : 0;
    for (size_t c = 0; c < n; ++c) {
      const Column& col = t.columns[c];
      least += col.numeric() || col.whole ? width[c] : std::min(width[c], floor_of(c));
    }
    for (Role pass : {Role::kMeasure, Role::kKey}) {
      if (least > W) break;
      while (total > W) {
        size_t widest = n;
        for (size_t c = 0; c < n; ++c) {
          const Column& col = t.columns[c];
          if (col.role != pass || col.numeric() || col.whole || width[c] <= floor_of(c)) continue;
          if (widest == n || width[c] > width[widest]) widest = c;
        }
        if (widest == n) break;
        --width[widest], --total;  // one at a time: the cuts spread over the widest columns
      }
    }
    for (auto& line : cells)
      for (size_t c = 0; c < n; ++c)
        line[c] = t.columns[c].symbol ? CutSymbol(line[c], width[c]) : CutMiddle(line[c], width[c]);
    auto pad = [&](const std::string& s, size_t c) {
      size_t w = DisplayWidth(s);
      std::string fill(width[c] > w ? width[c] - w : 0, ' ');
      return t.columns[c].numeric() ? fill + s : s + fill;
    };
    std::string header, rule;
    for (size_t c = 0; c < n; ++c) {
      if (c) header += "  ", rule += "  ";
      header += pad(CutMiddle(t.columns[c].text_label(), width[c]), c);
      rule += std::string(width[c], '-');
    }
    while (!header.empty() && header.back() == ' ') header.pop_back();
    out += header + "\n" + rule + "\n";
    for (const auto& line : cells) {
      std::string s;
      for (size_t c = 0; c < line.size(); ++c) {
        if (c) s += "  ";
        s += pad(line[c], c);
      }
      while (!s.empty() && s.back() == ' ') s.pop_back();
      out += s + "\n";
    }
    if (t.rows.empty()) out += "(no rows)\n";
    for (const auto& note : t.notes) out += Wrap(note, W);
  }
  return out;
}

namespace {
// JSON keys tables by id: tables that repeat an id (one per rank, as the
// roofline's) with the same columns become one table of all their rows
// (their key columns tell the rows apart); a repeated id with other
// columns gets a suffix ("_2"), so no key repeats and no rows are lost.
struct JsonTable {
  std::string id;
  std::vector<const Table*> parts;
};
std::vector<JsonTable> JsonTables(const Report& r) {
  std::vector<JsonTable> out;
  auto same_columns = [](const Table& a, const Table& b) {
    if (a.columns.size() != b.columns.size()) return false;
    for (size_t c = 0; c < a.columns.size(); ++c)
      if (a.columns[c].name != b.columns[c].name || a.columns[c].unit != b.columns[c].unit) return false;
    return true;
  };
  for (const Table* tp : TablesWithGrade(r)) {
    const Table& t = *tp;
    JsonTable* joined = nullptr;
    int same_id = 0;
    for (JsonTable& g : out) {
      if (g.parts.front()->id != t.id) continue;
      ++same_id;
      if (!joined && same_columns(*g.parts.front(), t)) joined = &g;
    }
    if (joined) {
      joined->parts.push_back(&t);
      continue;
    }
    std::string id = same_id ? fmt::format("{}_{}", t.id, same_id + 1) : t.id;
    out.push_back({std::move(id), {&t}});
  }
  return out;
}
}  // namespace

std::vector<const Table*> TablesWithGrade(const Report& r) {
  std::vector<const Table*> all;
  if (r.grade) all.push_back(&*r.grade);
  for (const Table& t : r.tables)
    if (!r.grade || t.id != r.grade->id) all.push_back(&t);
  return all;
}

std::string RenderJson(const Report& r) {
  const std::vector<JsonTable> tables = JsonTables(r);
  std::string out = "{\n  \"tables\": {";
  bool first_table = true;
  for (const JsonTable& g : tables) {
    out += first_table ? "\n" : ",\n";
    first_table = false;
    out += "    " + JsonEscape(g.id) + ": [";
    bool first_row = true;
    for (const Table* part : g.parts) {
      const Table& t = *part;
      for (const auto& row : t.rows) {
        out += first_row ? "\n      {" : ",\n      {";
        first_row = false;
        for (size_t c = 0; c < t.columns.size() && c < row.size(); ++c) {
          if (c) out += ", ";
          out += JsonEscape(t.columns[c].name) + ": ";
          if (std::holds_alternative<std::string>(row[c].value)) {
            out += JsonEscape(std::get<std::string>(row[c].value));
          } else {
            std::string v = FormatRaw(row[c]);
            out += v.empty() ? "null" : v;
          }
        }
        out += "}";
      }
    }
    out += first_row ? "]" : "\n    ]";
  }
  out += first_table ? "},\n" : "\n  },\n";
  out += "  \"schema\": {";
  first_table = true;
  for (const JsonTable& g : tables) {
    const Table& t = *g.parts.front();
    out += first_table ? "\n" : ",\n";
    first_table = false;
    out += "    " + JsonEscape(g.id) + ": {\"title\": " + JsonEscape(t.title) + ", \"columns\": [";
    for (size_t c = 0; c < t.columns.size(); ++c) {
      const Column& col = t.columns[c];
      out += fmt::format("{}\n      {{\"name\": {}, \"unit\": \"{}\", \"role\": \"{}\", \"description\": {}}}",
                         c ? "," : "", JsonEscape(col.name), UnitName(col.unit),
                         col.role == Role::kKey ? "key" : "measure", JsonEscape(col.description));
    }
    // Notes of every part, each once.
    std::vector<std::string> notes;
    for (const Table* part : g.parts)
      for (const std::string& n : part->notes)
        if (std::find(notes.begin(), notes.end(), n) == notes.end()) notes.push_back(n);
    out += "], \"notes\": [";
    for (size_t i = 0; i < notes.size(); ++i) out += (i ? ", " : "") + JsonEscape(notes[i]);
    out += "]}";
  }
  out += first_table ? "},\n" : "\n  },\n";
  out += "  \"warnings\": [";
  for (size_t i = 0; i < r.warnings.size(); ++i) out += (i ? ", " : "") + JsonEscape(r.warnings[i]);
  out += "]\n}\n";
  return out;
}

std::string RenderCsv(const Report& r) {
  std::string out;
  for (const Table& t : r.tables) {
    if (r.tables.size() > 1) out += (out.empty() ? "" : "\n") + std::string("# ") + t.id + "\n";
    for (size_t c = 0; c < t.columns.size(); ++c) {
      const Column& col = t.columns[c];
      out += (c ? "," : "") + CsvEscape(HeaderWithUnit(col));
    }
    out += "\n";
    for (const auto& row : t.rows) {
      for (size_t c = 0; c < t.columns.size(); ++c) {
        if (c) out += ",";
        if (c < row.size()) out += CsvEscape(FormatRaw(row[c]));
      }
      out += "\n";
    }
  }
  return out;
}

const char* UnitName(Unit u) {
  switch (u) {
    case Unit::kText:
      return "text";
    case Unit::kId:
      return "id";
    case Unit::kCount:
      return "count";
    case Unit::kTime:
      return "ps";
    case Unit::kBytes:
      return "bytes";
    case Unit::kFlops:
      return "flop";
    case Unit::kFlopRate:
      return "flop/s";
    case Unit::kByteRate:
      return "bytes/s";
    case Unit::kIntensity:
      return "flop/byte";
    case Unit::kPercent:
      return "percent";
    case Unit::kRatio:
      return "ratio";
    case Unit::kPerRow:
      return "per row";
  }
  return "?";
}

const char* UnitSuffix(Unit u) {
  switch (u) {
    case Unit::kTime:
      return "_ps";
    case Unit::kBytes:
      return "_bytes";
    case Unit::kFlops:
      return "_flop";
    case Unit::kFlopRate:
      return "_flop_per_s";
    case Unit::kByteRate:
      return "_bytes_per_s";
    case Unit::kIntensity:
      return "_flop_per_byte";
    case Unit::kPercent:
      return "_pct";
    default:
      return "";
  }
}

Column Key(std::string name, Unit unit, std::string description) {
  Column c;
  c.name = std::move(name), c.unit = unit, c.role = Role::kKey, c.description = std::move(description);
  return c;
}

Column Measure(std::string name, Unit unit, std::string description) {
  Column c;
  c.name = std::move(name), c.unit = unit, c.role = Role::kMeasure, c.description = std::move(description);
  return c;
}

int Table::ColumnIndex(std::string_view name) const {
  for (size_t c = 0; c < columns.size(); ++c)
    if (columns[c].name == name) return static_cast<int>(c);
  return -1;
}

}  // namespace mlprof
