#include "analysis/stats.h"

#include <algorithm>
#include <cmath>

namespace mlprof {

double QuantileSorted(const std::vector<double>& s, double q) {
  if (s.empty()) return std::nan("");
  double pos = q * static_cast<double>(s.size() - 1);
  auto lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, s.size() - 1);
  double frac = pos - static_cast<double>(lo);
  return s[lo] + (s[hi] - s[lo]) * frac;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return QuantileSorted(v, 0.5);
}

Describe DescribeValues(std::vector<double> v) {
  Describe d;
  d.count = static_cast<int64_t>(v.size());
  if (v.empty()) {
    d.mean = d.std = d.min = d.p25 = d.p50 = d.p75 = d.p95 = d.max = std::nan("");
    return d;
  }
  std::sort(v.begin(), v.end());
  for (double x : v) d.sum += x;
  d.mean = d.sum / static_cast<double>(v.size());
  if (v.size() > 1) {
    double ss = 0;
    for (double x : v) ss += (x - d.mean) * (x - d.mean);
    d.std = std::sqrt(ss / static_cast<double>(v.size() - 1));
  } else {
    d.std = std::nan("");
  }
  d.min = v.front();
  d.max = v.back();
  d.p25 = QuantileSorted(v, 0.25);
  d.p50 = QuantileSorted(v, 0.5);
  d.p75 = QuantileSorted(v, 0.75);
  d.p95 = QuantileSorted(v, 0.95);
  return d;
}

}  // namespace mlprof
