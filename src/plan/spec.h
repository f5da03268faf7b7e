// What the parallelism planner plans for: a transformer (dense, MoE, MLA,
// hybrid stacks of layer groups) and a training run, read from TOML
// (docs/PLANNER.md documents every key) or taken from the built-in presets
// (data/models/*.toml, compiled in). Every error names the file, the line
// and the key.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace mlprof::plan {

// A run of consecutive layers of one kind.
struct LayerGroup {
  int64_t count = 0;
  bool moe = false;    // MoE MLP (the model's [moe] table) or dense
  int64_t ffn = 0;     // dense MLP width (0: the model's ffn)
  int64_t window = 0;  // sliding-window attention span (0: full attention)
};

struct ModelSpec {
  std::string id, name, source;  // source: the file, or "built-in"
  int64_t layers = 0, hidden = 0, heads = 0, kv_heads = 0, head_dim = 0, ffn = 0, vocab = 0, seq_len = 0;
  bool gated = true;  // SwiGLU/GeGLU MLP: 3 matrices, else 2
  bool tied_embeddings = false;
  bool layernorm = false;           // LayerNorm with bias (4d per norm pair... 2 per layer); false: RMSNorm
  int64_t position_embeddings = 0;  // learned absolute positions (GPT-3: 2048), else 0
  // MoE (experts > 0).
  int64_t experts = 0, top_k = 0, expert_ffn = 0, shared_experts = 0, shared_ffn = 0;
  // MLA (kv_lora_rank > 0): DeepSeek-V2/V3 attention.
  int64_t q_lora_rank = 0, kv_lora_rank = 0, qk_nope_dim = 0, qk_rope_dim = 0, v_head_dim = 0;
  std::vector<LayerGroup> groups;  // sum of counts = layers

  bool moe() const { return experts > 0; }
  bool mla() const { return kv_lora_rank > 0; }
};

// Parses a model file's text (`name` for messages). Unknown keys, missing
// required keys, wrong types and impossible shapes (heads not dividing the
// hidden size without a head_dim, KV heads not dividing heads, top-k above
// the experts, layer groups not adding up) are errors naming the key.
StatusOr<ModelSpec> ParseModelToml(std::string_view text, const std::string& name);
StatusOr<ModelSpec> LoadModelFile(const std::string& path);
// Built-in presets by id ("llama3-70b"); the error lists them.
StatusOr<ModelSpec> BuiltInModel(std::string_view id);
std::vector<std::string> BuiltInModelIds();

}  // namespace mlprof::plan
