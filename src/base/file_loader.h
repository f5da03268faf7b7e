// Loads a file fully into a buffer padded for simdjson, decompressing gzip
// (libdeflate, zlib fallback for salvage) and zstd by magic bytes, not by name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"

namespace mlprof {

// Extra zeroed bytes kept readable after the data (simdjson needs 64).
inline constexpr size_t kBufferPadding = 64;

enum class Compression { kNone, kGzip, kZstd };
const char* CompressionName(Compression c);

// Frees a PaddedBuffer's memory: munmap for mapped files, delete[] otherwise.
struct BufferFree {
  size_t mapped;  // bytes mapped with mmap; 0 for new[]
  BufferFree() : mapped(0) {}
  explicit BufferFree(size_t m) : mapped(m) {}
  void operator()(char* p) const;
};

class PaddedBuffer {
 public:
  PaddedBuffer() = default;
  explicit PaddedBuffer(size_t capacity);
  // Maps a regular file privately (copy-on-write): no copy into the process
  // and no page zeroing. The pages after the file's last page are anonymous
  // zero pages, so the padding is readable. nullopt-like empty buffer on failure.
  static bool MapFile(int fd, size_t size, PaddedBuffer* out);
  char* data() { return data_.get(); }
  const char* data() const { return data_.get(); }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }  // excluding padding
  // Sets the size, growing the capacity if needed; keeps all bytes held so far
  // (up to the old capacity), and zeroes the padding after the new size.
  void Resize(size_t size);
  std::string_view view() const { return {data_.get(), size_}; }

 private:
  std::unique_ptr<char[], BufferFree> data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

struct LoadedFile {
  std::string path;
  PaddedBuffer bytes;  // decompressed content
  Compression compression = Compression::kNone;
  uint64_t file_size = 0;  // bytes on disk
  // Set when a compressed stream ended early: the data up to that point is in
  // `bytes` and `truncated_at` is the compressed offset where decoding stopped.
  bool truncated = false;
  uint64_t truncated_at = 0;
  // Bytes after the last complete gzip member that are not another member
  // (gzip -d: "trailing garbage ignored"): ignored, and said so by the
  // reader. The compressed offset where they start; 0 when none.
  uint64_t trailing_garbage_at = 0;
};

// How much a load may hold: the decoded bytes (decompressed, or read from
// standard input) stop with an error naming the file and the cap when they
// pass `max_decoded_bytes`. Buffers grow as data arrives; no size a file
// declares (a zstd frame header, a gzip ISIZE) is trusted for an allocation.
struct LoadLimits {
  uint64_t max_decoded_bytes = 0;  // 0: DefaultMaxDecodedBytes()
};
// Half the machine's physical memory, at least 1 GiB: a decoded text larger
// than that could not be analysed here anyway.
uint64_t DefaultMaxDecodedBytes();

// Reads `path` (or "-" for stdin). Only regular files (and "-"): a device,
// FIFO or socket is refused, never read without end. Errors name the file
// and, for corrupt compressed data, the compressed byte offset.
StatusOr<LoadedFile> LoadFile(const std::string& path, const LoadLimits& limits = {});

// Same, for bytes already in memory (tests, fuzzers).
StatusOr<LoadedFile> LoadBytes(std::string_view bytes, std::string name, const LoadLimits& limits = {});

}  // namespace mlprof
