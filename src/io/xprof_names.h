// Names by which XSpace-derived profiles mark their device lines, shared by
// the XPlane reader and the trace-viewer JSON that xprof/JAX export from an
// XSpace (`*.trace.json.gz`), which carries no categories of its own.
#pragma once

#include <cstdint>
#include <string_view>

#include "model/profile.h"

namespace mlprof {

// n of a "/device:GPU:<n>" plane name; -1 for any other name.
inline int64_t GpuPlaneIndex(std::string_view plane) {
  constexpr std::string_view kGpu = "/device:GPU:";
  if (plane.substr(0, kGpu.size()) != kGpu) return -1;
  int64_t n = 0;
  size_t k = kGpu.size();
  while (k < plane.size() && k < kGpu.size() + 9 && plane[k] >= '0' && plane[k] <= '9') n = n * 10 + (plane[k++] - '0');
  return k > kGpu.size() ? n : -1;
}

// n of a "Stream #<n>(...)" GPU line name; -1 for any other name.
inline int64_t StreamLineNumber(std::string_view line) {
  constexpr std::string_view kStream = "Stream #";
  if (line.substr(0, kStream.size()) != kStream) return -1;
  int64_t n = 0;
  size_t k = kStream.size();
  while (k < line.size() && k < kStream.size() + 18 && line[k] >= '0' && line[k] <= '9') n = n * 10 + (line[k++] - '0');
  return k > kStream.size() ? n : -1;
}

// A device plane ("/device:TPU:0", "/device:GPU:1"); host planes are "/host:...".
inline bool IsDevicePlane(std::string_view plane) { return plane.substr(0, 8) == "/device:"; }
inline bool IsXSpacePlaneName(std::string_view plane) { return IsDevicePlane(plane) || plane.substr(0, 6) == "/host:"; }

// What a GPU stream event is, from its name: CUPTI names copies "Memcpy
// HtoD ..." and fills "Memset ..."; ROCm spells them in lower case.
inline OpKind GpuOpKindFromName(std::string_view n) {
  if (n.substr(0, 6) == "Memcpy" || n.find("memcpy") != std::string_view::npos) return OpKind::kMemcpy;
  if (n.substr(0, 6) == "Memset" || n.find("memset") != std::string_view::npos) return OpKind::kMemset;
  return OpKind::kKernel;
}

}  // namespace mlprof
