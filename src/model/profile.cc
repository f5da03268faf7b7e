#include "model/profile.h"

#include <algorithm>

#include "base/huge_pages.h"

namespace mlprof {

void OpTable::Reserve(size_t n, bool kineto_columns) {
  auto one = [n](auto& col) { col.reserve(n); };
  if (kineto_columns) {
#define MLPROF_X(type, col, desc)                                                                     \
  if (static_cast<const void*>(&col) != &stack && static_cast<const void*>(&col) != &blocks_per_sm && \
      static_cast<const void*>(&col) != &occupancy)                                                   \
    one(col);
    MLPROF_OP_COLUMNS(MLPROF_X)
#undef MLPROF_X
    return;
  }
  one(ts), one(dur), one(name), one(cat), one(kind), one(track), one(correlation), one(parent), one(depth);
  one(launch), one(step), one(xla), one(offset);
}

void OpTable::Permute(const std::vector<uint32_t>& order) {
#define MLPROF_X(type, col, desc)                                      \
  if (!col.empty()) {                                                  \
    OpColumn<type> next(order.size());                                 \
    for (size_t i = 0; i < order.size(); ++i) next[i] = col[order[i]]; \
    col.swap(next);                                                    \
  }
  MLPROF_OP_COLUMNS(MLPROF_X)
#undef MLPROF_X
}

std::span<const Arg> ArgTable::Of(ArgOwner kind, uint32_t owner) const {
  auto less = [](const Arg& a, std::pair<ArgOwner, uint32_t> k) {
    return a.owner_kind != k.first ? a.owner_kind < k.first : a.owner < k.second;
  };
  auto greater = [](std::pair<ArgOwner, uint32_t> k, const Arg& a) {
    return k.first != a.owner_kind ? k.first < a.owner_kind : k.second < a.owner;
  };
  const auto key = std::make_pair(kind, owner);
  auto lo = std::lower_bound(rows.begin(), rows.end(), key, less);
  auto hi = std::upper_bound(lo, rows.end(), key, greater);
  return {lo, hi};
}

const ArgValue* ArgTable::Find(ArgOwner kind, uint32_t owner, StringId key) const {
  for (const Arg& a : Of(kind, owner))
    if (a.value.key == key) return &a.value;
  return nullptr;
}

}  // namespace mlprof
