// The windowed parse of large inputs must give exactly the profile that the
// whole-document parse gives. Tiny windows exercise every cut position.
#include <gtest/gtest.h>

#include "io/load.h"
#include "trace_synth.h"

namespace mlprof {
namespace {

ReadOptions Windowed(size_t window) {
  ReadOptions o;
  o.windowed_min_bytes = 0;
  o.window_bytes = window;
  return o;
}

void ExpectSameProfile(const RankProfile& a, const RankProfile& b) {
  ASSERT_EQ(a.ops.size(), b.ops.size());
#define MLPROF_X(type, col, desc) EXPECT_TRUE(a.ops.col == b.ops.col) << #col;
  MLPROF_OP_COLUMNS(MLPROF_X)
#undef MLPROF_X
  ASSERT_EQ(a.strings.size(), b.strings.size());
  for (size_t i = 0; i < a.strings.size(); ++i)
    ASSERT_EQ(a.strings.Get(static_cast<StringId>(i)), b.strings.Get(static_cast<StringId>(i)));
  EXPECT_EQ(a.flows.size(), b.flows.size());
  EXPECT_EQ(a.counters.size(), b.counters.size());
  EXPECT_EQ(a.steps.size(), b.steps.size());
  EXPECT_EQ(a.tracks.size(), b.tracks.size());
  EXPECT_EQ(a.meta.rank, b.meta.rank);
  EXPECT_EQ(a.meta.world_size, b.meta.world_size);
  EXPECT_EQ(a.meta.devices.size(), b.meta.devices.size());
  EXPECT_EQ(a.phase_counts, b.phase_counts);
  EXPECT_EQ(a.stats.count, b.stats.count);
  EXPECT_EQ(a.origin_abs_ps, b.origin_abs_ps);
  // The sparse args: same owners, keys and values.
  ASSERT_EQ(a.args.rows.size(), b.args.rows.size());
  for (size_t i = 0; i < a.args.rows.size(); ++i) {
    const Arg &x = a.args.rows[i], &y = b.args.rows[i];
    EXPECT_TRUE(x.owner_kind == y.owner_kind && x.owner == y.owner && x.value.key == y.value.key &&
                x.value.type == y.value.type && x.value.i == y.value.i && x.value.r == y.value.r &&
                x.value.s == y.value.s)
        << "arg " << i;
  }
}

TEST(Windowed, SyntheticTraceAnyWindowSize) {
  synth::SynthOptions so;
  so.rank = 1;
  so.steps = 2;
  so.layers = 2;
  std::string json = synth::MakeKinetoTrace(so);
  auto whole = LoadTraceBytes(json, "w.json");
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  for (size_t w : {64, 200, 777, 4096, 65536}) {
    SCOPED_TRACE("window " + std::to_string(w));
    auto win = LoadTraceBytes(json, "w.json", Windowed(w));
    ASSERT_TRUE(win.ok()) << win.status().message();
    ExpectSameProfile(*whole, *win);
  }
}

// Commas after '}' inside strings and inside args (nested objects, arrays of
// objects), keys after the events, a bare array, and truncation.
TEST(Windowed, TrickyCutsInsideStringsAndArgs) {
  std::string ev;
  for (int i = 0; i < 60; ++i) {
    ev += std::string(i ? "," : "") + R"({"ph":"X","cat":"cpu_op","name":"f{lambda()#1}, {x}, },{ )" +
          std::to_string(i) + R"(","pid":1,"tid":1,"ts":)" + std::to_string(10 * i) +
          R"(,"dur":5,"args":{"a":{"b":1},"c":[{"d":2},{"e":3}],"External id":)" + std::to_string(i) + "}}";
    // Memory events, whose args go to the args table, cut anywhere too.
    ev += R"(,{"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":)" + std::to_string(10 * i + 1) +
          R"(,"args":{"Bytes":)" + std::to_string(512 * i - 4096) + R"(,"Total Allocated":1.5e9,"Note":"},{"}})";
  }
  std::string obj = R"({"schemaVersion":1,"traceEvents":[)" + ev +
                    R"(],"distributedInfo":{"rank":5,"world_size":8},"deviceProperties":[{"id":0,"name":"G"}]})";
  std::string arr = "[" + ev + "]";
  for (const std::string* json : {&obj, &arr}) {
    auto whole = LoadTraceBytes(*json, "t.json");
    ASSERT_TRUE(whole.ok()) << whole.status().message();
    EXPECT_EQ(whole->ops.size(), 120u);
    // 3 per memory event; the object form's device adds its id and name.
    EXPECT_EQ(whole->args.rows.size(), 60u * 3 + (json == &obj ? 2 : 0));
    for (size_t w : {64, 150, 333, 1000}) {
      SCOPED_TRACE("window " + std::to_string(w));
      auto win = LoadTraceBytes(*json, "t.json", Windowed(w));
      ASSERT_TRUE(win.ok()) << win.status().message();
      ExpectSameProfile(*whole, *win);
    }
  }
  // Invalid UTF-8 deep inside: repaired and counted the same way.
  std::string utf = obj;
  utf.replace(utf.find("name", utf.size() / 2) + 8, 2, "\xff\xfe");
  auto u1 = LoadTraceBytes(utf, "t.json");
  auto u2 = LoadTraceBytes(utf, "t.json", Windowed(100));
  ASSERT_TRUE(u1.ok() && u2.ok());
  EXPECT_EQ(u1->stats.Get(ImportStat::invalid_utf8), 2u);
  ExpectSameProfile(*u1, *u2);
  // Truncated and corrupt inputs behave as in the whole-document parse.
  std::string cut = obj.substr(0, obj.size() * 2 / 3);
  auto a = LoadTraceBytes(cut, "t.json");
  auto b = LoadTraceBytes(cut, "t.json", Windowed(100));
  ASSERT_TRUE(a.ok() && b.ok());
  ExpectSameProfile(*a, *b);
  std::string bad = obj;
  bad.replace(obj.find("\"ts\":", obj.size() / 2) + 4, 1, "#");
  auto c = LoadTraceBytes(bad, "t.json");
  auto d = LoadTraceBytes(bad, "t.json", Windowed(100));
  EXPECT_FALSE(c.ok());
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("invalid JSON at byte"), std::string::npos) << d.status().message();
  // Whitespace and NUL padding after the document are fine on both paths;
  // anything else after it (a log line, a second document) is refused with
  // its offset, never dropped; so is a second "traceEvents" key.
  for (const std::string* json : {&obj, &arr}) {
    std::string padded = *json + "\n \n" + std::string(40, '\0');
    auto p1 = LoadTraceBytes(padded, "t.json");
    auto p2 = LoadTraceBytes(padded, "t.json", Windowed(100));
    ASSERT_TRUE(p1.ok()) << p1.status().message();
    ASSERT_TRUE(p2.ok()) << p2.status().message();
    ExpectSameProfile(*p1, *p2);
    for (const std::string& tail : {std::string("\nDONE in 3 s\n"), std::string("\n") + *json}) {
      const std::string joined = *json + tail;
      const std::string at = "data after the end of the JSON document at byte " + std::to_string(json->size() + 1);
      auto t1 = LoadTraceBytes(joined, "t.json");
      auto t2 = LoadTraceBytes(joined, "t.json", Windowed(100));
      ASSERT_FALSE(t1.ok());
      ASSERT_FALSE(t2.ok()) << (json == &obj ? "obj " : "arr ") << tail.size();
      EXPECT_NE(t1.status().message().find(at), std::string::npos) << t1.status().message();
      EXPECT_NE(t2.status().message().find(at), std::string::npos) << t2.status().message();
    }
  }
  // A missing final '}' is a file cut short on both paths (the events are
  // kept); damage in the middle with events after it is an error on both.
  std::string open_end = obj.substr(0, obj.size() - 1);
  auto o1 = LoadTraceBytes(open_end, "t.json");
  auto o2 = LoadTraceBytes(open_end, "t.json", Windowed(100));
  ASSERT_TRUE(o1.ok()) << o1.status().message();
  ASSERT_TRUE(o2.ok()) << "[" << o2.status().message() << "]";
  EXPECT_EQ(o1->ops.size(), 120u);
  EXPECT_EQ(o1->stats.Get(ImportStat::truncated_json), 1u);
  ExpectSameProfile(*o1, *o2);
  for (std::string_view damage :
       {std::string_view("\x01", 1), std::string_view("\0\0\0\0", 4), std::string_view("#$%^&*\"")}) {
    std::string hurt = obj;
    hurt.replace(obj.find("\"name\"", obj.size() / 3), damage.size(), damage);
    auto h1 = LoadTraceBytes(hurt, "t.json");
    auto h2 = LoadTraceBytes(hurt, "t.json", Windowed(100));
    EXPECT_FALSE(h1.ok()) << "whole path kept " << (h1.ok() ? h1->ops.size() : 0) << " ops";
    EXPECT_FALSE(h2.ok()) << "windowed path kept " << (h2.ok() ? h2->ops.size() : 0) << " ops";
  }
  std::string twice = obj.substr(0, obj.size() - 1) + R"(,"traceEvents":[]})";
  auto e1 = LoadTraceBytes(twice, "t.json");
  auto e2 = LoadTraceBytes(twice, "t.json", Windowed(100));
  ASSERT_FALSE(e1.ok());
  ASSERT_FALSE(e2.ok());
  const std::string second =
      "a second \"traceEvents\" key at byte " + std::to_string(twice.find("\"traceEvents\"", obj.size() - 2));
  EXPECT_NE(e1.status().message().find(second), std::string::npos) << e1.status().message() << " want " << second;
  EXPECT_NE(e2.status().message().find(second), std::string::npos) << e2.status().message();
}

}  // namespace
}  // namespace mlprof
