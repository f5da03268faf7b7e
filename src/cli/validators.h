// Option checks with one-line messages that say what was expected (CLI11's
// own NonNegativeNumber prints its range up to DBL_MAX in full). Included
// only by the files that add options (compiled together as one unity source).
#pragma once

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

namespace mlprof::cli {

// A number >= 0 (`positive`: > 0); the message names what it got.
inline CLI::Validator NumberAtLeastZero(bool positive = false) {
  return CLI::Validator(
      [positive](std::string& s) -> std::string {
        char* end = nullptr;
        errno = 0;
        const double v = std::strtod(s.c_str(), &end);
        if (end == s.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(v) || (positive ? v <= 0 : v < 0))
          return fmt::format("expected a number {} 0, got '{}'", positive ? "above" : "of at least", s);
        return std::string();
      },
      positive ? "POSITIVE" : "NONNEGATIVE");
}

}  // namespace mlprof::cli
