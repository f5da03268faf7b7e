#include "report/html.h"

#include <fmt/format.h>

#include <cmath>

#include "base/utf8.h"

namespace mlprof {
namespace {

// Reals in their shortest round-trip form; NaN and infinities as null.
std::string Num(double v) { return std::isfinite(v) ? fmt::format("{}", v) : "null"; }

// Trace strings may hold anything: JSON-escaped, made valid UTF-8.
std::string Str(std::string_view s) { return JsonEscape(ValidUtf8(s)); }

template <typename T, typename F>
std::string Array(const std::vector<T>& items, F each) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ",";
    out += each(items[i]);
  }
  return out + "]";
}

std::string Strings(const std::vector<std::string>& v) {
  return Array(v, [](const std::string& s) { return Str(s); });
}

std::string ChartJson(const Chart& c) {
  const char* kind = c.kind == Chart::Kind::kStackedBar ? "bar"
                     : c.kind == Chart::Kind::kHeatmap  ? "heatmap"
                     : c.kind == Chart::Kind::kRoofline ? "roofline"
                                                        : "treemap";
  std::string out =
      fmt::format(R"({{"kind":"{}","id":{},"title":{},"x_name":{},"y_name":{},"categories":{},"rows":{})", kind,
                  Str(c.id), Str(c.title), Str(c.x_name), Str(c.y_name), Strings(c.categories), Strings(c.rows));
  out += ",\"series\":" + Array(c.series, [](const ChartSeries& s) {
           return fmt::format(R"({{"name":{},"values":{}}})", Str(s.name),
                              Array(s.values, [](double v) { return Num(v); }));
         });
  out += ",\"points\":" + Array(c.points, [](const ChartPoint& p) {
           return fmt::format(R"({{"x":{},"y":{},"label":{},"series":{}}})", Num(p.x), Num(p.y), Str(p.label),
                              Str(p.series));
         });
  out += fmt::format(R"(,"roof":{{"peak":{},"bandwidth":{},"name":{}}})", Num(c.roof.peak), Num(c.roof.bandwidth),
                     Str(c.roof.name));
  out += ",\"nodes\":" + Array(c.nodes, [](const ChartNode& n) {
           return fmt::format(R"({{"name":{},"value":{},"parent":{}}})", Str(n.name), Num(n.value), n.parent);
         });
  return out + "}";
}

std::string TableJson(const Table& t, int max_rows) {
  const size_t shown = max_rows > 0 ? std::min(t.rows.size(), static_cast<size_t>(max_rows)) : t.rows.size();
  std::string out = fmt::format(R"({{"id":{},"title":{},"total_rows":{},"notes":{})", Str(t.id), Str(t.title),
                                t.rows.size(), Strings(t.notes));
  out += ",\"columns\":" + Array(t.columns, [](const Column& c) {
           return fmt::format(R"({{"label":{},"name":{},"unit":"{}","description":{},"numeric":{}}})",
                              Str(c.text_label()), Str(HeaderWithUnit(c)), UnitName(c.unit), Str(c.description),
                              c.numeric() ? "true" : "false");
         });
  // Display text as the text renderer shows it, and for numeric columns the
  // raw value to sort by.
  Table head = t;
  head.rows.resize(shown);
  const std::vector<std::vector<std::string>> text = TextCells(head);
  out += ",\"text\":" + Array(text, [](const std::vector<std::string>& row) { return Strings(row); });
  out += ",\"raw\":[";
  for (size_t r = 0; r < shown; ++r) {
    if (r) out += ",";
    out += "[";
    for (size_t c = 0; c < t.columns.size(); ++c) {
      if (c) out += ",";
      const Cell* cell = c < t.rows[r].size() ? &t.rows[r][c] : nullptr;
      if (cell && t.columns[c].numeric()) {
        if (const auto* i = std::get_if<int64_t>(&cell->value))
          out += std::to_string(*i);
        else if (const auto* d = std::get_if<double>(&cell->value))
          out += Num(*d);
        else
          out += "null";
      } else {
        out += "null";
      }
    }
    out += "]";
  }
  return out + "]}";
}

}  // namespace

std::string EscapeJsonForScript(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  for (char c : json) {
    switch (c) {
      case '<':
        out += "\\u003c";
        break;
      case '>':
        out += "\\u003e";
        break;
      case '&':
        out += "\\u0026";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string RenderHtml(const HtmlReport& r, std::string_view chart_library, std::string_view page_script,
                       std::string_view page_style) {
  std::string data = fmt::format(R"({{"title":{},"inputs":{},"warnings":{},"charts_built_in":{})", Str(r.title),
                                 Strings(r.inputs), Strings(r.warnings), chart_library.empty() ? "false" : "true");
  data += ",\"cards\":" + Array(r.cards, [](const HtmlCard& c) {
            return fmt::format(R"({{"label":{},"value":{},"detail":{}}})", Str(c.label), Str(c.value), Str(c.detail));
          });
  data += ",\"sections\":" + Array(r.sections, [&](const HtmlSection& s) {
            return fmt::format(R"({{"id":{},"title":{},"text":{},"charts":{},"tables":{}}})", Str(s.id), Str(s.title),
                               Strings(s.text), Array(s.charts, ChartJson),
                               Array(s.tables, [&](const Table& t) { return TableJson(t, r.max_rows); }));
          });
  data += "}";

  std::string out;
  out.reserve(chart_library.size() + data.size() + page_script.size() + page_style.size() + 4096);
  // The policy allows the page's own inline script and style and data: images
  // (the charts' export), and nothing else: no request leaves the page.
  out += R"(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="mlprof">
<title>mlprof report</title>
<style>
)";
  out += page_style;
  out +=
      "</style>\n</head>\n<body>\n<noscript>This report needs JavaScript to show its tables and charts.</noscript>\n";
  out += "<script type=\"application/json\" id=\"mlprof-data\">";
  out += EscapeJsonForScript(data);
  out += "</script>\n";
  if (!chart_library.empty()) {
    out += "<script>/* Apache ECharts (Apache License 2.0), embedded by mlprof */\n";
    out += chart_library;
    out += "\n</script>\n";
  }
  out += "<script>\n";
  out += page_script;
  out += "\n</script>\n</body>\n</html>\n";
  return out;
}

}  // namespace mlprof
