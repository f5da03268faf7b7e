#include "base/serving_step.h"

#include <array>

namespace mlprof {

std::string_view ServingEngineName(ServingEngine e) { return e == ServingEngine::kVllm ? "vllm" : "sglang"; }

std::string_view ServingStepKindName(ServingStepKind k) {
  switch (k) {
    case ServingStepKind::kPrefill:
      return "prefill";
    case ServingStepKind::kDecode:
      return "decode";
    case ServingStepKind::kMixed:
      return "mixed";
    case ServingStepKind::kIdle:
      return "idle";
    case ServingStepKind::kOther:
      break;
  }
  return "other";
}

namespace {

// Reads a decimal number at the front of `s` (advancing it); false if none or
// it overflows.
bool TakeNumber(std::string_view& s, int64_t& out) {
  size_t i = 0;
  int64_t v = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    if (v > (INT64_MAX - 9) / 10) return false;
    v = v * 10 + (s[i] - '0');
    ++i;
  }
  if (i == 0) return false;
  out = v;
  s.remove_prefix(i);
  return true;
}

bool TakeLiteral(std::string_view& s, std::string_view lit) {
  if (!s.starts_with(lit)) return false;
  s.remove_prefix(lit.size());
  return true;
}

// "(sq<a>sk<b>sqsq<c>sqsk<d>)": a, b (c and d are read and dropped).
bool TakeStats(std::string_view& s, int64_t& sq, int64_t& sk) {
  int64_t sqsq = 0, sqsk = 0;
  return TakeLiteral(s, "(sq") && TakeNumber(s, sq) && TakeLiteral(s, "sk") && TakeNumber(s, sk) &&
         TakeLiteral(s, "sqsq") && TakeNumber(s, sqsq) && TakeLiteral(s, "sqsk") && TakeNumber(s, sqsk) &&
         TakeLiteral(s, ")");
}

std::optional<ServingStepInfo> ParseVllm(std::string_view s) {
  ServingStepInfo info;
  info.engine = ServingEngine::kVllm;
  int64_t tokens = 0, ctx = 0, gen = 0, ctx_sq = 0, ctx_sk = 0, gen_sq = 0, gen_sk = 0;
  if (!(TakeLiteral(s, "execute_") && TakeNumber(s, tokens) && TakeLiteral(s, "_context_") && TakeNumber(s, ctx) &&
        TakeStats(s, ctx_sq, ctx_sk) && TakeLiteral(s, "_generation_") && TakeNumber(s, gen) &&
        TakeStats(s, gen_sq, gen_sk) && s.empty()))
    return std::nullopt;
  if (ctx > INT64_MAX - gen || ctx_sk > INT64_MAX - gen_sk) return std::nullopt;
  info.tokens = tokens;
  info.prefill_requests = ctx;
  info.decode_requests = gen;
  info.requests = ctx + gen;
  info.prefill_tokens = ctx_sq;
  info.decode_tokens = gen_sq;
  info.kv_tokens = ctx_sk + gen_sk;
  info.kind = ctx > 0 && gen > 0 ? ServingStepKind::kMixed
              : ctx > 0          ? ServingStepKind::kPrefill
              : gen > 0          ? ServingStepKind::kDecode
                                 : ServingStepKind::kIdle;
  return info;
}

std::optional<ServingStepInfo> ParseSglang(std::string_view s) {
  if (!TakeLiteral(s, "step[") || !s.ends_with("]")) return std::nullopt;
  s.remove_suffix(1);
  ServingStepInfo info;
  info.engine = ServingEngine::kSglang;
  size_t sp = s.find(' ');
  std::string_view mode = s.substr(0, sp);
  if (mode.empty()) return std::nullopt;
  for (char c : mode)
    if (!((c >= 'A' && c <= 'Z') || c == '_')) return std::nullopt;  // "step[0]" is not SGLang's
  struct ModeName {
    std::string_view name;
    ServingStepKind kind;
  };
  static constexpr std::array<ModeName, 5> kModes{{{"DECODE", ServingStepKind::kDecode},
                                                   {"EXTEND", ServingStepKind::kPrefill},
                                                   {"PREFILL", ServingStepKind::kPrefill},
                                                   {"MIXED", ServingStepKind::kMixed},
                                                   {"IDLE", ServingStepKind::kIdle}}};
  for (const ModeName& m : kModes)
    if (mode == m.name) info.kind = m.kind;
  s = sp == std::string_view::npos ? std::string_view{} : s.substr(sp + 1);
  // key=value pairs separated by spaces; integers are kept.
  while (!s.empty()) {
    size_t end = s.find(' ');
    std::string_view pair = s.substr(0, end);
    s = end == std::string_view::npos ? std::string_view{} : s.substr(end + 1);
    size_t eq = pair.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view key = pair.substr(0, eq), val = pair.substr(eq + 1);
    int64_t v = 0;
    if (!TakeNumber(val, v) || !val.empty()) continue;
    if (key == "bs") info.requests = v;
    if (key == "num_tokens" || key == "tokens") info.tokens = v;
  }
  if (info.kind == ServingStepKind::kDecode && info.requests >= 0) {
    // A decode step runs one token per request (no speculative decoding).
    info.decode_requests = info.requests;
    if (info.tokens < 0) info.tokens = info.requests;
    info.decode_tokens = info.tokens;
    info.prefill_requests = 0;
    info.prefill_tokens = 0;
  }
  return info;
}

}  // namespace

std::optional<ServingStepInfo> ParseServingStep(std::string_view name) {
  if (name.starts_with("execute_")) return ParseVllm(name);
  if (name.starts_with("step[")) return ParseSglang(name);
  return std::nullopt;
}

}  // namespace mlprof
