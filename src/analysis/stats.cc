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

namespace mlprof {

MannWhitney MannWhitneyU(const std::vector<double>& a, const std::vector<double>& b) {
  MannWhitney r;
  const size_t n1 = a.size(), n2 = b.size();
  if (n1 == 0 || n2 == 0) return r;
  // Mid-ranks of the pooled sample.
  std::vector<std::pair<double, int>> all;
  for (double x : a) all.push_back({x, 0});
  for (double x : b) all.push_back({x, 1});
  std::sort(all.begin(), all.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  const size_t n = all.size();
  double rank_sum_a = 0, tie_term = 0;
  bool ties = false;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && all[j].first == all[i].first) ++j;
    const double mid = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;  // ranks i+1..j
    const double t = static_cast<double>(j - i);
    if (j - i > 1) ties = true, tie_term += t * t * t - t;
    for (size_t k = i; k < j; ++k)
      if (all[k].second == 0) rank_sum_a += mid;
    i = j;
  }
  const double m1 = static_cast<double>(n1), m2 = static_cast<double>(n2);
  r.u = rank_sum_a - m1 * (m1 + 1) / 2;
  const double u_big = std::max(r.u, m1 * m2 - r.u);
  if (std::min(n1, n2) <= 8 && !ties) {
    // Exact: the number of arrangements with each U is the coefficient of
    // q^u in the Gaussian binomial [m+k choose m]_q, the product over
    // i = 1..m of (1 - q^(k+i)) / (1 - q^i) (m the smaller sample, k the
    // larger); then p = 2 P(U >= u_big), at most 1.
    const size_t m = std::min(n1, n2), k = std::max(n1, n2), umax = m * k;
    std::vector<double> c(umax + 1, 0);
    c[0] = 1;
    for (size_t i = 1; i <= m; ++i) {
      for (size_t u = umax; u >= k + i && u <= umax; --u) c[u] -= c[u - (k + i)];  // x (1 - q^(k+i))
      for (size_t u = i; u <= umax; ++u) c[u] += c[u - i];                         // / (1 - q^i)
    }
    const std::vector<double>& f_last = c;
    double total = 0, tail = 0;
    for (size_t u = 0; u <= umax; ++u) {
      total += f_last[u];
      if (static_cast<double>(u) >= u_big) tail += f_last[u];
    }
    r.p = std::min(1.0, 2 * tail / total);
    r.exact = true;
    return r;
  }
  const double nn = m1 + m2;
  const double sigma = std::sqrt(m1 * m2 / 12 * ((nn + 1) - tie_term / (nn * (nn - 1))));
  if (sigma == 0) return r;  // every value the same
  const double z = (u_big - m1 * m2 / 2 - 0.5) / sigma;
  r.p = std::min(1.0, std::erfc(z / std::sqrt(2.0)));  // 2 * (1 - Phi(z))
  return r;
}

}  // namespace mlprof
