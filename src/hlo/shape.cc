#include "hlo/shape.h"

// GCC 12 reports absl::InlinedVector's move (a memcpy of its inline storage,
// used or not) as a read of uninitialised memory when a Shape is moved out
// of a local: a known false positive, silenced for this file only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace mlprof::hlo {

namespace {

struct TypeInfo {
  std::string_view name;
  ElementType type;
  int bits;          // information bits
  int storage_bits;  // unpacked storage
};
constexpr TypeInfo kTypes[] = {
    {"pred", ElementType::kPred, 8, 8},
    {"s1", ElementType::kS1, 1, 8},
    {"s2", ElementType::kS2, 2, 8},
    {"s4", ElementType::kS4, 4, 8},
    {"s8", ElementType::kS8, 8, 8},
    {"s16", ElementType::kS16, 16, 16},
    {"s32", ElementType::kS32, 32, 32},
    {"s64", ElementType::kS64, 64, 64},
    {"u1", ElementType::kU1, 1, 8},
    {"u2", ElementType::kU2, 2, 8},
    {"u4", ElementType::kU4, 4, 8},
    {"u8", ElementType::kU8, 8, 8},
    {"u16", ElementType::kU16, 16, 16},
    {"u32", ElementType::kU32, 32, 32},
    {"u64", ElementType::kU64, 64, 64},
    {"f16", ElementType::kF16, 16, 16},
    {"bf16", ElementType::kBF16, 16, 16},
    {"f32", ElementType::kF32, 32, 32},
    {"f64", ElementType::kF64, 64, 64},
    {"c64", ElementType::kC64, 64, 64},
    {"c128", ElementType::kC128, 128, 128},
    {"f8e5m2", ElementType::kF8E5M2, 8, 8},
    {"f8e4m3", ElementType::kF8E4M3, 8, 8},
    {"f8e4m3fn", ElementType::kF8E4M3FN, 8, 8},
    {"f8e4m3b11fnuz", ElementType::kF8E4M3B11FNUZ, 8, 8},
    {"f8e5m2fnuz", ElementType::kF8E5M2FNUZ, 8, 8},
    {"f8e4m3fnuz", ElementType::kF8E4M3FNUZ, 8, 8},
    {"f8e3m4", ElementType::kF8E3M4, 8, 8},
    {"f8e8m0fnu", ElementType::kF8E8M0FNU, 8, 8},
    {"f4e2m1fn", ElementType::kF4E2M1FN, 4, 8},
    {"token", ElementType::kToken, 0, 0},
    {"opaque", ElementType::kOpaque, 0, 0},
};

const TypeInfo* Info(ElementType t) {
  for (const auto& i : kTypes)
    if (i.type == t) return &i;
  return nullptr;
}

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  StatusOr<Shape> ParseOne() {
    SkipSpace();
    if (Peek() == '(') {
      // Real tuples nest a few levels; a bound keeps hostile input off the stack.
      if (depth_ >= kMaxTupleDepth) return Error(pos_, "a tuple shape nested less deeply (at most 64 levels)");
      ++depth_;
      auto t = ParseTuple();
      --depth_;
      return t;
    }
    size_t start = pos_;
    while (pos_ < s_.size() && (IsAsciiAlnum(s_[pos_]))) ++pos_;
    std::string_view name = s_.substr(start, pos_ - start);
    Shape shape;
    for (const auto& t : kTypes)
      if (t.name == name) {
        shape.type = t.type;
        break;
      }
    if (shape.type == ElementType::kInvalid)
      return Error(start, name.empty() ? "an element type (f32, bf16, s32, pred, ...)"
                                       : fmt::format("a known element type, not '{}'", name));
    if (!Eat('[')) return Error(pos_, "'['");
    if (!Eat(']')) {
      for (;;) {
        bool dynamic = false;
        int64_t bound = -1;
        if (Eat('?')) {
          dynamic = true;
        } else {
          if (Eat('<')) {
            if (!Eat('=')) return Error(pos_, "'=' after '<'");
            dynamic = true;
          }
          if (!ParseInt(&bound) || bound < 0) return Error(pos_, "a dimension size");
        }
        shape.dims.push_back(bound);
        if (dynamic) {  // the flags are kept only for shapes with a dynamic dim
          shape.dynamic.resize(shape.dims.size(), false);
          shape.dynamic.back() = true;
        }
        if (Eat(']')) break;
        if (!Eat(',')) return Error(pos_, "',' or ']'");
      }
    }
    if (!shape.size_ok())
      return Error(
          start, fmt::format("a shape of at most 2^48 elements, not {}", std::string(s_.substr(start, pos_ - start))));
    if (Peek() == '{') {
      ++pos_;
      Status st = ParseLayout(&shape.layout, shape.dims.size());
      if (!st.ok()) return st;
    }
    return shape;
  }

  size_t pos() const { return pos_; }

 private:
  static constexpr int kMaxTupleDepth = 64;
  int depth_ = 0;

  StatusOr<Shape> ParseTuple() {
    Shape t;
    t.type = ElementType::kTuple;
    ++pos_;  // '('
    SkipSpace();
    if (Eat(')')) return t;
    for (;;) {
      SkipSpace();
      SkipComment();
      auto e = ParseOne();
      if (!e.ok()) return e.status();
      t.tuple.push_back(std::move(e).value());
      SkipSpace();
      if (Eat(')')) return t;
      if (!Eat(',')) return Error(pos_, "',' or ')' in a tuple shape");
      SkipSpace();
      SkipComment();
    }
  }

  Status ParseLayout(Layout* l, size_t rank) {
    l->present = true;
    while (!Eat(':') && !Eat('}')) {
      int64_t d;
      if (!ParseInt(&d)) return Error(pos_, "a dimension number in the layout, ':' or '}'");
      if (d < 0 || static_cast<size_t>(d) >= rank)
        return Error(pos_, fmt::format("a dimension number below the rank {}", rank));
      l->minor_to_major.push_back(d);
      Eat(',');
    }
    if (pos_ > 0 && s_[pos_ - 1] == '}') return CheckMinorToMajor(*l, rank);
    // Tags after ':' in XLA's fixed order; unknown ones are an error.
    while (!Eat('}')) {
      if (pos_ >= s_.size()) return Error(pos_, "'}' to close the layout");
      char c = s_[pos_];
      if (c == 'T') {
        ++pos_;
        while (Peek() == '(') {
          ++pos_;
          Tile tile;
          for (;;) {
            int64_t v;
            if (Eat('*'))
              tile.push_back(-1);
            else if (ParseInt(&v) && v > 0)
              tile.push_back(v);
            else
              return Error(pos_, "a tile size");
            if (Eat(')')) break;
            if (!Eat(',')) return Error(pos_, "',' or ')' in a tile");
          }
          l->tiles.push_back(std::move(tile));
        }
      } else if (c == 'S' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '(') {
        pos_ += 2;
        if (!ParseInt(&l->memory_space) || !Eat(')')) return Error(pos_, "S(memory space)");
      } else if (c == 'E' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '(') {
        pos_ += 2;
        if (!ParseInt(&l->element_size_bits) || l->element_size_bits < 0 || l->element_size_bits > 1024 || !Eat(')'))
          return Error(pos_, "E(element bits) with 0 to 1024 bits");
      } else if (c == 'L' || c == '#' || c == '*' || c == 'M' || c == 'P' || (c == 'S' && Peek(1) == 'C')) {
        // L(n), #(s32), *(s64), M(n), P(shape), SC(...): kept out of the model.
        pos_ += c == 'S' ? 2 : 1;
        if (!Eat('(')) return Error(pos_, "'(' after a layout tag");
        int depth = 1;
        while (pos_ < s_.size() && depth > 0) {
          if (s_[pos_] == '(') ++depth;
          if (s_[pos_] == ')') --depth;
          ++pos_;
        }
        if (depth) return Error(pos_, "')' to close a layout tag");
        while (Peek() == '(') {  // SC(..)(..)
          while (pos_ < s_.size() && s_[pos_] != ')') ++pos_;
          ++pos_;
        }
      } else {
        return Error(pos_, "a layout tag (T, L, E, S, ...) or '}'");
      }
    }
    return CheckMinorToMajor(*l, rank);
  }

  Status CheckMinorToMajor(const Layout& l, size_t rank) {
    if (l.minor_to_major.empty()) return OkStatus();  // {:T(128)} on scalars, or no order
    if (l.minor_to_major.size() != rank) return Error(pos_, fmt::format("a layout listing all {} dimensions", rank));
    // Dimension numbers were checked to be below the rank; a bit set per
    // 64 dims (no allocation for the usual rank <= 64).
    uint64_t small = 0;
    std::vector<bool> seen(rank > 64 ? rank : 0, false);
    for (int64_t d : l.minor_to_major) {
      bool dup;
      if (rank <= 64) {
        dup = (small >> d) & 1, small |= uint64_t{1} << d;
      } else {
        dup = seen[static_cast<size_t>(d)], seen[static_cast<size_t>(d)] = true;
      }
      if (dup) return Error(pos_, fmt::format("each dimension once in the layout (dimension {} twice)", d));
    }
    return OkStatus();
  }

  bool ParseInt(int64_t* v) {
    size_t start = pos_;
    int64_t x = 0;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
      if (x > (INT64_MAX - 9) / 10) return false;
      x = x * 10 + (s_[pos_++] - '0');
    }
    *v = x;
    return pos_ > start;
  }
  char Peek(size_t ahead = 0) const { return pos_ + ahead < s_.size() ? s_[pos_ + ahead] : '\0'; }
  bool Eat(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  void SkipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n')) ++pos_;
  }
  void SkipComment() {  // /*index=5*/ inside long tuples
    if (s_.substr(pos_, 2) == "/*") {
      size_t e = s_.find("*/", pos_ + 2);
      pos_ = e == std::string_view::npos ? s_.size() : e + 2;
      SkipSpace();
    }
  }
  Status Error(size_t at, std::string_view expected) const {
    return DataLoss(fmt::format("HLO shape, column {}: expected {} in '{}'", at + 1, expected,
                                s_.substr(0, std::min<size_t>(s_.size(), 200))));
  }

  std::string_view s_;
  size_t pos_ = 0;
};

std::string JoinInts(std::span<const int64_t> v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + (v[i] < 0 ? std::string("*") : std::to_string(v[i]));
  return s;
}

}  // namespace

const char* ElementTypeName(ElementType t) {
  if (t == ElementType::kTuple) return "tuple";
  const TypeInfo* i = Info(t);
  return i ? i->name.data() : "invalid";
}

int ElementStorageBits(ElementType t) {
  const TypeInfo* i = Info(t);
  return i ? i->storage_bits : 0;
}

int ElementBits(ElementType t) {
  const TypeInfo* i = Info(t);
  return i ? i->bits : 0;
}

namespace {
// a * b for sizes >= 0, saturating at kMaxElements (beyond it nothing is
// meaningful, and nothing overflows).
int64_t SatMul(int64_t a, int64_t b) {
  int64_t r;
  if (a < 0 || b < 0) return 0;
  if (__builtin_mul_overflow(a, b, &r) || r > Shape::kMaxElements) return Shape::kMaxElements;
  return r;
}
}  // namespace

int64_t Shape::elements() const {
  int64_t n = 1;
  for (int64_t d : dims) n = SatMul(n, d);
  return n;
}

bool Shape::size_ok() const {
  if (is_tuple()) {
    for (const auto& t : tuple)
      if (!t.size_ok()) return false;
    return true;
  }
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) continue;  // unknown (dynamic) sizes are checked elsewhere
    if (__builtin_mul_overflow(n, d, &n) || n > kMaxElements) return false;
  }
  return true;
}

std::string Shape::ToString() const {
  if (is_tuple()) {
    std::string s = "(";
    for (size_t i = 0; i < tuple.size(); ++i) s += (i ? ", " : "") + tuple[i].ToString();
    return s + ")";
  }
  std::string s = std::string(ElementTypeName(type)) + "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? "," : "") + std::string(is_dynamic(i) ? "<=" : "") + std::to_string(dims[i]);
  s += "]";
  if (layout.present) {
    s += "{" + JoinInts(layout.minor_to_major);
    std::string tags;
    if (!layout.tiles.empty()) {
      tags += "T";
      for (const auto& t : layout.tiles) tags += "(" + JoinInts(t) + ")";
    }
    if (layout.element_size_bits) tags += fmt::format("E({})", layout.element_size_bits);
    if (layout.memory_space) tags += fmt::format("S({})", layout.memory_space);
    if (!tags.empty()) s += ":" + tags;
    s += "}";
  }
  return s;
}

StatusOr<Shape> ParseShape(std::string_view text, size_t* consumed) {
  Parser p(text);
  auto s = p.ParseOne();
  if (s.ok() && consumed) *consumed = p.pos();
  return s;
}

int64_t LogicalBytes(const Shape& s) {
  if (s.is_tuple()) {
    int64_t b = 0;
    for (const auto& t : s.tuple) b = std::min(b + LogicalBytes(t), Shape::kMaxElements * 128);
    return b;
  }
  int bits = s.layout.element_size_bits ? static_cast<int>(s.layout.element_size_bits) : ElementStorageBits(s.type);
  return (s.elements() * bits + 7) / 8;
}

PhysicalShape Physical(const Shape& s) {
  PhysicalShape p;
  const size_t rank = s.dims.size();
  // Memory order: minor_to_major reversed; without a layout, XLA's default
  // {rank-1, ..., 0} (row major).
  for (size_t i = 0; i < rank; ++i) {
    size_t dim =
        s.layout.minor_to_major.size() == rank ? static_cast<size_t>(s.layout.minor_to_major[rank - 1 - i]) : i;
    if (dim >= rank) dim = i;  // readers refuse such layouts; never index past the dims
    p.logical_major_to_minor.push_back(s.dims[dim]);
  }
  p.padded_major_to_minor = p.logical_major_to_minor;
  if (!s.layout.tiles.empty()) {
    std::vector<int64_t> tile(s.layout.tiles.front().begin(), s.layout.tiles.front().end());
    // Later tiles tile the tile: round its minor dims up likewise.
    for (size_t t = 1; t < s.layout.tiles.size(); ++t) {
      const auto& sub = s.layout.tiles[t];
      for (size_t k = 0; k < sub.size() && k < tile.size(); ++k) {
        int64_t& d = tile[tile.size() - 1 - k];
        int64_t m = sub[sub.size() - 1 - k];
        if (m > 0 && d > 0) d = SatMul((d + m - 1) / m, m);
      }
    }
    p.tile = tile;
    // The tile covers the minor-most dims; missing leading dims count as 1.
    while (p.padded_major_to_minor.size() < tile.size())
      p.padded_major_to_minor.insert(p.padded_major_to_minor.begin(), 1);
    for (size_t k = 0; k < tile.size(); ++k) {
      int64_t& d = p.padded_major_to_minor[p.padded_major_to_minor.size() - 1 - k];
      int64_t m = tile[tile.size() - 1 - k];
      if (m > 0) d = SatMul((d + m - 1) / m, m);  // '*' (combined) dims are left as they are
    }
  }
  p.padded_elements = 1;
  for (int64_t d : p.padded_major_to_minor) p.padded_elements = SatMul(p.padded_elements, d);
  int bits = s.layout.element_size_bits ? static_cast<int>(s.layout.element_size_bits) : ElementStorageBits(s.type);
  p.bytes = (p.padded_elements * bits + 7) / 8;
  p.logical_bytes = LogicalBytes(s);
  return p;
}

std::string MemorySpaceName(int64_t space) {
  switch (space) {
    case 0:
      return "HBM";
    case 1:
      return "VMEM";
    case 2:
      return "SMEM";
    case 5:
      return "host (pinned)";
    case 6:
      return "host (unpinned)";
    default:
      return fmt::format("on-chip S({})", space);
  }
}

}  // namespace mlprof::hlo
