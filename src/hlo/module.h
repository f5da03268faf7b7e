// The HLO IR mlprof works on: modules, computations and instructions as read
// from HLO text (hlo/text_parser.h) or a binary HloProto (hlo/proto_reader.h).
// Both readers fill the same structs, so the cost model, the categories and
// `mlprof hlo` do not care where a module came from.
//
// Attributes are kept as their text (`dimensions={1}`, `window={size=3x3}`)
// in the order written; the few the analyses need are decoded on demand by
// hlo/attrs.h. The proto reader writes the same text forms.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "hlo/shape.h"

namespace mlprof::hlo {

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
  std::unordered_map<std::string, int32_t> index;  // instruction name -> position
  // How the computation is used, filled by Module::Link(): a fusion body,
  // a reducer (to_apply), a while body/condition, ...
  bool is_fusion = false;
  int32_t caller_count = 0;

  const Instruction* Find(std::string_view n) const {
    auto it = index.find(std::string(n));
    return it == index.end() ? nullptr : &instructions[static_cast<size_t>(it->second)];
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
  std::unordered_map<std::string, int32_t> index;  // computation name -> position

  const Computation* Find(std::string_view n) const {
    auto it = index.find(std::string(n));
    return it == index.end() ? nullptr : &computations[static_cast<size_t>(it->second)];
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
