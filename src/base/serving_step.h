// Serving engines' step annotations: what one scheduler iteration ran.
// Serving engines record no ProfilerStep#N; each model step is a host
// record_function range whose name carries the batch:
//  * vLLM (v1 GPU model runner):
//      execute_<tokens>_context_<C>(<stats>)_generation_<G>(<stats>)
//    <tokens> scheduled tokens, C requests in prefill ("context"), G in decode
//    ("generation"); <stats> = sq<a>sk<b>sqsq<c>sqsk<d>: the sums over those
//    requests of query tokens, key (context) tokens, query^2 and query*key.
//  * SGLang (scheduler): step[<MODE> bs=<N> ...]; MODE DECODE, EXTEND or
//    PREFILL, MIXED, IDLE; other key=value pairs (num_tokens=) are read when
//    they are integers.
// The builder makes these ranges the profile's steps when there are no
// ProfilerStep#N; `mlprof steps` reads the batch from the name.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace mlprof {

enum class ServingEngine : uint8_t { kVllm, kSglang };
enum class ServingStepKind : uint8_t { kPrefill, kDecode, kMixed, kIdle, kOther };
std::string_view ServingEngineName(ServingEngine e);      // "vllm", "sglang"
std::string_view ServingStepKindName(ServingStepKind k);  // "prefill", "decode", ...

struct ServingStepInfo {
  ServingEngine engine = ServingEngine::kVllm;
  ServingStepKind kind = ServingStepKind::kOther;
  int64_t requests = -1;          // requests in the batch (vLLM C + G, SGLang bs)
  int64_t tokens = -1;            // tokens the step ran (-1 unknown)
  int64_t prefill_requests = -1;  // vLLM C
  int64_t decode_requests = -1;   // vLLM G; SGLang DECODE: bs
  int64_t prefill_tokens = -1;    // vLLM: the context requests' query tokens
  int64_t decode_tokens = -1;     // vLLM: the generation requests' query tokens
  int64_t kv_tokens = -1;         // vLLM: key tokens over all requests (the KV read)
};

// nullopt when `name` is neither form.
std::optional<ServingStepInfo> ParseServingStep(std::string_view name);

}  // namespace mlprof
