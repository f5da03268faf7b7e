#include "report/table.h"

#include <gtest/gtest.h>

#include <cmath>

#include "../../tests/test_util.h"
#include "report/tables.h"

namespace mlprof {
namespace {

Report OneTable() {
  Report r;
  Table t{"k", "Kernels", {}, {}, {}};
  t.AddColumn("name", false).AddColumn("us", true);
  t.rows.push_back({Cell::Text("=cmd|' /C calc'!A0"), Cell::Real(1.5, 3)});
  t.rows.push_back({Cell::Text("a,\"b\"\nc"), Cell::Null()});
  t.rows.push_back({Cell::Text("-3.5"), Cell::Real(std::nan(""), 2)});
  r.tables.push_back(t);
  return r;
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
  EXPECT_DOUBLE_EQ(std::get<double>(files->rows[0][8].value), 3.0);  // (1500 + 2500 - 1000) us = 3 ms
  ASSERT_EQ(per_track->rows.size(), 2u);
  EXPECT_EQ(std::get<int64_t>(per_track->rows[0][4].value) + std::get<int64_t>(per_track->rows[1][4].value), 3);
}

TEST(Csv, QuotesAndNeutralisesFormulas) {
  std::string csv = RenderCsv(OneTable());
  EXPECT_EQ(csv,
            "name,us\n"
            "'=cmd|' /C calc'!A0,1.500\n"
            "\"a,\"\"b\"\"\nc\",\n"
            "-3.5,\n");
  EXPECT_EQ(CsvEscape("@SUM(A1)"), "'@SUM(A1)");
  EXPECT_EQ(CsvEscape("+1+1"), "'+1+1");
}

TEST(Json, EscapesControlCharactersAndQuotes) {
  EXPECT_EQ(JsonEscape("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\u0001\"");
  std::string j = RenderJson(OneTable());
  EXPECT_NE(j.find("\"us\": 1.5"), std::string::npos) << j;
  EXPECT_NE(j.find("\"us\": null"), std::string::npos) << j;
  EXPECT_NE(j.find("\"a,\\\"b\\\"\\nc\""), std::string::npos) << j;
}

TEST(Text, AlignsAndCutsAndStripsControlCharacters) {
  std::string t = RenderText(OneTable(), 10);
  EXPECT_NE(t.find("Kernels\n"), std::string::npos);
  EXPECT_NE(t.find("=cmd|' ..."), std::string::npos) << t;  // 7 characters + "..." = 10
  EXPECT_NE(t.find("a,\"b\" c"), std::string::npos) << t;   // newline shown as a space
  EXPECT_NE(t.find("   NaN"), std::string::npos) << t;
}

}  // namespace
}  // namespace mlprof
