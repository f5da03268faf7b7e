#include "analysis/intervals.h"

#include <algorithm>

namespace mlprof {

std::vector<Interval> Union(std::vector<Interval> v) {
  auto less = [](const Interval& a, const Interval& b) {
    return a.start != b.start ? a.start < b.start : a.end < b.end;
  };
  // Callers mostly pass ops already in start order.
  if (!std::is_sorted(v.begin(), v.end(), less)) std::sort(v.begin(), v.end(), less);
  std::vector<Interval> out;
  for (const Interval& iv : v) {
    if (!out.empty() && iv.start <= out.back().end) {
      out.back().end = std::max(out.back().end, iv.end);
    } else {
      out.push_back(iv);
    }
  }
  return out;
}

Ps TotalLength(const std::vector<Interval>& merged) {
  Ps t = 0;
  for (const Interval& iv : merged) t += iv.end - iv.start;
  return t;
}

Ps IntersectionLength(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  Ps total = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    Ps lo = std::max(a[i].start, b[j].start);
    Ps hi = std::min(a[i].end, b[j].end);
    if (hi > lo) total += hi - lo;
    if (a[i].end < b[j].end)
      ++i;
    else
      ++j;
  }
  return total;
}

std::vector<Interval> Intersection(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::vector<Interval> out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    Ps lo = std::max(a[i].start, b[j].start);
    Ps hi = std::min(a[i].end, b[j].end);
    if (hi > lo) out.push_back({lo, hi});
    if (a[i].end < b[j].end)
      ++i;
    else
      ++j;
  }
  return out;
}

std::vector<Interval> Subtract(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::vector<Interval> out;
  size_t j = 0;
  for (const Interval& iv : a) {
    Ps cur = iv.start;
    while (j < b.size() && b[j].end <= cur) ++j;
    for (size_t k = j; k < b.size() && b[k].start < iv.end; ++k) {
      if (b[k].start > cur) out.push_back({cur, b[k].start});
      cur = std::max(cur, b[k].end);
    }
    if (cur < iv.end) out.push_back({cur, iv.end});
  }
  return out;
}

Ps LengthWithin(const std::vector<Interval>& merged, Ps start, Ps end) {
  auto it = std::upper_bound(merged.begin(), merged.end(), start, [](Ps v, const Interval& x) { return v < x.end; });
  Ps total = 0;
  for (; it != merged.end() && it->start < end; ++it) total += std::min(it->end, end) - std::max(it->start, start);
  return total;
}

}  // namespace mlprof
