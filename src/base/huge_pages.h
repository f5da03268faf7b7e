// A hint for large, long-lived buffers (the model's op columns): back them
// with transparent huge pages where the kernel has THP in "madvise" mode, so
// that filling them faults 2 MiB at a time instead of 4 KiB (page faults
// were a quarter of XPlane ingest time). No effect where unsupported.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>

namespace mlprof {

inline void AdviseHugePages(const void* p, size_t bytes) {
#ifdef MADV_HUGEPAGE
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  if (bytes < kHuge) return;  // small buffers: not worth a huge page of memory
  const uintptr_t b = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t e = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHuge - 1);
  if (e > b) ::madvise(reinterpret_cast<void*>(b), e - b, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace mlprof
