// ProfileBuilder: the lean (binary readers') path and the general path
// mixed in one profile.
#include "model/builder.h"

#include <gtest/gtest.h>

namespace mlprof {
namespace {

// Lean events leave the Kineto-only columns out; a later general event with
// such args fills them, with defaults for the ops before it, and the
// derived columns line up with the op count.
TEST(ProfileBuilder, LeanAndGeneralEventsMix) {
  RankProfile p;
  ProfileBuilder b(&p);
  const StringId name = b.strings().Intern("op"), cat = b.strings().Intern("cpu_op");
  ProfileBuilder::LeanLine line;
  line.track = b.TrackFor(1, 2);
  const Ps128 line_abs = Ps128{5} * kPsPerUs;
  b.AddLean(line, line_abs, name, cat, OpKind::kCpuOp, 0, 10 * kPsPerUs, -1, -1, 100);  // sets the base
  ASSERT_TRUE(b.LineBase(line_abs, &line));
  b.AddLean(line, line_abs, name, cat, OpKind::kCpuOp, 2 * kPsPerUs, kPsPerUs, -1, -1, 200);  // nested in the first
  EventRecord e;
  e.ph = 'X';
  e.name = name;
  e.cat = cat;
  e.has_cat = e.has_ts = e.has_dur = true;
  e.ts = Ps128{20} * kPsPerUs;
  e.dur = kPsPerUs;
  e.pid = 1;
  e.tid = 2;
  e.external_id = 77;
  e.input_dims = b.strings().Intern("[[2,3]]");
  e.offset = 300;
  b.AddEvent(e);
  ASSERT_TRUE(b.Finish().ok());
  const OpTable& o = p.ops;
  ASSERT_EQ(o.size(), 3u);
  ASSERT_EQ(o.external_id.size(), 3u);
  ASSERT_EQ(o.input_dims.size(), 3u);
  EXPECT_EQ(o.external_id_of(0), -1);
  EXPECT_EQ(o.external_id_of(1), -1);
  EXPECT_EQ(o.external_id_of(2), 77);
  EXPECT_EQ(p.str(o.input_dims_of(2)), "[[2,3]]");
  EXPECT_EQ(o.input_dims_of(0), 0u);
  EXPECT_EQ(o.bytes_of(1), -1);
  // Times from the 5 us origin; the second op nests in the first.
  EXPECT_EQ(o.ts[0], 0);
  EXPECT_EQ(o.ts[1], 2 * kPsPerUs);
  EXPECT_EQ(o.ts[2], 15 * kPsPerUs);
  EXPECT_EQ(o.parent[1], 0);
  EXPECT_EQ(o.depth[1], 1);
  EXPECT_EQ(o.parent[2], -1);
  EXPECT_EQ(p.origin_abs_ps, 5 * kPsPerUs);
  EXPECT_EQ(p.phase_counts['X'], 3u);
  EXPECT_EQ(p.cat_counts[cat], 3u);
  EXPECT_EQ(o.offset[1], 200u);
}

// Ops appended out of order are still sorted by track and time.
TEST(ProfileBuilder, OutOfOrderLeanEventsAreSorted) {
  RankProfile p;
  ProfileBuilder b(&p);
  const StringId name = b.strings().Intern("k"), cat = b.strings().Intern("host");
  ProfileBuilder::LeanLine line;
  line.track = b.TrackFor(1, 1);
  for (uint64_t off : {30u, 10u, 20u}) {
    b.LineBase(0, &line);
    b.AddLean(line, 0, name, cat, OpKind::kOther, off * kPsPerUs, kPsPerUs, -1, -1, off);
  }
  ASSERT_TRUE(b.Finish().ok());
  ASSERT_EQ(p.ops.size(), 3u);
  EXPECT_EQ(p.ops.ts[0], 0);
  EXPECT_EQ(p.ops.ts[1], 10 * kPsPerUs);
  EXPECT_EQ(p.ops.ts[2], 20 * kPsPerUs);
  EXPECT_EQ(p.ops.offset[0], 10u);
  EXPECT_EQ(p.ops.offset[2], 30u);
  EXPECT_TRUE(p.ops.external_id.empty());
}

}  // namespace
}  // namespace mlprof
