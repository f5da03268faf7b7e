#include "base/csv.h"

#include <gtest/gtest.h>

namespace mlprof {
namespace {

TEST(CsvParse, QuotesCommasLineBreaksAndTabs) {
  // torch_npu's kernel_details.csv: a shape list in doubled quotes, a start
  // time ending in a TAB, CRLF line ends.
  auto t = ParseCsv(
      "Name,Input Shapes,Start Time(us)\r\nk,\"\"\"32,3\"\"\",1736408883704643.212\t\r\n"
      "\"a,b\",\"two\nlines\",5\r\n",
      "k.csv");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->rows.size(), 2u);
  EXPECT_EQ(t->Column("Start Time(us)"), 2);
  EXPECT_EQ(t->Column("Duration"), -1);
  EXPECT_EQ(t->Get(0, 1), "\"32,3\"");
  EXPECT_EQ(TrimCsvField(t->Get(0, 2)), "1736408883704643.212");
  EXPECT_EQ(t->Get(1, 0), "a,b");
  EXPECT_EQ(t->Get(1, 1), "two\nlines");
  EXPECT_EQ(t->line[1], 3u);
}

TEST(CsvParse, ShortRowsBlankLinesAndBom) {
  auto t = ParseCsv(
      "\xEF\xBB\xBF"
      "a,b,c\n1\n\n4,5,6",
      "x.csv");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->rows.size(), 2u);
  EXPECT_EQ(t->Column("a"), 0);
  EXPECT_EQ(t->Get(0, 2), "");
  EXPECT_EQ(t->Get(1, 2), "6");
  EXPECT_EQ(t->line[1], 4u);
}

// CR-only line ends (inside quotes too: the line count follows), blank lines
// before the header, a quoted empty field that is a row of its own.
TEST(CsvParse, CrLineEndsLeadingBlankLinesQuotedEmpty) {
  auto t = ParseCsv("\n\na,b\r1,\"x\ry\"\r\"\"\r3,\"\n", "cr.csv");
  ASSERT_FALSE(t.ok());  // lines: 1, 2 blank, 3 header, 4-5 a row with a CR inside quotes, 6 "", 7 the open quote
  EXPECT_EQ(t.status().message(), "cr.csv: line 7: a quoted field opened here is not closed by the end of the file");
  auto u = ParseCsv("\n\na,b\r1,\"x\ry\"\r\"\"\r3,4", "cr.csv");
  ASSERT_TRUE(u.ok()) << u.status().message();
  EXPECT_EQ(u->Column("b"), 1);
  ASSERT_EQ(u->rows.size(), 3u);
  EXPECT_EQ(u->Get(0, 1), "x\ry");
  EXPECT_EQ(u->Get(1, 0), "");
  EXPECT_EQ(u->line[1], 6u);
  EXPECT_EQ(u->Get(2, 1), "4");
  EXPECT_EQ(u->line[2], 7u);
}

TEST(CsvParse, ErrorsNameTheFileAndLine) {
  auto open = ParseCsv("a,b\n1,\"2\n", "o.csv");
  ASSERT_FALSE(open.ok());
  EXPECT_EQ(open.status().message(), "o.csv: line 2: a quoted field opened here is not closed by the end of the file");
  auto wide = ParseCsv("a,b\n1,2,3\n", "w.csv");
  ASSERT_FALSE(wide.ok());
  EXPECT_EQ(wide.status().message(), "w.csv: line 2: 3 fields, the header has 2");
  auto after = ParseCsv("a\n\"x\"y\n", "q.csv");
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(after.status().message(), "q.csv: line 2: text after a closing quote (expected a comma or a line end)");
  EXPECT_FALSE(ParseCsv("", "e.csv").ok());
}

}  // namespace
}  // namespace mlprof
