// A minimal protobuf writer for hand-built XSpace test inputs, and one small
// GPU + host XSpace (tests of the XPlane reader and of what analyses make of
// it).
#pragma once

#include <cstdint>
#include <string>

#include "corpus_util.h"

namespace mlprof::testing::xspace {

// A minimal protobuf writer for building test inputs.
inline std::string Varint(uint64_t v) { return EncodeVarint(v); }
inline std::string Field(uint32_t field, uint64_t v) { return Varint(field << 3) + Varint(v); }
inline std::string Field(uint32_t field, const std::string& bytes) {
  return Varint((field << 3) | 2) + Varint(bytes.size()) + bytes;
}

inline std::string Event(uint64_t meta, uint64_t offset_ps, uint64_t dur_ps, int64_t correlation = -1) {
  std::string e = Field(1, meta) + Field(2, offset_ps) + Field(3, dur_ps);
  if (correlation >= 0) e += Field(4, Field(1, uint64_t{7}) + Field(4, static_cast<uint64_t>(correlation)));
  return e;
}
inline std::string EventMeta(uint64_t id, const std::string& name, const std::string& display = "") {
  std::string v = Field(1, id) + Field(2, name);
  if (!display.empty()) v += Field(4, display);
  return Field(4, Field(1, id) + Field(2, v));
}
inline std::string StatMeta(uint64_t id, const std::string& name) {
  return Field(5, Field(1, id) + Field(2, Field(1, id) + Field(2, name)));
}

// GPU plane: line "Stream #7(Kernel)" with a kernel and a memcpy; host plane:
// a launch with correlation 42 linked to the kernel.
inline std::string MakeSpace() {
  std::string gpu_line = Field(1, uint64_t{7}) + Field(2, std::string("Stream #7(Kernel)")) +
                         Field(3, uint64_t{1000}) +  // timestamp_ns
                         Field(4, Event(1, 5000000, 2500000, 42)) + Field(4, Event(2, 9000000, 1000000));
  std::string gpu = Field(1, uint64_t{1}) + Field(2, std::string("/device:GPU:0")) + Field(3, gpu_line) +
                    EventMeta(1, "%fusion.1 = f32[8]{0} fusion(...)", "gemm_fusion") + EventMeta(2, "MemcpyH2D") +
                    StatMeta(7, "correlation_id");
  std::string host_line = Field(1, uint64_t{3}) + Field(2, std::string("python")) + Field(3, uint64_t{1000}) +
                          Field(4, Event(1, 1000000, 2000000, 42));
  std::string host = Field(1, uint64_t{2}) + Field(2, std::string("/host:CPU")) + Field(3, host_line) +
                     EventMeta(1, "hipLaunchKernel") + StatMeta(7, "correlation_id");
  return Field(1, gpu) + Field(1, host);
}

}  // namespace mlprof::testing::xspace
