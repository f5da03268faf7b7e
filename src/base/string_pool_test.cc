#include "base/string_pool.h"

#include <gtest/gtest.h>

#include <string>

namespace mlprof {
namespace {

TEST(StringPool, InternsOnceAndKeepsViewsValid) {
  StringPool pool;
  EXPECT_EQ(pool.Intern(""), 0u);
  StringId a = pool.Intern("aten::mm");
  StringId b = pool.Intern("aten::add");
  EXPECT_NE(a, b);
  EXPECT_EQ(pool.Intern(std::string("aten::") + "mm"), a);
  std::string_view va = pool.Get(a);
  // Many more strings (several arena blocks) must not move earlier ones.
  for (int i = 0; i < 100000; ++i) pool.Intern("kernel_" + std::to_string(i) + std::string(40, 'x'));
  EXPECT_EQ(va, "aten::mm");
  EXPECT_EQ(pool.Get(b), "aten::add");
  EXPECT_EQ(pool.Find("aten::add"), b);
  EXPECT_EQ(pool.Find("nope"), StringPool::kNotFound);
  EXPECT_EQ(pool.size(), 100003u);
}

TEST(StringPool, HoldsStringsLargerThanABlock) {
  StringPool pool;
  std::string big(3 << 20, 'k');
  StringId id = pool.Intern(big);
  EXPECT_EQ(pool.Get(id), big);
}

}  // namespace
}  // namespace mlprof

namespace mlprof {
namespace {

// Names come from untrusted files: the pool holds valid UTF-8 only, invalid
// bytes replaced by '?' one for one; the same bad name maps to one id.
TEST(StringPool, InvalidUtf8BecomesQuestionMarks) {
  StringPool p;
  const StringId a = p.Intern(
      "k\xff\xfe"
      "ernel");
  EXPECT_EQ(p.Get(a), "k??ernel");
  EXPECT_EQ(p.Intern("k\xff\xfe"
                     "ernel"),
            a);
  EXPECT_EQ(p.Intern("k??ernel"), a);
  // Valid multi-byte text is kept; an overlong form and a lone surrogate are not.
  EXPECT_EQ(p.Get(p.Intern("caf\xc3\xa9")), "caf\xc3\xa9");
  EXPECT_EQ(p.Get(p.Intern("x\xc0\xafy")), "x??y");
  EXPECT_EQ(p.Get(p.Intern("s\xed\xa0\x80")), "s???");
}

}  // namespace
}  // namespace mlprof
