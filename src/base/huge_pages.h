// A hint for large, long-lived buffers (the model's op columns): back them
// with transparent huge pages where the kernel has THP in "madvise" mode, so
// that filling them faults 2 MiB at a time instead of 4 KiB (page faults
// were a quarter of XPlane ingest time). No effect where unsupported.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <utility>

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

// An allocator for the model's columns: a buffer of 2 MiB or more gets a
// mapping of its own, aligned to 2 MiB and advised for huge pages, so the
// whole buffer (not just the aligned middle of a malloc'ed block, as
// AdviseHugePages on such a block gives) is filled 2 MiB at a time. Smaller
// buffers come from operator new. Stateless: all instances are equal.
template <class T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  static constexpr size_t kHuge = size_t{2} << 20;
  static size_t MappedBytes(size_t n) { return (n * sizeof(T) + kHuge - 1) & ~(kHuge - 1); }

  T* allocate(size_t n) {
    if (n > SIZE_MAX / sizeof(T) / 2) throw std::bad_alloc();
    if (n * sizeof(T) < kHuge) return std::allocator<T>().allocate(n);
    const size_t len = MappedBytes(n);
    // Over-map by 2 MiB, then cut the unaligned head and tail off.
    void* raw = ::mmap(nullptr, len + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    const auto r = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t a = (r + kHuge - 1) & ~(uintptr_t{kHuge} - 1);
    if (a > r) ::munmap(raw, a - r);
    if (r + kHuge > a) ::munmap(reinterpret_cast<void*>(a + len), r + kHuge - a);
#ifdef MADV_HUGEPAGE
    ::madvise(reinterpret_cast<void*>(a), len, MADV_HUGEPAGE);
#endif
    return reinterpret_cast<T*>(a);
  }
  void deallocate(T* p, size_t n) noexcept {
    if (n * sizeof(T) < kHuge) return std::allocator<T>().deallocate(p, n);
    ::munmap(p, MappedBytes(n));
  }
  // resize(n) default-initialises what it adds (no zeroing for the
  // columns' trivial types): the builder sizes the lean columns ahead and
  // writes every element it keeps (ProfileBuilder::BeginLean).
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... A>
  void construct(U* p, A&&... a) {
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace mlprof
