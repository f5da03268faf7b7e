// mlprof steps: per-ProfilerStep breakdown and steady-state medians.
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"
#include "cli/validators.h"

namespace mlprof::cli {
namespace {

class StepsCommand : public ProfileCommand {
  void AddOwnOptions(CLI::App* app) override {
    app->add_option("--warmup", o_.warmup, "warm-up steps left out of medians (default 1 if >= 3 steps)")
        ->check(NumberAtLeastZero());
  }
  StatusOr<Report> Analyse(const app::Session& s) override { return app::Steps(s, o_); }
  std::optional<app::Sharded> Sharded() override { return app::StepsSharded(o_); }
  app::StepsOptions o_;
};

}  // namespace
std::unique_ptr<Command> MakeStepsCommand() { return std::make_unique<StepsCommand>(); }
}  // namespace mlprof::cli
