#include "cli/commands.h"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>

#include "analysis/gpu_time.h"
#include "analysis/idle.h"
#include "analysis/launches.h"
#include "analysis/ops.h"
#include "analysis/steps.h"
#include "io/load.h"
#include "analysis/xla.h"
#include "base/file_loader.h"
#include "hlo/proto_reader.h"
#include "hlo/text_parser.h"
#include "io/xplane.h"
#include "analysis/mfu.h"
#include "analysis/roofline.h"
#include "analysis/planner.h"
#include "report/plan_tables.h"
#include "hw/chip.h"
#include "report/hw_tables.h"
#include "report/tables.h"
#include "report/xla_tables.h"

namespace mlprof {

namespace {

constexpr const char* kVersion = "0.1.0";

const std::vector<Command> kCommands = {
    {"summary", "per-rank GPU time breakdown, overlap, kernel classes and steps"},
    {"info", "what is in a trace: format, event counts, tracks, devices, import problems"},
    {"kernels", "GPU time by kernel class (HTA) and by kernel name"},
    {"ops", "GPU time per framework op (cpu_op) with input shapes"},
    {"idle", "idle time per GPU stream: host wait, kernel wait, other"},
    {"overlap", "communication/computation overlap per rank"},
    {"steps", "per-step breakdown and steady-state medians"},
    {"launches", "kernel launch statistics: CPU call time, GPU time, launch delay"},
    {"scopes", "XLA profiles: device time by JAX named scope (tree)"},
    {"hlo", "HLO modules (text, HloProto, XPlane): categories, cost, collectives/sharding; --op explains one"},
    {"shape", "explain XLA HLO shapes: layout, tiling, padded physical bytes, memory space"},
    {"chips", "the chip database: peak FLOP/s per dtype, HBM, ridge point, interconnect, sources"},
    {"mfu", "model FLOPs utilisation from throughput and model size (a calculator)"},
    {"roofline", "XLA profiles: each op and category against the chip's roofline; --svg draws it"},
    {"plan", "rank TP/DP/PP/EP/FSDP/CP/remat/micro-batch plans by memory and MFU before a run"},
};

struct CommonOptions {
  std::vector<std::string> paths;
  std::string format = "text";
  int top = 10;
  int64_t rank = -1;
  bool hta_rounding = false;
  bool all_steps = false;
  int threads = 0;
  int warmup = -1;
  int width = 80;
  bool stats = false;
  bool quiet = false;
};

void AddCommon(CLI::App* app, CommonOptions& o) {
  app->add_option("paths", o.paths, "trace files or directories of per-rank traces")->required();
  app->add_option("--format", o.format, "output format")->check(CLI::IsMember({"text", "json", "csv"}));
  app->add_option("--top", o.top, "rows per rank/class in ranked tables (0 = all)")->check(CLI::NonNegativeNumber);
  app->add_option("--rank", o.rank, "only this rank");
  app->add_flag("--hta-rounding", o.hta_rounding,
                "round fractional-us timestamps as HTA does (ceil start, floor end) to reproduce its numbers");
  app->add_flag("--all-steps", o.all_steps,
                "keep the last ProfilerStep (HTA and mlprof drop it by default when there are >= 2 steps)");
  app->add_option("--threads", o.threads, "threads for reading and analysing ranks (default: one per core)")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--width", o.width, "cut text cells to this many characters")->check(CLI::Range(8, 100000));
  app->add_flag("--stats", o.stats, "print mlprof's own timing to stderr");
  app->add_flag("-q,--quiet", o.quiet, "do not print import warnings");
}

// Progress on stderr, only on a terminal and only for inputs over 100 MB (the
// total arrives with the first update).
class ProgressBar {
 public:
  explicit ProgressBar(bool tty) : enabled_(tty) {}
  ~ProgressBar() {
    if (shown_) std::fprintf(stderr, "\r%60s\r", "");
  }
  void Update(uint64_t done, uint64_t total) {
    if (!enabled_ || total <= (uint64_t{100} << 20)) return;
    int pct = static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(total));
    if (pct == last_) return;
    last_ = pct;
    shown_ = true;
    std::fprintf(stderr, "\rreading %3d%% (%llu / %llu MB)", pct, static_cast<unsigned long long>(done >> 20),
                 static_cast<unsigned long long>(total >> 20));
    std::fflush(stderr);
  }

 private:
  bool enabled_;
  bool shown_ = false;
  int last_ = -1;
};

int ExitFor(const Status& s) {
  switch (s.code()) {
    case StatusCode::kOk:
      return kExitOk;
    case StatusCode::kInvalidArgument:
      return kExitUsage;
    case StatusCode::kNotFound:
    case StatusCode::kDataLoss:
    case StatusCode::kWrongFormat:
    case StatusCode::kUnimplemented:
      return kExitBadInput;
    case StatusCode::kInternal:
      return kExitInternal;
  }
  return kExitInternal;
}

int Fail(const Status& s) {
  std::fprintf(stderr, "mlprof: error: %s\n", s.message().c_str());
  return ExitFor(s);
}

StatusOr<Profile> Load(const CommonOptions& o, double* seconds) {
  auto t0 = std::chrono::steady_clock::now();
  ProgressBar bar(isatty(2));
  LoadOptions lo;
  lo.threads = o.threads;
  lo.progress = [&bar](uint64_t d, uint64_t t) { bar.Update(d, t); };
  auto p = LoadProfile(o.paths, lo);  // expands directories itself (skips non-traces found there)
  *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return p;
}

// "4x4x4" -> {4, 4, 4} (each 1 to 999999).
StatusOr<std::vector<int64_t>> ParseAxes(const std::string& text) {
  std::vector<int64_t> axes;
  size_t i = 0;
  while (i <= text.size()) {
    const size_t x = std::min(text.find('x', i), text.size());
    const std::string part = text.substr(i, x - i);
    bool ok = !part.empty() && part.size() <= 6;
    for (char ch : part) ok = ok && ch >= '0' && ch <= '9';
    const int64_t v = ok ? std::stoll(part) : 0;
    if (!ok || v < 1)
      return InvalidArgument(
          fmt::format("--ici-axes: '{}' is not a list of axis sizes like 4x4x4 (each 1 to 999999)", text));
    axes.push_back(v);
    i = x + 1;
  }
  return axes;
}

void Emit(const Report& r, const CommonOptions& o) {
  if (!o.quiet)
    for (const auto& w : r.warnings) std::fprintf(stderr, "mlprof: warning: %s\n", w.c_str());
  std::string out = o.format == "json" ? RenderJson(r) : o.format == "csv" ? RenderCsv(r) : RenderText(r, o.width);
  std::fwrite(out.data(), 1, out.size(), stdout);
}

ProfileView MakeView(const Profile& p, const CommonOptions& o) {
  AnalysisOptions ao;
  ao.drop_last_step = !o.all_steps;
  ao.hta_rounding = o.hta_rounding;
  ao.threads = o.threads;
  ProfileView v = BuildProfileView(p, ao);
  if (o.rank >= 0) {
    std::vector<RankView> keep;
    for (auto& r : v.ranks)
      if (r.rank == o.rank) keep.push_back(std::move(r));
    v.ranks = std::move(keep);
  }
  return v;
}

Status CheckRank(const ProfileView& v, const CommonOptions& o, const Profile& p) {
  if (o.rank >= 0 && v.ranks.empty()) {
    std::string have;
    for (const auto& r : p.ranks) have += (have.empty() ? "" : ", ") + std::to_string(r.rank_or(-1));
    return InvalidArgument(fmt::format("--rank {}: no such rank (the inputs hold ranks {})", o.rank, have));
  }
  return OkStatus();
}

using Builder = std::function<void(const Profile&, const ProfileView&, const CommonOptions&, Report&)>;

int RunAnalysis(const CommonOptions& o, const Builder& build) {
  double load_s = 0;
  auto p = Load(o, &load_s);
  if (!p.ok()) return Fail(p.status());
  auto t0 = std::chrono::steady_clock::now();
  ProfileView view = MakeView(*p, o);
  if (Status s = CheckRank(view, o, *p); !s.ok()) return Fail(s);
  Report r;
  r.warnings = ImportWarnings(*p);
  build(*p, view, o, r);
  double analyse_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  Emit(r, o);
  if (o.stats) {
    uint64_t bytes = 0, events = 0;
    for (const auto& rk : p->ranks) bytes += rk.decoded_bytes, events += rk.ops.size();
    std::fprintf(stderr, "mlprof: stats: load %.3f s (%.1f MB/s of decoded input, %llu ops), analyse %.3f s\n", load_s,
                 load_s > 0 ? static_cast<double>(bytes) / 1e6 / load_s : 0.0, static_cast<unsigned long long>(events),
                 analyse_s);
  }
  return kExitOk;
}

// HLO modules from a file: HLO text, a binary HloProto, or the HloProtos an
// XPlane's metadata plane carries. Chosen by content.
StatusOr<std::vector<hlo::Module>> LoadHloModules(const std::string& path) {
  ASSIGN_OR_RETURN(LoadedFile f, LoadFile(path));
  std::string_view bytes = f.bytes.view();
  std::vector<hlo::Module> out;
  if (hlo::LooksLikeHloText(bytes.substr(0, 1 << 16)) || path.ends_with(".hlo") || path.ends_with(".txt")) {
    ASSIGN_OR_RETURN(out, hlo::ParseHloText(bytes, path));
    return out;
  }
  if (hlo::LooksLikeHloProto(bytes)) {
    ASSIGN_OR_RETURN(hlo::Module m, hlo::ReadHloProto(bytes, path));
    out.push_back(std::move(m));
    return out;
  }
  if (LooksLikeXSpace(bytes)) {
    RankProfile r;
    RETURN_IF_ERROR(ReadXPlane(f, &r));
    for (const auto& blob : r.hlo_protos) {
      ASSIGN_OR_RETURN(hlo::Module m, hlo::ReadHloProto(blob.bytes, path + " [" + blob.key + "]"));
      out.push_back(std::move(m));
    }
    if (out.empty())
      return NotFound(fmt::format("{}: this XPlane carries no HloProtos (no /host:metadata plane); dump HLO with "
                                  "XLA_FLAGS=--xla_dump_to=DIR and pass the files",
                                  path));
    return out;
  }
  return WrongFormat(fmt::format("{}: not HLO text, an HloProto or an XPlane (first bytes do not match any)", path));
}

Table Truncated(Table t, int top) {
  // Keep the first `top` rows per (rank, class) group of a kernels table.
  if (top <= 0) return t;
  std::vector<std::vector<Cell>> rows;
  std::string key;
  int n = 0;
  for (auto& row : t.rows) {
    std::string k = fmt::format("{}/{}", std::get<int64_t>(row[0].value), std::get<std::string>(row[1].value));
    if (k != key) key = k, n = 0;
    if (n++ < top) rows.push_back(std::move(row));
  }
  t.rows = std::move(rows);
  return t;
}

}  // namespace

const std::vector<Command>& Commands() { return kCommands; }

std::string SuggestCommand(const std::string& typo) {
  auto dist = [](const std::string& a, const std::string& b) {
    std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      cur[0] = i;
      for (size_t j = 1; j <= b.size(); ++j)
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      std::swap(prev, cur);
    }
    return prev[b.size()];
  };
  std::string best;
  size_t best_d = 3;
  for (const auto& c : kCommands) {
    size_t d = dist(typo, c.name);
    if (d < best_d) best_d = d, best = c.name;
  }
  return best;
}

int RunMain(int argc, char** argv) {
  // "did you mean": checked before CLI11 so that a typo never reads as a path.
  if (argc >= 2 && argv[1][0] != '-') {
    std::string cmd = argv[1];
    bool known = cmd == "help";
    for (const auto& c : kCommands) known |= cmd == c.name;
    if (!known) {
      std::string s = SuggestCommand(cmd);
      std::fprintf(stderr, "mlprof: unknown command '%s'.%s Run 'mlprof --help' for the list.\n", cmd.c_str(),
                   s.empty() ? "" : fmt::format(" Did you mean '{}'?", s).c_str());
      return kExitUsage;
    }
    if (cmd == "help") argv[1] = const_cast<char*>("--help");
  }

  CLI::App app{"mlprof: fast profile analysis for ML programs on accelerators"};
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);
  CommonOptions o;
  std::map<std::string, CLI::App*> subs;
  for (const auto& c : kCommands) {
    CLI::App* s = app.add_subcommand(c.name, c.help);
    const std::string n = c.name;
    if (n != "shape" && n != "hlo" && n != "chips" && n != "mfu" && n != "plan") AddCommon(s, o);
    subs[c.name] = s;
  }
  std::vector<std::string> shape_texts;
  subs["shape"]->add_option("shapes", shape_texts, "HLO shapes, e.g. 'f32[3,5]{1,0:T(2,2)}'")->required();
  subs["shape"]->add_option("--format", o.format, "output format")->check(CLI::IsMember({"text", "json", "csv"}));
  int idle_threshold_us = 30;
  subs["idle"]
      ->add_option("--kernel-wait-us", idle_threshold_us, "gaps shorter than this are kernel_wait")
      ->check(CLI::NonNegativeNumber);
  bool idle_intervals = false;
  subs["idle"]->add_flag("--intervals", idle_intervals, "also print interval statistics per category");
  for (const char* n : {"steps", "summary"})
    subs[n]
        ->add_option("--warmup", o.warmup, "warm-up steps left out of medians (default 1 if >= 3 steps)")
        ->check(CLI::NonNegativeNumber);
  int scope_depth = 4;
  subs["scopes"]->add_option("--depth", scope_depth, "scope levels to show")->check(CLI::Range(1, 64));
  std::vector<std::string> hlo_paths;
  std::string hlo_op;
  subs["hlo"]->add_option("paths", hlo_paths, "HLO text (.hlo/.txt), HloProto (.hlo.pb) or XPlane files")->required();
  subs["hlo"]->add_option("--op", hlo_op, "explain this instruction (name with or without %)");
  subs["hlo"]->add_option("--format", o.format, "output format")->check(CLI::IsMember({"text", "json", "csv"}));
  subs["hlo"]->add_option("--top", o.top, "collectives listed (0 = all)")->check(CLI::NonNegativeNumber);
  subs["hlo"]->add_option("--width", o.width, "cut text cells to this many characters")->check(CLI::Range(8, 100000));
  bool by_name = false;
  subs["ops"]->add_flag("--by-name", by_name, "group by op name only, not by input shapes");
  // Chip database and MFU calculator.
  std::vector<std::string> chip_files;
  std::string chip_id, dtype_name = "bf16";
  for (const char* n : {"chips", "mfu"}) {
    subs[n]->add_option("--chip-file", chip_files, "add or replace chips from JSON files (fields as data/chips/*.json)");
    subs[n]->add_option("--format", o.format, "output format")->check(CLI::IsMember({"text", "json", "csv"}));
    subs[n]->add_option("--width", o.width, "cut text cells to this many characters")->check(CLI::Range(8, 100000));
  }
  subs["chips"]->add_option("--chip", chip_id, "show every field and source of this chip");
  // Planner.
  struct PlanCli {
    std::string model, memory, ici_axes;
    int64_t chips = 0, node = 0, slices = 0;
    plan::TrainSpec train;
    plan::Knobs knobs;
    plan::PlanFilter filter;
    double max_mem_gb = 0;
    int explain = 0;
    double latency_us = 1;
  } pc;
  {
    CLI::App* p = subs["plan"];
    p->add_option("--model", pc.model, "a built-in model (llama3-8b, llama3-70b, llama3-405b, llama2-70b, mixtral-8x7b, "
                                       "mixtral-8x22b, deepseek-v3, gpt3-175b) or a .toml file (docs/PLANNER.md)")
        ->required();
    p->add_option("--chip", chip_id, "chip id (`mlprof chips` lists them)")->required();
    p->add_option("--chip-file", chip_files, "add or replace chips from JSON files");
    p->add_option("--chips", pc.chips, "number of chips")->required()->check(CLI::Range(int64_t{1}, int64_t{1} << 24));
    p->add_option("--gpus-per-node", pc.node, "GPUs per NVLink domain (default 8; TPU: the slice)")
        ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
    p->add_option("--ici-axes", pc.ici_axes, "TPU torus axes, innermost first (16x16, 8x8x16)");
    p->add_option("--slices", pc.slices, "TPU: slices joined over DCN (default 1)")
        ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
    p->add_option("--global-batch", pc.train.global_batch, "sequences per step")
        ->required()
        ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
    p->add_option("--seq", pc.train.seq, "sequence length (default: the model's seq_len)")
        ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
    p->add_option("--memory", pc.memory, "bytes per parameter: megatron (2+4+12), zero (2+2+12), maxtext (4+4+8); "
                                         "default megatron on GPUs, maxtext on TPUs");
    p->add_option("--reserve", pc.train.reserve, "fraction of HBM kept free (default 0.10)")->check(CLI::Range(0.0, 0.9));
    p->add_flag("--causal", pc.train.causal_half, "count half the s x s attention scores in model FLOPs");
    p->add_option("--zero", pc.filter.zero, "ZeRO stage over DP: 0 replicated, 1 optimizer sharded, 2 optimizer and "
                                            "gradients sharded (default: 1, and 2 where 1 does not fit)")
        ->check(CLI::Range(0, 2));
    p->add_option("--gemm-eff", pc.knobs.gemm, "fraction of peak the matmuls reach (default: calibrated per chip)")
        ->check(CLI::Range(0.01, 1.0));
    p->add_option("--moe-imbalance", pc.knobs.moe_imbalance, "the busiest expert's load / the mean (default 1.25)")
        ->check(CLI::Range(1.0, 8.0));
    p->add_option("--collective-eff", pc.knobs.collective, "fraction of link bandwidth collectives reach")
        ->check(CLI::Range(0.01, 1.0));
    p->add_option("--overlap", pc.knobs.overlap, "fraction of FSDP/DP communication hidden under compute")
        ->check(CLI::Range(0.0, 1.0));
    p->add_option("--latency", pc.latency_us, "microseconds per step of a ring collective (default 1)")
        ->check(CLI::Range(0.0, 1000.0));
    for (auto [flag, ptr] : std::initializer_list<std::pair<const char*, int64_t*>>{
             {"--tp", &pc.filter.tp}, {"--dp", &pc.filter.dp}, {"--pp", &pc.filter.pp}, {"--vpp", &pc.filter.vpp},
             {"--ep", &pc.filter.ep}, {"--fsdp", &pc.filter.fsdp}, {"--cp", &pc.filter.cp}, {"--mb", &pc.filter.mb}})
      p->add_option(flag, *ptr, "only plans with this degree")->check(CLI::Range(int64_t{1}, int64_t{1} << 24));
    p->add_option("--remat", pc.filter.remat,
                  "only this remat policy: none, save_dots, selective, minimal_with_context, save_out_proj, full");
    p->add_option("--max-mem", pc.max_mem_gb, "only plans needing at most this many GB per chip")
        ->check(CLI::PositiveNumber);
    p->add_flag("--all", pc.filter.include_oom, "also list plans that do not fit (bottleneck: memory)");
    p->add_option("--explain", pc.explain, "show the arithmetic of this row")->check(CLI::PositiveNumber);
    p->add_option("--top", o.top, "plans listed (0 = all)")->check(CLI::NonNegativeNumber);
    p->add_option("--format", o.format, "output format")->check(CLI::IsMember({"text", "json", "csv"}));
    p->add_option("--width", o.width, "cut text cells to this many characters")->check(CLI::Range(8, 100000));
  }
  std::string svg_path;
  subs["roofline"]->add_option("--chip", chip_id, "the chip (default: detected from the profile)");
  subs["roofline"]->add_option("--chip-file", chip_files, "add or replace chips from JSON files");
  CLI::Option* dtype_opt = subs["roofline"]->add_option(
      "--dtype", dtype_name, "peak of this data type (default bf16; PyTorch ops: each op's own dtype)");
  subs["roofline"]->add_option("--svg", svg_path, "also write the roofline plot to this SVG file");
  std::string ici_axes_text;
  subs["roofline"]->add_option("--ici-axes", ici_axes_text,
                               "XLA collectives: the torus axes, innermost first (4x4x4): time all-reduce, all-gather "
                               "and reduce-scatter axis by axis (default: a ring on one axis)");
  subs["mfu"]->add_option("--chip", chip_id, "chip id, name or device name (`mlprof chips` lists them)");
  subs["mfu"]->add_option("--dtype", dtype_name, "peak of this data type: fp32, tf32, bf16, fp16, fp8, int8");
  MfuInput mfu;
  double mfu_peak_tflops = 0;
  auto opt = [&](const char* flag, std::optional<double>* v, const char* help) {
    subs["mfu"]->add_option_function<double>(flag, [v](double x) { *v = x; }, help)->check(CLI::PositiveNumber);
  };
  subs["mfu"]->add_option("paths", o.paths,
                          "profiles (optional): step time, device count, chip and op FLOPs (HFU) come from them");
  subs["mfu"]->add_option("--devices", mfu.devices, "devices (chips; cores with --per-core)")->check(CLI::PositiveNumber);
  subs["mfu"]->add_flag("--per-core", mfu.per_core, "devices are cores (TPU TensorCores): peak per core");
  subs["mfu"]->add_option("--peak-tflops", mfu_peak_tflops, "peak TFLOP/s per device (instead of the chip's)")
      ->check(CLI::PositiveNumber);
  opt("--step-time", &mfu.step_seconds, "seconds per step");
  opt("--tokens-per-step", &mfu.tokens_per_step, "tokens per step (global batch x sequence)");
  opt("--tokens-per-day", &mfu.tokens_per_day, "tokens per day (instead of step time and tokens per step)");
  opt("--model-flops-per-step", &mfu.model_flops_per_step, "model FLOPs per step (all devices)");
  opt("--flops-per-token", &mfu.flops_per_token, "model FLOPs per token (forward + backward)");
  opt("--flops-per-sample", &mfu.flops_per_sample, "model FLOPs per sample (with --tokens-per-sample)");
  opt("--tokens-per-sample", &mfu.tokens_per_sample, "tokens per sample (sequence length)");
  opt("--params", &mfu.params, "parameters N: 6 N FLOPs per token");
  opt("--layers", &mfu.layers, "layers, for the attention-score term");
  opt("--context", &mfu.context, "attention context (sequence length), for the attention-score term");
  opt("--d-model", &mfu.d_model, "model width, for the attention-score term");
  subs["mfu"]->add_flag("--causal", mfu.causal, "halve the attention-score term (causal mask)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }

  try {
    if (subs["plan"]->parsed()) {
      auto db = hw::ChipDb::WithFiles(chip_files);
      if (!db.ok()) return Fail(db.status());
      auto chip = db->Find(chip_id);
      if (!chip.ok()) return Fail(chip.status());
      const bool is_file = pc.model.find('/') != std::string::npos ||
                           (pc.model.size() > 5 && pc.model.substr(pc.model.size() - 5) == ".toml");
      auto model = is_file ? plan::LoadModelFile(pc.model) : plan::BuiltInModel(pc.model);
      if (!model.ok()) return Fail(model.status());
      std::vector<int64_t> axes;
      if (!pc.ici_axes.empty()) {
        auto parsed = ParseAxes(pc.ici_axes);
        if (!parsed.ok()) return Fail(parsed.status());
        axes = *parsed;
      }
      int64_t node = pc.node;
      if (pc.slices > 0) {
        if ((*chip)->kind != "tpu") return Fail(InvalidArgument("--slices: TPU chips only (GPUs: --gpus-per-node)"));
        if (pc.chips % pc.slices != 0)
          return Fail(InvalidArgument(fmt::format("--slices = {} does not divide --chips = {}", pc.slices, pc.chips)));
        node = pc.chips / pc.slices;
      }
      plan::Cluster cluster = plan::MakeCluster(**chip, pc.chips, node, axes);
      plan::TrainSpec& t = pc.train;
      if (t.seq == 0) t.seq = model->seq_len;
      if (t.seq == 0) return Fail(InvalidArgument("--seq: the model file has no seq_len; give --seq"));
      const std::string mem = pc.memory.empty() ? (cluster.tpu ? "maxtext" : "megatron") : pc.memory;
      if (!plan::ParseMemoryConvention(mem, &t.memory))
        return Fail(InvalidArgument(fmt::format("--memory '{}': expected megatron, zero or maxtext", mem)));
      pc.filter.max_mem_bytes = pc.max_mem_gb * 1e9;
      pc.knobs.latency = pc.latency_us * 1e-6;
      if (auto st = plan::CheckRun(*model, cluster, t, pc.filter); !st.ok()) return Fail(st);
      plan::PlanSearch search = plan::SearchPlans(*model, cluster, t, pc.knobs, pc.filter);
      Report r;
      r.tables.push_back(PlanSettingTable(*model, cluster, t, pc.knobs, pc.filter, search));
      if (pc.explain > 0) {
        if (static_cast<size_t>(pc.explain) > search.plans.size())
          return Fail(InvalidArgument(fmt::format("--explain {}: there are {} plans", pc.explain, search.plans.size())));
        r.tables.push_back(PlansTable({search.plans[pc.explain - 1]}, 0, pc.explain));
        r.tables.push_back(PlanExplainTable(
            pc.explain, plan::Explain(*model, cluster, t, pc.knobs, search.plans[pc.explain - 1])));
      } else {
        r.tables.push_back(PlansTable(search.plans, o.top));
      }
      Emit(r, o);
      return kExitOk;
    }
    if (subs["chips"]->parsed() || subs["mfu"]->parsed()) {
      auto db = hw::ChipDb::WithFiles(chip_files);
      if (!db.ok()) return Fail(db.status());
      Report r;
      if (subs["chips"]->parsed()) {
        if (chip_id.empty()) {
          r.tables.push_back(ChipsTable(*db));
        } else {
          auto c = db->Find(chip_id);
          if (!c.ok()) return Fail(c.status());
          r.tables.push_back(ChipDetailTable(**c));
        }
      } else {
        if (!chip_id.empty()) {
          auto c = db->Find(chip_id);
          if (!c.ok()) {
            const hw::Chip* d = db->Detect(chip_id);  // a device name as a profile writes it
            if (!d) return Fail(c.status());
            c = d;
          }
          mfu.chip = *c;
        }
        std::string from_profile;
        if (!o.paths.empty()) {
          double load_s = 0;
          auto p = Load(o, &load_s);
          if (!p.ok()) return Fail(p.status());
          ProfileFigures f = MeasureProfile(*p, MakeView(*p, o));
          if (!mfu.step_seconds && f.step_seconds > 0) {
            mfu.step_seconds = f.step_seconds;
            mfu.step_how = "from the profile";
            from_profile += fmt::format("step time {:.6g} s ({})", f.step_seconds, f.source);
          }
          if (!(mfu.devices > 0) && f.devices > 0) {
            mfu.devices = f.devices;
            from_profile += fmt::format("{}devices {:g}", from_profile.empty() ? "" : "; ", f.devices);
          }
          if (!mfu.chip)
            for (const auto& n : f.device_names)
              if ((mfu.chip = db->Detect(n))) {
                from_profile += fmt::format("{}chip {} (device '{}')", from_profile.empty() ? "" : "; ", mfu.chip->id, n);
                break;
              }
          mfu.hardware_flops_per_device_per_step = f.hardware_flops_per_device_per_step;
          if (!f.flops_source.empty())
            from_profile += fmt::format("{}hardware FLOPs: {}", from_profile.empty() ? "" : "; ", f.flops_source);
          if (!mfu.step_seconds)
            return Fail(InvalidArgument("mfu: the profile has no step time (no ProfilerStep#N and no XLA module "
                                        "executions); give --step-time"));
          if (!mfu.chip && !(mfu_peak_tflops > 0))
            return Fail(InvalidArgument("mfu: cannot tell the chip from the profile; give --chip"));
        }
        if (!hw::ParseDType(dtype_name, &mfu.dtype))
          return Fail(InvalidArgument(fmt::format("--dtype: unknown data type '{}' (fp32, tf32, bf16, fp16, fp8, int8)",
                                                  dtype_name)));
        mfu.peak_override = mfu_peak_tflops * 1e12;
        auto res = ComputeMfu(mfu);
        if (!res.ok()) return Fail(res.status());
        r.tables.push_back(MfuTable(*res));
        if (!from_profile.empty()) r.tables.back().notes.push_back("From the profile: " + from_profile + ".");
      }
      Emit(r, o);
      return kExitOk;
    }
    if (subs["roofline"]->parsed()) {
      const bool dtype_given = dtype_opt->count() > 0;
      auto db = hw::ChipDb::WithFiles(chip_files);
      if (!db.ok()) return Fail(db.status());
      hw::DType dtype;
      if (!hw::ParseDType(dtype_name, &dtype))
        return Fail(InvalidArgument(fmt::format("--dtype: unknown data type '{}' (fp32, tf32, bf16, fp16, fp8, int8)",
                                                dtype_name)));
      const hw::Chip* forced = nullptr;
      if (!chip_id.empty()) {
        auto c = db->Find(chip_id);
        if (!c.ok()) return Fail(c.status());
        forced = *c;
      }
      std::vector<int64_t> ici_axes;
      if (!ici_axes_text.empty()) {
        auto parsed = ParseAxes(ici_axes_text);
        if (!parsed.ok()) return Fail(parsed.status());
        ici_axes = *parsed;
      }
      double load_s = 0;
      auto p = Load(o, &load_s);
      if (!p.ok()) return Fail(p.status());
      Report r;
      r.warnings = ImportWarnings(*p);
      bool any = false;
      std::string svg;
      const ProfileView view = MakeView(*p, o);
      std::vector<OpGpuTime> framework_ops;  // PyTorch traces: GPU time and cost per (op, shapes)
      for (const auto& rv : view.ranks)
        if (rv.profile->xla_ops.empty() && !rv.gpu.empty()) {
          framework_ops = ComputeOpGpuTime(view, {true});
          break;
        }
      for (const auto& rank : p->ranks) {
        if (o.rank >= 0 && rank.rank_or(0) != o.rank) continue;
        const bool xla = !rank.xla_ops.empty();
        bool framework = false;
        for (const auto& f : framework_ops) framework = framework || f.rank == rank.rank_or(0);
        if (!xla && !framework) continue;
        any = true;
        const hw::Chip* chip = forced;
        std::string seen;
        for (const auto& d : rank.meta.devices) {
          for (const std::string* n : {&d.device_type, &d.name}) {
            if (n->empty()) continue;
            if (!chip) chip = db->Detect(*n);
            seen += (seen.empty() ? "" : ", ") + ("'" + *n + "'");
          }
        }
        if (!chip)
          return Fail(InvalidArgument(fmt::format(
              "{}: cannot tell the chip from the profile (devices: {}); pass --chip (`mlprof chips` lists them) "
              "or --chip-file for your own",
              rank.path, seen.empty() ? "none named" : seen)));
        if (!(chip->peak(dtype) > 0))
          return Fail(InvalidArgument(fmt::format("chip '{}' has no {} peak; pick another --dtype", chip->id,
                                                  hw::DTypeName(dtype))));
        RooflineResult rr;
        if (xla) {
          XlaOps x = ResolveXlaOps(rank);
          rr = RooflineXla(rank, x, *chip, dtype, ici_axes);
          for (const auto& problem : x.problems) r.warnings.push_back(problem);
        } else {
          rr = RooflineFrameworkOps(framework_ops, rank.rank_or(0), *chip, dtype, !dtype_given);
        }
        r.tables.push_back(RooflineSummaryTable(rank.rank_or(0), rr));
        if (!forced)
          r.tables.back().notes.push_back(fmt::format("Chip detected from the profile: {} ({}).", chip->id, chip->name));
        r.tables.push_back(RooflineCategoryTable(rank.rank_or(0), rr));
        r.tables.push_back(RooflineOpsTable(rank.rank_or(0), rr, o.top));
        if (!svg_path.empty() && svg.empty())
          svg = RooflineSvg(rr, fmt::format("{} on {} ({})", std::filesystem::path(rank.path).filename().string(),
                                            chip->name, hw::DTypeName(dtype)));
      }
      if (!any)
        return Fail(InvalidArgument(
            "nothing to put on a roofline: no XLA ops and no GPU kernels in these inputs (`mlprof roofline` reads "
            "JAX/XLA profiles and PyTorch GPU traces)"));
      if (!framework_ops.empty()) {
        auto missing = CostableOpsWithoutShapes(view);
        std::string list;
        for (const auto& [name, n] : missing) list += fmt::format("{}{} ({} calls)", list.empty() ? "" : ", ", name, n);
        if (!list.empty())
          r.warnings.push_back(fmt::format("no input shapes for {}: not on the roofline; record the trace with "
                                           "torch.profiler.profile(record_shapes=True)",
                                           list));
        r.tables.front().notes.push_back(
            "PyTorch traces: FLOPs and bytes come from input shapes and scalar arguments (GEMM, convolution, "
            "attention, elementwise, softmax, norms, reductions, embedding) and, for collectives, from the "
            "record_param_comms arguments; the time of an op is the GPU time of the kernels it launched.");
      }
      if (!svg_path.empty()) {
        std::FILE* f = std::fopen(svg_path.c_str(), "wb");
        if (!f || std::fwrite(svg.data(), 1, svg.size(), f) != svg.size()) {
          if (f) std::fclose(f);
          return Fail(NotFound(fmt::format("{}: cannot write the SVG file", svg_path)));
        }
        std::fclose(f);
      }
      Emit(r, o);
      return kExitOk;
    }
    if (subs["shape"]->parsed()) {
      std::vector<hlo::Shape> shapes;
      for (const auto& text : shape_texts) {
        size_t used = 0;
        auto s = hlo::ParseShape(text, &used);
        if (s.ok() && text.find_first_not_of(" \t", used) != std::string::npos)
          s = InvalidArgument(
              fmt::format("HLO shape, column {}: expected the end of the shape in '{}'", used + 1, text));
        if (!s.ok()) return Fail(InvalidArgument(s.status().message()));
        shapes.push_back(std::move(s).value());
      }
      Report r;
      r.tables.push_back(ShapeTable(shapes));
      Emit(r, o);
      return kExitOk;
    }
    if (subs["hlo"]->parsed()) {
      std::vector<hlo::Module> modules;
      for (const auto& path : hlo_paths) {
        auto m = LoadHloModules(path);
        if (!m.ok()) return Fail(m.status());
        for (auto& x : *m) modules.push_back(std::move(x));
      }
      Report r;
      if (!hlo_op.empty()) {
        auto t = HloExplainTable(modules, hlo_op);
        if (!t.ok()) return Fail(t.status());
        r.tables.push_back(std::move(t).value());
      } else {
        r.tables.push_back(HloModulesTable(modules));
        r.tables.push_back(HloCategoryTable(modules));
        r.tables.push_back(HloCollectivesTable(modules, o.top == 10 ? 20 : o.top));
      }
      Emit(r, o);
      return kExitOk;
    }
    if (subs["scopes"]->parsed())
      return RunAnalysis(o, [scope_depth](const Profile& p, const ProfileView&, const CommonOptions& o, Report& r) {
        bool any = false;
        for (const auto& rank : p.ranks) {
          if (o.rank >= 0 && rank.rank_or(0) != o.rank) continue;
          if (rank.xla_ops.empty()) continue;
          any = true;
          XlaOps x = ResolveXlaOps(rank);
          XlaBreakdown b = BreakdownXla(rank, x);
          r.tables.push_back(XlaScopesTable(rank.rank_or(0), XlaScopes(rank, x, scope_depth), b.total, o.top));
        }
        if (!any)
          r.warnings.push_back(
              "no XLA ops in these inputs: `mlprof scopes` reads JAX/XLA profiles (*.xplane.pb, *.trace.json.gz); for PyTorch "
              "traces use `mlprof ops`");
      });
    if (subs["info"]->parsed()) {
      double s = 0;
      auto p = Load(o, &s);
      if (!p.ok()) return Fail(p.status());
      Report r;
      r.warnings = ImportWarnings(*p);
      r.tables = InfoTables(*p);
      Emit(r, o);
      return kExitOk;
    }
    if (subs["summary"]->parsed())
      return RunAnalysis(o, [](const Profile& p, const ProfileView& v, const CommonOptions& o, Report& r) {
        r.tables.push_back(RanksTable(p));
        bool any_xla = false;
        for (const auto& rank : p.ranks) {
          if (o.rank >= 0 && rank.rank_or(0) != o.rank) continue;
          if (rank.xla_ops.empty()) continue;
          any_xla = true;
          XlaOps x = ResolveXlaOps(rank);
          XlaBreakdown b = BreakdownXla(rank, x);
          r.tables.push_back(XlaSummaryTable(rank.rank_or(0), b));
          r.tables.push_back(XlaAttributionTable(rank.rank_or(0), b));
          r.tables.push_back(XlaTopOpsTable(rank.rank_or(0), rank, x, std::min(o.top, 10), o.width));
          for (const auto& problem : x.problems) r.warnings.push_back(problem);
        }
        bool any_gpu = false;
        for (const auto& rv : v.ranks) any_gpu |= !rv.gpu.empty();
        if (!any_gpu) {
          if (any_xla) return;
          r.tables.front().notes.push_back(
              "No GPU stream activity in these inputs (a TPU, CPU-only or host-side profile?): there is no GPU time "
              "to break down. `mlprof info` lists what the profile holds.");
          return;
        }
        r.tables.push_back(TemporalTable(ComputeTemporalBreakdown(v)));
        r.tables.push_back(OverlapTable(ComputeOverlap(v)));
        KernelBreakdown kb = ComputeKernelBreakdown(v, {});
        r.tables.push_back(KernelTypeTable(kb));
        r.tables.push_back(Truncated(KernelStatTable(kb, o.width), std::min(o.top, 5)));
        StepReport steps = ComputeSteps(v, {o.warmup});
        if (!steps.summary.empty()) r.tables.push_back(StepSummaryTable(steps));
        if (v.multi_step && !o.all_steps)
          r.tables.front().notes.push_back(
              "The last ProfilerStep is left out of the GPU tables (as HTA does); --all-steps keeps it.");
      });
    if (subs["kernels"]->parsed())
      return RunAnalysis(o, [](const Profile&, const ProfileView& v, const CommonOptions& o, Report& r) {
        KernelBreakdownOptions ko;
        ko.top = o.top > 0 ? o.top : 1 << 30;
        KernelBreakdown kb = ComputeKernelBreakdown(v, ko);
        r.tables.push_back(KernelTypeTable(kb));
        r.tables.push_back(KernelStatTable(kb, o.width));
      });
    if (subs["ops"]->parsed())
      return RunAnalysis(o, [by_name](const Profile&, const ProfileView& v, const CommonOptions& o, Report& r) {
        r.tables.push_back(OpsTable(ComputeOpGpuTime(v, {!by_name}), o.top));
        auto missing = CostableOpsWithoutShapes(v);
        if (!missing.empty()) {
          std::string list;
          for (const auto& [name, n] : missing) list += fmt::format("{}{} ({} calls)", list.empty() ? "" : ", ", name, n);
          r.warnings.push_back(fmt::format(
              "no input shapes for {}: their FLOPs cannot be computed; record the trace with "
              "torch.profiler.profile(record_shapes=True)",
              list));
        }
      });
    if (subs["idle"]->parsed())
      return RunAnalysis(o, [&](const Profile&, const ProfileView& v, const CommonOptions&, Report& r) {
        IdleOptions io;
        io.kernel_wait_threshold = static_cast<Ps>(idle_threshold_us) * kPsPerUs;
        auto idle = ComputeIdleBreakdown(v, io);
        r.tables.push_back(IdleTable(idle));
        if (idle_intervals) r.tables.push_back(IdleStatsTable(idle));
      });
    if (subs["overlap"]->parsed())
      return RunAnalysis(o, [](const Profile&, const ProfileView& v, const CommonOptions&, Report& r) {
        r.tables.push_back(OverlapTable(ComputeOverlap(v)));
      });
    if (subs["steps"]->parsed())
      return RunAnalysis(o, [](const Profile&, const ProfileView& v, const CommonOptions& o, Report& r) {
        StepReport s = ComputeSteps(v, {o.warmup});
        r.tables.push_back(StepTable(s));
        r.tables.push_back(StepSummaryTable(s));
      });
    if (subs["launches"]->parsed())
      return RunAnalysis(o, [](const Profile&, const ProfileView& v, const CommonOptions&, Report& r) {
        r.tables.push_back(LaunchSummaryTable(ComputeLaunchStats(v, {})));
      });
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "mlprof: error: out of memory\n");
    return kExitInternal;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mlprof: internal error: %s\n", e.what());
    return kExitInternal;
  }
  return kExitUsage;
}

}  // namespace mlprof
