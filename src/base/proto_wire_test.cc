// The protobuf wire cursor: varints of every length, read with room to
// spare (the unchecked fast path) and flush against the end (the checked
// one), truncated and over-long varints.
#include "base/proto_wire.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../../tests/corpus_util.h"

namespace mlprof::proto {
namespace {

using ::mlprof::testing::EncodeVarint;
std::string Encode(uint64_t v) { return EncodeVarint(v); }

TEST(ProtoWire, VarintsOfEveryLength) {
  std::vector<uint64_t> values = {0,
                                  1,
                                  127,
                                  128,
                                  300,
                                  (1ull << 14) - 1,
                                  1ull << 14,
                                  1ull << 21,
                                  1ull << 28,
                                  (1ull << 35) + 5,
                                  1ull << 42,
                                  1ull << 49,
                                  (1ull << 56) - 1,
                                  1ull << 56,
                                  1ull << 63,
                                  UINT64_MAX};
  for (uint64_t v : values) {
    const std::string enc = Encode(v);
    for (const std::string& buf : {enc, enc + std::string(12, '\x01')}) {  // flush, and with room
      Wire w(buf.data(), buf);
      uint64_t got = 0;
      ASSERT_TRUE(w.Varint(&got)) << v;
      EXPECT_EQ(got, v);
      EXPECT_EQ(w.offset(), enc.size()) << v;
    }
    // Cut before its last byte: an error, not a read past the end.
    if (enc.size() > 1) {
      const std::string cut = enc.substr(0, enc.size() - 1);
      Wire w(cut.data(), cut);
      uint64_t got = 0;
      EXPECT_FALSE(w.Varint(&got)) << v;
    }
  }
  // Eleven bytes: longer than any varint.
  const std::string eleven = std::string(10, '\x80') + '\x01' + std::string(8, '\0');
  Wire w(eleven.data(), eleven);
  uint64_t got = 0;
  EXPECT_FALSE(w.Varint(&got));
}

TEST(ProtoWire, TagsBytesAndSkips) {
  const std::string msg = Encode((1 << 3) | 0) + Encode(150) + Encode((2 << 3) | 2) + Encode(3) + "abc" +
                          Encode((3 << 3) | 5) + std::string(4, 'x');
  Wire w(msg.data(), msg);
  uint32_t f, t;
  uint64_t v;
  std::string_view s;
  ASSERT_TRUE(w.Tag(&f, &t) && f == 1 && t == kVarint && w.Varint(&v));
  EXPECT_EQ(v, 150u);
  ASSERT_TRUE(w.Tag(&f, &t) && f == 2 && t == kLen && w.Bytes(&s));
  EXPECT_EQ(s, "abc");
  ASSERT_TRUE(w.Tag(&f, &t) && f == 3 && t == kFixed32 && w.Skip(t));
  EXPECT_TRUE(w.done());
  // A length past the end is refused.
  const std::string bad = Encode((2 << 3) | 2) + Encode(50) + "ab";
  Wire b(bad.data(), bad);
  ASSERT_TRUE(b.Tag(&f, &t));
  EXPECT_FALSE(b.Bytes(&s));
}

}  // namespace
}  // namespace mlprof::proto
