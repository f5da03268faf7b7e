#include "base/repeats.h"

#include <algorithm>
#include <array>
#include <unordered_map>

namespace mlprof {

namespace {

// Whether seq[a, a + period) is not itself a repeat of a shorter sequence
// ("A A", "A B A B" are not blocks of their own).
bool Primitive(const std::vector<uint32_t>& seq, size_t a, size_t period) {
  for (size_t d = 1; d < period; ++d) {
    if (period % d != 0) continue;
    bool repeats = true;
    for (size_t i = a; i + d < a + period && repeats; ++i) repeats = seq[i] == seq[i + d];
    if (repeats) return false;
  }
  return true;
}

}  // namespace

RepeatingRun FindRepeatingRun(const std::vector<uint32_t>& seq, const std::vector<Ps>& weight) {
  RepeatingRun best;
  const size_t n = seq.size();
  if (n < 4 || weight.size() != n) return best;
  // Candidate periods: distances from each symbol to its previous four
  // occurrences (a block whose every kernel occurs several times in it still
  // shows its period), the 32 most frequent.
  constexpr size_t kBack = 4, kCandidates = 32;
  std::unordered_map<uint32_t, std::array<size_t, kBack>> prev;
  std::unordered_map<size_t, size_t> dist;
  for (size_t i = 0; i < n; ++i) {
    auto [it, fresh] = prev.try_emplace(seq[i]);
    auto& ring = it->second;
    if (fresh) ring.fill(SIZE_MAX);
    for (size_t j : ring)
      if (j != SIZE_MAX && i - j >= 2 && i - j <= n / 2) ++dist[i - j];
    std::rotate(ring.rbegin(), ring.rbegin() + 1, ring.rend());
    ring[0] = i;
  }
  // And distances between consecutive occurrences of the same pair of
  // symbols: a block whose every kernel occurs many times in it (A x5, B x5)
  // has pairs that occur once per block.
  std::unordered_map<uint64_t, size_t> prev_pair;
  for (size_t i = 0; i + 1 < n; ++i) {
    const uint64_t key = uint64_t{seq[i]} << 32 | seq[i + 1];
    auto [it, fresh] = prev_pair.try_emplace(key, i);
    if (!fresh) {
      if (i - it->second >= 2 && i - it->second <= n / 2) ++dist[i - it->second];
      it->second = i;
    }
  }
  std::vector<std::pair<size_t, size_t>> cand;  // (count, period)
  for (const auto& [d, c] : dist) cand.push_back({c, d});
  std::sort(cand.begin(), cand.end(),
            [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  if (cand.size() > kCandidates) cand.resize(kCandidates);
  std::vector<Ps> prefix(n + 1, 0);
  for (size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + weight[i];
  Ps best_w = -1;
  for (const auto& [count, period] : cand) {
    size_t i = 0;
    while (i + period < n) {
      if (seq[i] != seq[i + period]) {
        ++i;
        continue;
      }
      const size_t a = i;
      while (i + period < n && seq[i] == seq[i + period]) ++i;
      // seq[a, i + period) repeats with this period.
      const size_t reps = (i - a + period) / period;
      if (reps < 2) continue;
      const Ps w = prefix[a + reps * period] - prefix[a];
      if ((w > best_w || (w == best_w && (period < best.period || (period == best.period && a < best.start)))) &&
          Primitive(seq, a, period)) {
        best_w = w;
        best = {a, period, reps};
      }
    }
  }
  return best;
}

}  // namespace mlprof
