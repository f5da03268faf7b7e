// Reports as bytes: what crosses the network when mlprof runs under MPI
// (each process's shard of a command's results, gathered to process 0). The
// encoding is exact (doubles bit for bit, every column attribute), so that a
// report rebuilt from bytes renders byte-identically; decoding checks every
// length against the buffer and names the offset of what is wrong.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "report/table.h"

namespace mlprof {

std::string EncodeReport(const Report& r);
StatusOr<Report> DecodeReport(std::string_view bytes);

// A little-endian byte writer and its checked reader: the building blocks of
// EncodeReport, also used for the small facts MPI processes exchange.
class ByteWriter {
 public:
  void U64(uint64_t v);  // LEB128
  void I64(int64_t v);   // zigzag LEB128
  void F64(double v);    // 8 bytes, bit for bit
  void Str(std::string_view s);
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}
  // Each fails (ok() false, what() says where) past the end or on a
  // malformed value; later reads then fail too.
  uint64_t U64();
  int64_t I64();
  double F64();
  std::string Str();
  // A count of items each at least `min_item_bytes` long, checked against
  // the bytes left.
  size_t Count(size_t min_item_bytes = 1);
  bool ok() const { return error_.empty(); }
  bool done() const { return pos_ == in_.size(); }
  const std::string& error() const { return error_; }
  void Fail(const std::string& what);

 private:
  std::string_view in_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace mlprof
