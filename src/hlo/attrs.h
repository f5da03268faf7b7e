// Decoders for the HLO attribute values the analyses need. Each takes the
// value text as written after `key=` and returns false when it does not have
// the expected form (callers report that with the instruction's position).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hlo/module.h"

namespace mlprof::hlo {

// "{1,2,3}" or "{}" (also bare "1,2" inside braces already stripped).
bool ParseIntList(std::string_view text, std::vector<int64_t>* out);

// Integer-list attribute of an instruction ({} when absent).
std::vector<int64_t> IntListAttr(const Instruction& in, std::string_view key);

// replica_groups in both forms:
//   explicit  {{0,1,2,3},{4,5,6,7}}   ({} = one group of every device)
//   iota      [G,S]<=[d0,d1,...]T(p0,p1,...)   (iota over the dims, transposed
//             by the permutation, flattened, cut into G groups of S)
struct ReplicaGroups {
  std::vector<std::vector<int64_t>> groups;  // empty when `all` is set
  bool all = false;                          // "{}": every participant in one group
  bool iota = false;
  int64_t group_count() const { return static_cast<int64_t>(groups.size()); }
  // Largest group (XLA's NumRanks); 0 for `all`, where the caller decides.
  int64_t max_group_size() const;
  // Distance between consecutive members when every group is an arithmetic
  // progression with the same step (0 otherwise): 1 = innermost mesh axis.
  int64_t stride() const;
};
bool ParseReplicaGroups(std::string_view text, ReplicaGroups* out);

// The same iota form for tile assignments: dims, reshape dims, permutation.
bool ExpandIota(const std::vector<int64_t>& reshape, const std::vector<int64_t>& perm, std::vector<int64_t>* out);

// window={size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=1x1 rhs_dilate=1x1 rhs_reversal=0x0}
struct WindowDim {
  int64_t size = 1, stride = 1, pad_lo = 0, pad_hi = 0, base_dilation = 1, window_dilation = 1;
};
bool ParseWindow(std::string_view text, std::vector<WindowDim>* out);

// dim_labels=b01f_01io->b01f
struct ConvDims {
  int64_t input_batch = -1, input_feature = -1;
  std::vector<int64_t> input_spatial;
  int64_t kernel_input_feature = -1, kernel_output_feature = -1;
  std::vector<int64_t> kernel_spatial;
  int64_t output_batch = -1, output_feature = -1;
  std::vector<int64_t> output_spatial;
};
bool ParseConvDimLabels(std::string_view text, ConvDims* out);

// output_to_operand_aliasing={{1}: (0, {}), {2, 0}: (1, {1})}: output
// element (shape index) i shares its buffer with operand n (at its index).
struct Aliasing {
  std::vector<int64_t> output_index;
  int64_t operand = -1;
  std::vector<int64_t> operand_index;
};
bool ParseAliasing(std::string_view text, std::vector<Aliasing>* out);

// metadata={op_type="dot_general" op_name="jit(f)/dot" source_file="a.py" source_line=3 ...}
// The strings are views of `text` where they hold no escapes, else decoded
// copies in `arena`.
bool ParseMetadata(std::string_view text, StringArena* arena, OpMetadata* out);

// A C-escaped quoted string "..." (quotes included) -> its value.
bool Unquote(std::string_view text, std::string* out);
// The same as a view: of `text` when there is no escape to decode, else of a
// decoded copy in `arena`.
bool UnquoteInto(std::string_view text, StringArena* arena, std::string_view* out);

}  // namespace mlprof::hlo
