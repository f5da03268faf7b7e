// mlprof compare RUN...: runs side by side, best first.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "app/commands.h"
#include "cli/command.h"
#include "cli/validators.h"

namespace mlprof::cli {
namespace {

class CompareCommand : public Command {
  void AddOptions(CLI::App* app) override {
    app->add_option("runs", paths_, "runs: trace files or directories of per-rank traces, one per run")->required();
    AddFormatOption(app, out_.format);
    AddWidthOption(app, out_.width);
    app->add_option("--label", o_.labels, "a label per run, in order (repeat)");
    app->add_option("--steps", steps_, "ProfilerStep numbers to measure, FIRST-LAST (default: after the warm-up)");
    app->add_option("--tokens-per-step", o_.tokens_per_step, "tokens per step (global batch x sequence): tokens/s")
        ->check(NumberAtLeastZero(true));
    app->add_option("--flops-per-step", o_.flops_per_step,
                    "model FLOPs per step, all devices: MFU against each run's chip (or --chip, --peak-tflops)")
        ->check(NumberAtLeastZero(true));
    app->add_option("--peak-tflops", o_.peak_tflops, "peak TFLOP/s per device (rank), for MFU (replaces the chip's)")
        ->check(NumberAtLeastZero(true));
    app->add_option("--chip", o_.chip, "the chip for MFU's peak (id or name; default: detected per run)");
    app->add_option("--dtype", o_.dtype, "the data type of MFU's peak (bf16, fp8, fp16, tf32, fp32, int8)")
        ->capture_default_str();
    app->add_option("--threads", in_.threads, "threads for reading (default: one per core)")
        ->check(NumberAtLeastZero());
    app->add_flag("--all-steps", in_.all_steps, "keep each run's last ProfilerStep (left out as HTA does)");
    app->add_flag("-q,--quiet", out_.quiet, "do not print import warnings");
  }
  StatusOr<Report> Run() override {
    if (!steps_.empty()) {
      long long a = -1, b = -1;
      char dash = 0;
      int used = 0;
      if (std::sscanf(steps_.c_str(), "%lld%c%lld%n", &a, &dash, &b, &used) != 3 || dash != '-' ||
          used != static_cast<int>(steps_.size()) || a < 0 || b < a)
        return InvalidArgument("--steps '" + steps_ + "': expected FIRST-LAST, e.g. 3-9");
      o_.first_step = a, o_.last_step = b;
    }
    std::vector<app::Session> sessions;
    for (const std::string& p : paths_) {
      app::InputOptions in = in_;
      in.paths = {p};
      ASSIGN_OR_RETURN(app::Session s, OpenWithProgress(in));
      sessions.push_back(std::move(s));
    }
    std::vector<const app::Session*> runs;
    for (const app::Session& s : sessions) runs.push_back(&s);
    ASSIGN_OR_RETURN(Report r, app::Compare(runs, paths_, o_));
    r.grade = app::FullGrade(runs, paths_);
    return r;
  }
  std::vector<std::string> paths_;
  std::string steps_;
  app::InputOptions in_;
  app::CompareOptions o_;
};

}  // namespace
std::unique_ptr<Command> MakeCompareCommand() { return std::make_unique<CompareCommand>(); }
}  // namespace mlprof::cli
