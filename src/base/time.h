// Time inside mlprof: int64 picoseconds ("Ps") relative to the profile origin.
//
// Why picoseconds: XLA/XPlane durations are integer picoseconds and Kineto's
// newer traces carry nanosecond fractions of microseconds ("ts": 123.456), so
// picoseconds represent every input exactly. An int64 of ps spans +-106 days,
// far beyond any profile, as long as values are relative to an origin near the
// data (absolute epoch microseconds would overflow: 1.7e15 us = 1.7e21 ps).
// Readers parse absolute times into 128-bit values and subtract the origin.
#pragma once

#include <cstdint>
#include <string_view>

namespace mlprof {

using Ps = int64_t;
using Ps128 = __int128;

inline constexpr Ps kPsPerNs = 1000;
inline constexpr Ps kPsPerUs = 1000 * 1000;
inline constexpr Ps kPsPerMs = kPsPerUs * 1000;
inline constexpr Ps kPsPerS = kPsPerMs * 1000;

inline double PsToUs(Ps ps) { return static_cast<double>(ps) / kPsPerUs; }
inline double PsToMs(Ps ps) { return static_cast<double>(ps) / kPsPerMs; }

enum class DecimalError { kOk, kEmpty, kNotANumber, kSyntax, kOutOfRange };

// Parses a JSON number (or a JSON string holding one, quotes included) that
// counts `unit_ps` picoseconds per unit, exactly: "1682725898236567.123" with
// unit_ps = 1e6 gives 1682725898236567123000 ps. Digits finer than 1 ps are
// rounded half away from zero. Accepts exponents ("1.5e3"). Rejects NaN,
// Infinity and magnitudes over 1e30 ps (absurd for a profile).
DecimalError ParseDecimalPs(std::string_view text, Ps unit_ps, Ps128* out);

// HTA compatibility: ceil/floor of a ps value to whole microseconds.
inline Ps CeilToUs(Ps ps) {
  Ps q = ps / kPsPerUs, r = ps % kPsPerUs;
  return (r > 0 ? q + 1 : q) * kPsPerUs;
}
inline Ps FloorToUs(Ps ps) {
  Ps q = ps / kPsPerUs, r = ps % kPsPerUs;
  return (r < 0 ? q - 1 : q) * kPsPerUs;
}

}  // namespace mlprof
