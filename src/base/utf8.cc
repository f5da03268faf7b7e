#include "base/utf8.h"

namespace mlprof {

uint64_t RepairUtf8(char* data, size_t n, uint64_t* first) {
  uint64_t bad = 0;
  auto* s = reinterpret_cast<unsigned char*>(data);
  size_t i = 0;
  while (i < n) {
    unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = 0;
    uint32_t cp = 0;
    if ((c & 0xE0) == 0xC0)
      len = 2, cp = c & 0x1F;
    else if ((c & 0xF0) == 0xE0)
      len = 3, cp = c & 0x0F;
    else if ((c & 0xF8) == 0xF0)
      len = 4, cp = c & 0x07;
    bool ok = len != 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80)
        ok = false;
      else
        cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    if (ok) {
      // Reject overlong forms, surrogates and values past U+10FFFF.
      if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
          (cp >= 0xD800 && cp <= 0xDFFF))
        ok = false;
    }
    if (ok) {
      i += len;
    } else {
      if (bad++ == 0) *first = i;
      s[i] = '?';
      ++i;
    }
  }
  return bad;
}

bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && static_cast<unsigned char>(s[i]) < 0x80) ++i;
  if (i == s.size()) return true;
  std::string copy(s.substr(i));
  uint64_t first = 0;
  return RepairUtf8(copy.data(), copy.size(), &first) == 0;
}

std::string ValidUtf8(std::string_view s) {
  std::string out(s);
  uint64_t first = 0;
  RepairUtf8(out.data(), out.size(), &first);
  return out;
}

}  // namespace mlprof
