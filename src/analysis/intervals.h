// Interval algebra on [start, end) in ps. Unions follow HTA's merge rule:
// sorted by start, a new group begins only when start > running max end, so
// touching intervals merge.
#pragma once

#include <vector>

#include "base/time.h"

namespace mlprof {

struct Interval {
  Ps start;
  Ps end;
};

// Sorts and merges in place; returns the merged, disjoint intervals.
std::vector<Interval> Union(std::vector<Interval> v);
Ps TotalLength(const std::vector<Interval>& merged);
// Length of the intersection of two merged (disjoint, sorted) sets.
Ps IntersectionLength(const std::vector<Interval>& a, const std::vector<Interval>& b);
// The intersection and the difference a - b of two merged sets (merged).
std::vector<Interval> Intersection(const std::vector<Interval>& a, const std::vector<Interval>& b);
std::vector<Interval> Subtract(const std::vector<Interval>& a, const std::vector<Interval>& b);
// Length of a merged set inside [start, end) (binary search: cheap per step).
Ps LengthWithin(const std::vector<Interval>& merged, Ps start, Ps end);

}  // namespace mlprof
