#include "report/serialize.h"

#include <fmt/format.h>

#include <bit>
#include <cstring>

namespace mlprof {

void ByteWriter::U64(uint64_t v) {
  while (v >= 0x80) {
    out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out_.push_back(static_cast<char>(v));
}
void ByteWriter::I64(int64_t v) { U64((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }
void ByteWriter::F64(double v) {
  const uint64_t bits = std::bit_cast<uint64_t>(v);
  for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
}
void ByteWriter::Str(std::string_view s) {
  U64(s.size());
  out_.append(s);
}

void ByteReader::Fail(const std::string& what) {
  if (error_.empty()) error_ = fmt::format("at byte {}: {}", pos_, what);
  pos_ = in_.size();
}
uint64_t ByteReader::U64() {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos_ >= in_.size()) {
      Fail("the data ends inside a number");
      return 0;
    }
    const auto b = static_cast<uint8_t>(in_[pos_++]);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
  Fail("a number longer than 10 bytes");
  return 0;
}
int64_t ByteReader::I64() {
  const uint64_t u = U64();
  return static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
}
double ByteReader::F64() {
  if (in_.size() - pos_ < 8) {
    Fail("the data ends inside a real number");
    return 0;
  }
  uint64_t bits = 0;
  for (int i = 0; i < 8; ++i) bits |= static_cast<uint64_t>(static_cast<uint8_t>(in_[pos_ + i])) << (8 * i);
  pos_ += 8;
  return std::bit_cast<double>(bits);
}
std::string ByteReader::Str() {
  const uint64_t n = U64();
  if (!ok()) return {};
  if (n > in_.size() - pos_) {
    Fail(fmt::format("a text of {} bytes where {} are left", n, in_.size() - pos_));
    return {};
  }
  std::string s(in_.substr(pos_, n));
  pos_ += n;
  return s;
}
size_t ByteReader::Count(size_t min_item_bytes) {
  const uint64_t n = U64();
  if (!ok()) return 0;
  if (n > (in_.size() - pos_) / std::max<size_t>(min_item_bytes, 1)) {
    Fail(fmt::format("{} items where {} bytes are left", n, in_.size() - pos_));
    return 0;
  }
  return static_cast<size_t>(n);
}

namespace {
constexpr std::string_view kMagic = "mlprof-report-1";

void PutStrings(ByteWriter& w, const std::vector<std::string>& v) {
  w.U64(v.size());
  for (const auto& s : v) w.Str(s);
}
std::vector<std::string> GetStrings(ByteReader& r) {
  std::vector<std::string> v(r.Count());
  for (auto& s : v) s = r.Str();
  return v;
}
}  // namespace

std::string EncodeReport(const Report& rep) {
  ByteWriter w;
  w.Str(kMagic);
  w.U64(rep.gate_failed ? 1 : 0);
  PutStrings(w, rep.warnings);
  w.U64(rep.tables.size());
  for (const Table& t : rep.tables) {
    w.Str(t.id);
    w.Str(t.title);
    PutStrings(w, t.notes);
    w.U64(t.columns.size());
    for (const Column& c : t.columns) {
      w.Str(c.name);
      w.U64(static_cast<uint64_t>(c.unit));
      w.U64(static_cast<uint64_t>(c.role));
      w.Str(c.description);
      w.Str(c.label);
      w.F64(c.scale);
      w.I64(c.precision);
      w.U64((c.whole ? 1u : 0u) | (c.symbol ? 2u : 0u));
    }
    w.U64(t.rows.size());
    for (const auto& row : t.rows) {
      w.U64(row.size());
      for (const Cell& cell : row) {
        w.U64(cell.value.index());
        switch (cell.value.index()) {
          case 1:
            w.I64(std::get<int64_t>(cell.value));
            break;
          case 2:
            w.F64(std::get<double>(cell.value));
            break;
          case 3:
            w.Str(std::get<std::string>(cell.value));
            break;
          default:
            break;
        }
        w.Str(cell.shown);
      }
    }
  }
  return w.Take();
}

StatusOr<Report> DecodeReport(std::string_view bytes) {
  ByteReader r(bytes);
  Report rep;
  if (r.Str() != kMagic) return DataLoss("not an encoded mlprof report (or one from another mlprof version)");
  rep.gate_failed = r.U64() != 0;
  rep.warnings = GetStrings(r);
  rep.tables.resize(r.Count());
  for (Table& t : rep.tables) {
    if (!r.ok()) break;
    t.id = r.Str();
    t.title = r.Str();
    t.notes = GetStrings(r);
    t.columns.resize(r.Count(8));
    for (Column& c : t.columns) {
      c.name = r.Str();
      const uint64_t unit = r.U64(), role = r.U64();
      if (unit > static_cast<uint64_t>(Unit::kPerRow) || role > static_cast<uint64_t>(Role::kMeasure))
        r.Fail(fmt::format("column '{}': unit {} or role {} unknown", c.name, unit, role));
      c.unit = static_cast<Unit>(unit);
      c.role = static_cast<Role>(role);
      c.description = r.Str();
      c.label = r.Str();
      c.scale = r.F64();
      c.precision = static_cast<int>(r.I64());
      const uint64_t flags = r.U64();
      c.whole = flags & 1, c.symbol = flags & 2;
    }
    t.rows.resize(r.Count());
    for (auto& row : t.rows) {
      row.resize(r.Count(2));
      for (Cell& cell : row) {
        switch (r.U64()) {
          case 0:
            break;
          case 1:
            cell.value = r.I64();
            break;
          case 2:
            cell.value = r.F64();
            break;
          case 3:
            cell.value = r.Str();
            break;
          default:
            r.Fail("a cell of an unknown kind");
        }
        cell.shown = r.Str();
      }
    }
  }
  if (r.ok() && !r.done()) r.Fail("bytes after the report's end");
  if (!r.ok()) return DataLoss("encoded report " + r.error());
  return rep;
}

}  // namespace mlprof
