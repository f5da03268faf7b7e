#include "report/table.h"

#include <gtest/gtest.h>

#include <cmath>

#include "../../tests/test_util.h"
#include "report/info_tables.h"
#include "report/step_tables.h"
#include "report/xla_tables.h"

namespace mlprof {
namespace {

Report OneTable() {
  Report r;
  Table t("k", "Kernels");
  t.Add(Key("name", Unit::kText, "kernel")).Add(Measure("time", Unit::kTime, "its time").Us());
  t.rows.push_back({Cell::Text("=cmd|' /C calc'!A0"), Cell::Int(1500000)});
  t.rows.push_back({Cell::Text("a,\"b\"\nc"), Cell::Null()});
  t.rows.push_back({Cell::Text("-3.5"), Cell::Real(std::nan(""))});
  r.tables.push_back(t);
  return r;
}

// phases: where forward and backward cannot be told apart, the row gives
// neither (nor their ratio), the GPU time under backward-named ranges, and a
// note with why; where they can, the ratio and no note below 1 %.
TEST(Phases, UntoldSplitIsNullWithItsReason) {
  LayerReport r;
  PhaseRow untold;
  untold.forward = 38'000'000, untold.backward = 5'000'000, untold.backward_outside_engine = 28'000'000;
  untold.backward_ranges = {{"mlp(B)", 20'000'000}, {"attn(W)", 8'000'000}};
  untold.split_known = false;
  PhaseRow told;
  told.rank = 1, told.forward = 41'000'000, told.backward = 60'000'000, told.backward_outside_engine = 100'000;
  told.backward_ranges = {{"## backward ##", 100'000}};
  r.phases = {untold, told};
  const Table t = PhasesTable(r);
  ASSERT_EQ(t.rows.size(), 2u);
  auto at = [&](size_t row, const char* col) { return t.rows[row][static_cast<size_t>(t.ColumnIndex(col))].value; };
  for (const char* col : {"forward", "backward", "backward_per_forward_pct"}) {
    EXPECT_TRUE(std::holds_alternative<std::monostate>(at(0, col))) << col;
    EXPECT_FALSE(std::holds_alternative<std::monostate>(at(1, col))) << col;
  }
  EXPECT_EQ(std::get<int64_t>(at(0, "backward_outside_engine")), 28'000'000);
  EXPECT_NEAR(std::get<double>(at(1, "backward_per_forward_pct")), 100.0 * 60 / 41, 1e-9);
  ASSERT_EQ(t.notes.size(), 2u);  // the general note, and rank 0's reason
  EXPECT_NE(t.notes[1].find("Rank 0: forward and backward cannot be told apart"), std::string::npos) << t.notes[1];
  EXPECT_NE(t.notes[1].find("65.1 % of the 0.043 ms"), std::string::npos) << t.notes[1];
  EXPECT_NE(t.notes[1].find("(mlp(B) 0.020 ms, attn(W) 0.008 ms)"), std::string::npos) << t.notes[1];
}

// info: span = last op end - first op start; ops per track.
TEST(Info, SpanAndOpsPerTrack) {
  Profile p = testing::ProfileFromJson(R"({"traceEvents":[
   {"ph":"X","name":"a","pid":1,"tid":1,"ts":1000,"dur":10},
   {"ph":"X","name":"b","pid":1,"tid":1,"ts":1500,"dur":2500},
   {"ph":"X","name":"c","pid":1,"tid":2,"ts":1200,"dur":1}]})");
  std::vector<Table> t = InfoTables(SummarizeRanks(p));
  const Table* files = nullptr;
  const Table* per_track = nullptr;
  for (const Table& x : t) {
    if (x.id == "files") files = &x;
    if (x.id == "track_ops") per_track = &x;
  }
  ASSERT_TRUE(files && per_track);
  ASSERT_EQ(files->rows.size(), 1u);
  EXPECT_EQ(std::get<int64_t>(files->rows[0][8].value), 3 * kPsPerMs);  // (1500 + 2500 - 1000) us = 3 ms
  ASSERT_EQ(per_track->rows.size(), 2u);
  EXPECT_EQ(std::get<int64_t>(per_track->rows[0][4].value) + std::get<int64_t>(per_track->rows[1][4].value), 3);
}

TEST(Csv, QuotesAndNeutralisesFormulas) {
  std::string csv = RenderCsv(OneTable());
  EXPECT_EQ(csv,
            "name,time_ps\n"
            "'=cmd|' /C calc'!A0,1500000\n"
            "\"a,\"\"b\"\"\nc\",\n"
            "-3.5,\n");
  EXPECT_EQ(CsvEscape("@SUM(A1)"), "'@SUM(A1)");
  EXPECT_EQ(CsvEscape("+1+1"), "'+1+1");
  // Only a cell that is wholly one number is left alone.
  EXPECT_EQ(CsvEscape("-1+1"), "'-1+1");
  EXPECT_EQ(CsvEscape("-cmd|' /C calc'!A0"), "'-cmd|' /C calc'!A0");
  EXPECT_EQ(CsvEscape("-1e-9"), "-1e-9");
  EXPECT_EQ(CsvEscape("-"), "'-");
  EXPECT_EQ(CsvEscape("\t1"), "'\t1");
}

TEST(Json, EscapesControlCharactersAndQuotes) {
  EXPECT_EQ(JsonEscape("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\u0001\"");
  std::string j = RenderJson(OneTable());
  EXPECT_NE(j.find("\"time\": 1500000"), std::string::npos) << j;  // raw ps
  EXPECT_NE(j.find("\"time\": null"), std::string::npos) << j;
  // The schema says each column's unit and role.
  EXPECT_NE(j.find("{\"name\": \"time\", \"unit\": \"ps\", \"role\": \"measure\", \"description\": \"its time\"}"),
            std::string::npos)
      << j;
  EXPECT_NE(j.find("{\"name\": \"name\", \"unit\": \"text\", \"role\": \"key\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"a,\\\"b\\\"\\nc\""), std::string::npos) << j;
}

// Width 21: name (18) + 2 + time_us (7) = 27 columns; the name is cut in
// the middle down to its floor of 12 (5 + "..." + 4 characters).
// Tables repeating an id (one per rank) are one JSON key holding every
// row; a repeated id with other columns gets "_2": no key repeats.
TEST(Json, RepeatedTableIdsMergeOrGetASuffix) {
  Report r;
  for (int rank = 0; rank < 2; ++rank) {
    Table t("per_rank", "Per rank");
    t.Add(Key("rank", Unit::kId, "rank")).Add(Measure("time", Unit::kTime, "time"));
    t.rows.push_back({Cell::Int(rank), Cell::Int(10 + rank)});
    t.notes.push_back("same note");
    r.tables.push_back(t);
  }
  Table other("per_rank", "Other columns");
  other.Add(Key("name", Unit::kText, "name"));
  other.rows.push_back({Cell::Text("x")});
  r.tables.push_back(other);
  const std::string j = RenderJson(r);
  EXPECT_NE(j.find("\"per_rank\": [\n      {\"rank\": 0, \"time\": 10},\n      {\"rank\": 1, \"time\": 11}\n    ]"),
            std::string::npos)
      << j;
  EXPECT_NE(j.find("\"per_rank_2\": [\n      {\"name\": \"x\"}"), std::string::npos) << j;
  EXPECT_EQ(j.find("\"per_rank\": {"), j.rfind("\"per_rank\": {")) << j;  // one schema entry
  EXPECT_EQ(j.find("same note"), j.rfind("same note")) << j;
}

TEST(Text, FitsTheWidthCuttingInTheMiddle) {
  std::string t = RenderText(OneTable(), 21);
  // Width 20 cannot be reached (name floor 12 + 2 + 7 = 21): nothing is cut.
  EXPECT_NE(RenderText(OneTable(), 20).find("=cmd|' /C calc'!A0"), std::string::npos);
  EXPECT_NE(t.find("Kernels\n"), std::string::npos);
  EXPECT_NE(t.find("=cmd|...'!A0"), std::string::npos) << t;
  EXPECT_NE(t.find("a,\"b\" c"), std::string::npos) << t;  // newline shown as a space
  EXPECT_NE(t.find("   NaN"), std::string::npos) << t;
  EXPECT_NE(t.find("time_us"), std::string::npos) << t;    // the text label says the display unit
  EXPECT_NE(t.find("  1.500\n"), std::string::npos) << t;  // 1500000 ps shown as us, 3 decimals
  // Width 0: no limit, nothing cut.
  EXPECT_NE(RenderText(OneTable(), 0).find("=cmd|' /C calc'!A0"), std::string::npos);
}

// Columns marked whole are never cut; notes wrap at the width; a column of
// whole microseconds shows no decimals; a C++ symbol loses "void " and its
// parameter list before its middle.
TEST(Text, WholeColumnsWrappedNotesIntegerTimesAndSymbols) {
  Report r;
  Table t("t", "T");
  t.Add(Key("field", Unit::kText, ""))
      .Add(Measure("value", Unit::kText, "").Whole())
      .Add(Measure("time", Unit::kTime, "").Us());
  const std::string arithmetic(60, 'x');
  t.rows.push_back({Cell::Text("a"), Cell::Text(arithmetic), Cell::Int(3 * kPsPerUs)});
  t.rows.push_back({Cell::Text("b"), Cell::Text("y"), Cell::Null()});
  t.notes.push_back("one two three four five six seven eight nine ten eleven");
  r.tables.push_back(t);
  const std::string text = RenderText(r, 40);
  EXPECT_NE(text.find(arithmetic), std::string::npos) << text;
  EXPECT_NE(text.find(" 3\n"), std::string::npos) << text;  // 3 us, not 3.000
  EXPECT_NE(text.find("one two three four five six seven eight\nnine ten eleven\n"), std::string::npos) << text;

  Report k;
  Table kt("k", "");
  kt.Add(Key("name", Unit::kText, "").Symbol());
  kt.rows.push_back({Cell::Text("void at::native::vectorized_elementwise_kernel<4, Functor>(int, float*, float*)")});
  k.tables.push_back(kt);
  EXPECT_NE(RenderText(k, 60).find("at::native::vectorized_elementwise_kernel<4, Functor>\n"), std::string::npos)
      << RenderText(k, 60);
  EXPECT_NE(RenderText(k, 30).find("at::native::ve...l<4, Functor>\n"), std::string::npos) << RenderText(k, 30);
}

TEST(Units, CsvHeadersSayTheUnitOnce) {
  Report r;
  Table t("u", "");
  t.Add(Measure("idle_pct", Unit::kPercent, ""))
      .Add(Measure("pct", Unit::kPercent, ""))
      .Add(Measure("size", Unit::kBytes, ""))
      .Add(Measure("rate", Unit::kFlopRate, ""))
      .Add(Measure("n", Unit::kCount, ""));
  t.rows.push_back({Cell::Real(12.5), Cell::Real(0.1), Cell::Int(1 << 20), Cell::Real(9.89e14), Cell::Int(3)});
  r.tables.push_back(t);
  EXPECT_EQ(RenderCsv(r), "idle_pct,pct,size_bytes,rate_flop_per_s,n\n12.5,0.1,1048576,989000000000000,3\n");
}

TEST(Cells, ShownOverridesTextOnly) {
  Report r;
  Table t("m", "");
  t.Add(Measure("value", Unit::kPerRow, "")).Add(Measure("unit", Unit::kText, ""));
  t.rows.push_back({Cell::Real(9.89e14).Shown("989.000"), Cell::Text("flop/s").Shown("TFLOP/s")});
  r.tables.push_back(t);
  EXPECT_NE(RenderText(r).find("989.000  TFLOP/s"), std::string::npos) << RenderText(r);
  EXPECT_NE(RenderCsv(r).find("989000000000000,flop/s"), std::string::npos) << RenderCsv(r);
}

// --top N keeps N children per scope; a hidden scope's children go with it,
// and the note counts every hidden row. Tree: a (a/x, a/y), b (b/z).
TEST(Scopes, TopHidesWholeSubtrees) {
  std::vector<ScopeRow> rows = {
      {"a", 0, 60, 3, 0}, {"a/x", 1, 40, 2, 0}, {"a/y", 1, 20, 1, 0}, {"b", 0, 30, 1, 0}, {"b/z", 1, 30, 1, 0}};
  Table t = XlaScopesTable(0, rows, 90, 1);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(std::get<std::string>(t.rows[0][1].value), "a");
  EXPECT_EQ(std::get<std::string>(t.rows[1][1].value), "  x");
  ASSERT_EQ(t.notes.size(), 2u);
  EXPECT_EQ(t.notes[0], "3 more rows (--top 0 for all).");
  EXPECT_EQ(XlaScopesTable(0, rows, 90, 0).rows.size(), 5u);
}

}  // namespace
}  // namespace mlprof
