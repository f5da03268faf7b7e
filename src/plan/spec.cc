#include "plan/spec.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <fstream>
#include <set>
#include <sstream>

#include "base/file_loader.h"

namespace mlprof::plan {

extern const char* const kBuiltInModelFiles[][2];
extern const size_t kBuiltInModelCount;

namespace {

std::string Where(const std::string& file, const toml::source_region& r) {
  return r.begin.line > 0 ? fmt::format("{}:{}", file, r.begin.line) : file;
}

// Reads the keys of one table into fields, refusing keys it does not know.
class TableReader {
 public:
  TableReader(const toml::table& t, std::string file, std::string prefix)
      : t_(t), file_(std::move(file)), prefix_(std::move(prefix)) {}

  // An integer in [lo, hi]; absent keeps *out (required: absent is an error).
  Status Int(const char* key, int64_t* out, bool required, int64_t lo, int64_t hi) {
    seen_.insert(key);
    const toml::node* n = t_.get(key);
    if (!n) return required ? Missing(key) : OkStatus();
    // Type first: toml++'s value<int64_t>() casts a float to an integer
    // without a range check (undefined for 1e300).
    const auto* iv = n->as_integer();
    if (!iv) return DataLoss(fmt::format("{}: {}{}: expected an integer", Where(file_, n->source()), prefix_, key));
    const int64_t v = iv->get();
    if (v < lo || v > hi)
      return DataLoss(
          fmt::format("{}: {}{} = {}: expected {} to {}", Where(file_, n->source()), prefix_, key, v, lo, hi));
    *out = v;
    return OkStatus();
  }
  Status Bool(const char* key, bool* out) {
    seen_.insert(key);
    const toml::node* n = t_.get(key);
    if (!n) return OkStatus();
    if (!n->is_boolean())
      return DataLoss(fmt::format("{}: {}{}: expected true or false", Where(file_, n->source()), prefix_, key));
    *out = *n->value<bool>();
    return OkStatus();
  }
  Status String(const char* key, std::string* out, bool required = false) {
    seen_.insert(key);
    const toml::node* n = t_.get(key);
    if (!n) return required ? Missing(key) : OkStatus();
    if (!n->is_string())
      return DataLoss(fmt::format("{}: {}{}: expected a string", Where(file_, n->source()), prefix_, key));
    *out = *n->value<std::string>();
    return OkStatus();
  }
  // After every field: no key left that nobody asked for.
  Status Done() {
    for (const auto& [k, v] : t_) {
      const std::string key(k.str());
      if (!seen_.count(key))
        return DataLoss(fmt::format("{}: unknown key '{}{}'", Where(file_, k.source()), prefix_, key));
    }
    return OkStatus();
  }

 private:
  Status Missing(const char* key) {
    return DataLoss(fmt::format("{}: missing key '{}{}'", Where(file_, t_.source()), prefix_, key));
  }
  const toml::table& t_;
  std::string file_, prefix_;
  std::set<std::string> seen_;
};

#define MLPROF_TRY(expr)     \
  do {                       \
    Status _s = (expr);      \
    if (!_s.ok()) return _s; \
  } while (0)

constexpr int64_t kBig = int64_t{1} << 40;

Status ReadModel(const toml::table& root, const std::string& file, ModelSpec* m) {
  std::set<std::string> tables = {"model", "moe", "mla", "layers"};
  for (const auto& [k, v] : root)
    if (!tables.count(std::string(k.str())))
      return DataLoss(fmt::format("{}: unknown table or key '{}' (expected [model], [moe], [mla], [[layers]])",
                                  Where(file, k.source()), k.str()));
  const toml::table* mt = root["model"].as_table();
  if (!mt) return DataLoss(fmt::format("{}: missing table [model]", file));
  TableReader r(*mt, file, "model.");
  MLPROF_TRY(r.String("id", &m->id));
  MLPROF_TRY(r.String("name", &m->name));
  MLPROF_TRY(r.Int("layers", &m->layers, true, 1, 100000));
  MLPROF_TRY(r.Int("hidden", &m->hidden, true, 1, 1 << 20));
  MLPROF_TRY(r.Int("heads", &m->heads, true, 1, 1 << 16));
  m->kv_heads = m->heads;
  MLPROF_TRY(r.Int("kv_heads", &m->kv_heads, false, 1, 1 << 16));
  MLPROF_TRY(r.Int("head_dim", &m->head_dim, false, 1, 1 << 16));
  MLPROF_TRY(r.Int("ffn", &m->ffn, false, 1, 1 << 24));
  MLPROF_TRY(r.Bool("gated", &m->gated));
  MLPROF_TRY(r.Int("vocab", &m->vocab, true, 1, 1 << 26));
  MLPROF_TRY(r.Bool("tied_embeddings", &m->tied_embeddings));
  MLPROF_TRY(r.Int("seq_len", &m->seq_len, false, 1, kBig));
  MLPROF_TRY(r.Int("position_embeddings", &m->position_embeddings, false, 0, kBig));
  std::string norm = "rms";
  MLPROF_TRY(r.String("norm", &norm));
  if (norm != "rms" && norm != "layernorm")
    return DataLoss(fmt::format("{}: model.norm = '{}': expected \"rms\" or \"layernorm\"", file, norm));
  m->layernorm = norm == "layernorm";
  MLPROF_TRY(r.Done());

  if (m->head_dim == 0) {
    if (m->hidden % m->heads != 0)
      return DataLoss(fmt::format("{}: model.heads = {} does not divide model.hidden = {}; give model.head_dim", file,
                                  m->heads, m->hidden));
    m->head_dim = m->hidden / m->heads;
  }
  if (m->heads % m->kv_heads != 0)
    return DataLoss(
        fmt::format("{}: model.kv_heads = {} does not divide model.heads = {}", file, m->kv_heads, m->heads));

  if (const toml::node* n = root.get("moe")) {
    const toml::table* t = n->as_table();
    if (!t) return DataLoss(fmt::format("{}: moe: expected a table", Where(file, n->source())));
    TableReader e(*t, file, "moe.");
    MLPROF_TRY(e.Int("experts", &m->experts, true, 1, 1 << 20));
    MLPROF_TRY(e.Int("top_k", &m->top_k, true, 1, 1 << 20));
    MLPROF_TRY(e.Int("expert_ffn", &m->expert_ffn, true, 1, 1 << 24));
    MLPROF_TRY(e.Int("shared_experts", &m->shared_experts, false, 0, 1 << 10));
    m->shared_ffn = m->expert_ffn;
    MLPROF_TRY(e.Int("shared_ffn", &m->shared_ffn, false, 1, 1 << 24));
    MLPROF_TRY(e.Done());
    if (m->top_k > m->experts)
      return DataLoss(fmt::format("{}: moe.top_k = {} is more than moe.experts = {}", file, m->top_k, m->experts));
  }
  if (const toml::node* n = root.get("mla")) {
    const toml::table* t = n->as_table();
    if (!t) return DataLoss(fmt::format("{}: mla: expected a table", Where(file, n->source())));
    TableReader a(*t, file, "mla.");
    MLPROF_TRY(a.Int("q_lora_rank", &m->q_lora_rank, false, 0, 1 << 20));
    MLPROF_TRY(a.Int("kv_lora_rank", &m->kv_lora_rank, true, 1, 1 << 20));
    MLPROF_TRY(a.Int("qk_nope_dim", &m->qk_nope_dim, true, 1, 1 << 16));
    MLPROF_TRY(a.Int("qk_rope_dim", &m->qk_rope_dim, true, 0, 1 << 16));
    MLPROF_TRY(a.Int("v_head_dim", &m->v_head_dim, true, 1, 1 << 16));
    MLPROF_TRY(a.Done());
  }
  if (const toml::node* n = root.get("layers")) {
    const toml::array* arr = n->as_array();
    if (!arr) return DataLoss(fmt::format("{}: layers: expected [[layers]] tables", Where(file, n->source())));
    int64_t total = 0;
    for (size_t i = 0; i < arr->size(); ++i) {
      const toml::table* t = (*arr)[i].as_table();
      if (!t) return DataLoss(fmt::format("{}: layers[{}]: expected a table", file, i));
      TableReader g(*t, file, fmt::format("layers[{}].", i));
      LayerGroup lg;
      MLPROF_TRY(g.Int("count", &lg.count, true, 1, 100000));
      std::string mlp = "dense";
      MLPROF_TRY(g.String("mlp", &mlp));
      if (mlp != "dense" && mlp != "moe")
        return DataLoss(
            fmt::format("{}: layers[{}].mlp = '{}': expected \"dense\" or \"moe\"", Where(file, t->source()), i, mlp));
      lg.moe = mlp == "moe";
      if (lg.moe && !m->moe())
        return DataLoss(fmt::format("{}: layers[{}].mlp = \"moe\" but there is no [moe] table", file, i));
      MLPROF_TRY(g.Int("ffn", &lg.ffn, false, 1, 1 << 24));
      MLPROF_TRY(g.Int("window", &lg.window, false, 0, kBig));
      MLPROF_TRY(g.Done());
      total += lg.count;
      m->groups.push_back(lg);
    }
    if (total != m->layers)
      return DataLoss(
          fmt::format("{}: the [[layers]] counts add up to {}, not model.layers = {}", file, total, m->layers));
  } else {
    m->groups.push_back({m->layers, m->moe(), 0, 0});
  }
  for (const LayerGroup& g : m->groups)
    if (!g.moe && g.ffn == 0 && m->ffn == 0)
      return DataLoss(fmt::format("{}: missing key 'model.ffn' (dense layers need an MLP width)", file));
  return OkStatus();
}

}  // namespace

StatusOr<ModelSpec> ParseModelToml(std::string_view text, const std::string& name) {
  ModelSpec m;
  m.source = name;
  try {
    toml::table root = toml::parse(text, name);
    MLPROF_TRY(ReadModel(root, name, &m));
  } catch (const toml::parse_error& e) {
    return DataLoss(fmt::format("{}:{}:{}: {}", name, e.source().begin.line, e.source().begin.column, e.description()));
  }
  if (m.id.empty()) m.id = name;
  if (m.name.empty()) m.name = m.id;
  return m;
}

StatusOr<ModelSpec> LoadModelFile(const std::string& path) {
  // As every input: a regular file, gzip or zstd compressed or not.
  auto file = LoadFile(path);
  if (!file.ok()) return Status(file.status().code(), "cannot open the model file: " + file.status().message());
  return ParseModelToml(std::string(file->bytes.view()), path);
}

std::vector<std::string> BuiltInModelIds() {
  std::vector<std::string> ids;
  for (size_t i = 0; i < kBuiltInModelCount; ++i) {
    std::string n = kBuiltInModelFiles[i][0];
    ids.push_back(n.substr(0, n.size() - 5));  // without ".toml"
  }
  return ids;
}

StatusOr<ModelSpec> BuiltInModel(std::string_view id) {
  for (size_t i = 0; i < kBuiltInModelCount; ++i) {
    const std::string file = kBuiltInModelFiles[i][0];
    if (file.substr(0, file.size() - 5) != id) continue;
    auto m = ParseModelToml(kBuiltInModelFiles[i][1], "built-in " + file);
    if (m.ok()) m->source = "built-in";
    return m;
  }
  std::string list;
  for (const auto& x : BuiltInModelIds()) list += (list.empty() ? "" : ", ") + x;
  return InvalidArgument(fmt::format("unknown model '{}': built-in models are {}; or give a .toml file", id, list));
}

}  // namespace mlprof::plan
