// Byte scanners over JSON text that the Chrome trace reader (io/chrome_json.cc)
// runs once per file or per window, before or beside simdjson: where the
// events array opens, where a window may end between two events, where the
// last complete event ends in a text cut short, whether more events follow
// a point of damage, and where the top-level document ends. They look at
// bytes only (strings and escapes tracked), never allocate, and work on any
// text, valid JSON or not (io/json_scan_test.cc).
#pragma once

#include <cstddef>
#include <string_view>

namespace mlprof {

// JSON's whitespace.
inline bool IsJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Tracks whether the bytes of a JSON text fed one by one are inside a string
// literal (escapes handled).
struct StringState {
  bool in_str = false, esc = false;
  // True if `c` belongs to a string literal, its quotes included.
  bool Feed(char c) {
    if (in_str) {
      if (esc)
        esc = false;
      else if (c == '\\')
        esc = true;
      else if (c == '"')
        in_str = false;
      return true;
    }
    if (c == '"') in_str = true;
    return in_str;
  }
};

// For a JSON text that ends inside a string, where the last complete element
// of the outermost array (bare-array traces) or of an array directly inside
// the top-level object (traceEvents) ends (one past its '}'). 0 if none.
size_t LastCompleteEventEnd(std::string_view s);

// Index of the '[' that opens the events: `start` itself for a bare array,
// else the value of the top-level object's "traceEvents" key. 0 if absent.
size_t FindEventsArray(std::string_view s, size_t start);

// Where to end a window: the last comma in (from, limit) between a '}' and a
// '{', most likely between two events; cuts followed by a newline first
// (a raw newline cannot be inside a JSON string). 0 if none.
size_t FindCutBefore(std::string_view s, size_t from, size_t limit);

// The first raw control byte (below 0x20) inside a string, which JSON
// forbids, or npos.
size_t FirstControlInString(std::string_view s);

// True when `s` holds the start of another event after a complete one:
// '}' ',' '{' and then one of the keys every trace event has ("ph", "name",
// "cat", "pid", "tid", "ts"), whitespace allowed between.
bool HasEventStart(std::string_view s);

// The end of the top-level JSON value that starts at `start` (one past its
// closing bracket), or npos when the text ends before it closes.
size_t DocumentEnd(std::string_view s, size_t start);

}  // namespace mlprof
