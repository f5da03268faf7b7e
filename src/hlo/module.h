// The HLO IR mlprof works on: modules, computations and instructions as read
// from HLO text (hlo/text_parser.h) or a binary HloProto (hlo/proto_reader.h).
// Both readers fill the same structs, so the cost model, the categories and
// `mlprof hlo` do not care where a module came from.
//
// Attributes are kept as their text (`dimensions={1}`, `window={size=3x3}`)
// in the order written; the few the analyses need are decoded on demand by
// hlo/attrs.h. The proto reader writes the same text forms. Metadata is the
// exception: both readers decode it once into Instruction::metadata.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "hlo/shape.h"

namespace mlprof::hlo {

// Name -> position for names stored elsewhere (the instructions' or the
// computations' own `name`): an open-addressing table of positions with
// their hashes, so that building it copies no name and allocates once, and
// a lookup by string_view allocates nothing. Holds positions only, so a
// copied module's index stays right.
class NameIndex {
 public:
  // Indexes names(0..n-1); on a repeated name returns false with its second
  // position in *dup.
  template <class Names>
  bool Build(size_t n, const Names& names, size_t* dup) {
    size_t cap = 8;
    while (cap < n * 2) cap <<= 1;
    slots_.assign(cap, Slot{});
    for (size_t i = 0; i < n; ++i) {
      const std::string_view key = names(i);
      const uint32_t h = Hash(key);
      size_t at = h & (cap - 1);
      for (; slots_[at].pos >= 0; at = (at + 1) & (cap - 1)) {
        if (slots_[at].hash == h && names(static_cast<size_t>(slots_[at].pos)) == key) {
          if (dup) *dup = i;
          return false;
        }
      }
      slots_[at] = {h, static_cast<int32_t>(i)};
    }
    return true;
  }
  // Position of `key`, or -1.
  template <class Names>
  int32_t Find(std::string_view key, const Names& names) const {
    if (slots_.empty()) return -1;
    const uint32_t h = Hash(key);
    const size_t mask = slots_.size() - 1;
    for (size_t at = h & mask; slots_[at].pos >= 0; at = (at + 1) & mask)
      if (slots_[at].hash == h && names(static_cast<size_t>(slots_[at].pos)) == key) return slots_[at].pos;
    return -1;
  }

 private:
  struct Slot {
    uint32_t hash = 0;
    int32_t pos = -1;
  };
  static uint32_t Hash(std::string_view s) {  // FNV-1a, folded
    uint64_t h = 0xcbf29ce484222325ull;
    for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
    return static_cast<uint32_t>(h ^ (h >> 32));
  }
  std::vector<Slot> slots_;
};

struct OpMetadata {
  std::string op_type;
  std::string op_name;  // JAX name stack: "jit(train_step)/jvp(model)/layer/dot_general"
  std::string source_file;
  int64_t source_line = -1;
};

struct Instruction {
  std::string name;  // without the '%'
  std::string opcode;
  Shape shape;
  std::vector<std::string> operand_names;
  std::vector<int32_t> operands;  // indices into the computation (-1: not found there)
  // The text inside the parentheses for constant(...), parameter(N), iota etc.
  std::string literal;
  int64_t parameter_number = -1;
  std::vector<std::pair<std::string, std::string>> attrs;  // key, value text, as written
  std::vector<std::string> called;                         // computations it calls
  std::vector<int32_t> called_ids;                         // indices into Module::computations (-1 unknown)
  OpMetadata metadata;
  bool is_root = false;
  uint32_t line = 0;  // 1-based position in the text (0 for protos)
  uint32_t column = 0;

  // Value text of an attribute, or nullptr.
  const std::string* Attr(std::string_view key) const {
    for (const auto& [k, v] : attrs)
      if (k == key) return &v;
    return nullptr;
  }
};

struct Computation {
  std::string name;
  bool is_entry = false;
  std::string execution_thread;
  std::vector<Instruction> instructions;
  int32_t root = -1;
  NameIndex index;  // instruction name -> position (Module::Link)
  // How the computation is used, filled by Module::Link(): a fusion body,
  // a reducer (to_apply), a while body/condition, ...
  bool is_fusion = false;
  int32_t caller_count = 0;

  // Position of the instruction named `n`, or -1.
  int32_t IndexOf(std::string_view n) const {
    return index.Find(n, [this](size_t i) { return std::string_view(instructions[i].name); });
  }
  const Instruction* Find(std::string_view n) const {
    int32_t i = IndexOf(n);
    return i < 0 ? nullptr : &instructions[static_cast<size_t>(i)];
  }
  const Instruction& root_instruction() const { return instructions[static_cast<size_t>(root)]; }
};

struct Module {
  std::string name;
  std::string source;  // file path (or "<metadata plane>") for messages
  std::vector<std::pair<std::string, std::string>> attrs;  // header attributes
  int64_t num_partitions = 1;
  int64_t replica_count = 1;
  bool is_scheduled = false;
  std::vector<Computation> computations;
  int32_t entry = -1;
  NameIndex index;  // computation name -> position (Link)

  // Position of the computation named `n`, or -1.
  int32_t IndexOf(std::string_view n) const {
    return index.Find(n, [this](size_t i) { return std::string_view(computations[i].name); });
  }
  const Computation* Find(std::string_view n) const {
    int32_t i = IndexOf(n);
    return i < 0 ? nullptr : &computations[static_cast<size_t>(i)];
  }
  const Computation* entry_computation() const {
    return entry >= 0 ? &computations[static_cast<size_t>(entry)] : nullptr;
  }
  size_t instruction_count() const {
    size_t n = 0;
    for (const auto& c : computations) n += c.instructions.size();
    return n;
  }
  // Resolves operand and callee names to indices, marks fusion bodies, and
  // picks the entry (the ENTRY computation, else the last one, as XLA does).
  // Unknown callees are an error naming the instruction.
  Status Link();
};

}  // namespace mlprof::hlo
