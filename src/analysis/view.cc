#include "analysis/view.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <thread>

namespace mlprof {

Ps RankView::Ts(uint32_t op) const { return rounded ? rounded_ts[op] : profile->ops.ts[op]; }

Ps RankView::End(uint32_t op) const { return rounded ? rounded_end[op] : profile->ops.ts[op] + profile->ops.dur[op]; }

namespace {

// The float64 a JSON parser (Python's, HTA's) makes of an exact time: the
// decimal text of `ps` picoseconds as microseconds, through strtod.
// Exact for any Ps128 (a timestamp past int64 microseconds, ~1e19 us, is
// still formatted digit by digit, never cast down).
double ToFloat64Us(Ps128 ps) {
  const bool neg = ps < 0;
  unsigned __int128 v = neg ? -static_cast<unsigned __int128>(ps) : static_cast<unsigned __int128>(ps);
  const auto frac = static_cast<long long>(v % static_cast<unsigned __int128>(kPsPerUs));
  unsigned __int128 whole = v / static_cast<unsigned __int128>(kPsPerUs);
  char digits[48];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + static_cast<int>(whole % 10));
    whole /= 10;
  } while (whole != 0);
  std::string text = neg ? "-" : "";
  while (n > 0) text.push_back(digits[--n]);
  text += fmt::format(".{:06d}", frac);
  return std::strtod(text.c_str(), nullptr);
}

// A whole number of microseconds as ps, saturated to what int64 ps holds
// (float64 arithmetic on huge clocks may step outside it; never a cast of an
// out-of-range double).
Ps WholeUsToPs(double us) {
  constexpr double kMaxUs = 9.2e12;  // 9.2e18 ps, inside int64
  if (!(us > -kMaxUs)) return static_cast<Ps>(-kMaxUs) * kPsPerUs;
  if (!(us < kMaxUs)) return static_cast<Ps>(kMaxUs) * kPsPerUs;
  return static_cast<Ps>(us) * kPsPerUs;
}

// HTA: ts = ceil(ts), end = floor(ts + dur), on float64 values of the trace
// clock. Results are whole microseconds, made relative to the rank origin.
void RoundLikeHta(const RankProfile& p, RankView* rv) {
  const OpTable& o = p.ops;
  auto origin_us = static_cast<double>(p.origin_abs_ps / kPsPerUs);  // origin is whole us
  rv->rounded_ts.resize(o.size());
  rv->rounded_end.resize(o.size());
  for (size_t i = 0; i < o.size(); ++i) {
    double ts = ToFloat64Us(p.origin_abs_ps + o.ts[i]);
    double dur = ToFloat64Us(o.dur[i]);
    rv->rounded_ts[i] = WholeUsToPs(std::ceil(ts) - origin_us);
    rv->rounded_end[i] = WholeUsToPs(std::floor(ts + dur) - origin_us);
  }
}

}  // namespace

ClassUnions UnionsByClass(const std::vector<GpuOpRef>& ops) {
  ClassUnions u;
  std::vector<Interval> all, cls[kKernelClassCount];
  all.reserve(ops.size());
  for (const GpuOpRef& g : ops) {
    all.push_back({g.ts, g.end});
    cls[static_cast<int>(g.cls)].push_back({g.ts, g.end});
  }
  u.all = Union(std::move(all));
  for (int c = 0; c < kKernelClassCount; ++c) u.by_class[c] = Union(std::move(cls[c]));
  return u;
}

static RankView BuildRankView(const RankProfile& p, size_t r, bool multi_step, const AnalysisOptions& options) {
  const OpTable& o = p.ops;
  RankView rv;
  rv.profile = &p;
  rv.rank = p.rank_or(static_cast<int64_t>(r));
  rv.rounded = options.hta_rounding && p.meta.has_float_ts;
  if (rv.rounded) {
    // float64 holds whole microseconds exactly only up to 2^53.
    constexpr Ps128 kExactUs = Ps128{1} << 53;
    Ps last = 0;
    for (size_t i = 0; i < o.size(); ++i) last = std::max(last, o.end(i));
    const Ps128 first_abs = p.origin_abs_ps, last_abs = p.origin_abs_ps + last;
    auto beyond = [&](Ps128 v) { return v >= kExactUs * kPsPerUs || v <= -kExactUs * kPsPerUs; };
    if (beyond(first_abs) || beyond(last_abs)) rv.rounded = false, rv.rounding_refused = true;
  }
  if (rv.rounded) RoundLikeHta(p, &rv);
  rv.keep.assign(o.size(), 1);
  // HTA's rule is about ProfilerSteps (the last is often cut short when
  // profiling stops), as are serving steps; inferred steps end where their
  // iteration does.
  if (options.drop_last_step && multi_step && p.MarkedSteps() && !p.steps.empty() && p.steps.back().op >= 0) {
    rv.filtered = true;
    Ps last_start = rv.Ts(static_cast<uint32_t>(p.steps.back().op));
    for (size_t i = 0; i < o.size(); ++i) {
      if (IsGpuOp(o.kind[i])) continue;
      rv.keep[i] = rv.Ts(static_cast<uint32_t>(i)) < last_start;
    }
    for (size_t i = 0; i < o.size(); ++i) {
      if (!IsGpuOp(o.kind[i])) continue;
      rv.keep[i] = o.launch[i] >= 0 && rv.keep[o.launch[i]];
    }
  }
  KernelClassCache classes(p, options.comm_kernels.get());
  for (size_t i = 0; i < o.size(); ++i) {
    if (!rv.keep[i] || !OccupiesStream(o.kind[i])) continue;
    auto op = static_cast<uint32_t>(i);
    rv.gpu.push_back({rv.Ts(op), rv.End(op), op, o.track[i], classes.Get(o.name[i])});
  }
  std::sort(rv.gpu.begin(), rv.gpu.end(),
            [](const GpuOpRef& a, const GpuOpRef& b) { return a.ts != b.ts ? a.ts < b.ts : a.end < b.end; });
  rv.unions = UnionsByClass(rv.gpu);
  return rv;
}

int64_t RankView::KeptSteps() const { return static_cast<int64_t>(profile->steps.size()) - (filtered ? 1 : 0); }

ProfileView BuildProfileView(const Profile& profile, const AnalysisOptions& options) {
  ProfileView view;
  std::set<int64_t> step_numbers;
  for (const RankProfile& p : profile.ranks)
    if (p.MarkedSteps())
      for (const Step& s : p.steps) step_numbers.insert(s.number);
  view.multi_step = options.multi_step >= 0 ? options.multi_step == 1 : step_numbers.size() >= 2;
  view.comm_kernels = options.comm_kernels;

  // Ranks are independent: build their views in parallel.
  view.ranks.resize(profile.ranks.size());
  auto build = [&](size_t r) { view.ranks[r] = BuildRankView(profile.ranks[r], r, view.multi_step, options); };
  size_t threads =
      std::min<size_t>(profile.ranks.size(), options.threads > 0 ? static_cast<size_t>(options.threads)
                                                                 : std::max(1u, std::thread::hardware_concurrency()));
  if (threads <= 1) {
    for (size_t r = 0; r < profile.ranks.size(); ++r) build(r);
  } else {
    std::vector<std::thread> pool;
    for (size_t t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        for (size_t r = t; r < profile.ranks.size(); r += threads) build(r);
      });
    for (auto& th : pool) th.join();
  }
  return view;
}

}  // namespace mlprof
