// report.html's renderer: the data document it embeds (parsed back with
// simdjson), its escaping and the assets built in. The page in a browser is
// tests/html_test.py.
#include "report/html.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>

namespace mlprof {
namespace {

// The JSON document between the data script's tags, unescaped by the parser.
simdjson::dom::element DataOf(const std::string& page, simdjson::dom::parser& parser, std::string& keep) {
  const std::string open = "<script type=\"application/json\" id=\"mlprof-data\">";
  const size_t a = page.find(open);
  EXPECT_NE(a, std::string::npos);
  const size_t b = page.find("</script>", a);
  keep = page.substr(a + open.size(), b - a - open.size());
  return parser.parse(keep);
}

TEST(Html, EscapesMarkupInTheDataScript) {
  EXPECT_EQ(EscapeJsonForScript(R"({"a":"</script><b>&"})"), R"({"a":"\u003c/script\u003e\u003cb\u003e\u0026"})");
  HtmlReport r;
  r.title = "t";
  r.inputs = {"</script><script>alert(1)</script>"};
  r.warnings = {"<!-- x"};
  HtmlSection s{"sec", "S <i>", {"para & more"}, {}, {}};
  Table t("tbl", "T");
  t.Add(Key("name", Unit::kText, "a name")).Add(Measure("time", Unit::kTime, "a time").Us());
  t.rows.push_back({Cell::Text("<img src=x onerror=alert(2)>"), Cell::Int(1500000)});
  t.rows.push_back({Cell::Text("b\"'"), Cell::Null()});
  s.tables.push_back(t);
  r.sections.push_back(s);
  const std::string page = RenderHtml(r, "", "/*script*/", "/*style*/");
  // No trace string appears raw: the only markup is the template's.
  EXPECT_EQ(page.find("<img"), std::string::npos);
  EXPECT_EQ(page.find("alert(1)</script>"), std::string::npos);
  EXPECT_EQ(page.find("<!-- x"), std::string::npos);
  EXPECT_EQ(page.find("<i>"), std::string::npos);
  // Two scripts without a chart library: the data and the page's.
  size_t scripts = 0;
  for (size_t p = page.find("<script"); p != std::string::npos; p = page.find("<script", p + 1)) ++scripts;
  EXPECT_EQ(scripts, 2u);
  EXPECT_NE(page.find("default-src 'none'"), std::string::npos);
  EXPECT_NE(page.find("/*script*/"), std::string::npos);
  EXPECT_NE(page.find("/*style*/"), std::string::npos);

  // The document parses back to the same strings and values.
  simdjson::dom::parser parser;
  std::string keep;
  const auto d = DataOf(page, parser, keep);
  EXPECT_EQ(std::string_view(d["inputs"].at(0)), "</script><script>alert(1)</script>");
  EXPECT_FALSE(bool(d["charts_built_in"]));
  const auto tbl = d["sections"].at(0)["tables"].at(0);
  EXPECT_EQ(int64_t(tbl["total_rows"]), 2);
  EXPECT_EQ(std::string_view(tbl["columns"].at(1)["label"]), "time_us");
  EXPECT_EQ(std::string_view(tbl["columns"].at(1)["name"]), "time_ps");
  EXPECT_TRUE(bool(tbl["columns"].at(1)["numeric"]));
  EXPECT_EQ(std::string_view(tbl["text"].at(0).at(0)), "<img src=x onerror=alert(2)>");
  EXPECT_EQ(std::string_view(tbl["text"].at(0).at(1)), "1.500");  // as the text renderer shows it
  EXPECT_EQ(int64_t(tbl["raw"].at(0).at(1)), 1500000);            // raw ps to sort by
  EXPECT_TRUE(tbl["raw"].at(1).at(1).is_null());
  EXPECT_TRUE(tbl["raw"].at(0).at(0).is_null());  // text columns sort by their text
  EXPECT_EQ(std::string_view(tbl["text"].at(1).at(0)), "b\"'");
}

TEST(Html, TablesCappedAtMaxRowsChartsCarried) {
  HtmlReport r;
  r.max_rows = 3;
  HtmlSection s{"s", "S", {}, {}, {}};
  Table t("big", "Big");
  t.Add(Measure("n", Unit::kCount, "n"));
  for (int i = 0; i < 10; ++i) t.rows.push_back({Cell::Int(i)});
  s.tables.push_back(t);
  Chart c;
  c.kind = Chart::Kind::kRoofline;
  c.id = "roof";
  c.points.push_back({2.5, 1e12, "op", "matmul"});
  c.points.push_back({NAN, 1, "bad", "x"});
  c.roof = {1e15, 3e12, "chip"};
  s.charts.push_back(c);
  r.sections.push_back(s);
  const std::string page = RenderHtml(r, "/*lib*/", "", "");
  simdjson::dom::parser parser;
  std::string keep;
  const auto d = DataOf(page, parser, keep);
  EXPECT_TRUE(bool(d["charts_built_in"]));
  const auto tbl = d["sections"].at(0)["tables"].at(0);
  EXPECT_EQ(int64_t(tbl["total_rows"]), 10);
  EXPECT_EQ(simdjson::dom::array(tbl["text"]).size(), 3u);
  const auto ch = d["sections"].at(0)["charts"].at(0);
  EXPECT_EQ(std::string_view(ch["kind"]), "roofline");
  EXPECT_EQ(double(ch["points"].at(0)["x"]), 2.5);
  EXPECT_TRUE(ch["points"].at(1)["x"].is_null());  // NaN is null, not invalid JSON
  EXPECT_EQ(double(ch["roof"]["bandwidth"]), 3e12);
}

// The assets built into the binary: the page's script and style always; the
// chart library when ECharts was installed at build time (scripts/setup.sh).
TEST(Html, AssetsBuiltIn) {
  EXPECT_NE(PageScript().find("mlprof-data"), std::string_view::npos);
  EXPECT_NE(PageStyle().find(".chart"), std::string_view::npos);
  // No asset may end its script element early.
  EXPECT_EQ(PageScript().find("</script"), std::string_view::npos);
  EXPECT_EQ(ChartLibrary().find("</script"), std::string_view::npos);
  if (ChartLibrary().empty()) GTEST_SKIP() << "built without ECharts (scripts/setup.sh installs it)";
  EXPECT_NE(ChartLibrary().find("echarts"), std::string_view::npos);
  EXPECT_GT(ChartLibrary().size(), 500000u);
}

}  // namespace
}  // namespace mlprof
