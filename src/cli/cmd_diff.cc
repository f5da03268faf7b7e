// mlprof diff BASE NEW: what changed between two profiles; --fail-if gates.
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"
#include "cli/validators.h"

namespace mlprof::cli {
namespace {

class DiffCommand : public Command {
  void AddOptions(CLI::App* app) override {
    app->add_option("base", base_path_, "the base profile: a trace file or a directory of per-rank traces")->required();
    app->add_option("new", new_path_, "the new profile, read the same way (ranks matched by number)")->required();
    AddFormatOption(app, out_.format);
    AddWidthOption(app, out_.width);
    AddTopOption(app, top_, "GPU ops listed, largest change first");
    app->add_option("--fail-if", o_.gates,
                    "a gate, e.g. 'step_time>+5%', 'compute>+2ms', 'idle<-10%' (step_time, gpu_busy, compute, "
                    "communication, memory, idle); exit 4 when one fails (repeatable)");
    app->add_option("--warmup", o_.warmup, "warm-up steps left out (default: 1 of 3 or more)")
        ->check(NumberAtLeastZero());
    app->add_option("--alpha", o_.alpha, "significance level of the step-time test")
        ->check(CLI::Range(0.0, 1.0))
        ->capture_default_str();
    app->add_option("--threads", base_.threads, "threads for reading (default: one per core)")
        ->check(NumberAtLeastZero());
    app->add_flag("-q,--quiet", out_.quiet, "do not print import warnings");
  }
  StatusOr<Report> Run() override {
    base_.paths = {base_path_};
    new_.paths = {new_path_};
    new_.threads = base_.threads;
    o_.top = top_.For(out_.format);
    RETURN_IF_ERROR(app::CheckDiffGates(o_));  // before reading gigabytes
    if (app::Comm* comm = ProcessComm(); comm && comm->size() > 1) {
      // Under MPI: each process reads a share of each side's ranks.
      ASSIGN_OR_RETURN(std::optional<Report> r, app::RunDistributed(base_, new_, app::DiffSharded(o_), *comm));
      return r ? std::move(*r) : Report{};
    }
    ASSIGN_OR_RETURN(app::Session b, OpenWithProgress(base_));
    ASSIGN_OR_RETURN(app::Session n, OpenWithProgress(new_));
    ASSIGN_OR_RETURN(Report r, app::Diff(b, n, o_));
    r.grade = app::FullGrade({&b, &n}, {"base", "new"});
    return r;
  }
  std::string base_path_, new_path_;
  app::InputOptions base_, new_;
  app::DiffOptions o_;
  TopOption top_{-1, 20};
};

}  // namespace
std::unique_ptr<Command> MakeDiffCommand() { return std::make_unique<DiffCommand>(); }
}  // namespace mlprof::cli
