#include "base/time.h"

namespace mlprof {

namespace {
constexpr Ps128 kMaxAbsPs = static_cast<Ps128>(1000000000000000LL) * 1000000000000000LL;  // 1e30

Ps128 Pow10(int n) {
  Ps128 v = 1;
  while (n-- > 0) v *= 10;
  return v;
}
}  // namespace

DecimalError ParseDecimalPs(std::string_view text, Ps unit_ps, Ps128* out) {
  // Fast path for the common "123" / "123.456" microsecond forms: at most 18
  // integer and 6 fraction digits, exact in 64-bit arithmetic.
  if (unit_ps == kPsPerUs && !text.empty()) {
    const char* p = text.data();
    const char* e = p + text.size();
    bool neg = *p == '-';
    p += neg;
    uint64_t ip = 0;
    int nd = 0;
    while (p < e && static_cast<unsigned>(*p - '0') < 10 && nd < 18) ip = ip * 10 + (*p++ - '0'), ++nd;
    if (nd > 0) {
      uint64_t fp = 0;
      int fd = 0;
      bool ok = true;
      if (p < e && *p == '.') {
        ++p;
        while (p < e && static_cast<unsigned>(*p - '0') < 10 && fd < 6) fp = fp * 10 + (*p++ - '0'), ++fd;
        ok = fd > 0;
      }
      if (ok && p == e) {
        static constexpr uint64_t kScale[] = {1000000, 100000, 10000, 1000, 100, 10, 1};
        Ps128 v = static_cast<Ps128>(ip) * kPsPerUs + static_cast<Ps128>(fp * kScale[fd]);
        *out = neg ? -v : v;
        return DecimalError::kOk;
      }
    }
  }
  size_t i = 0, n = text.size();
  // Allow a quoted number ("ts": "123.5"), as some exporters write.
  if (n >= 2 && text[0] == '"') {
    size_t close = text.find('"', 1);
    if (close == std::string_view::npos) return DecimalError::kSyntax;
    text = text.substr(1, close - 1);
    n = text.size();
  }
  while (i < n && (text[i] == ' ' || text[i] == '\t')) ++i;
  if (i == n) return DecimalError::kEmpty;
  bool neg = false;
  if (text[i] == '-' || text[i] == '+') {
    neg = text[i] == '-';
    ++i;
  }
  if (i < n && (text[i] == 'N' || text[i] == 'I' || text[i] == 'n' || text[i] == 'i')) return DecimalError::kNotANumber;
  Ps128 mant = 0;
  int digits = 0, exp10 = 0;
  bool any = false, dropped_nonzero = false;
  int first_dropped = -1;
  auto take = [&](char c, bool fraction) {
    any = true;
    if (digits < 30) {  // 10^30 * unit (<= 1e6) stays far inside __int128
      if (mant != 0 || c != '0') ++digits;
      mant = mant * 10 + (c - '0');
      if (fraction) --exp10;
    } else {
      // Beyond 30 significant digits: keep magnitude, remember rounding.
      if (!fraction) ++exp10;
      if (first_dropped < 0)
        first_dropped = c - '0';
      else if (c != '0')
        dropped_nonzero = true;
    }
  };
  while (i < n && text[i] >= '0' && text[i] <= '9') take(text[i++], false);
  if (i < n && text[i] == '.') {
    ++i;
    while (i < n && text[i] >= '0' && text[i] <= '9') take(text[i++], true);
  }
  if (!any) return DecimalError::kSyntax;
  if (i < n && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool eneg = false;
    if (i < n && (text[i] == '-' || text[i] == '+')) eneg = text[i++] == '-';
    int e = 0;
    bool edig = false;
    while (i < n && text[i] >= '0' && text[i] <= '9') {
      edig = true;
      if (e < 10000) e = e * 10 + (text[i] - '0');
      ++i;
    }
    if (!edig) return DecimalError::kSyntax;
    exp10 += eneg ? -e : e;
  }
  while (i < n && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) ++i;
  if (i != n) return DecimalError::kSyntax;
  (void)dropped_nonzero;
  if (first_dropped >= 5) mant += 1;  // round half away from zero on dropped digits

  // value_ps = mant * 10^exp10 * unit_ps
  Ps128 v = mant * unit_ps;
  if (mant != 0 && v / unit_ps != mant) return DecimalError::kOutOfRange;
  if (exp10 > 0) {
    if (exp10 > 30) return mant == 0 ? (*out = 0, DecimalError::kOk) : DecimalError::kOutOfRange;
    Ps128 p = Pow10(exp10);
    if (v > kMaxAbsPs / p) return DecimalError::kOutOfRange;
    v *= p;
  } else if (exp10 < 0) {
    if (exp10 < -37) {
      v = 0;
    } else {
      Ps128 p = Pow10(-exp10);
      Ps128 q = v / p, r = v % p;
      if (r * 2 >= p) ++q;  // half away from zero (v is non-negative here)
      v = q;
    }
  }
  if (v > kMaxAbsPs) return DecimalError::kOutOfRange;
  *out = neg ? -v : v;
  return DecimalError::kOk;
}

}  // namespace mlprof
