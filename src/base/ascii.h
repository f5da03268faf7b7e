// ASCII string tests for names read from traces (kernel and op names).
#pragma once

#include <cctype>
#include <string_view>

namespace mlprof {

// Whether `s` contains `lower_part` (given in lower case), ignoring the case
// of `s`'s ASCII letters.
inline bool ContainsNoCase(std::string_view s, std::string_view lower_part) {
  if (lower_part.size() > s.size()) return false;
  for (size_t i = 0; i + lower_part.size() <= s.size(); ++i) {
    size_t k = 0;
    while (k < lower_part.size() && std::tolower(static_cast<unsigned char>(s[i + k])) == lower_part[k]) ++k;
    if (k == lower_part.size()) return true;
  }
  return false;
}

}  // namespace mlprof
