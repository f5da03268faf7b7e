// The Chrome reader's byte scanners on hand-written texts; every expected
// offset counted by hand in the comment beside it.
#include "io/json_scan.h"

#include <gtest/gtest.h>

#include <string>

namespace mlprof {
namespace {

constexpr size_t npos = std::string_view::npos;

TEST(JsonScan, StringStateTracksQuotesAndEscapes) {
  StringState s;
  const std::string text = R"(a"b\"c"d)";  // a, then the string "b\"c", then d
  std::string inside;
  for (char c : text) inside += s.Feed(c) ? 'S' : '-';
  EXPECT_EQ(inside, "-SSSSSS-");
  EXPECT_FALSE(s.in_str);
}

TEST(JsonScan, LastCompleteEventEndInObjectAndArray) {
  // {"traceEvents":[{"a":1},{"b":"}  -- cut inside the second event's string.
  // The first event's '}' is at 22: the end is 23.
  EXPECT_EQ(LastCompleteEventEnd(R"({"traceEvents":[{"a":1},{"b":"})"), 23u);
  // A bare array: [{"a":1},{"b":2},{"c  -- the second event ends at 16.
  EXPECT_EQ(LastCompleteEventEnd(R"([{"a":1},{"b":2},{"c)"), 16u);
  // A nested object inside an event does not count as an event.
  EXPECT_EQ(LastCompleteEventEnd(R"([{"a":{"x":1})"), 0u);
  // A '}' inside a string is not a bracket.
  EXPECT_EQ(LastCompleteEventEnd(R"([{"a":"}"},{"b":"})"), 10u);
  EXPECT_EQ(LastCompleteEventEnd(""), 0u);
}

TEST(JsonScan, FindEventsArray) {
  EXPECT_EQ(FindEventsArray("[{}]", 0), 0u);
  // {"x":1, "traceEvents" : [ ...: the '[' is at 24.
  EXPECT_EQ(FindEventsArray(R"({"x":1, "traceEvents" : [{}]})", 0), 24u);
  // The key inside a nested object or as a string value is not the events.
  EXPECT_EQ(FindEventsArray(R"({"a":{"traceEvents":[]}})", 0), 0u);
  EXPECT_EQ(FindEventsArray(R"({"a":"\"traceEvents\":[", "b":1})", 0), 0u);
  // The key with a value that is not an array.
  EXPECT_EQ(FindEventsArray(R"({"traceEvents":1})", 0), 0u);
  // After leading whitespace: start is where the document begins.
  EXPECT_EQ(FindEventsArray(R"(  {"traceEvents":[]})", 2), 17u);
}

TEST(JsonScan, FindCutBeforePrefersNewlines) {
  //            0123456789012345678901234
  std::string s = "[{\"a\":1},\n{\"b\":2}, {\"c\":3}]";
  // Commas between events at 8 (then a newline) and 17 (then a space):
  // the newline cut wins though it is further back.
  EXPECT_EQ(FindCutBefore(s, 1, s.size()), 8u);
  // Before the first comma, no cut.
  EXPECT_EQ(FindCutBefore(s, 1, 8), 0u);
  // Compact text: the last same-line cut.
  std::string c = R"([{"a":1},{"b":2},{"c":3}])";
  EXPECT_EQ(FindCutBefore(c, 1, c.size()), 16u);
  // A comma not between '}' and '{' is no cut.
  EXPECT_EQ(FindCutBefore(R"([{"a":1,"b":2}])", 1, 15), 0u);
}

TEST(JsonScan, FirstControlInString) {
  // A tab inside a string at 7 ({"a":"x at 0-6); one outside strings is allowed.
  EXPECT_EQ(FirstControlInString(std::string("{\"a\":\"x\ty\"}")), 7u);
  EXPECT_EQ(FirstControlInString(std::string("{\"a\":\t\"xy\"}")), npos);
  EXPECT_EQ(FirstControlInString(std::string("{\"a\":\"x\\ty\"}")), npos);  // escaped: fine
}

TEST(JsonScan, HasEventStart) {
  EXPECT_TRUE(HasEventStart(R"(garbage}, {"ph":"X"})"));
  EXPECT_TRUE(HasEventStart("}\n,\n{ \"name\": 1"));
  EXPECT_FALSE(HasEventStart(R"(}, {"other":1})"));  // not a key every event has
  EXPECT_FALSE(HasEventStart(R"(}]})"));
  EXPECT_FALSE(HasEventStart(""));
}

TEST(JsonScan, DocumentEnd) {
  EXPECT_EQ(DocumentEnd(R"({"a":[1,2]} tail)", 0), 11u);
  EXPECT_EQ(DocumentEnd(R"(  [{"a":"]"}])", 2), 13u);  // a ']' in a string does not close it
  EXPECT_EQ(DocumentEnd(R"({"a":[1,2])", 0), npos);
}

}  // namespace
}  // namespace mlprof
