// Descriptive statistics as pandas' describe(): std with ddof=1, quantiles by
// linear interpolation between order statistics.
#pragma once

#include <cstdint>
#include <vector>

namespace mlprof {

struct Describe {
  int64_t count = 0;
  double sum = 0, mean = 0, std = 0, min = 0, p25 = 0, p50 = 0, p75 = 0, p95 = 0, max = 0;
};

Describe DescribeValues(std::vector<double> v);
// Quantile q in [0,1] of sorted values, linear interpolation (numpy default).
double QuantileSorted(const std::vector<double>& sorted, double q);
double Median(std::vector<double> v);

// The Mann-Whitney U test, two-sided, as scipy.stats.mannwhitneyu computes it
// by default (method "auto", use_continuity; scipy 1.10): the exact
// distribution unless both samples have more than 8 values or there are ties, else the
// normal approximation with the tie correction and a continuity correction.
struct MannWhitney {
  double u = 0;        // U of the first sample
  double p = 1;        // two-sided p-value (1 when a sample is empty)
  bool exact = false;  // the exact distribution was used
};
MannWhitney MannWhitneyU(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace mlprof
