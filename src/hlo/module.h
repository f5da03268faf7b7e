// The HLO IR mlprof works on: modules, computations and instructions as read
// from HLO text (hlo/text_parser.h) or a binary HloProto (hlo/proto_reader.h).
// Both readers fill the same structs, so the cost model, the categories and
// `mlprof hlo` do not care where a module came from.
//
// Attributes are kept as their text (`dimensions={1}`, `window={size=3x3}`)
// in the order written; the few the analyses need are decoded on demand by
// hlo/attrs.h. The proto reader writes the same text forms. Metadata is the
// exception: both readers decode it once into Instruction::metadata.
//
// Strings are views. Every name, opcode, attribute and metadata string of a
// module points into the module's StringArena (`Module::strings`): the text
// parser copies the whole text into it once and takes views of that copy; the
// proto reader copies each string it reads or builds into it. The arena is
// shared by the module and its copies (a shared_ptr), so a view stays valid
// as long as any copy of the module lives. This keeps parsing free of a
// malloc per string (a third of the time before).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
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
    count_ = 0;
    for (size_t i = 0; i < n; ++i)
      if (!Insert(i, names(i), names)) {
        if (dup) *dup = i;
        return false;
      }
    return true;
  }
  // Adds position i under `key` (= names(i)), growing the table as needed;
  // false if the name is there already (nothing is added then).
  template <class Names>
  bool Insert(size_t i, std::string_view key, const Names& names) {
    if ((count_ + 1) * 2 > slots_.size()) Grow();
    const uint32_t h = Hash(key);
    const size_t mask = slots_.size() - 1;
    size_t at = h & mask;
    for (; slots_[at].pos >= 0; at = (at + 1) & mask)
      if (slots_[at].hash == h && names(static_cast<size_t>(slots_[at].pos)) == key) return false;
    slots_[at] = {h, static_cast<int32_t>(i)};
    ++count_;
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
  size_t size() const { return count_; }

  // 8 bytes at a time (names are short; a byte loop was a tenth of the HLO
  // parse), folded to 32 bits.
  static uint32_t Hash(std::string_view s) {
    uint64_t h = 0x9e3779b97f4a7c15ull ^ s.size();
    const char* p = s.data();
    size_t n = s.size();
    auto mix = [&h](uint64_t w) {
      h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
      h ^= h >> 31;
    };
    for (; n >= 8; p += 8, n -= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      mix(w);
    }
    if (n) {
      uint64_t w = 0;
      std::memcpy(&w, p, n);
      mix(w);
    }
    h *= 0x94d049bb133111ebull;
    return static_cast<uint32_t>(h ^ (h >> 32));
  }

 private:
  struct Slot {
    uint32_t hash = 0;
    int32_t pos = -1;
  };
  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    const size_t cap = old.empty() ? 8 : old.size() * 2;
    slots_.assign(cap, Slot{});
    for (const Slot& o : old) {
      if (o.pos < 0) continue;
      size_t at = o.hash & (cap - 1);
      while (slots_[at].pos >= 0) at = (at + 1) & (cap - 1);
      slots_[at] = o;
    }
  }
  std::vector<Slot> slots_;
  size_t count_ = 0;
};

// Append-only storage for the strings of a module: chunks that never move,
// so the views handed out stay valid until the arena is destroyed.
class StringArena {
 public:
  StringArena() = default;
  StringArena(const StringArena&) = delete;
  StringArena& operator=(const StringArena&) = delete;
  // A stable copy of `s`.
  std::string_view Copy(std::string_view s) {
    if (s.empty()) return {};
    char* p = Allocate(s.size());
    std::memcpy(p, s.data(), s.size());
    return {p, s.size()};
  }
  // n bytes that stay put.
  char* Allocate(size_t n) {
    if (n > left_) {
      const size_t size = n > kChunk / 4 ? n : kChunk;
      chunks_.push_back(std::make_unique_for_overwrite<char[]>(size));
      if (n > kChunk / 4) {  // a large piece gets a chunk of its own
        bytes_ += n;
        return chunks_.back().get();
      }
      cur_ = chunks_.back().get();
      left_ = size;
    }
    char* p = cur_;
    cur_ += n;
    left_ -= n;
    bytes_ += n;
    return p;
  }
  size_t bytes() const { return bytes_; }

 private:
  static constexpr size_t kChunk = 64 * 1024;
  std::vector<std::unique_ptr<char[]>> chunks_;
  char* cur_ = nullptr;
  size_t left_ = 0;
  size_t bytes_ = 0;
};

// All string_views below point into the owning Module's `strings` arena (or,
// for ParseHloInstruction, into the text and arena it was given).
struct OpMetadata {
  std::string_view op_type;
  std::string_view op_name;  // JAX name stack: "jit(train_step)/jvp(model)/layer/dot_general"
  std::string_view source_file;
  int64_t source_line = -1;
};

struct Instruction {
  std::string_view name;  // without the '%'
  std::string_view opcode;
  Shape shape;
  // The small lists hold their usual sizes inline (no malloc per instruction).
  absl::InlinedVector<std::string_view, 3> operand_names;
  absl::InlinedVector<int32_t, 4> operands;  // indices into the computation (-1: not found there)
  // The text inside the parentheses for constant(...), parameter(N), iota etc.
  std::string_view literal;
  int64_t parameter_number = -1;
  absl::InlinedVector<std::pair<std::string_view, std::string_view>, 2> attrs;  // key, value text, as written
  absl::InlinedVector<std::string_view, 1> called;                              // computations it calls
  absl::InlinedVector<int32_t, 2> called_ids;  // indices into Module::computations (-1 unknown)
  OpMetadata metadata;
  bool is_root = false;
  uint32_t line = 0;  // 1-based position in the text (0 for protos)
  uint32_t column = 0;

  // Value text of an attribute, or nullptr.
  const std::string_view* Attr(std::string_view key) const {
    for (const auto& [k, v] : attrs)
      if (k == key) return &v;
    return nullptr;
  }
  // An integer attribute (index=2, feature_group_count=4), or `def` when it
  // is absent or not a whole number.
  int64_t IntAttr(std::string_view key, int64_t def) const;
};

struct Computation {
  std::string_view name;
  bool is_entry = false;
  std::string_view execution_thread;
  std::vector<Instruction> instructions;
  int32_t root = -1;
  NameIndex index;  // instruction name -> position (Module::Link)
  // How the computation is used, filled by Module::Link(): a fusion body,
  // a reducer (to_apply), a while body/condition, ...
  bool is_fusion = false;
  int32_t caller_count = 0;
  // Set by the text parser, which fills `index` and resolves operands while
  // it reads (the defining lines are still in cache then): Link() then only
  // resolves the operands left at -1 (forward references).
  bool indexed = false;

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
  // Owns the text every view in the module points into; shared by copies.
  std::shared_ptr<StringArena> strings = std::make_shared<StringArena>();
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
  // After Link: what the cost model could only get wrong is refused, each
  // error naming `path`, the line and column (text) and the instruction: an
  // operand no instruction of the computation defines, computations that
  // call each other in a cycle, a window= attribute that does not parse.
  Status Validate(std::string_view path) const;
};

}  // namespace mlprof::hlo
