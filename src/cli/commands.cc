#include "cli/commands.h"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <map>

#include "app/commands.h"
#include "cli/embed.h"
#include "report/render.h"

namespace mlprof {

namespace {

const std::vector<cli::CommandInfo> kCommands = {
    {"summary", "per-rank GPU time breakdown, overlap, kernel classes and steps", cli::MakeSummaryCommand},
    {"info", "what is in a trace: format, event counts, tracks, devices, import problems", cli::MakeInfoCommand},
    {"kernels", "GPU time by kernel class (HTA) and by kernel name", cli::MakeKernelsCommand},
    {"ops", "GPU time per framework op (cpu_op) with input shapes", cli::MakeOpsCommand},
    {"idle", "idle time per GPU stream: host wait, kernel wait, other", cli::MakeIdleCommand},
    {"diagnose", "what to fix first: findings with their evidence and estimated saving per step",
     cli::MakeDiagnoseCommand},
    {"overlap", "communication/computation overlap per rank", cli::MakeOverlapCommand},
    {"stats",
     "the reports nsys stats gives (kernel, API, memory, NVTX summaries; launch and queue time), for any profile",
     cli::MakeStatsCommand},
    {"layers", "forward/backward/optimizer per step, repeated modules (layers) and the repeating block's parts",
     cli::MakeLayersCommand},
    {"steps", "per-step breakdown and steady-state medians", cli::MakeStepsCommand},
    {"overview", "step time by kernel/memcpy/runtime/dataloader/CPU and the GPU summary (TensorBoard plugin)",
     cli::MakeOverviewCommand},
    {"launches", "kernel launch statistics: CPU call time, GPU time, launch delay", cli::MakeLaunchesCommand},
    {"critical-path",
     "the critical path per step (HTA's): what bounds it, ops on it, slack, what-if speed-ups, overlay",
     cli::MakeCriticalPathCommand},
    {"counters", "counters over time: launch queue length, memory bandwidth per copy kind, CUPTI hardware counters",
     cli::MakeCountersCommand},
    {"collectives",
     "collectives matched across ranks: arrival skew, who arrives last, communication time, algorithm and bus "
     "bandwidth per process group",
     cli::MakeCollectivesCommand},
    {"modules",
     "PyTorch traces: GPU time up the nn.Module tree (per instance and class), per user annotation, and which ops "
     "and modules launch each kernel",
     cli::MakeModulesCommand},
    {"scopes", "XLA profiles: device time by JAX named scope (tree)", cli::MakeScopesCommand},
    {"hlo", "HLO modules (text, HloProto, XPlane): categories, cost, collectives/sharding; --op explains one",
     cli::MakeHloCommand},
    {"shape", "explain XLA HLO shapes: layout, tiling, padded physical bytes, memory space", cli::MakeShapeCommand},
    {"chips", "the chip database: peak FLOP/s per dtype, HBM, ridge point, interconnect, sources",
     cli::MakeChipsCommand},
    {"mfu", "model FLOPs utilisation from throughput and model size (a calculator)", cli::MakeMfuCommand},
    {"roofline",
     "each op and category against the chip's roofline (XLA profiles, PyTorch GPU traces), GEMM tile efficiency; "
     "--svg draws it",
     cli::MakeRooflineCommand},
    {"engines", "how busy each engine was: GPU streams, device lines, launching threads; bytes and bandwidth",
     cli::MakeEnginesCommand},
    {"memory", "memory over time per device: peak allocated and reserved, when, what is alive then, who allocates",
     cli::MakeMemoryCommand},
    {"report", "write a report directory: summary.txt, trace.pftrace (Perfetto), trace.sqlite", cli::MakeReportCommand},
    {"export", "the profile as a Perfetto trace (--perfetto F, for ui.perfetto.dev) or SQLite file (--sqlite F)",
     cli::MakeExportCommand},
    {"diff", "what changed between two profiles: step time with a significance test, breakdown, GPU ops; gates",
     cli::MakeDiffCommand},
    {"compare", "runs side by side, fastest step first: step time and spread, shares, tokens/s, MFU",
     cli::MakeCompareCommand},
    {"sql", "SQL over the trace with Perfetto's table names: mlprof sql QUERY PATH...", cli::MakeSqlCommand},
    {"plan", "rank TP/DP/PP/EP/FSDP/CP/remat/micro-batch plans by memory and MFU before a run", cli::MakePlanCommand},
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

// Under MPI only process 0 prints (the others' errors are its errors).
bool g_silent = false;

int Fail(const Status& s) {
  if (!g_silent) std::fprintf(stderr, "mlprof: error: %s\n", s.message().c_str());
  return ExitFor(s);
}

void Emit(const Report& r, const cli::OutputOptions& o) {
  if (g_silent) return;
  if (!o.quiet)
    for (const auto& w : r.warnings) std::fprintf(stderr, "mlprof: warning: %s\n", w.c_str());
  const Renderer* renderer = FindRenderer(o.format);
  if (!renderer) renderer = &Renderers().front();  // CLI11 checked the name
  std::string out = renderer->render(r, {o.width});
  std::fwrite(out.data(), 1, out.size(), stdout);
}

}  // namespace

const std::vector<cli::CommandInfo>& Commands() { return kCommands; }

namespace {
// The candidate nearest to `typo` (edit distance <= 2), or "".
std::string Closest(const std::string& typo, const std::vector<std::string>& candidates) {
  // Edit distance where swapping two adjacent letters costs one edit, as
  // typing errors do ("stpes" is one edit from "steps", two from "stats").
  auto dist = [](const std::string& a, const std::string& b) {
    std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
    for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (size_t i = 1; i <= a.size(); ++i)
      for (size_t j = 1; j <= b.size(); ++j) {
        d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
          d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    return d[a.size()][b.size()];
  };
  std::string best;
  size_t best_d = 3;
  for (const auto& c : candidates) {
    size_t d = dist(typo, c);
    if (d < best_d) best_d = d, best = c;
  }
  return best;
}

// The words of a command-line error: CLI11's message, for an unknown
// option the nearest known one, and where the options are listed. `args`
// are the arguments after the program name (args[0]: the command).
std::string UsageText(const CLI::ParseError& e, const CLI::App& app, const std::vector<std::string>& args) {
  const CLI::App* sub = nullptr;
  if (!args.empty()) {
    for (const CLI::App* s : app.get_subcommands({}))
      if (s->get_name() == args[0]) sub = s;
  }
  std::string what = e.what();
  if (sub && dynamic_cast<const CLI::ExtrasError*>(&e)) {
    std::vector<std::string> names;
    for (const CLI::Option* o : sub->get_options())
      for (const std::string& n : o->get_lnames()) names.push_back("--" + n);
    for (size_t i = 1; i < args.size(); ++i) {
      std::string a = args[i];
      if (a.rfind("--", 0) != 0) continue;
      a = a.substr(0, a.find('='));
      if (std::find(names.begin(), names.end(), a) != names.end()) continue;
      const std::string near = Closest(a, names);
      what = fmt::format("unknown option '{}' for '{}'{}", a, sub->get_name(),
                         near.empty() ? "" : fmt::format("; did you mean '{}'?", near));
      break;
    }
  }
  return fmt::format("{} (mlprof {}--help lists the options)", what, sub ? sub->get_name() + " " : "");
}

int UsageError(const CLI::ParseError& e, const CLI::App& app, int argc, char** argv) {
  const std::vector<std::string> args(argv + std::min(argc, 1), argv + argc);
  std::fprintf(stderr, "mlprof: error: %s\n", UsageText(e, app, args).c_str());
  return kExitUsage;
}
}  // namespace

std::string SuggestCommand(const std::string& typo) {
  std::vector<std::string> names;
  for (const auto& c : kCommands) names.push_back(c.name);
  return Closest(typo, names);
}

int RunMain(int argc, char** argv, std::unique_ptr<app::Comm> comm) {
  cli::SetProcessComm(comm.get());
  // Under MPI every process parses the same arguments and meets the same
  // errors: only process 0 speaks (help and usage errors included).
  g_silent = comm && comm->process() != 0;
  if (g_silent) {
    if (!std::freopen("/dev/null", "w", stdout) || !std::freopen("/dev/null", "w", stderr)) return kExitInternal;
  }
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
  app.set_version_flag("--version", MLPROF_VERSION);
  app.require_subcommand(1);
  std::map<const CLI::App*, std::unique_ptr<cli::Command>> commands;
  for (const auto& c : kCommands) {
    CLI::App* sub = app.add_subcommand(c.name, c.help);
    auto command = c.make();
    command->AddOptions(sub);
    commands[sub] = std::move(command);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e) == 0 ? kExitOk : kExitUsage;  // --help, --version
    return UsageError(e, app, argc, argv);
  }

  try {
    for (const CLI::App* sub : app.get_subcommands()) {
      cli::Command& command = *commands.at(sub);
      StatusOr<Report> r = command.Run();
      if (!r.ok()) return Fail(r.status());
      Emit(*r, command.output());
      command.AfterOutput();
      return r->gate_failed ? kExitGateFailed : kExitOk;
    }
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "mlprof: error: out of memory\n");
    return kExitInternal;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mlprof: internal error: %s\n", e.what());
    return kExitInternal;
  }
  return kExitUsage;
}

// --- embedding (cli/embed.h) ----------------------------------------------------
namespace cli {
namespace {

const CommandInfo* FindCommand(const std::string& name) {
  for (const auto& c : kCommands)
    if (name == c.name) return &c;
  return nullptr;
}

Status UnknownCommand(const std::string& name) {
  const std::string near = SuggestCommand(name);
  return NotFound(
      fmt::format("unknown command '{}'{}", name, near.empty() ? "" : fmt::format("; did you mean '{}'?", near)));
}

// CLI11 parses a vector given in reverse order.
std::vector<std::string> Reversed(std::vector<std::string> v) {
  std::reverse(v.begin(), v.end());
  return v;
}

// Runs `body` and turns what escapes it into a Status, as RunMain does.
template <typename F>
StatusOr<Report> Guarded(F&& body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return Internal("out of memory");
  } catch (const std::exception& e) {
    return Internal(fmt::format("internal error: {}", e.what()));
  }
}

}  // namespace

std::vector<CommandSummary> CommandList() {
  std::vector<CommandSummary> out;
  for (const auto& c : kCommands)
    out.push_back({c.name, c.help, dynamic_cast<ProfileCommand*>(c.make().get()) != nullptr});
  return out;
}

StatusOr<Report> RunCommand(const std::vector<std::string>& args) {
  if (args.empty()) return InvalidArgument("no command given");
  const CommandInfo* info = FindCommand(args[0]);
  if (!info) return UnknownCommand(args[0]);
  CLI::App app{"mlprof"};
  CLI::App* sub = app.add_subcommand(info->name, info->help);
  std::unique_ptr<Command> command = info->make();
  command->AddOptions(sub);
  command->set_format("json");  // every row unless --top is given
  try {
    std::vector<std::string> rev = Reversed(args);
    app.parse(rev);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return InvalidArgument(sub->help());
    return InvalidArgument(UsageText(e, app, args));
  }
  return Guarded([&] { return command->Run(); });
}

StatusOr<Report> RunOnSession(const std::string& name, const std::vector<std::string>& args, const app::Session& s) {
  const CommandInfo* info = FindCommand(name);
  if (!info) return UnknownCommand(name);
  std::unique_ptr<Command> command = info->make();
  auto* profile = dynamic_cast<ProfileCommand*>(command.get());
  if (!profile) return InvalidArgument(fmt::format("'{}' does not read a loaded profile: run it as a command", name));
  CLI::App app{"mlprof"};
  CLI::App* sub = app.add_subcommand(info->name, info->help);
  profile->AddAnalysisOptions(sub);
  profile->set_format("json");
  std::vector<std::string> full = {name};
  full.insert(full.end(), args.begin(), args.end());
  try {
    std::vector<std::string> rev = Reversed(full);
    app.parse(rev);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return InvalidArgument(sub->help());
    return InvalidArgument(UsageText(e, app, full));
  }
  const bool fewer_args = profile->wanted_inputs().all_args && !s.inputs.all_args;
  return Guarded([&]() -> StatusOr<Report> {
    StatusOr<Report> r = profile->AnalyseLoaded(s);
    if (r.ok() && !r->grade) r->grade = app::FullGrade(s);  // as the CLI's JSON carries it
    if (r.ok() && fewer_args)
      r->warnings.push_back(fmt::format(
          "`{}` reads every arg of every event, which this profile was loaded without: its args are only those "
          "mlprof analyses (load with all_args=True for the CLI's output)",
          name));
    return r;
  });
}

StatusOr<std::string> CommandHelp(const std::string& name, bool analysis_only) {
  const CommandInfo* info = FindCommand(name);
  if (!info) return UnknownCommand(name);
  CLI::App app{"mlprof"};
  CLI::App* sub = app.add_subcommand(info->name, info->help);
  std::unique_ptr<Command> command = info->make();
  auto* profile = dynamic_cast<ProfileCommand*>(command.get());
  if (analysis_only && profile)
    profile->AddAnalysisOptions(sub);
  else
    command->AddOptions(sub);
  return sub->help();
}

}  // namespace cli
}  // namespace mlprof
