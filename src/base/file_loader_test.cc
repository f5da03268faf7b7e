#include "base/file_loader.h"

#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include <string>

namespace mlprof {
namespace {

std::string Gzip(const std::string& s) {
  z_stream zs{};
  deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, s.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(s.data()));
  zs.avail_in = static_cast<uInt>(s.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// Poorly compressible text (so that half of the compressed bytes hold a good
// part of the data).
std::string Text(size_t n) {
  std::string s;
  uint64_t x = 88172645463325252ULL;
  for (size_t i = 0; s.size() < n; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    s += "{\"ph\":\"X\",\"ts\":" + std::to_string(x % 100000000) + "},";
  }
  return s;
}

TEST(FileLoader, PlainBytesArePaddedWithZeros) {
  auto f = LoadBytes("{\"a\":1}", "x.json");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->compression, Compression::kNone);
  EXPECT_EQ(f->bytes.view(), "{\"a\":1}");
  for (size_t i = 0; i < kBufferPadding; ++i) EXPECT_EQ(f->bytes.data()[f->bytes.size() + i], 0);
}

TEST(FileLoader, GzipRoundTripAndConcatenatedMembers) {
  std::string a = Text(200000), b = Text(1000);
  auto f = LoadBytes(Gzip(a) + Gzip(b), "x.json.gz");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->compression, Compression::kGzip);
  EXPECT_FALSE(f->truncated);
  EXPECT_EQ(f->bytes.view(), a + b);
}

TEST(FileLoader, ZstdRoundTrip) {
  std::string a = Text(300000);
  std::string z(ZSTD_compressBound(a.size()), '\0');
  z.resize(ZSTD_compress(z.data(), z.size(), a.data(), a.size(), 3));
  auto f = LoadBytes(z, "x.json.zst");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->compression, Compression::kZstd);
  EXPECT_EQ(f->bytes.view(), a);
  // Cut in half: truncated, the decoded prefix kept.
  auto t = LoadBytes(z.substr(0, z.size() / 2), "x.json.zst");
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->truncated);
  EXPECT_GT(t->bytes.size(), 0u);
  EXPECT_EQ(a.compare(0, t->bytes.size(), t->bytes.view()), 0);
}

TEST(FileLoader, TruncatedGzipKeepsThePrefixAndSaysWhere) {
  std::string a = Text(400000);
  std::string gz = Gzip(a);
  auto f = LoadBytes(gz.substr(0, gz.size() / 2), "cut.json.gz");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_TRUE(f->truncated);
  EXPECT_EQ(f->truncated_at, gz.size() / 2);
  EXPECT_GT(f->bytes.size(), a.size() / 4);  // most of what the half encodes
  EXPECT_EQ(a.compare(0, f->bytes.size(), f->bytes.view()), 0);
}

TEST(FileLoader, CorruptGzipIsAnErrorWithTheOffset) {
  std::string gz = Gzip(Text(100000));
  for (size_t i = 30; i < 60; ++i) gz[i] = static_cast<char>(gz[i] ^ 0x5a);
  auto f = LoadBytes(gz, "bad.json.gz");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(f.status().message().find("bad.json.gz: corrupt gzip data at compressed byte"), std::string::npos)
      << f.status().message();
}

TEST(FileLoader, MissingFileIsNotFound) {
  auto f = LoadFile("/nonexistent/trace.json");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), StatusCode::kNotFound);
  EXPECT_NE(f.status().message().find("/nonexistent/trace.json"), std::string::npos);
}

}  // namespace
}  // namespace mlprof
