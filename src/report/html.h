// report.html: one self-contained page (the chart library, the page's script
// and style inlined; a Content-Security-Policy that lets no request leave
// it). The page is data plus a renderer: everything the report shows is one
// JSON document in the page, which the page's script turns into sortable,
// filterable tables and ECharts charts, setting every trace string as text
// (never as markup). Renderers only render: what goes in is decided by the
// app layer (app/html_report.cc).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report/table.h"

namespace mlprof {

// A chart, in display units (the app converts: ms, FLOP/s ...).
struct ChartSeries {
  std::string name;
  std::vector<double> values;  // one per category (NaN: none)
};
struct ChartPoint {
  double x = 0, y = 0;
  std::string label;   // shown in the tooltip
  std::string series;  // points are grouped into series by this
};
struct ChartRoof {
  double peak = 0;       // FLOP/s: the flat roof
  double bandwidth = 0;  // B/s: the slanted roof (y = bandwidth * x)
  std::string name;
};
struct ChartNode {
  std::string name;
  double value = 0;
  int parent = -1;  // index of the parent node (-1: a root)
};

struct Chart {
  enum class Kind { kStackedBar, kHeatmap, kRoofline, kTreemap };
  Kind kind = Kind::kStackedBar;
  std::string id, title;
  std::string x_name, y_name;  // axis titles, with units
  // Stacked bars: one bar per category, a stack part per series. Heatmap:
  // columns are categories, rows are `rows`; series[r].values are row r's
  // cells, 0 to 1.
  std::vector<std::string> categories;
  std::vector<std::string> rows;
  std::vector<ChartSeries> series;
  // Roofline: log-log points against the roof.
  std::vector<ChartPoint> points;
  ChartRoof roof;
  // Treemap: nodes, each after its parent.
  std::vector<ChartNode> nodes;
};

struct HtmlCard {
  std::string label, value, detail;
};

struct HtmlSection {
  std::string id, title;
  std::vector<std::string> text;  // paragraphs above the charts
  std::vector<Chart> charts;
  std::vector<Table> tables;
};

struct HtmlReport {
  std::string title;
  std::vector<std::string> inputs;    // one line per input file
  std::vector<std::string> warnings;  // import problems
  std::vector<HtmlCard> cards;
  std::vector<HtmlSection> sections;
  int max_rows = 500;  // rows embedded per table; the rest are counted in a note
};

// The page. `chart_library` is the chart library's source (empty: the page
// says charts were not built in and shows the tables).
std::string RenderHtml(const HtmlReport& r, std::string_view chart_library, std::string_view page_script,
                       std::string_view page_style);

// The assets built into the binary (report/html_assets.S): the chart
// library (empty when it was not installed at build time), the page's
// script and style.
std::string_view ChartLibrary();
std::string_view PageScript();
std::string_view PageStyle();

// A JSON document that is safe inside <script type="application/json">:
// '<', '>' and '&' are written as \u escapes.
std::string EscapeJsonForScript(std::string_view json);

}  // namespace mlprof
