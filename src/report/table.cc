#include "report/table.h"

#include <fmt/format.h>

#include <cmath>

namespace mlprof {

namespace {

std::string FormatCell(const Cell& c, bool for_csv) {
  return std::visit(
      [&](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return for_csv ? "" : "-";
        } else if constexpr (std::is_same_v<T, int64_t>) {
          return fmt::format("{}", v);
        } else if constexpr (std::is_same_v<T, double>) {
          if (std::isnan(v)) return for_csv ? "" : "NaN";
          return fmt::format("{:.{}f}", v, c.precision);
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

std::string Cut(const std::string& s, size_t max_width) {
  if (DisplayWidth(s) <= max_width) return s;
  std::string out;
  size_t w = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    auto ch = static_cast<unsigned char>(s[i]);
    if ((ch & 0xC0) != 0x80) {
      if (w + 3 >= max_width) break;
      ++w;
    }
    out.push_back(s[i]);
  }
  return out + "...";
}

// Control characters in names would break a terminal table.
std::string Printable(std::string s) {
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return s;
}

}  // namespace

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

std::string CsvEscape(std::string_view s) {
  std::string v(s);
  if (!v.empty() && (v[0] == '=' || v[0] == '+' || v[0] == '-' || v[0] == '@' || v[0] == '\t' || v[0] == '\r')) {
    // A number like -3.5 is data, not a formula.
    bool numeric = v.size() > 1 && v[0] == '-' && v.find_first_not_of("0123456789.eE+-", 1) == std::string::npos;
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
  std::string out;
  for (const Table& t : r.tables) {
    if (!out.empty()) out += "\n";
    if (!t.title.empty()) out += t.title + "\n";
    std::vector<std::vector<std::string>> cells;
    std::vector<size_t> width(t.columns.size(), 0);
    for (size_t c = 0; c < t.columns.size(); ++c) width[c] = DisplayWidth(t.columns[c].name);
    for (const auto& row : t.rows) {
      std::vector<std::string> line;
      for (size_t c = 0; c < t.columns.size(); ++c) {
        std::string s = c < row.size() ? Printable(FormatCell(row[c], false)) : "";
        s = Cut(s, static_cast<size_t>(max_width));
        width[c] = std::max(width[c], DisplayWidth(s));
        line.push_back(std::move(s));
      }
      cells.push_back(std::move(line));
    }
    auto pad = [&](const std::string& s, size_t c) {
      size_t w = DisplayWidth(s);
      std::string fill(width[c] > w ? width[c] - w : 0, ' ');
      return t.columns[c].numeric ? fill + s : s + fill;
    };
    std::string header, rule;
    for (size_t c = 0; c < t.columns.size(); ++c) {
      if (c) header += "  ", rule += "  ";
      header += pad(t.columns[c].name, c);
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
    for (const auto& n : t.notes) out += n + "\n";
  }
  return out;
}

std::string RenderJson(const Report& r) {
  std::string out = "{\n  \"tables\": {";
  bool first_table = true;
  for (const Table& t : r.tables) {
    out += first_table ? "\n" : ",\n";
    first_table = false;
    out += "    " + JsonEscape(t.id) + ": [";
    bool first_row = true;
    for (const auto& row : t.rows) {
      out += first_row ? "\n      {" : ",\n      {";
      first_row = false;
      for (size_t c = 0; c < t.columns.size() && c < row.size(); ++c) {
        if (c) out += ", ";
        out += JsonEscape(t.columns[c].name) + ": ";
        std::visit(
            [&](const auto& v) {
              using T = std::decay_t<decltype(v)>;
              if constexpr (std::is_same_v<T, std::monostate>)
                out += "null";
              else if constexpr (std::is_same_v<T, int64_t>)
                out += fmt::format("{}", v);
              else if constexpr (std::is_same_v<T, double>)
                out += std::isfinite(v) ? fmt::format("{}", v) : "null";
              else
                out += JsonEscape(v);
            },
            row[c].value);
      }
      out += "}";
    }
    out += first_row ? "]" : "\n    ]";
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
    for (size_t c = 0; c < t.columns.size(); ++c) out += (c ? "," : "") + CsvEscape(t.columns[c].name);
    out += "\n";
    for (const auto& row : t.rows) {
      for (size_t c = 0; c < t.columns.size(); ++c) {
        if (c) out += ",";
        if (c < row.size()) {
          if (std::holds_alternative<std::string>(row[c].value))
            out += CsvEscape(std::get<std::string>(row[c].value));
          else
            out += FormatCell(row[c], true);
        }
      }
      out += "\n";
    }
  }
  return out;
}

}  // namespace mlprof
