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
