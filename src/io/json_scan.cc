#include "io/json_scan.h"

#include <algorithm>

namespace mlprof {

// For a JSON text that ends inside a string, finds where the last complete
// element of the outermost array (bare-array traces) or of an array directly
// inside the top-level object (traceEvents) ends. Returns 0 if none.
size_t LastCompleteEventEnd(std::string_view s) {
  int depth = 0;
  StringState str;
  size_t last = 0;
  int event_depth = -1;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (str.Feed(c)) continue;
    switch (c) {
      case '{':
      case '[':
        if (depth == 0) event_depth = c == '[' ? 1 : 2;
        ++depth;
        break;
      case '}':
      case ']':
        --depth;
        if (c == '}' && depth == event_depth) last = i + 1;
        break;
      default:
        break;
    }
  }
  return last;
}

// Index of the '[' that opens the events: the first byte of a bare array, or
// the value of the "traceEvents" key of the top-level object. 0 if absent.
size_t FindEventsArray(std::string_view s, size_t start) {
  if (s[start] == '[') return start;
  constexpr std::string_view kKey = "\"traceEvents\"";
  int depth = 0;
  for (size_t i = start; i < s.size(); ++i) {
    char c = s[i];
    if (c == '"') {
      if (depth == 1 && s.compare(i, kKey.size(), kKey) == 0) {
        size_t j = i + kKey.size();
        while (j < s.size() && IsJsonSpace(s[j])) ++j;
        if (j < s.size() && s[j] == ':') {
          ++j;
          while (j < s.size() && IsJsonSpace(s[j])) ++j;
          return j < s.size() && s[j] == '[' ? j : 0;
        }
      }
      // Skip the string.
      for (++i; i < s.size() && s[i] != '"'; ++i)
        if (s[i] == '\\') ++i;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return 0;
}

// Where to end a window: the last comma in (from, limit) between a '}' and a
// '{', i.e. most likely between two events. Cuts whose whitespace after the
// comma holds a newline come first: a raw newline cannot be inside a JSON
// string, so such a cut is never inside a name (kernel names are full of
// "}, "). Same-line cuts (compact JSON) are the fallback; a cut inside a
// string or an event is still handled by the caller, only slower.
size_t FindCutBefore(std::string_view s, size_t from, size_t limit) {
  size_t end = std::min(limit, s.size());
  size_t fallback = 0;
  for (size_t i = end - 1; i > from; --i) {
    if (s[i] != ',') continue;
    size_t j = i;
    while (j > from && IsJsonSpace(s[j - 1])) --j;
    if (j <= from || s[j - 1] != '}') continue;
    size_t k = i + 1;
    bool newline = false;
    while (k < s.size() && IsJsonSpace(s[k])) newline |= s[k++] == '\n';
    if (k >= s.size() || s[k] != '{') continue;
    if (newline) return i;
    if (fallback == 0) fallback = i;
    // Compact JSON has no newlines at all: do not scan the whole window.
    if (end - i > (size_t{1} << 20)) break;
  }
  return fallback;
}

// The first raw control byte (below 0x20) inside a string, which JSON
// forbids, or npos.
size_t FirstControlInString(std::string_view s) {
  StringState str;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool was_in = str.in_str;
    str.Feed(s[i]);
    if (was_in && str.in_str && static_cast<unsigned char>(s[i]) < 0x20) return i;
  }
  return std::string_view::npos;
}

// True when `s` holds the start of another event after a complete one:
// '}' ',' '{' and then one of the keys every trace event has ("ph", "name",
// "cat", "pid", "tid", "ts"), whitespace allowed between. (Objects nested in
// args rarely start with those keys, and only the few bytes after the last
// complete event are looked at for a file cut short.)
bool HasEventStart(std::string_view s) {
  static constexpr std::string_view kKeys[] = {"\"ph\"", "\"name\"", "\"cat\"", "\"pid\"", "\"tid\"", "\"ts\""};
  auto skip = [&](size_t j) {
    while (j < s.size() && IsJsonSpace(s[j])) ++j;
    return j;
  };
  for (size_t i = s.find('}'); i != std::string_view::npos; i = s.find('}', i + 1)) {
    size_t j = skip(i + 1);
    if (j >= s.size() || s[j] != ',') continue;
    j = skip(j + 1);
    if (j >= s.size() || s[j] != '{') continue;
    j = skip(j + 1);
    for (std::string_view k : kKeys)
      if (s.substr(j, k.size()) == k) return true;
  }
  return false;
}

// The end of the top-level JSON value that starts at `start` (one past its
// closing bracket), or npos when the text ends before it closes.
size_t DocumentEnd(std::string_view s, size_t start) {
  int depth = 0;
  StringState str;
  for (size_t i = start; i < s.size(); ++i) {
    const char c = s[i];
    if (str.Feed(c)) continue;
    if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
  }
  return std::string_view::npos;
}

}  // namespace mlprof
