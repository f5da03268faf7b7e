// A protobuf wire-format encoder (no generated code): appends fields to a
// std::string. Nested messages are written with a fixed 4-byte length that
// is patched when the message ends (a redundant varint, as Perfetto's own
// writer does), so nothing is built twice. The pair of proto_wire.h.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace mlprof::proto {

class Writer {
 public:
  explicit Writer(std::string* out) : out_(out) {}

  void Varint(uint64_t v) {
    char buf[10];
    int n = 0;
    while (v >= 0x80) buf[n++] = static_cast<char>((v & 0x7f) | 0x80), v >>= 7;
    buf[n++] = static_cast<char>(v);
    out_->append(buf, static_cast<size_t>(n));
  }
  void Tag(uint32_t field, uint32_t wire_type) { Varint((uint64_t{field} << 3) | wire_type); }

  void UInt(uint32_t field, uint64_t v) { Tag(field, 0), Varint(v); }
  // int32/int64 fields: negative values as 10-byte two's complement.
  void Int(uint32_t field, int64_t v) { Tag(field, 0), Varint(static_cast<uint64_t>(v)); }
  void Bool(uint32_t field, bool v) { Tag(field, 0), Varint(v ? 1 : 0); }
  void Double(uint32_t field, double v) {
    Tag(field, 1);
    char b[8];
    std::memcpy(b, &v, 8);
    out_->append(b, 8);
  }
  void Fixed64(uint32_t field, uint64_t v) {
    Tag(field, 1);
    char b[8];
    std::memcpy(b, &v, 8);  // little-endian hosts only (x86-64, aarch64)
    out_->append(b, 8);
  }
  void Bytes(uint32_t field, std::string_view s) {
    Tag(field, 2);
    Varint(s.size());
    out_->append(s.data(), s.size());
  }

  // A nested message: Begin returns a mark for End, which patches the length.
  size_t Begin(uint32_t field) {
    Tag(field, 2);
    const size_t at = out_->size();
    out_->append(4, '\0');
    return at;
  }
  void End(size_t mark) {
    const size_t len = out_->size() - mark - 4;  // < 2^28 (a packet, never the whole trace)
    char* p = out_->data() + mark;
    p[0] = static_cast<char>((len & 0x7f) | 0x80);
    p[1] = static_cast<char>(((len >> 7) & 0x7f) | 0x80);
    p[2] = static_cast<char>(((len >> 14) & 0x7f) | 0x80);
    p[3] = static_cast<char>((len >> 21) & 0x7f);
  }

 private:
  std::string* out_;
};

}  // namespace mlprof::proto
