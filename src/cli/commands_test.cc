#include "cli/commands.h"

#include <gtest/gtest.h>

namespace mlprof {
namespace {

TEST(Cli, SuggestsTheClosestCommand) {
  EXPECT_EQ(SuggestCommand("sumary"), "summary");
  EXPECT_EQ(SuggestCommand("kernals"), "kernels");
  EXPECT_EQ(SuggestCommand("stpes"), "steps");
  EXPECT_EQ(SuggestCommand("zzzzzzzz"), "");
}

}  // namespace
}  // namespace mlprof
