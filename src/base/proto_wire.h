// A bounds-checked protobuf wire-format cursor (no generated code, no
// allocation): enough to read XPlane and HloProto messages field by field.
// Every read returns false instead of running past the end.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace mlprof::proto {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLen = 2, kFixed32 = 5 };

// A bounds-checked protobuf wire cursor over [p, end). Offsets in errors are
// relative to `base` (the start of the file).
class Wire {
 public:
  Wire(const char* base, std::string_view s) : base_(base), p_(s.data()), end_(s.data() + s.size()) {}

  bool done() const { return p_ >= end_; }
  uint64_t offset() const { return static_cast<uint64_t>(p_ - base_); }

  bool Varint(uint64_t* v) {
    if (p_ < end_ && !(static_cast<uint8_t>(*p_) & 0x80)) {  // one byte: tags, small ids
      *v = static_cast<uint8_t>(*p_++);
      return true;
    }
    uint64_t x = 0;
    if (end_ - p_ >= 10) {  // room for the longest varint: no bounds check per byte
      const auto* q = reinterpret_cast<const uint8_t*>(p_);
      for (int i = 0; i < 10; ++i) {
        x |= static_cast<uint64_t>(q[i] & 0x7f) << (7 * i);
        if (!(q[i] & 0x80)) {
          p_ += i + 1;
          *v = x;
          return true;
        }
      }
      return false;  // more than 10 bytes
    }
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ >= end_) return false;
      auto b = static_cast<uint8_t>(*p_++);
      x |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) {
        *v = x;
        return true;
      }
    }
    return false;  // more than 10 bytes
  }
  bool Tag(uint32_t* field, uint32_t* type) {
    uint64_t t;
    if (!Varint(&t) || (t >> 3) == 0 || (t >> 3) > 0x1fffffff) return false;
    *field = static_cast<uint32_t>(t >> 3);
    *type = static_cast<uint32_t>(t & 7);
    return true;
  }
  bool Bytes(std::string_view* out) {
    uint64_t n;
    if (!Varint(&n) || n > static_cast<uint64_t>(end_ - p_)) return false;
    *out = std::string_view(p_, n);
    p_ += n;
    return true;
  }
  bool Fixed64(uint64_t* v) {
    if (end_ - p_ < 8) return false;
    std::memcpy(v, p_, 8);
    p_ += 8;
    return true;
  }
  bool Skip(uint32_t type) {
    uint64_t v;
    std::string_view s;
    switch (type) {
      case kVarint:
        return Varint(&v);
      case kFixed64:
        return Fixed64(&v);
      case kLen:
        return Bytes(&s);
      case kFixed32:
        if (end_ - p_ < 4) return false;
        p_ += 4;
        return true;
      default:
        return false;  // groups (3, 4) are not used by XPlane
    }
  }

 private:
  const char* base_;
  const char* p_;
  const char* end_;
};

// A repeated integer field, packed (one length-delimited run of varints) or
// not (one varint per occurrence); appends to *out.
// `Vec` is any vector of int64_t (std::vector, absl::InlinedVector).
template <class Vec>
bool ReadRepeatedVarint(Wire& w, uint32_t type, Vec* out) {
  if (type == kVarint) {
    uint64_t v;
    if (!w.Varint(&v)) return false;
    out->push_back(static_cast<int64_t>(v));
    return true;
  }
  if (type != kLen) return false;
  std::string_view run;
  if (!w.Bytes(&run)) return false;
  Wire r(run.data(), run);
  while (!r.done()) {
    uint64_t v;
    if (!r.Varint(&v)) return false;
    out->push_back(static_cast<int64_t>(v));
  }
  return true;
}

}  // namespace mlprof::proto
