// Chrome trace-event JSON reader. See chrome_json.h.
//
// simdjson 3.0 builds its on-demand API for the compile-time target only
// ("builtin" implementation); for the portable x86-64 target that is its
// scalar fallback. So, with GCC, simdjson and this reader are compiled for
// Haswell (AVX2, BMI2, PCLMUL, LZCNT) inside a `#pragma GCC target` region.
// Every other header (std, fmt, ours) is included before the region, so the
// inline functions and templates they define keep the portable target: the
// linker can never hand other code a copy compiled for AVX2. Only the
// functions in the region need the CPU features; ChromeJsonNeedsAvx2() lets the
// loader check the CPU before calling in. (Per-file -mavx2 flags, used before,
// compiled std::string and std::vector members in this file for AVX2 too, and
// those weak copies could be linked into everything.)
#include "io/chrome_json.h"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

// Every standard header simdjson.h includes, so that none is first seen
// inside the target region below.
#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>
#include <cfloat>
#include <charconv>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iomanip>
#include <iterator>
#include <limits>
#include <memory>
#include <mutex>
#include <ostream>
#include <ranges>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/utf8.h"
#include "io/ascend_conventions.h"
#include "io/ascend_files.h"
#include "io/json_scan.h"
#include "io/kineto_vocabulary.h"
#include "io/readers.h"
#include "io/rocprof_conventions.h"
#include "io/xspace_conventions.h"
#include "model/builder.h"

#if defined(MLPROF_JSON_HASWELL) && defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define MLPROF_HASWELL_REGION 1
#endif

namespace mlprof {

bool ChromeJsonNeedsAvx2() {
#ifdef MLPROF_HASWELL_REGION
  return true;
#else
  return false;
#endif
}

}  // namespace mlprof

#ifdef MLPROF_HASWELL_REGION
#pragma GCC push_options
#pragma GCC target("avx2,bmi,bmi2,pclmul,lzcnt,popcnt")
#define SIMDJSON_BUILTIN_IMPLEMENTATION haswell
// Plain `inline` instead of always_inline: std::pair<raw_json_string, value>
// (ondemand::field) is a baseline template that must be able to call these.
#define simdjson_inline inline
#endif
#include <simdjson.h>

namespace mlprof {

namespace od = simdjson::ondemand;
using simdjson::error_code;

namespace {

inline bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

__attribute__((always_inline)) inline std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && (IsSpace(s.back()) || s.back() == '\0')) s.remove_suffix(1);
  return s;
}

// Parses an integer from a JSON token; accepts "12", "12.0", "-3", "\"7\"",
// "\"0x1f\"". Returns false for anything else.
bool ParseIntToken(std::string_view tok, int64_t* out) {
  tok = TrimRight(tok);
  if (tok.size() >= 2 && tok.front() == '"' && tok.back() == '"') tok = tok.substr(1, tok.size() - 2);
  if (tok.empty()) return false;
  bool neg = false;
  size_t i = 0;
  if (tok[0] == '-') neg = true, ++i;
  uint64_t v = 0;
  if (tok.size() > i + 2 && tok[i] == '0' && (tok[i + 1] == 'x' || tok[i + 1] == 'X')) {
    i += 2;
    size_t start = i;
    for (; i < tok.size(); ++i) {
      char c = tok[i];
      int d = c >= '0' && c <= '9'   ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                     : -1;
      if (d < 0 || v > (UINT64_MAX >> 4)) return false;
      v = v * 16 + d;
    }
    if (i == start || v > INT64_MAX) return false;
    *out = neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
    return true;
  }
  size_t start = i;
  for (; i < tok.size() && tok[i] >= '0' && tok[i] <= '9'; ++i) {
    if (v > (static_cast<uint64_t>(INT64_MAX) - 9) / 10) return false;
    v = v * 10 + (tok[i] - '0');
  }
  if (i == start) return false;
  if (i < tok.size() && tok[i] == '.') {
    for (++i; i < tok.size(); ++i)
      if (tok[i] != '0') return false;
  }
  if (i != tok.size()) return false;
  *out = neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  return true;
}

// Returns whole pages inside [begin, end) to the OS. The memory stays mapped
// and reads back as zeros (anonymous memory) or the file (private file maps).
void ReleasePages(char* begin, char* end) {
  static const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  uintptr_t b = (reinterpret_cast<uintptr_t>(begin) + page - 1) & ~(page - 1);
  uintptr_t e = reinterpret_cast<uintptr_t>(end) & ~(page - 1);
  if (e > b) ::madvise(reinterpret_cast<void*>(b), e - b, MADV_DONTNEED);
}

// A direct-mapped cache in front of the string pool. Event names repeat a lot
// and kernel names are long: a cheap hash of the length and three 8-byte
// samples finds the slot, a memcmp confirms it, and only misses pay for the
// pool's full hash and lookup. Results are identical to StringPool::Intern.
class InternCache {
 public:
  // Inlined by force, like ReadString: they run for every name and category,
  // and GCC's heuristics stopped inlining them as the reader grew (as calls
  // they cost 7% more instructions per event).
  __attribute__((always_inline)) StringId Intern(StringPool& pool, std::string_view s) {
    Slot& slot = slots_[Hash(s) & (kSlots - 1)];
    if (slot.len == s.size() && slot.data != nullptr && std::memcmp(slot.data, s.data(), s.size()) == 0) return slot.id;
    StringId id = pool.Intern(s);
    std::string_view stored = pool.Get(id);
    slot = {stored.data(), static_cast<uint32_t>(stored.size()), id};
    return id;
  }

 private:
  static constexpr size_t kSlots = 4096;
  struct Slot {
    const char* data = nullptr;  // in the pool's arena: stable
    uint32_t len = 0;
    StringId id = 0;
  };
  static uint64_t Load8(const char* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  static uint64_t Hash(std::string_view s) {
    uint64_t h = s.size() * 0x9E3779B97F4A7C15ULL;
    if (s.size() >= 8) {
      h ^= Load8(s.data()) * 0xC2B2AE3D27D4EB4FULL;
      h ^= Load8(s.data() + s.size() - 8) * 0x165667B19E3779F9ULL;
      h ^= Load8(s.data() + s.size() / 2 - 4) * 0x27D4EB2F165667C5ULL;
    } else {
      uint64_t v = 0;
      std::memcpy(&v, s.data(), s.size());
      h ^= v * 0xC2B2AE3D27D4EB4FULL;
    }
    return h ^ (h >> 29) ^ (h >> 47);
  }
  std::array<Slot, kSlots> slots_{};
};

struct ReaderState {
  ProfileBuilder* b;
  const char* base;
  size_t size;
  const ReadOptions* opts;
  od::document* doc = nullptr;
  uint64_t events = 0;
  // Counter args collected before "ph" is known.
  struct NumArg {
    std::string_view key;
    double value;
  };
  std::vector<NumArg> num_args;
  // XLA op args of the current event (JAX trace-viewer JSON).
  XlaOp xla;
  bool xla_any = false;     // some XLA arg was read
  bool xla_anchor = false;  // hlo_op, hlo_module, hlo_category or an HLO long_name
  std::string scratch;
  InternCache cache;
  KinetoCategoryKinds kinds{};
  // The event's args kept in the sparse args table: those of Kineto's memory
  // events (named or, in older traces, categorised "[memory]": Bytes, Total
  // Allocated, Total Reserved, Addr, Device Id, Device Type), when "name" or
  // "cat" comes before "args", as Kineto writes them.
  bool keep_args = false;
  std::vector<ArgValue> kept_args{};
  // rocprof's exact times of the event (args BeginNs, EndNs; -1: absent).
  int64_t begin_ns = -1, end_ns = -1;
  __attribute__((always_inline)) StringId Intern(std::string_view s) { return cache.Intern(b->strings(), s); }
};

// Returns a string's content without copying when it has no escapes.
__attribute__((always_inline)) inline error_code ReadString(od::value& v, std::string_view* out) {
  std::string_view tok = TrimRight(v.raw_json_token());
  if (tok.size() < 2 || tok.front() != '"' || tok.back() != '"') return simdjson::INCORRECT_TYPE;
  std::string_view inner = tok.substr(1, tok.size() - 2);
  if (std::memchr(inner.data(), '\\', inner.size()) == nullptr) {
    *out = inner;
    return simdjson::SUCCESS;
  }
  return v.get_string().get(*out);
}

// Compact JSON text of an array (whitespace outside strings removed).
error_code ReadArrayText(od::value& v, std::string* out) {
  od::array arr;
  if (auto e = v.get_array().get(arr)) return e;
  std::string_view raw;
  if (auto e = arr.raw_json().get(raw)) return e;
  // Written in place, not by push_back: a call per character when GCC does
  // not inline it.
  out->resize(raw.size());
  char* w = out->data();
  StringState str;
  for (char c : raw)
    if (str.Feed(c) || !IsSpace(c)) *w++ = c;
  out->resize(static_cast<size_t>(w - out->data()));
  return simdjson::SUCCESS;
}

inline void ReadPidTid(ReaderState& st, od::value& v, int64_t* out, uint64_t offset) {
  std::string_view tok = v.raw_json_token();
  if (!tok.empty() && tok[0] == '"') {
    std::string_view s;
    if (ReadString(v, &s) == simdjson::SUCCESS) {
      int64_t n;
      // Numeric strings ("7") are the number; other strings get their own id.
      if (ParseIntToken(s, &n))
        *out = n;
      else
        *out = kStringIdBase + st.Intern(s);
      return;
    }
  } else if (ParseIntToken(tok, out)) {
    return;
  }
  st.b->Warn(ImportStat::bad_field_type, offset);
}

inline void ReadTime(ReaderState& st, od::value& v, Ps128* out, bool* has, uint64_t offset) {
  Ps128 val;
  DecimalError e = ParseDecimalPs(TrimRight(v.raw_json_token()), kPsPerUs, &val);
  switch (e) {
    case DecimalError::kOk:
      *out = val;
      *has = true;
      return;
    case DecimalError::kNotANumber:
    case DecimalError::kSyntax:
    case DecimalError::kEmpty:
      st.b->Warn(ImportStat::bad_number, offset);
      break;
    case DecimalError::kOutOfRange:
      st.b->Warn(ImportStat::number_out_of_range, offset);
      break;
  }
  *has = false;
  *out = 0;
}

// The args mlprof keeps: integers, or arrays kept as compact JSON text.
struct ArgSlot {
  std::string_view key;
  int64_t EventRecord::*number;
  StringId EventRecord::*text;
};
constexpr ArgSlot kArgSlots[] = {
    {"External id", &EventRecord::external_id, nullptr},
    {"correlation", &EventRecord::correlation, nullptr},
    {"stream", &EventRecord::stream, nullptr},
    {"device", &EventRecord::device, nullptr},
    {"Input Dims", nullptr, &EventRecord::input_dims},
    {"Input type", nullptr, &EventRecord::input_types},
    {"Concrete Inputs", nullptr, &EventRecord::concrete_inputs},
    {"bytes", &EventRecord::bytes, nullptr},
    {"grid", nullptr, &EventRecord::grid},
    {"block", nullptr, &EventRecord::block},
    {"external id", &EventRecord::external_id, nullptr},     // 2021 schema
    {"correlation_id", &EventRecord::correlation, nullptr},  // xprof trace viewer
};

// The args xprof's trace viewer writes for an XLA op (from the XPlane stats;
// every value a string). Returns false for other keys.
bool ReadXlaArg(ReaderState& st, const char* k, od::raw_json_string key, od::value& val, uint64_t offset) {
  XlaOp& op = st.xla;
  auto text = [&](StringId* field) {
    std::string_view s;
    if (ReadString(val, &s) == simdjson::SUCCESS && !s.empty()) *field = st.Intern(s);
    st.xla_any = true;
    return true;
  };
  auto number = [&](double* field) {
    std::string_view tok = TrimRight(val.raw_json_token());
    if (tok.size() >= 2 && tok.front() == '"') tok = tok.substr(1, tok.size() - 2);
    double d = 0;
    auto [end, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), d);
    if (ec == std::errc() && end == tok.data() + tok.size() && d >= 0 && std::isfinite(d))
      *field = d;
    else
      st.b->Warn(ImportStat::bad_field_type, offset);
    st.xla_any = true;
    return true;
  };
  switch (k[0]) {
    case 'l':
      if (key == "long_name") {
        std::string_view s;
        if (ReadString(val, &s) == simdjson::SUCCESS && !s.empty() && s[0] == '%') {
          op.expression = st.Intern(s);
          st.xla_any = st.xla_anchor = true;
        }
        return true;
      }
      return false;
    case 'h':
      if (key == "hlo_op") return st.xla_anchor = true, text(&op.hlo_op);
      if (key == "hlo_module") return st.xla_anchor = true, text(&op.module);
      if (key == "hlo_category") return st.xla_anchor = true, text(&op.category);
      return false;
    case 't':
      return key == "tf_op" && text(&op.tf_op);
    case 's':
      return key == "source" && text(&op.source);
    case 'f':
      return key == "flops" && number(&op.flops);
    case 'm':
      return key == "model_flops" && number(&op.model_flops);
    case 'b':
      return key == "bytes_accessed" && number(&op.bytes_accessed);
    case 'p':
      if (key == "program_id") {
        int64_t n;
        if (ParseIntToken(val.raw_json_token(), &n)) op.program_id = n;
        st.xla_any = true;
        return true;
      }
      return false;
    default:
      return false;
  }
}

// The args of an event kept whole in the args table (memory events): each
// scalar as a typed ArgValue (integers exact, other numbers as doubles,
// strings, booleans as 0/1); arrays, objects and null are left out. Apart
// from ReadArgs, which stays as small as the hot path needs (inlined into
// it, this cost every event 4% more instructions).
// With ReadOptions::all_args: an arg that no rule above took, kept in the
// args table (integers exact, other numbers as doubles, strings, booleans as
// 0/1, arrays as compact JSON text; objects and null left out). Reads the
// value's raw token, so a number a counter series already read is fine.
// `key_read`: the key when ReadArgs has already unescaped it (simdjson
// unescapes a key once: a second read is undefined).
__attribute__((noinline)) error_code KeepOtherArg(ReaderState& st, od::field& field, od::value& val, bool key_consumed,
                                                  StringId key_read) {
  StringId key = key_read;
  if (!key_consumed) {
    std::string_view ks;
    if (field.unescaped_key().get(ks) != simdjson::SUCCESS) return simdjson::SUCCESS;
    key = st.b->strings().Intern(ks);
  }
  const std::string_view tok = TrimRight(val.raw_json_token());
  if (tok.empty()) return simdjson::SUCCESS;
  std::string_view s;
  if (tok[0] == '-' || (tok[0] >= '0' && tok[0] <= '9')) {
    // As written: an integer when the token is one (5), else a real (5.0,
    // 1e3), so a value keeps the type its writer gave it.
    int64_t n;
    double d;
    const auto [iend, iec] = std::from_chars(tok.data(), tok.data() + tok.size(), n);
    if (iec == std::errc() && iend == tok.data() + tok.size()) {
      st.kept_args.push_back(ArgValue::Int(key, n));
    } else {
      const auto [end, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), d);
      if (ec == std::errc() && end == tok.data() + tok.size()) st.kept_args.push_back(ArgValue::Real(key, d));
    }
  } else if (tok[0] == '"') {
    if (ReadString(val, &s) == simdjson::SUCCESS || val.get_string().get(s) == simdjson::SUCCESS)
      st.kept_args.push_back(ArgValue::String(key, st.Intern(s)));
  } else if (tok == "true" || tok == "false") {
    st.kept_args.push_back(ArgValue::Int(key, tok == "true"));
  } else if (tok[0] == '[') {
    if (auto err = ReadArrayText(val, &st.scratch)) return err;
    st.kept_args.push_back(ArgValue::String(key, st.Intern(st.scratch)));
  }
  return simdjson::SUCCESS;
}

__attribute__((noinline)) error_code ReadKeptArgs(ReaderState& st, od::value& v, uint64_t offset) {
  od::object args;
  if (auto err = v.get_object().get(args)) {
    if (err == simdjson::INCORRECT_TYPE) {
      st.b->Warn(ImportStat::bad_field_type, offset);
      return simdjson::SUCCESS;
    }
    return err;
  }
  for (auto field_res : args) {
    if (auto err = field_res.error()) return err;
    od::field& field = field_res.value_unsafe();
    std::string_view ks;
    if (auto err = field.unescaped_key().get(ks)) return err;
    const StringId key = st.b->strings().Intern(ks);
    od::value& val = field.value();
    std::string_view tok = TrimRight(val.raw_json_token());
    if (tok.empty()) continue;
    int64_t n;
    double d;
    std::string_view s;
    if (ParseIntToken(tok, &n)) {
      st.kept_args.push_back(ArgValue::Int(key, n));
    } else if ((tok[0] == '-' || (tok[0] >= '0' && tok[0] <= '9')) && val.get_double().get(d) == simdjson::SUCCESS) {
      st.kept_args.push_back(ArgValue::Real(key, d));
    } else if (tok[0] == '"' && val.get_string().get(s) == simdjson::SUCCESS) {
      st.kept_args.push_back(ArgValue::String(key, st.b->strings().Intern(s)));
    } else if (tok == "true" || tok == "false") {
      st.kept_args.push_back(ArgValue::Int(key, tok == "true"));
    }
  }
  return simdjson::SUCCESS;
}

error_code ReadArgs(ReaderState& st, od::value& v, EventRecord& e, StringId* meta_name, bool collect_numbers,
                    bool collect_xla) {
  od::object args;
  if (auto err = v.get_object().get(args)) {
    if (err == simdjson::INCORRECT_TYPE) {
      st.b->Warn(ImportStat::bad_field_type, e.offset);
      return simdjson::SUCCESS;
    }
    return err;
  }
  struct {
    std::string name, dtype;
    int64_t in = -1, out = -1, group = -1;
  } comm;
  for (auto field_res : args) {
    if (auto err = field_res.error()) return err;
    od::field& field = field_res.value_unsafe();
    od::raw_json_string key = field.key();
    od::value& val = field.value();
    const char* k = key.raw();
    bool kept = false;
    // rocprof's args (io/rocprof_conventions.h): the exact ns times, the
    // device and HIP stream of a GPU or copy op, a HIP call's sizeBytes in
    // its args text ("( dst(..) src(..) sizeBytes(24) kind(1) ...)").
    if ((k[0] == 'B' && key == "BeginNs") || (k[0] == 'E' && key == "EndNs")) {
      int64_t n;
      if (ParseIntToken(val.raw_json_token(), &n) && n >= 0) (k[0] == 'B' ? st.begin_ns : st.end_ns) = n;
      continue;
    }
    if ((k[0] == 'd' && key == "dev-id") || (k[0] == 's' && key == "stream-id")) {
      int64_t n;
      if (ParseIntToken(val.raw_json_token(), &n))
        st.kept_args.push_back(ArgValue::Int(st.Intern(k[0] == 'd' ? "dev-id" : "stream-id"), n));
      continue;
    }
    if (k[0] == 'a' && key == "args" && val.raw_json_token().substr(0, 1) == "\"") {
      std::string_view s;
      if (ReadString(val, &s) == simdjson::SUCCESS) {
        const int64_t n = HipArgsSizeBytes(s);
        if (n >= 0) e.bytes = n;
      }
      continue;
    }
    // Ascend hardware tasks' type (torch_npu trace_view.json): what the task
    // ran on, read by io/ascend_conventions.cc.
    if (k[0] == 'T' && key == "Task Type") {
      std::string_view s;
      if (ReadString(val, &s) == simdjson::SUCCESS)
        st.kept_args.push_back(ArgValue::String(st.Intern("Task Type"), st.Intern(s)));
      continue;
    }
    // What a cuda_sync event waits on (stream and event syncs): read by the
    // critical path.
    if (k[0] == 'w') {
      static constexpr const char* kWaitKeys[] = {"wait_on_stream", "wait_on_cuda_event_record_corr_id",
                                                  "wait_on_cuda_event_id"};
      const char* wait_key = nullptr;
      for (const char* w : kWaitKeys)
        if (key == w) wait_key = w;
      if (wait_key != nullptr) {
        int64_t n;
        if (ParseIntToken(val.raw_json_token(), &n)) st.kept_args.push_back(ArgValue::Int(st.Intern(wait_key), n));
        continue;
      }
    }
    // The collective's process group and splits (mlprof collectives):
    // kept as args, as written ("[0, 1]" strings or arrays).
    if (k[0] == 'P' || k[0] == 'I' || k[0] == 'O') {
      static constexpr const char* kCommKeys[] = {"Process Group Name", "Process Group Ranks", "In split size",
                                                  "Out split size"};
      const char* comm_key = nullptr;
      for (const char* w : kCommKeys)
        if (key == w) comm_key = w;
      if (comm_key != nullptr) {
        std::string_view s;
        const std::string_view tok = val.raw_json_token();
        if (!tok.empty() && tok[0] == '[') {
          if (auto err = ReadArrayText(val, &st.scratch)) return err;
          st.kept_args.push_back(ArgValue::String(st.Intern(comm_key), st.Intern(st.scratch)));
        } else if (ReadString(val, &s) == simdjson::SUCCESS) {
          st.kept_args.push_back(ArgValue::String(st.Intern(comm_key), st.Intern(s)));
        }
        continue;
      }
    }
    // The collective's description (record_param_comms, NCCL kernels).
    if (k[0] == 'C' || k[0] == 'I' || k[0] == 'O' || k[0] == 'G' || k[0] == 'd') {
      std::string_view s;
      int64_t n;
      if (key == "Collective name" && ReadString(val, &s) == simdjson::SUCCESS)
        comm.name = std::string(s), kept = true;
      else if (key == "dtype" && ReadString(val, &s) == simdjson::SUCCESS)
        comm.dtype = std::string(s), kept = true;
      else if (key == "In msg nelems" && ParseIntToken(val.raw_json_token(), &n))
        comm.in = n, kept = true;
      else if (key == "Out msg nelems" && ParseIntToken(val.raw_json_token(), &n))
        comm.out = n, kept = true;
      else if (key == "Group size" && ParseIntToken(val.raw_json_token(), &n))
        comm.group = n, kept = true;
      else if (key == "Call stack" && ReadString(val, &s) == simdjson::SUCCESS)
        e.stack = st.Intern(s), kept = true;
      if (kept) continue;
    }
    for (const ArgSlot& slot : kArgSlots) {
      if (k[0] != slot.key[0] || !(key == slot.key)) continue;
      kept = true;
      if (slot.number) {
        int64_t n;
        if (ParseIntToken(val.raw_json_token(), &n)) e.*slot.number = n;
      } else if (val.raw_json_token().substr(0, 1) == "[") {
        if (auto err = ReadArrayText(val, &st.scratch)) return err;
        e.*slot.text = st.Intern(st.scratch);
      }
      break;
    }
    // A counter's series may carry a slot's name ("bytes"): it stays a series.
    if (kept && !collect_numbers) continue;
    // A kernel's launch figures (the TensorBoard plugin's GPU summary).
    if ((k[0] == 'b' && key == kArgBlocksPerSm) || (k[0] == 'e' && key == kArgAchievedOccupancy)) {
      double d;
      std::string_view tok = TrimRight(val.raw_json_token());
      if (!tok.empty() && (tok[0] == '-' || (tok[0] >= '0' && tok[0] <= '9')) &&
          val.get_double().get(d) == simdjson::SUCCESS && std::isfinite(d) && d >= 0 && d <= 1e30)
        (k[0] == 'b' ? e.blocks_per_sm : e.occupancy) = static_cast<float>(d);
      continue;
    }
    if (collect_xla && ReadXlaArg(st, k, key, val, e.offset)) continue;
    if (meta_name && key == "name") {
      std::string_view s;
      if (ReadString(val, &s) == simdjson::SUCCESS) *meta_name = st.b->strings().Intern(s);
      continue;
    }
    // The unescaped key, once read: simdjson unescapes a key once (the empty
    // key interns as 0, so whether it was read is kept apart).
    StringId key_read = 0;
    bool key_consumed = false;
    if (collect_numbers) {
      std::string_view tok = TrimRight(val.raw_json_token());
      if (!tok.empty() && (tok[0] == '-' || (tok[0] >= '0' && tok[0] <= '9'))) {
        double d;
        if (val.get_double().get(d) == simdjson::SUCCESS) {
          std::string_view ks;
          key_consumed = true;
          if (field.unescaped_key().get(ks) == simdjson::SUCCESS) {
            // Keys live in the parser's string buffer only until the next
            // string read: intern at once.
            key_read = st.b->strings().Intern(ks);
            st.num_args.push_back({st.b->strings().Get(key_read), d});
          }
        }
      }
    }
    if (!kept && st.opts->all_args) {
      if (auto err = KeepOtherArg(st, field, val, key_consumed, key_read)) return err;
    }
  }
  if (!comm.name.empty()) {
    // ["allreduce", in, out, group, "Float"]: names quoted with \ and "
    // escaped (they come from the trace), control characters dropped.
    auto quoted = [](std::string* out, std::string_view v) {
      out->push_back('"');
      for (char c : v) {
        if (static_cast<unsigned char>(c) < 0x20) continue;
        if (c == '"' || c == '\\') out->push_back('\\');
        out->push_back(c);
      }
      out->push_back('"');
    };
    std::string& t = st.scratch;
    t.clear();
    t.push_back('[');
    quoted(&t, comm.name);
    t += "," + std::to_string(comm.in) + "," + std::to_string(comm.out) + "," + std::to_string(comm.group) + ",";
    quoted(&t, comm.dtype);
    t.push_back(']');
    e.comm = st.Intern(t);
  }
  return simdjson::SUCCESS;
}

error_code ReadEvent(ReaderState& st, od::object& obj, uint64_t offset) {
  EventRecord e;
  e.offset = offset;
  StringId meta_name = 0;
  bool bad_time = false, any_field = false;
  st.num_args.clear();
  st.kept_args.clear();
  st.keep_args = false;
  st.begin_ns = st.end_ns = -1;
  if (st.xla_any) {  // left by an event skipped after its args were read
    st.xla = XlaOp{};
    st.xla_any = st.xla_anchor = false;
  }
  for (auto field_res : obj) {
    if (auto err = field_res.error()) return err;
    od::field& field = field_res.value_unsafe();
    any_field = true;
    od::raw_json_string key = field.key();
    od::value& v = field.value();
    const char* k = key.raw();
    std::string_view s;
    switch (k[0]) {
      case 'p':
        if (key == "ph") {
          if (ReadString(v, &s) == simdjson::SUCCESS && !s.empty())
            e.ph = s[0];
          else
            st.b->Warn(ImportStat::bad_field_type, offset);
        } else if (key == "pid") {
          ReadPidTid(st, v, &e.pid, offset);
        }
        break;
      case 't':
        if (key == "ts") {
          ReadTime(st, v, &e.ts, &e.has_ts, offset);
          if (!e.has_ts) bad_time = true;
        } else if (key == "tid") {
          ReadPidTid(st, v, &e.tid, offset);
        }
        break;
      case 'd':
        if (key == "dur") {
          ReadTime(st, v, &e.dur, &e.has_dur, offset);
          if (!e.has_dur) bad_time = true;
        }
        break;
      case 'n':
        if (key == "name") {
          if (ReadString(v, &s) == simdjson::SUCCESS) {
            e.name = st.Intern(s);
            st.keep_args = st.keep_args || s == "[memory]";
          } else {
            st.b->Warn(ImportStat::bad_field_type, offset);
          }
        }
        break;
      case 'c':
        if (key == "cat") {
          if (ReadString(v, &s) == simdjson::SUCCESS) {
            e.cat = st.Intern(s);
            e.has_cat = true;
            e.kind = st.kinds.Of(e.cat, st.b->strings());
            // CUPTI range-profiler ranges keep their counters ("smsp__...").
            st.keep_args = st.keep_args || s == "[memory]" || s == "cuda_profiler_range";
          } else {
            st.b->Warn(ImportStat::bad_field_type, offset);
          }
        }
        break;
      case 'i':
        if (key == "id") {
          std::string_view tok = v.raw_json_token();
          int64_t n;
          if (ParseIntToken(tok, &n)) {
            e.id = n;
            e.has_id = true;
          } else if (ReadString(v, &s) == simdjson::SUCCESS) {
            e.id = static_cast<int64_t>(std::hash<std::string_view>{}(s) >> 1);
            e.has_id = true;
          }
        }
        break;
      case 'a':
        if (key == "args") {
          bool want_name = e.ph == 'M' || e.ph == 0;
          bool want_numbers = e.ph == 'C' || e.ph == 0;
          // Only once "ph" says X: a counter's args read before its "ph" must
          // stay counter series even when named like an XLA stat.
          bool want_xla = e.ph == 'X';
          if (st.keep_args) {
            if (auto err = ReadKeptArgs(st, v, offset)) return err;
          } else if (auto err = ReadArgs(st, v, e, want_name ? &meta_name : nullptr, want_numbers, want_xla)) {
            return err;
          }
        }
        break;
      default:
        break;
    }
  }
  if (!any_field) {
    st.b->Warn(ImportStat::trailing_empty_event, offset);
    return simdjson::SUCCESS;
  }
  if (e.ph == 0) {
    st.b->Warn(ImportStat::missing_ph, offset);
    return simdjson::SUCCESS;
  }
  if (bad_time) return simdjson::SUCCESS;  // already counted
  // rocprof writes ts and dur as whole microseconds (truncated) and the exact
  // times in ns beside them: the exact ones when they agree with ts (a trace
  // rebased by ROCP_JSON_REBASE keeps ts/dur).
  if (st.begin_ns >= 0 && st.end_ns >= st.begin_ns && e.ph == 'X' && e.has_ts &&
      e.ts == static_cast<Ps128>(st.begin_ns / 1000) * kPsPerUs) {
    e.ts = static_cast<Ps128>(st.begin_ns) * 1000;
    e.dur = static_cast<Ps128>(st.end_ns - st.begin_ns) * 1000;
    e.has_dur = true;
  }
  if (e.ph == 'M' || e.ph == 'C') st.b->CountEvent(e);
  if (e.ph == 'M') {
    std::string_view n = st.b->strings().Get(e.name);
    if (n == "process_name")
      st.b->SetProcessName(e.pid, meta_name);
    else if (n == "thread_name")
      st.b->SetThreadName(e.pid, e.tid, meta_name);
    return simdjson::SUCCESS;
  }
  if (e.ph == 'C') {
    for (const auto& a : st.num_args) st.b->AddCounter(e, st.b->strings().Intern(a.key), a.value);
    return simdjson::SUCCESS;
  }
  if (st.xla_any) {
    if (st.xla_anchor && e.ph == 'X') {
      if (st.xla.expression && !st.xla.hlo_op) st.xla.hlo_op = e.name;  // TPU: name is the short name
      e.xla = st.b->AddXlaOp(st.xla);
    }
    st.xla = XlaOp{};
    st.xla_any = st.xla_anchor = false;
  }
  // torch 1.x's legacy exporter (a profiler built without Kineto) writes no
  // "cat": its host ops are the events of the process "CPU functions".
  if (!e.has_cat && e.pid >= kStringIdBase &&
      st.b->strings().Get(static_cast<StringId>(e.pid - kStringIdBase)) == "CPU functions")
    e.kind = OpKind::kCpuOp;
  e.args = st.kept_args.data();
  e.arg_count = static_cast<uint32_t>(st.kept_args.size());
  st.b->AddEvent(e);
  return simdjson::SUCCESS;
}

uint64_t OffsetOf(const ReaderState& st, const char* p) {
  if (p < st.base || p > st.base + st.size) return st.size;
  return static_cast<uint64_t>(p - st.base);
}

// Iterates the events array. On a parse error, *err_at is where it happened.
error_code ReadEvents(ReaderState& st, od::array& arr, uint64_t* err_at) {
  for (auto elem_res : arr) {
    if (auto err = elem_res.error()) {
      const char* loc = nullptr;
      *err_at = st.doc && st.doc->current_location().get(loc) == simdjson::SUCCESS ? OffsetOf(st, loc) : st.size;
      return err;
    }
    od::value& elem = elem_res.value_unsafe();
    const char* loc = nullptr;
    uint64_t offset = elem.current_location().get(loc) == simdjson::SUCCESS ? OffsetOf(st, loc) : st.size;
    od::object obj;
    error_code err = elem.get_object().get(obj);
    if (err == simdjson::INCORRECT_TYPE) {
      st.b->Warn(ImportStat::event_not_object, offset);
      ++st.events;
      continue;
    }
    if (!err) err = ReadEvent(st, obj, offset);
    if (err) {
      *err_at = offset;
      return err;
    }
    if ((++st.events & 0xFFFF) == 0 && st.opts->progress) st.opts->progress(offset, st.size);
  }
  return simdjson::SUCCESS;
}

// Each deviceProperties object: the fields mlprof reads into DeviceProperties,
// and every scalar field (those included) as a device arg.
void ReadDeviceProperties(od::value& v, ProfileBuilder& b) {
  TraceMetadata& meta = b.meta();
  od::array arr;
  if (v.get_array().get(arr)) return;
  for (auto item : arr) {
    od::object o;
    if (item.get_object().get(o)) continue;
    DeviceProperties d;
    const auto device = static_cast<uint32_t>(meta.devices.size());
    for (auto f : o) {
      std::string_view key;
      if (f.unescaped_key().get(key)) break;
      const StringId key_id = b.strings().Intern(key);
      od::value val = f.value();
      std::string_view tok = TrimRight(val.raw_json_token());
      int64_t n = -1;
      double real;
      std::string_view s;
      if (!tok.empty() && tok[0] == '"') {
        if (!val.get_string().get(s)) {
          if (key == "name") d.name = std::string(s);
          b.AddDeviceArg(device, ArgValue::String(key_id, b.strings().Intern(s)));
        }
      } else if (ParseIntToken(tok, &n)) {
        if (key == "id")
          d.id = n;
        else if (key == "totalGlobalMem")
          d.total_global_mem = n;
        else if (key == "numSms")
          d.num_sms = n;
        else if (key == "computeMajor")
          d.compute_major = n;
        else if (key == "computeMinor")
          d.compute_minor = n;
        b.AddDeviceArg(device, ArgValue::Int(key_id, n));
      } else if (!tok.empty() && (tok[0] == '-' || (tok[0] >= '0' && tok[0] <= '9')) &&
                 val.get_double().get(real) == simdjson::SUCCESS) {
        b.AddDeviceArg(device, ArgValue::Real(key_id, real));
      }
    }
    meta.devices.push_back(std::move(d));
  }
}

void ReadDistributedInfo(od::value& v, TraceMetadata& meta) {
  od::object o;
  if (v.get_object().get(o)) return;
  meta.has_distributed_info = true;
  for (auto f : o) {
    std::string_view key;
    if (f.unescaped_key().get(key)) break;
    od::value val = f.value();
    int64_t n;
    if (key == "rank" && ParseIntToken(val.raw_json_token(), &n))
      meta.rank = n;
    else if (key == "world_size" && ParseIntToken(val.raw_json_token(), &n))
      meta.world_size = n;
    else if (key == "backend") {
      std::string_view s;
      if (!val.get_string().get(s)) meta.backend = std::string(s);
    }
  }
}

std::string DescribeNonTrace(const std::vector<std::string>& keys) {
  auto has = [&](std::string_view k) {
    for (auto& x : keys)
      if (x == k) return true;
    return false;
  };
  if (has("nodes") || has("schema")) return "; this looks like a PyTorch Execution Trace (Chakra ET)";
  if (has("rocprofiler-sdk-tool")) return "; this looks like rocprofv3 JSON output";
  return "";
}

// "byte N", or "decompressed byte N" when the file was compressed (offsets
// count the decoded text).
std::string ByteAt(uint64_t offset, bool decompressed) {
  return fmt::format("{}byte {}", decompressed ? "decompressed " : "", offset);
}

Status ParseError(const LoadedFile& file, uint64_t offset, error_code err, std::string_view expected) {
  const bool decompressed = file.compression != Compression::kNone;
  // An offset at or past the end names no byte: say where the data ends.
  const std::string where =
      offset >= file.bytes.size()
          ? fmt::format("the end of the {}data ({} bytes)", decompressed ? "decompressed " : "", file.bytes.size())
          : ByteAt(offset, decompressed);
  return DataLoss(fmt::format("{}: invalid JSON at {}: {} (expected {})", file.path, where,
                              simdjson::error_message(err), expected));
}

}  // namespace

bool LooksLikeChromeJson(std::string_view text) {
  size_t i = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") i = 3;
  while (i < text.size() && IsSpace(text[i])) ++i;
  return i < text.size() && (text[i] == '{' || text[i] == '[');
}

namespace {

// One Chrome/Kineto JSON text into a RankProfile: the text's start and end
// checked (a file cut short is repaired to its last complete event, damage
// in the middle refused), then one simdjson document, or, for large files,
// the events array in windows (ReadWindowed) so that simdjson's index stays
// small; the dialect (Kineto, rocprof, xprof, Ascend) decided last.
class ChromeTraceReader {
 public:
  ChromeTraceReader(LoadedFile& file, const ReadOptions& options, RankProfile* out)
      : file(file), options(options), out(out), builder(out) {}
  Status Read();

 private:
  Status FindStart();
  bool RepairUtf8Once();
  bool RepairTruncated();
  Status CheckEnd();
  Status ParseDocument(ReaderState& rs, char* doc, size_t len, size_t cap, bool may_repair);
  Status ReadWindowed(ReaderState& st, size_t events_open);
  Status Finish(const ReaderState& st);

  LoadedFile& file;
  const ReadOptions& options;
  RankProfile* out;
  ProfileBuilder builder;
  char* data = nullptr;
  size_t size = 0;
  size_t start = 0;            // the document's first byte (after a BOM and whitespace)
  bool utf8_repaired = false;  // RepairUtf8 runs once
  size_t utf8_from = 0;        // text before this offset was already parsed (and may be released)
  Status damage;               // RepairTruncated's finding: damage with events after it
  bool found_events = false;
  std::vector<std::string> keys;  // the top-level object's first keys (for "not a trace" errors)
};

thread_local od::parser parser;

Status ChromeTraceReader::FindStart() {
  data = file.bytes.data();
  size = file.bytes.size();
  if (size >= 3 && std::memcmp(data, "\xEF\xBB\xBF", 3) == 0) start = 3;  // UTF-8 BOM
  while (start < size && IsSpace(data[start])) ++start;
  if (start == size && file.truncated)
    return DataLoss(fmt::format("{}: the {} stream ends at compressed byte {} before any data", file.path,
                                CompressionName(file.compression), file.truncated_at));
  if (start == size) return DataLoss(fmt::format("{}: empty file: expected a JSON trace", file.path));
  if (data[start] != '{' && data[start] != '[')
    return DataLoss(
        fmt::format("{}: not JSON at byte {}: expected '{{' or '[' to start a Chrome trace, found {}", file.path, start,
                    static_cast<unsigned char>(data[start]) >= 32 && static_cast<unsigned char>(data[start]) < 127
                        ? fmt::format("'{}'", data[start])
                        : fmt::format("byte 0x{:02x}", static_cast<unsigned char>(data[start]))));

  return OkStatus();
}

// simdjson validates UTF-8 while indexing; on its UTF8_ERROR the whole text
// is repaired once (bad bytes become '?', counted) and parsing resumes.
bool ChromeTraceReader::RepairUtf8Once() {
  if (utf8_repaired) return false;
  utf8_repaired = true;
  uint64_t first = 0;
  uint64_t bad = RepairUtf8(data + utf8_from, size - utf8_from, &first);
  for (uint64_t i = 0; i < bad; ++i) builder.Warn(ImportStat::invalid_utf8, utf8_from + first);
  return bad > 0;
}

// A text that does not end with a closing bracket was cut short: keep the
// complete events, close the brackets, and parse that. (simdjson checks the
// root's closing bracket before the first element, so this must come first.)
// Damage in the middle (more events after the point where the text stops
// making sense) is not a file cut short: RepairTruncated() refuses it, and the
// caller returns this error instead.
bool ChromeTraceReader::RepairTruncated() {
  size_t cut = LastCompleteEventEnd(std::string_view(data, size));
  if (cut == 0) return false;
  if (HasEventStart(std::string_view(data + cut, size - cut))) {
    const bool dz = file.compression != Compression::kNone;
    // A raw control byte (JSON allows none, even in strings) is the fault
    // when there is one.
    std::string fault;
    for (size_t i = cut; i < size; ++i) {
      const auto c = static_cast<unsigned char>(data[i]);
      if (c < 0x20 && c != '\n' && c != '\r' && c != '\t') {
        fault = fmt::format(": control byte 0x{:02x} at {}", c, ByteAt(i, dz));
        break;
      }
    }
    damage = DataLoss(fmt::format(
        "{}: invalid JSON in the event after {}{}; more events follow, so the file is damaged, not cut short "
        "(expected a trace event object)",
        file.path, ByteAt(cut, dz), fault));
    return false;
  }
  std::string_view close = data[start] == '[' ? "]" : "]}";
  file.bytes.Resize(cut + close.size());
  data = file.bytes.data();
  std::memcpy(data + cut, close.data(), close.size());
  size = file.bytes.size();
  out->decoded_bytes = size;
  builder.Warn(ImportStat::truncated_json, cut);
  return true;
}

// A text that does not end with a closing bracket: cut short (repaired) or
// followed by something else (refused).
Status ChromeTraceReader::CheckEnd() {
  size_t last = size;
  while (last > start && (IsSpace(data[last - 1]) || data[last - 1] == '\0')) --last;
  char c = last > start ? data[last - 1] : 0;
  if (c != '}' && c != ']') {
    // A document that closes before the end is followed by something else
    // (a log line, a second document): refused, never dropped silently.
    const size_t end = DocumentEnd(std::string_view(data, size), start);
    if (end != std::string_view::npos) {
      size_t junk = end;
      while (junk < size && (IsSpace(data[junk]) || data[junk] == '\0')) ++junk;
      return DataLoss(fmt::format(
          "{}: data after the end of the JSON document at {}: expected only whitespace after the trace's last "
          "'{}' (at {})",
          file.path, ByteAt(junk, file.compression != Compression::kNone), data[end - 1],
          ByteAt(end - 1, file.compression != Compression::kNone)));
    }
    if (!RepairTruncated())
      return !damage.ok() ? damage
                          : ParseError(file, size, simdjson::INCOMPLETE_ARRAY_OR_OBJECT,
                                       "a complete trace event before the end of the file");
  }
  return OkStatus();
}

// Parses the complete JSON document [doc, doc + len) inside the buffer
// (offsets in errors and stats stay relative to st.base). With `may_repair`,
// a document that proves truncated only now is repaired and parsed again.
Status ChromeTraceReader::ParseDocument(ReaderState& rs, char* doc, size_t len, size_t cap, bool may_repair) {
  od::document d;
  // After RepairTruncated() (which may move the buffer): the whole repaired text is
  // the document, parsed again.
  auto reparse = [&]() -> error_code {
    rs.base = data;
    rs.size = size;
    doc = data + start;
    len = size - start;
    cap = len + kBufferPadding;
    return parser.iterate(simdjson::padded_string_view(doc, len, cap)).get(d);
  };
  error_code err = parser.iterate(simdjson::padded_string_view(doc, len, cap)).get(d);
  if (err == simdjson::UTF8_ERROR && rs.base == data && RepairUtf8Once())
    err = parser.iterate(simdjson::padded_string_view(doc, len, cap)).get(d);
  if (err == simdjson::UNESCAPED_CHARS) {
    // A raw control byte inside a string: damage at that byte, unless it
    // lies in the last, partial event of a file cut short.
    const size_t bad = FirstControlInString(std::string_view(doc, len));
    if (bad != std::string_view::npos && HasEventStart(std::string_view(doc + bad, len - bad)))
      return DataLoss(fmt::format(
          "{}: invalid JSON at {}: control byte 0x{:02x} inside a string (JSON allows none there; escape it as "
          "\\u{:04x}); more events follow, so the file is damaged",
          file.path, ByteAt(OffsetOf(rs, doc + bad), file.compression != Compression::kNone),
          static_cast<unsigned char>(doc[bad]), static_cast<unsigned char>(doc[bad])));
  }
  if ((err == simdjson::UNCLOSED_STRING || err == simdjson::UNESCAPED_CHARS) && may_repair &&
      out->stats.Get(ImportStat::truncated_json) == 0) {
    // Ends inside a string whose text happens to end with a bracket.
    if (!RepairTruncated())
      return !damage.ok() ? damage : ParseError(file, size, err, "a complete trace event before the end of the file");
    err = reparse();
  }
  if (err) return ParseError(file, OffsetOf(rs, doc), err, "a JSON document");
  rs.doc = &d;
  uint64_t doc_at = OffsetOf(rs, doc);
  od::json_type type;
  if ((err = d.type().get(type))) return ParseError(file, doc_at, err, "a JSON object or array");
  uint64_t err_at = 0;
  if (type == od::json_type::array) {
    out->format = TraceFormat::kChromeJsonArray;
    od::array arr;
    err = d.get_array().get(arr);
    if (err == simdjson::INCOMPLETE_ARRAY_OR_OBJECT && may_repair && out->stats.Get(ImportStat::truncated_json) == 0 &&
        RepairTruncated()) {
      if ((err = reparse()) || (err = d.get_array().get(arr)))
        return ParseError(file, start, err, "an array of events");
    } else if (err) {
      if (!damage.ok()) return damage;
      return ParseError(file, doc_at, err, "an array of events");
    }
    found_events = true;
    err = ReadEvents(rs, arr, &err_at);
  } else if (type == od::json_type::object) {
    od::object top;
    err = d.get_object().get(top);
    if (err == simdjson::INCOMPLETE_ARRAY_OR_OBJECT && may_repair && out->stats.Get(ImportStat::truncated_json) == 0 &&
        RepairTruncated()) {
      // The object never closes (its last '}' is missing): cut after the
      // last complete event, as for a file cut short.
      if ((err = reparse()) || (err = d.get_object().get(top))) return ParseError(file, start, err, "an object");
    } else if (err) {
      if (!damage.ok()) return damage;
      return ParseError(file, doc_at, err, "an object");
    }
    int events_keys = 0;
    for (auto field_res : top) {
      od::field field;
      if ((err = std::move(field_res).get(field))) {
        const char* loc = nullptr;
        err_at = d.current_location().get(loc) == simdjson::SUCCESS ? OffsetOf(rs, loc) : rs.size;
        break;
      }
      std::string_view key;
      if ((err = field.unescaped_key().get(key))) break;
      if (keys.size() < 8) keys.emplace_back(key);
      od::value v = field.value();
      if (key == "traceEvents") {
        // JSON leaves duplicate keys to the reader: mlprof refuses a second
        // events array rather than pick one of them silently.
        if (++events_keys > 1) {
          // The key's offset: the last "traceEvents" before where the
          // parser stands (just past the key).
          const char* loc = nullptr;
          size_t here = d.current_location().get(loc) == simdjson::SUCCESS && loc ? OffsetOf(rs, loc) : rs.size;
          size_t at = std::string_view(rs.base, std::min<size_t>(here + 16, rs.size)).rfind("\"traceEvents\"");
          return DataLoss(fmt::format(
              "{}: a second \"traceEvents\" key at {}: a trace has one events array (two traces merged "
              "into one object?)",
              file.path, ByteAt(at == std::string_view::npos ? here : at, file.compression != Compression::kNone)));
        }
        od::array arr;
        if ((err = v.get_array().get(arr))) {
          if (err == simdjson::INCORRECT_TYPE)
            return DataLoss(fmt::format("{}: \"traceEvents\" is not an array", file.path));
          break;
        }
        found_events = true;
        if ((err = ReadEvents(rs, arr, &err_at))) break;
      } else if (key == "deviceProperties") {
        ReadDeviceProperties(v, builder);
      } else if (key == "distributedInfo") {
        ReadDistributedInfo(v, builder.meta());
      } else if (key == "schemaVersion") {
        int64_t n;
        if (ParseIntToken(v.raw_json_token(), &n)) builder.meta().schema_version = n;
      } else if (key == "baseTimeNanoseconds") {
        int64_t n;
        if (ParseIntToken(v.raw_json_token(), &n)) builder.meta().base_time_ns = n;
      }
    }
    if (builder.meta().schema_version >= 0 || builder.meta().has_distributed_info) out->format = TraceFormat::kKineto;
  } else {
    return DataLoss(fmt::format("{}: the JSON document is not an object or array", file.path));
  }
  if (err) {
    // Truncation keeps what was read: the error lies after the last complete
    // event (the text ends early, or the closing brackets are missing). An
    // error before that point is corruption in the middle of the data.
    if (!found_events) return ParseError(file, err_at, err, "\"traceEvents\"");
    size_t last_complete = OffsetOf(rs, doc) + LastCompleteEventEnd(std::string_view(doc, len));
    if (err_at < last_complete) return ParseError(file, err_at, err, "a trace event object");
    // Damage followed by more events is corruption, not a file cut short,
    // even where the damage hides the events from the bracket count above.
    const size_t rel = err_at > OffsetOf(rs, doc) ? err_at - OffsetOf(rs, doc) : 0;
    if (rel < len && HasEventStart(std::string_view(doc + rel, len - rel)))
      return ParseError(file, err_at, err, "a trace event object (the data goes on after the damage)");
    if (out->stats.Get(ImportStat::truncated_json) == 0) builder.Warn(ImportStat::truncated_json, err_at);
  } else if (const char* loc = nullptr;
             d.current_location().get(loc) == simdjson::SUCCESS && loc && loc >= rs.base && loc < rs.base + rs.size) {
    // A second document (or anything else) after the first one:
    // simdjson stops at the first document's end.
    const uint64_t at = OffsetOf(rs, loc);
    return DataLoss(
        fmt::format("{}: data after the end of the JSON document at {}: expected only whitespace "
                    "after the trace (is it two traces in one file?)",
                    file.path, ByteAt(at, file.compression != Compression::kNone)));
  }
  return OkStatus();
}

// Large input: parse the events array in windows of about window_bytes so
// that simdjson's structural index (4 bytes per structural character, about
// the size of the text itself) stays small.
Status ChromeTraceReader::ReadWindowed(ReaderState& st, size_t events_open) {
  // Large input: parse the events array in windows of about window_bytes so
  // that simdjson's structural index (4 bytes per structural character,
  // about the size of the text itself) stays small. A window is the text
  // between two commas, made an array in place by writing '[' over the
  // byte before it and ']' over the comma after it (restored afterwards).
  // An event is added only once its whole object has been read, so a cut
  // inside an event makes that event fail at the cut and the next window
  // restarts at its first byte.
  if (data[start] == '{') {
    if (!simdjson::validate_utf8(data, events_open + 1)) RepairUtf8Once();
    std::string prefix(data, events_open + 1);
    prefix += "]}";
    prefix.append(kBufferPadding, '\0');
    ReaderState ps = st;
    ps.base = prefix.data();
    ps.size = events_open + 3;
    RETURN_IF_ERROR(ParseDocument(ps, prefix.data() + start, events_open + 3 - start, prefix.size(), false));
  }
  size_t pos = events_open + 1;
  size_t window = std::max<size_t>(options.window_bytes, 64);
  size_t limit = pos + window;
  int string_cuts = 0;
  while (size - pos > 2 * window && string_cuts < 64) {
    size_t cut = FindCutBefore(std::string_view(data, size), pos, limit);
    if (cut == 0) {
      window *= 2;
      limit = pos + window;
      continue;
    }
    char saved_open = data[pos - 1], saved_cut = data[cut];
    data[pos - 1] = '[';
    data[cut] = ']';
    od::document wd;
    uint64_t err_at = pos;
    const char* fail_loc = nullptr;
    bool iterate_failed = false;
    error_code err =
        parser.iterate(simdjson::padded_string_view(data + pos - 1, cut + 2 - pos, size - pos + 1 + kBufferPadding))
            .get(wd);
    if (err) {
      iterate_failed = true;
    } else {
      od::array arr;
      st.doc = &wd;
      err = wd.get_array().get(arr);
      if (!err) err = ReadEvents(st, arr, &err_at);
      if (err && wd.current_location().get(fail_loc) != simdjson::SUCCESS) fail_loc = nullptr;
    }
    // The events array closed inside the window (what follows it is more
    // keys, or a second document): simdjson stops at that bracket, so the
    // rest of the window is left to the final parse, from the bracket on.
    size_t closed_at = 0;
    if (!err) {
      const char* loc = nullptr;
      if (wd.current_location().get(loc) == simdjson::SUCCESS && loc && loc < data + cut) {
        size_t q = static_cast<size_t>(loc - data);
        while (q > pos && data[q - 1] != ']') --q;
        if (q > pos) closed_at = q - 1;
      }
    }
    data[pos - 1] = saved_open;
    data[cut] = saved_cut;
    if (closed_at) {
      pos = closed_at;
      break;
    }
    if (!err) {
      pos = cut + 1;
      limit = pos + window;
      string_cuts = 0;
      // The text before pos is never read again: give its pages back, so
      // that peak memory is the model plus about one window, not the
      // whole input on top of the model. (A margin stays for the bytes
      // written before the next window.)
      ReleasePages(data + events_open + 1, data + pos - 64);
      utf8_from = pos;
      continue;
    }
    if (iterate_failed && err == simdjson::UTF8_ERROR && RepairUtf8Once()) continue;  // same window again
    if (iterate_failed) {
      // The comma was inside a string: cut at an earlier comma.
      ++string_cuts;
      limit = cut;
      continue;
    }
    bool at_cut = fail_loc == nullptr || fail_loc >= data + cut;
    if (!at_cut) return ParseError(file, err_at, err, "a trace event object");
    if (err_at <= pos) {  // not one whole event in the window: widen it
      window *= 2;
    } else {
      pos = err_at;
    }
    limit = pos + window;
  }
  // The rest, with the keys after the events, as one document.
  size_t begin;
  if (data[start] == '{') {
    // Overwrites text already read (the prefix keys or earlier events).
    constexpr std::string_view kOpen = "{\"traceEvents\":[";
    if (pos >= start + kOpen.size()) {
      begin = pos - kOpen.size();
      std::memcpy(data + begin, kOpen.data(), kOpen.size());
    } else {
      begin = start;  // too close to the start for other keys to precede
    }
  } else {
    begin = pos - 1;
    data[begin] = '[';
  }
  st.doc = nullptr;
  size_t content_end = size;
  while (content_end > begin && (IsSpace(data[content_end - 1]) || data[content_end - 1] == '\0')) --content_end;
  // A document that never closes (its last bracket missing) was cut short,
  // as on the whole-document path: keep the events up to the last complete
  // one, unless more events follow the damage.
  if (DocumentEnd(std::string_view(data + begin, content_end - begin), 0) == std::string_view::npos) {
    const size_t cut = begin + LastCompleteEventEnd(std::string_view(data + begin, content_end - begin));
    if (cut > begin) {
      if (HasEventStart(std::string_view(data + cut, content_end - cut)))
        return ParseError(file, cut, simdjson::TAPE_ERROR, "a trace event object; more events follow the damage");
      const std::string_view close = data[start] == '[' ? "]" : "]}";
      file.bytes.Resize(cut + close.size());
      data = file.bytes.data();
      std::memcpy(data + cut, close.data(), close.size());
      size = content_end = cut + close.size();
      st.base = data;
      st.size = size;
      builder.Warn(ImportStat::truncated_json, cut);
    }
  }
  RETURN_IF_ERROR(ParseDocument(st, data + begin, content_end - begin, size - begin + kBufferPadding, false));

  return OkStatus();
}

Status ChromeTraceReader::Finish(const ReaderState& st) {
  if (st.events > 0 && out->format == TraceFormat::kChromeJsonArray) {
    uint64_t with_phase = 0;
    for (uint64_t c : out->phase_counts) with_phase += c;
    if (with_phase == 0)
      return WrongFormat(
          fmt::format("{}: a JSON array of {} elements, none of them a trace event (an object with "
                      "\"ph\"), so it is not a Chrome/Kineto trace",
                      file.path, st.events));
  }
  if (!found_events) {
    std::string listed;
    for (auto& k : keys) listed += (listed.empty() ? "" : ", ") + k;
    return WrongFormat(
        fmt::format("{}: JSON has no \"traceEvents\" array, so it is not a Chrome/Kineto trace "
                    "(top-level keys: {}){}",
                    file.path, listed.empty() ? "none" : listed, DescribeNonTrace(keys)));
  }
  // Every string is interned by now: give the text back before building.
  file.bytes = PaddedBuffer();
  if (AdoptAscendConventions(builder)) {
    out->format = TraceFormat::kAscendTraceView;
    ReadAscendSidecars(file.path, builder);
  }
  if (AdoptXSpaceConventions(builder)) {
    out->format = TraceFormat::kXprofTraceJson;
    // The exporter keeps the earliest `cap` complete events and drops the
    // rest without a mark: exactly a cap's worth means it probably did.
    const uint64_t complete = out->phase_counts[static_cast<unsigned char>('X')];
    for (uint64_t cap : options.trace_viewer_caps)
      if (complete == cap) builder.Warn(ImportStat::trace_viewer_cap, size);
  } else if (out->format != TraceFormat::kAscendTraceView) {
    if (AdoptRocprofConventions(builder, file.path))
      out->format = TraceFormat::kRocprofJson;
    else
      WarnUnreadDeviceLanes(builder, file.path);
  }
  return builder.Finish();
}

Status ChromeTraceReader::Read() {
  DescribeFile(file, TraceFormat::kChromeJson, out);
  builder.ReserveForInput(file.bytes.size());
  if (file.truncated) builder.Warn(ImportStat::truncated_compressed, file.bytes.size());
  RETURN_IF_ERROR(FindStart());
  RETURN_IF_ERROR(CheckEnd());
  ReaderState st{&builder, data, size, &options, nullptr, 0, {}, {}, false, false, {}, {}};
  size_t events_open = size >= options.windowed_min_bytes ? FindEventsArray(std::string_view(data, size), start) : 0;
  if (events_open == 0) {
    // Whitespace and NUL padding after the document are not part of it.
    size_t content_end = size;
    while (content_end > start && (IsSpace(data[content_end - 1]) || data[content_end - 1] == '\0')) --content_end;
    RETURN_IF_ERROR(ParseDocument(st, data + start, content_end - start, size - start + kBufferPadding, true));
  } else {
    RETURN_IF_ERROR(ReadWindowed(st, events_open));
  }
  return Finish(st);
}

}  // namespace

Status ReadChromeTrace(LoadedFile& file, const ReadOptions& options, RankProfile* out) {
  return ChromeTraceReader(file, options, out).Read();
}

}  // namespace mlprof

#ifdef MLPROF_HASWELL_REGION
#pragma GCC pop_options
#endif
