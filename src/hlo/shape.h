// XLA HLO shapes with layouts, as printed in HLO text:
//   f32[3,5]{1,0:T(2,2)}   bf16[32,32,8192]{2,1,0:T(8,128)(2,1)S(1)}
//   (s32[], f32[<=10,4]{1,0})   token[]   u32[]{:S(2)}   s4[64]{0:E(4)}
// Parsing, element sizes, and the physical (tiled, padded) size that a TPU
// or GPU buffer really occupies. Grammar: ../shared/reference/xla-profiles-hlo.md
// section 3.4 (xla/layout.cc, xla/shape.cc).
#pragma once

#include <absl/container/inlined_vector.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace mlprof::hlo {

// Locale-free ASCII letter/digit test for the HLO readers (std::isalnum is a
// library call per character).
inline bool IsAsciiAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

enum class ElementType : uint8_t {
  kInvalid,
  kPred,
  kS1,
  kS2,
  kS4,
  kS8,
  kS16,
  kS32,
  kS64,
  kU1,
  kU2,
  kU4,
  kU8,
  kU16,
  kU32,
  kU64,
  kF16,
  kBF16,
  kF32,
  kF64,
  kC64,
  kC128,
  kF8E5M2,
  kF8E4M3,
  kF8E4M3FN,
  kF8E4M3B11FNUZ,
  kF8E5M2FNUZ,
  kF8E4M3FNUZ,
  kF8E3M4,
  kF8E8M0FNU,
  kF4E2M1FN,
  kToken,
  kOpaque,
  kTuple,
};
const char* ElementTypeName(ElementType t);
// Bits of one element as XLA stores it unpacked (sub-byte types take a byte
// unless the layout says E(n)); 0 for token/opaque/tuple.
int ElementStorageBits(ElementType t);
// Bits of information (4 for s4, 16 for bf16).
int ElementBits(ElementType t);

// Dimension lists: inline up to rank 6, so that reading a shape (a few per
// HLO instruction) allocates nothing for ordinary tensors.
using DimVector = absl::InlinedVector<int64_t, 6>;
using Tile = absl::InlinedVector<int64_t, 2>;

struct Layout {
  bool present = false;  // a {...} followed the dims
  DimVector minor_to_major;
  absl::InlinedVector<Tile, 2> tiles;  // T(a,b)(c,d): outer tile first; -1 = '*' (combined dim)
  int64_t element_size_bits = 0;       // E(n); 0 = not given
  int64_t memory_space = 0;            // S(n)
};

struct Shape {
  ElementType type = ElementType::kInvalid;
  DimVector dims;             // bound for dynamic dims
  std::vector<bool> dynamic;  // '<=' or '?' dims; empty when no dim is dynamic
  bool is_dynamic(size_t i) const { return i < dynamic.size() && dynamic[i]; }
  Layout layout;
  std::vector<Shape> tuple;  // for kTuple

  bool is_tuple() const { return type == ElementType::kTuple; }
  int64_t elements() const;  // product of dims (1 for scalars), saturating at kMaxElements
  // Largest element count a shape may have (2^48: far above any real tensor,
  // low enough that bytes and padded sizes stay inside int64).
  static constexpr int64_t kMaxElements = int64_t{1} << 48;
  // True when the element count is within kMaxElements.
  bool size_ok() const;
  std::string ToString() const;  // canonical text, e.g. f32[3,5]{1,0:T(2,2)}
};

// Parses one shape at the start of `text`; *consumed gets its length. Errors
// say the column (1-based) and what was expected.
StatusOr<Shape> ParseShape(std::string_view text, size_t* consumed = nullptr);

// Logical bytes: elements x element size (sum over tuple elements).
int64_t LogicalBytes(const Shape& s);

struct PhysicalShape {
  std::vector<int64_t> logical_major_to_minor;  // dims in memory order (outermost first)
  std::vector<int64_t> padded_major_to_minor;   // after rounding the tiled dims up to the tile
  std::vector<int64_t> tile;                    // first tile, padded by the later ones
  int64_t padded_elements = 0;
  int64_t bytes = 0;  // padded elements x storage size
  int64_t logical_bytes = 0;
  double expansion() const { return logical_bytes > 0 ? static_cast<double>(bytes) / logical_bytes : 1.0; }
};
// Memory-order dims and padding of an array shape. XLA tiling: the first tile
// covers the minor-most dims (missing leading dims count as 1) and each tiled
// dim rounds up to a multiple of its tile size; later tiles tile the tile.
PhysicalShape Physical(const Shape& s);

// "HBM" for S(0), "VMEM" for S(1), "SMEM" for S(2), "host (pinned)" for S(5),
// "host (unpinned)" for S(6), "on-chip S(n)" otherwise (TPU naming).
std::string MemorySpaceName(int64_t space);

}  // namespace mlprof::hlo
