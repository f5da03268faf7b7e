#include "hlo/text_parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>

#include "base/utf8.h"
#include "hlo/attrs.h"

namespace mlprof::hlo {

namespace {

bool IsNameChar(char c) { return IsAsciiAlnum(c) || c == '_' || c == '.' || c == '-' || c == '$'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string_view StripSigil(std::string_view s) { return !s.empty() && s[0] == '%' ? s.substr(1) : s; }

// Removes /* ... */ comments (they appear inside long operand lists).
std::string_view StripComments(std::string_view s, std::string* buf) {
  if (s.find("/*") == std::string_view::npos) return s;
  buf->clear();
  size_t i = 0;
  while (i < s.size()) {
    size_t c = s.find("/*", i);
    if (c == std::string_view::npos) {
      buf->append(s.substr(i));
      break;
    }
    buf->append(s.substr(i, c - i));
    size_t e = s.find("*/", c + 2);
    i = e == std::string_view::npos ? s.size() : e + 2;
  }
  return *buf;
}

bool IsCallAttr(std::string_view k) {
  return k == "calls" || k == "to_apply" || k == "body" || k == "condition" || k == "true_computation" ||
         k == "false_computation" || k == "branch_computations" || k == "called_computations";
}

// "{ a = f32[] parameter(0) ... }": a computation written in place (a list
// of callee names, "{%a, %b}", has no '=').
bool IsInlineBody(std::string_view v) {
  size_t i = 0;
  while (i < v.size() && std::isspace(static_cast<unsigned char>(v[i]))) ++i;
  return i < v.size() && v[i] == '{' && v.find('=') != std::string_view::npos;
}

class TextParser {
 public:
  // `text` must outlive the instructions read (ParseHloText hands it a copy
  // in the modules' arena); decoded strings go to `arena`.
  TextParser(std::string_view text, std::string_view path, std::shared_ptr<StringArena> arena)
      : s_(text), path_(path), arena_(std::move(arena)) {}

  StatusOr<std::vector<Module>> ParseFile() {
    std::vector<Module> modules;
    SkipWs();
    if (AtEnd()) return Err(p_, "an 'HloModule' header (the file is empty)");
    if (LooksLikeTextProto())
      return WrongFormat(
          fmt::format("{}: this is a text-format HloModuleProto (protobuf text), not HLO text; dump the module with "
                      "--xla_dump_hlo_as_text or --xla_dump_hlo_as_proto instead",
                      path_));
    bool first = true;
    while (!AtEnd()) {
      Module m;
      m.strings = arena_;
      if (PeekWord() != "HloModule") {
        // XLA's parser also takes bare computations without a header (the
        // multihost runner's inputs); the module is named after nothing.
        if (!first) return Err(p_, "'HloModule'");
        std::string_view w = PeekWord();
        size_t save = p_;
        p_ += w.size();
        SkipWs();
        bool computation = !w.empty() && (Peek() == '{' || Peek() == '(' || w == "ENTRY");
        p_ = save;
        if (!computation) return Err(p_, "'HloModule'");
        RETURN_IF_ERROR(ParseModuleBody(&m));
      } else {
        RETURN_IF_ERROR(ParseModule(&m));
      }
      first = false;
      modules.push_back(std::move(m));
      SkipWs();
    }
    return modules;
  }

  Status ParseOneInstruction(Instruction* in) {
    SkipWs();
    RETURN_IF_ERROR(ParseInstruction(in));
    SkipWs();
    if (!AtEnd()) return Err(p_, "the end of the instruction");
    return OkStatus();
  }

 private:
  bool AtEnd() const { return p_ >= s_.size(); }

  // "hlo_module {\n  name: \"main\"": a word, '{', then "field:".
  bool LooksLikeTextProto() const {
    size_t i = p_;
    while (i < s_.size() && IsNameChar(s_[i])) ++i;
    while (i < s_.size() && std::isspace(static_cast<unsigned char>(s_[i]))) ++i;
    if (i >= s_.size() || s_[i] != '{') return false;
    ++i;
    while (i < s_.size() && std::isspace(static_cast<unsigned char>(s_[i]))) ++i;
    while (i < s_.size() && IsNameChar(s_[i])) ++i;
    return i < s_.size() && s_[i] == ':';
  }
  char Peek() const { return p_ < s_.size() ? s_[p_] : '\0'; }

  bool AtLineStart(size_t pos) const {
    while (pos > 0 && (s_[pos - 1] == ' ' || s_[pos - 1] == '\t')) --pos;
    return pos == 0 || s_[pos - 1] == '\n';
  }

  void SkipWs() {
    while (p_ < s_.size()) {
      char c = s_[p_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++p_;
      } else if (c == '/' && p_ + 1 < s_.size() && s_[p_ + 1] == '/') {
        size_t e = s_.find('\n', p_);
        p_ = e == std::string_view::npos ? s_.size() : e + 1;
      } else if (c == '/' && p_ + 1 < s_.size() && s_[p_ + 1] == '*') {
        size_t e = s_.find("*/", p_ + 2);
        p_ = e == std::string_view::npos ? s_.size() : e + 2;
      } else if (c == '#' && AtLineStart(p_)) {
        size_t e = s_.find('\n', p_);
        p_ = e == std::string_view::npos ? s_.size() : e + 1;
      } else {
        break;
      }
    }
  }

  std::string_view PeekWord() const {
    size_t e = p_;
    while (e < s_.size() && IsNameChar(s_[e])) ++e;
    return s_.substr(p_, e - p_);
  }

  // An identifier with an optional leading '%'.
  bool Name(std::string_view* out) {
    size_t start = p_;
    if (Peek() == '%') ++p_;
    size_t b = p_;
    while (p_ < s_.size() && IsNameChar(s_[p_])) ++p_;
    if (p_ == b) {
      p_ = start;
      return false;
    }
    *out = s_.substr(b, p_ - b);
    return true;
  }

  bool Eat(char c) {
    if (Peek() != c) return false;
    ++p_;
    return true;
  }

  std::string Found(size_t pos) const {
    if (pos >= s_.size()) return "the end of the text";
    size_t e = pos;
    if (IsNameChar(s_[e]) || s_[e] == '%') {
      ++e;
      while (e < s_.size() && IsNameChar(s_[e]) && e - pos < 40) ++e;
    } else {
      ++e;
    }
    std::string tok(s_.substr(pos, e - pos));
    for (char& c : tok)
      if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    return fmt::format("'{}'", tok);
  }

  Status Err(size_t pos, std::string_view expected) const {
    size_t line = 1 + static_cast<size_t>(std::count(s_.begin(), s_.begin() + std::min(pos, s_.size()), '\n'));
    size_t ls = s_.rfind('\n', pos == 0 ? 0 : pos - 1);
    size_t col = pos - (ls == std::string_view::npos || pos == 0 ? 0 : ls + 1) + 1;
    if (pos > 0 && ls == std::string_view::npos) col = pos + 1;
    return DataLoss(
        fmt::format("{}:{}:{}: HLO syntax error: expected {}, found {}", path_, line, col, expected, Found(pos)));
  }

  // A balanced value: stops at a top-level ',', whitespace, or an unmatched
  // closing bracket. Strings may contain anything.
  bool ScanValue(std::string_view* out) {
    size_t start = p_;
    int depth = 0;
    while (p_ < s_.size()) {
      char c = s_[p_];
      if (c == '"') {
        ++p_;
        while (p_ < s_.size() && s_[p_] != '"') p_ += s_[p_] == '\\' ? 2 : 1;
        if (p_ >= s_.size()) return false;
        ++p_;
        continue;
      }
      if (c == '{' || c == '[' || c == '(') {
        ++depth;
      } else if (c == '}' || c == ']' || c == ')') {
        if (depth == 0) break;
        --depth;
      } else if (depth == 0 && (c == ',' || c == ' ' || c == '\n' || c == '\t' || c == '\r')) {
        // The mesh form of replica groups has one space inside:
        // mesh['x'=4,'y'=2] {'x'}
        if (c == ' ' && s_.substr(start, 5) == "mesh[" && p_ + 1 < s_.size() && s_[p_ + 1] == '{') {
          ++p_;
          continue;
        }
        break;
      }
      ++p_;
    }
    if (depth != 0 || p_ == start) return false;
    *out = s_.substr(start, p_ - start);
    return true;
  }

  // From an opening bracket to its match; returns the inside.
  bool Balanced(char open, char close, std::string_view* inside) {
    if (Peek() != open) return false;
    size_t start = ++p_;
    int depth = 1;
    while (p_ < s_.size()) {
      char c = s_[p_];
      if (c == '"') {
        ++p_;
        while (p_ < s_.size() && s_[p_] != '"') p_ += s_[p_] == '\\' ? 2 : 1;
        ++p_;
        continue;
      }
      if (c == open) ++depth;
      if (c == close && --depth == 0) {
        *inside = s_.substr(start, p_ - start);
        ++p_;
        return true;
      }
      ++p_;
    }
    return false;
  }

  // ", key=value" pairs; each is handed to on_attr(key, value, position),
  // which returns an error status to stop.
  template <class OnAttr>
  Status ScanAttrs(const OnAttr& on_attr) {
    for (;;) {
      size_t save = p_;
      SkipWs();
      if (!Eat(',')) {
        p_ = save;
        return OkStatus();
      }
      SkipWs();
      std::string_view key, value;
      size_t at = p_;
      if (!Name(&key)) return Err(at, "an attribute name");
      if (!Eat('=')) return Err(p_, fmt::format("'=' after attribute '{}'", key));
      at = p_;
      if (!ScanValue(&value)) return Err(at, fmt::format("a value for attribute '{}'", key));
      RETURN_IF_ERROR(on_attr(key, value, at));
    }
  }
  Status ParseAttrs(std::vector<std::pair<std::string, std::string>>* attrs) {
    return ScanAttrs([attrs](std::string_view key, std::string_view value, size_t) {
      attrs->emplace_back(std::string(key), std::string(value));
      return OkStatus();
    });
  }

  Status ParseModule(Module* m) {
    p_ += 9;  // HloModule
    SkipWs();
    std::string_view name;
    if (!Name(&name)) return Err(p_, "a module name after 'HloModule'");
    m->name = std::string(name);
    m->source = std::string(path_);
    RETURN_IF_ERROR(ParseAttrs(&m->attrs));
    for (const auto& [k, v] : m->attrs) {
      if (k == "num_partitions") m->num_partitions = std::max<int64_t>(1, std::atoll(v.c_str()));
      if (k == "replica_count") m->replica_count = std::max<int64_t>(1, std::atoll(v.c_str()));
      if (k == "is_scheduled") m->is_scheduled = v == "true";
    }
    return ParseModuleBody(m);
  }

  Status ParseModuleBody(Module* m) {
    if (m->source.empty()) m->source = std::string(path_);
    for (;;) {
      SkipWs();
      if (AtEnd()) break;
      std::string_view w = PeekWord();
      if (w == "HloModule") break;
      if (w == "FileNames" || w == "FunctionNames" || w == "FileLocations" || w == "StackFrames") {
        p_ += w.size();
        RETURN_IF_ERROR(SkipTable(w));
        continue;
      }
      Computation c;
      RETURN_IF_ERROR(ParseComputation(&c));
      m->computations.push_back(std::move(c));
      // Inline computations its instructions held, after it.
      for (auto& sub : inline_computations_) m->computations.push_back(std::move(sub));
      inline_computations_.clear();
    }
    if (m->computations.empty()) return Err(p_, fmt::format("a computation in module '{}'", m->name));
    Status st = m->Link();
    if (!st.ok()) return DataLoss(fmt::format("{}: module '{}': {}", path_, m->name, st.message()));
    if (m->name.empty()) m->name = m->entry_computation()->name;
    return OkStatus();
  }

  // "1 "file.py"" / "1 {file_name_id=1 ...}" rows of the stack-frame tables.
  Status SkipTable(std::string_view what) {
    for (;;) {
      SkipWs();
      if (!std::isdigit(static_cast<unsigned char>(Peek()))) return OkStatus();
      while (std::isdigit(static_cast<unsigned char>(Peek()))) ++p_;
      SkipWs();
      std::string_view v;
      size_t at = p_;
      if (!ScanValue(&v)) return Err(at, fmt::format("a {} entry", what));
    }
  }

  Status ParseComputation(Computation* c) {
    if (PeekWord() == "ENTRY") {
      c->is_entry = true;
      p_ += 5;
      SkipWs();
    }
    std::string_view name;
    size_t at = p_;
    if (!Name(&name)) return Err(at, "a computation name or 'HloModule'");
    c->name = name;
    SkipWs();
    if (Peek() == '(') {  // (p0: f32[4], ...) -> f32[4]
      std::string_view params;
      at = p_;
      if (!Balanced('(', ')', &params)) return Err(at, "the end of the parameter list ')'");
      SkipWs();
      if (s_.substr(p_, 2) != "->") return Err(p_, "'->' and the result shape");
      p_ += 2;
      SkipWs();
      size_t used = 0;
      auto shape = ParseShape(s_.substr(p_), &used);
      if (!shape.ok()) return Err(p_, "the computation's result shape");
      p_ += used;
      SkipWs();
    }
    return ParseComputationBody(c);
  }

  // "{ instructions }" of a computation whose name is set.
  Status ParseComputationBody(Computation* c) {
    if (!Eat('{')) return Err(p_, fmt::format("'{{' to open computation '{}'", c->name));
    c->instructions.reserve(EstimateInstructions());
    c->indexed = true;
    for (;;) {
      SkipWs();
      if (AtEnd()) return Err(p_, fmt::format("'}}' to close computation '{}'", c->name));
      if (Eat('}')) break;
      // Parsed in place: an Instruction is a few hundred bytes.
      Instruction* in = &c->instructions.emplace_back();
      RETURN_IF_ERROR(ParseInstruction(in, c));
      // A repeated name: Link() rebuilds the index and reports it.
      if (c->indexed)
        c->indexed = c->index.Insert(c->instructions.size() - 1, in->name,
                                     [c](size_t j) { return std::string_view(c->instructions[j].name); });
    }
    return ScanAttrs([&](std::string_view k, std::string_view v, size_t) -> Status {
      if (k == "execution_thread" && !UnquoteInto(v, arena_.get(), &c->execution_thread)) c->execution_thread = v;
      return OkStatus();
    });
  }

  // Lines up to the computation's closing "\n}" (a guess for reserve(): one
  // instruction per line is the printer's layout). Keeps the vector from
  // growing, and growing a large vector costs a copy and a malloc that
  // makes glibc consolidate every freed chunk.
  size_t EstimateInstructions() const {
    const char* b = s_.data() + p_;
    const char* e = s_.data() + s_.size();
    size_t lines = 0;
    for (const char* q = b; q < e;) {
      const void* nl = std::memchr(q, '\n', static_cast<size_t>(e - q));
      if (!nl) break;
      q = static_cast<const char*>(nl) + 1;
      if (q < e && *q == '}') break;
      ++lines;
    }
    // No instruction is shorter than about 12 bytes ("a=f32[] b()\n"): blank
    // lines must not make a small file reserve a large vector.
    return std::min(lines, static_cast<size_t>(e - b) / 12 + 1);
  }

  // `c` (null for a lone instruction) is the computation being read: operands
  // already defined in it are resolved here.
  Status ParseInstruction(Instruction* in, const Computation* c = nullptr) {
    in->column = static_cast<uint32_t>(p_);  // offset for now; Link-time pass turns it into line:col
    if (PeekWord() == "ROOT") {
      in->is_root = true;
      p_ += 4;
      SkipWs();
    }
    std::string_view name;
    size_t at = p_;
    if (!Name(&name)) return Err(at, "an instruction name or '}'");
    in->name = name;
    SkipWs();
    if (!Eat('=')) return Err(p_, fmt::format("'=' after instruction name '{}'", name));
    SkipWs();
    size_t used = 0;
    at = p_;
    auto shape = ParseShape(s_.substr(p_), &used);
    if (shape.ok()) {
      in->shape = std::move(shape).value();
      p_ += used;
    } else {
      // XLA lets the shape be left out where it can be inferred
      // ("gte = get-tuple-element(t), index=0"): an opcode and '(' follow.
      std::string_view w = PeekWord();
      bool omitted = !w.empty() && p_ + w.size() < s_.size() && s_[p_ + w.size()] == '(';
      if (!omitted) {
        std::string msg = shape.status().message();
        size_t cut = msg.find(" in '");
        if (cut != std::string::npos) msg.resize(cut);
        return Err(at, fmt::format("a shape for '{}' ({})", name, msg));
      }
    }
    SkipWs();
    std::string_view opcode;
    at = p_;
    if (!Name(&opcode)) return Err(at, fmt::format("an opcode for '{}'", name));
    in->opcode = opcode;
    std::string_view ops;
    at = p_;
    if (!Balanced('(', ')', &ops)) return Err(at, fmt::format("'(' and the operands of '{}', closed by ')'", name));
    if (in->opcode == "parameter" || in->opcode == "constant" || in->opcode == "iota" ||
        in->opcode == "rng-get-and-update-state") {
      in->literal = Trim(ops);
      if (in->opcode == "parameter") {
        const char* b = in->literal.data();
        const char* e = b + in->literal.size();
        auto [end, ec] = std::from_chars(b, e, in->parameter_number);
        if (in->literal.empty() || ec != std::errc() || end != e || in->parameter_number < 0)
          return Err(at + 1, "a parameter number");
      }
    } else {
      std::string_view list = StripComments(ops, &comment_buf_);
      if (list.data() != ops.data()) list = arena_->Copy(list);  // the names must outlive comment_buf_
      names_.clear();
      int depth = 0;
      size_t start = 0;
      for (size_t i = 0; i <= list.size(); ++i) {
        char c = i < list.size() ? list[i] : ',';
        if (c == '"') {
          ++i;
          while (i < list.size() && list[i] != '"') i += list[i] == '\\' ? 2 : 1;
          continue;
        }
        if (c == '(' || c == '{' || c == '[') ++depth;
        if (c == ')' || c == '}' || c == ']') --depth;
        if (c == ',' && depth == 0) {
          std::string_view piece = Trim(list.substr(start, i - start));
          start = i + 1;
          if (piece.empty()) continue;
          size_t sp = piece.find_last_of(" \t\n");
          std::string_view opname = sp == std::string_view::npos ? piece : piece.substr(sp + 1);
          names_.push_back(StripSigil(opname));
        }
      }
      in->operand_names.assign(names_.begin(), names_.end());
      if (c && c->indexed) {
        in->operands.resize(names_.size());
        for (size_t k = 0; k < names_.size(); ++k) in->operands[k] = c->IndexOf(names_[k]);
      }
    }
    // Metadata is decoded into in->metadata, not kept as text; callees
    // are listed by name.
    return ScanAttrs([&](std::string_view k, std::string_view v, size_t) -> Status {
      if (k == "metadata") {
        if (!ParseMetadata(v, arena_.get(), &in->metadata))
          return Err(at, fmt::format("a metadata record {{op_name=\"...\" ...}} on '{}'", name));
        return OkStatus();
      }
      if (IsCallAttr(k) && IsInlineBody(v)) {
        // An inline computation ("to_apply={ a = f32[] parameter(0) ... }"):
        // read as a computation of its own, named after its caller.
        const size_t body_at = static_cast<size_t>(Trim(v).data() - s_.data());
        if (inline_depth_ >= 32) return Err(body_at, "inline computations nested at most 32 deep");
        const size_t after = p_;
        Computation sub;
        sub.name = arena_->Copy(fmt::format("{}.{}", name, k));
        p_ = body_at;
        ++inline_depth_;
        Status st = ParseComputationBody(&sub);
        --inline_depth_;
        RETURN_IF_ERROR(st);
        p_ = after;
        in->called.emplace_back(sub.name);
        inline_computations_.push_back(std::move(sub));
        in->attrs.emplace_back(k, in->called.back());
        return OkStatus();
      }
      if (IsCallAttr(k)) {
        std::string_view t = Trim(v);
        if (!t.empty() && t.front() == '{') t = t.substr(1, t.size() >= 2 ? t.size() - 2 : 0);
        size_t s = 0;
        for (size_t i = 0; i <= t.size(); ++i) {
          if (i == t.size() || t[i] == ',') {
            std::string_view n = Trim(t.substr(s, i - s));
            if (!n.empty()) in->called.emplace_back(StripSigil(n));
            s = i + 1;
          }
        }
      }
      in->attrs.emplace_back(k, v);
      return OkStatus();
    });
  }

  std::string_view s_;
  std::string_view path_;
  std::shared_ptr<StringArena> arena_;
  size_t p_ = 0;
  std::string comment_buf_;                       // operand lists with /* */ comments removed
  std::vector<std::string_view> names_;           // operand names of the instruction being read
  std::vector<Computation> inline_computations_;  // read inside the computation being read
  int inline_depth_ = 0;
};

// Converts the byte offsets stored in Instruction::column to line:column.
void AssignLines(std::string_view text, std::vector<Module>* modules) {
  size_t pos = 0, line = 1, line_start = 0;
  for (auto& m : *modules)
    for (auto& c : m.computations)
      for (auto& in : c.instructions) {
        size_t off = in.column;
        if (off < pos) pos = 0, line = 1, line_start = 0;  // not monotonic: restart
        const size_t stop = std::min(off, text.size());
        while (pos < stop) {
          const void* nl = std::memchr(text.data() + pos, '\n', stop - pos);
          if (!nl) {
            pos = stop;
            break;
          }
          pos = static_cast<size_t>(static_cast<const char*>(nl) - text.data()) + 1;
          ++line, line_start = pos;
        }
        in.line = static_cast<uint32_t>(line);
        in.column = static_cast<uint32_t>(off - line_start + 1);
      }
}

}  // namespace

Status Module::Link() {
  entry = -1;
  size_t dup = 0;
  if (!index.Build(
          computations.size(), [this](size_t i) { return std::string_view(computations[i].name); }, &dup))
    return DataLoss(fmt::format("two computations are named '{}'", computations[dup].name));
  for (size_t i = 0; i < computations.size(); ++i) {
    Computation& c = computations[i];
    if (c.is_entry) entry = static_cast<int32_t>(i);
    c.root = -1;
    c.indexed = c.indexed && c.index.size() == c.instructions.size();
    if (!c.indexed &&
        !c.index.Build(
            c.instructions.size(), [&c](size_t j) { return std::string_view(c.instructions[j].name); }, &dup))
      return DataLoss(
          fmt::format("computation '{}' has two instructions named '{}'", c.name, c.instructions[dup].name));
    for (size_t j = 0; j < c.instructions.size(); ++j)
      if (c.instructions[j].is_root) c.root = static_cast<int32_t>(j);
    if (c.root < 0 && !c.instructions.empty()) {
      c.root = static_cast<int32_t>(c.instructions.size() - 1);
      c.instructions.back().is_root = true;
    }
  }
  if (entry < 0 && !computations.empty()) {
    entry = static_cast<int32_t>(computations.size() - 1);
    computations.back().is_entry = true;
  }
  for (auto& c : computations) {
    for (auto& in : c.instructions) {
      if (c.indexed && in.operands.size() == in.operand_names.size()) {
        for (size_t k = 0; k < in.operands.size(); ++k)  // forward references
          if (in.operands[k] < 0) in.operands[k] = c.IndexOf(in.operand_names[k]);
      } else {
        in.operands.clear();
        in.operands.reserve(in.operand_names.size());
        for (const auto& n : in.operand_names) in.operands.push_back(c.IndexOf(n));
      }
      // Shapes left out in the text: get-tuple-element takes its element.
      if (in.shape.type == ElementType::kInvalid && in.opcode == "get-tuple-element" && in.operands.size() == 1 &&
          in.operands[0] >= 0) {
        const Shape& t = c.instructions[static_cast<size_t>(in.operands[0])].shape;
        const int64_t idx = in.IntAttr("index", 0);
        if (t.is_tuple() && idx >= 0 && static_cast<size_t>(idx) < t.tuple.size()) in.shape = t.tuple[idx];
      }
      in.called_ids.clear();
      for (const auto& n : in.called) {
        const int32_t id = IndexOf(n);
        if (id < 0) return DataLoss(fmt::format("instruction '{}' calls unknown computation '{}'", in.name, n));
        in.called_ids.push_back(id);
        Computation& callee = computations[static_cast<size_t>(id)];
        ++callee.caller_count;
        if (in.opcode == "fusion") callee.is_fusion = true;
      }
    }
  }
  return OkStatus();
}

Status Module::Validate(std::string_view path) const {
  auto where = [&](const Instruction& in) {
    return in.line ? fmt::format("{}:{}:{}", path, in.line, in.column) : std::string(path);
  };
  for (const Computation& c : computations)
    for (const Instruction& in : c.instructions) {
      for (size_t k = 0; k < in.operands.size() && k < in.operand_names.size(); ++k)
        if (in.operands[k] < 0)
          return DataLoss(fmt::format("{}: operand '{}' of '{}' is not defined in computation '{}'", where(in),
                                      in.operand_names[k], in.name, c.name));
      if (const std::string_view* w = in.Attr("window")) {
        std::vector<WindowDim> dims;
        if (!ParseWindow(*w, &dims))
          return DataLoss(
              fmt::format("{}: window={} of '{}': expected {{size=AxB stride=.. pad=lo_hi.. "
                          "lhs_dilate=.. rhs_dilate=..}} with positive sizes",
                          where(in), *w, in.name));
      }
    }
  // Cycles in the call graph (a computation reaching itself through calls):
  // depth-first, iteratively, 0 = unseen, 1 = on the path, 2 = done.
  std::vector<uint8_t> state(computations.size(), 0);
  struct Frame {
    size_t comp, inst = 0, call = 0;
  };
  for (size_t root = 0; root < computations.size(); ++root) {
    if (state[root]) continue;
    std::vector<Frame> stack{{root}};
    state[root] = 1;
    while (!stack.empty()) {
      Frame& f = stack.back();
      const Computation& c = computations[f.comp];
      if (f.inst >= c.instructions.size()) {
        state[f.comp] = 2;
        stack.pop_back();
        continue;
      }
      const Instruction& in = c.instructions[f.inst];
      if (f.call >= in.called_ids.size()) {
        ++f.inst, f.call = 0;
        continue;
      }
      const int32_t callee = in.called_ids[f.call++];
      if (callee < 0) continue;
      if (state[static_cast<size_t>(callee)] == 1)
        return DataLoss(
            fmt::format("{}: '{}' calls computation '{}', which is already being called on this path: "
                        "the call graph has a cycle, which HLO does not allow",
                        where(in), in.name, computations[static_cast<size_t>(callee)].name));
      if (state[static_cast<size_t>(callee)] == 0) {
        state[static_cast<size_t>(callee)] = 1;
        stack.push_back({static_cast<size_t>(callee)});
      }
    }
  }
  return OkStatus();
}

StatusOr<std::vector<Module>> ParseHloText(std::string_view text, std::string_view path) {
  // One copy of the text that every view of the modules points into.
  auto arena = std::make_shared<StringArena>();
  const std::string_view own = arena->Copy(text);
  // Names and metadata reach every output: invalid UTF-8 bytes become '?'
  // (one for one, so lines and columns stay).
  if (!IsValidUtf8(own)) {
    uint64_t first = 0;
    RepairUtf8(const_cast<char*>(own.data()), own.size(), &first);
  }
  TextParser p(own, path, arena);
  auto modules = p.ParseFile();
  if (!modules.ok()) return modules;
  AssignLines(own, &modules.value());
  for (const Module& m : *modules) RETURN_IF_ERROR(m.Validate(path));
  return modules;
}

StatusOr<Instruction> ParseHloInstruction(std::string_view text, StringArena* arena) {
  // A non-owning handle: the caller keeps `arena` (and `text`) alive.
  TextParser p(text, "<instruction>", std::shared_ptr<StringArena>(std::shared_ptr<StringArena>{}, arena));
  Instruction in;
  RETURN_IF_ERROR(p.ParseOneInstruction(&in));
  in.line = 1;
  in.column = 1;
  return in;
}

bool LooksLikeHloText(std::string_view head) {
  size_t at = head.find("HloModule ");
  if (at == std::string_view::npos) return false;
  // Only comments and blank lines before it.
  std::string_view before = head.substr(0, at);
  size_t i = 0;
  while (i < before.size()) {
    char c = before[i];
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      ++i;
    } else if (before.substr(i, 2) == "//" || c == '#') {
      size_t e = before.find('\n', i);
      if (e == std::string_view::npos) return false;
      i = e + 1;
    } else if (before.substr(i, 2) == "/*") {
      size_t e = before.find("*/", i);
      if (e == std::string_view::npos) return false;
      i = e + 2;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace mlprof::hlo
