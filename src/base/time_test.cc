#include "base/time.h"

#include <gtest/gtest.h>

namespace mlprof {
namespace {

Ps128 P(std::string_view s, Ps unit = kPsPerUs) {
  Ps128 v = -1;
  EXPECT_EQ(ParseDecimalPs(s, unit, &v), DecimalError::kOk) << s;
  return v;
}

TEST(ParseDecimalPs, IntegersAndFractionsAreExact) {
  EXPECT_EQ(P("0"), 0);
  EXPECT_EQ(P("12"), 12 * kPsPerUs);
  EXPECT_EQ(P("12.5"), 12 * kPsPerUs + 500000);
  EXPECT_EQ(P("0.001"), 1000);  // 1 ns
  EXPECT_EQ(P("0.000001"), 1);  // 1 ps
  EXPECT_EQ(P("-3.25"), -(3 * kPsPerUs + 250000));
  // Epoch microseconds with ns fractions (Kineto 2024+): no float drift.
  EXPECT_EQ(P("1712195495533164.141"), static_cast<Ps128>(1712195495533164LL) * kPsPerUs + 141000);
  EXPECT_EQ(P("4458676983543.183"), static_cast<Ps128>(4458676983543LL) * kPsPerUs + 183000);
}

TEST(ParseDecimalPs, RoundsBelowOnePicosecondHalfAwayFromZero) {
  EXPECT_EQ(P("0.0000004"), 0);
  EXPECT_EQ(P("0.0000005"), 1);
  EXPECT_EQ(P("1.0000015"), kPsPerUs + 2);
}

TEST(ParseDecimalPs, ExponentsQuotesAndUnits) {
  EXPECT_EQ(P("1.5e3"), 1500 * kPsPerUs);
  EXPECT_EQ(P("15E-1"), 1 * kPsPerUs + 500000);
  EXPECT_EQ(P("\"42\""), 42 * kPsPerUs);
  EXPECT_EQ(P("7", 1), 7);  // picosecond unit (XPlane)
  EXPECT_EQ(P("2", kPsPerNs), 2000);
}

// Found by fuzzing: 36 significant digits times the unit overflowed __int128.
TEST(ParseDecimalPs, ManyDigitsNeverOverflow) {
  Ps128 v;
  EXPECT_EQ(ParseDecimalPs("778927788214372819348214987654321987654321", kPsPerUs, &v), DecimalError::kOutOfRange);
  EXPECT_EQ(ParseDecimalPs("0.000000000000000000000000000000000000000001", kPsPerUs, &v), DecimalError::kOk);
  EXPECT_EQ(v, 0);
  EXPECT_EQ(ParseDecimalPs("1.0000000000000000000000000000000000000001", kPsPerUs, &v), DecimalError::kOk);
  EXPECT_EQ(v, kPsPerUs);
  EXPECT_EQ(ParseDecimalPs("123456789012345678901234567890123e-30", kPsPerUs, &v), DecimalError::kOk);
  EXPECT_EQ(v, 123456789);  // 123.456789012... us = 123456789.012 ps
}

TEST(ParseDecimalPs, RejectsBadNumbers) {
  Ps128 v;
  EXPECT_EQ(ParseDecimalPs("NaN", kPsPerUs, &v), DecimalError::kNotANumber);
  EXPECT_EQ(ParseDecimalPs("-Infinity", kPsPerUs, &v), DecimalError::kNotANumber);
  EXPECT_EQ(ParseDecimalPs("abc", kPsPerUs, &v), DecimalError::kSyntax);
  EXPECT_EQ(ParseDecimalPs("1.2.3", kPsPerUs, &v), DecimalError::kSyntax);
  EXPECT_EQ(ParseDecimalPs("", kPsPerUs, &v), DecimalError::kEmpty);
  EXPECT_EQ(ParseDecimalPs("1e40", kPsPerUs, &v), DecimalError::kOutOfRange);
  EXPECT_EQ(ParseDecimalPs("99999999999999999999999999999", kPsPerUs, &v), DecimalError::kOutOfRange);
}

TEST(TimeRounding, CeilAndFloorToMicroseconds) {
  EXPECT_EQ(CeilToUs(1), kPsPerUs);
  EXPECT_EQ(CeilToUs(kPsPerUs), kPsPerUs);
  EXPECT_EQ(CeilToUs(-1), 0);
  EXPECT_EQ(FloorToUs(kPsPerUs - 1), 0);
  EXPECT_EQ(FloorToUs(-1), -kPsPerUs);
}

}  // namespace
}  // namespace mlprof
