// Columns and cells several tables share, declared once.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "base/time.h"
#include "report/table.h"

namespace mlprof {

inline Column Count(std::string name, std::string description) {
  return Measure(std::move(name), Unit::kCount, std::move(description));
}
inline Column Text(std::string name, std::string description) {
  return Measure(std::move(name), Unit::kText, std::move(description));
}
inline Column Pct(std::string name, std::string description, int decimals = 2) {
  return Measure(std::move(name), Unit::kPercent, std::move(description)).Decimals(decimals);
}
// Times (ps) shown as name_us or name_ms with 3 decimals.
inline Column TimeUs(std::string name, std::string description) {
  return Measure(std::move(name), Unit::kTime, std::move(description)).Us();
}
inline Column TimeMs(std::string name, std::string description) {
  return Measure(std::move(name), Unit::kTime, std::move(description)).Ms();
}

inline Column RankKey() { return Key("rank", Unit::kId, "the rank (distributedInfo.rank; else the file's position)"); }

// A time in ps from a fractional figure (a mean, a median): rounded to the
// ps, null when not a number.
inline Cell TimeCell(double ps) { return std::isnan(ps) ? Cell::Null() : Cell::Int(std::llround(ps)); }
inline Cell UsCell(double us) { return TimeCell(us * static_cast<double>(kPsPerUs)); }
// part / whole as a percentage; null when either is unknown or whole is not
// positive.
inline Cell PctCell(double part, double whole) {
  return std::isnan(part) || !(whole > 0) ? Cell::Null() : Cell::Real(100 * part / whole);
}
// A figure that may be unknown (negative or NaN): null then.
inline Cell Known(double v) { return std::isnan(v) || v < 0 ? Cell::Null() : Cell::Real(v); }

// Appends fill(row) for the first `top` rows (0: all), counting the rest in
// `hidden`.
template <class Row, class Fill>
void LimitedRows(Table& t, const std::vector<Row>& rows, int top, size_t* hidden, Fill fill) {
  size_t shown = 0;
  for (const Row& r : rows) {
    if (top > 0 && shown >= static_cast<size_t>(top)) {
      ++*hidden;
      continue;
    }
    ++shown;
    t.rows.push_back(fill(r));
  }
}

// Says under a table that `hidden` rows were left out by --top (nothing when
// none were).
inline std::string HiddenRowsNote(size_t hidden) {
  return std::to_string(hidden) + (hidden == 1 ? " more row" : " more rows") + " (--top 0 for all).";
}
inline void NoteHiddenRows(Table& t, size_t hidden) {
  if (hidden > 0) t.notes.push_back(HiddenRowsNote(hidden));
}
// The count in a note NoteHiddenRows wrote (0 for any other note).
inline size_t HiddenRowsIn(const std::string& note) {
  size_t n = 0, i = 0;
  while (i < note.size() && note[i] >= '0' && note[i] <= '9') n = n * 10 + static_cast<size_t>(note[i++] - '0');
  return i > 0 && n > 0 && note == HiddenRowsNote(n) ? n : 0;
}

}  // namespace mlprof
