// mlprof diagnose PATH...: what to fix first, with the saving per step.
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"
#include "cli/validators.h"

namespace mlprof::cli {
namespace {

class DiagnoseCommand : public ProfileCommand {
  void AddOwnOptions(CLI::App* app) override {
    app->add_option("--min-share", o_.min_share_pct, "report findings that save at least this % of the step")
        ->check(CLI::Range(0.0, 100.0))
        ->capture_default_str();
    app->add_option("--min-saving-us", o_.min_saving_us, "... and at least this many us per step")
        ->check(CLI::Range(0.0, 1e12))
        ->capture_default_str();
    app->add_option("--kernel-wait-us", o_.kernel_wait_us, "idle gaps shorter than this are kernel wait, not host wait")
        ->check(NumberAtLeastZero())
        ->capture_default_str();
    app->add_option("--chip", o_.chip, "the chip, for the matmul rules (default: detected; `mlprof chips`)");
    app->add_option("--matmul-efficiency", o_.matmul_efficiency_pct,
                    "matmul rules: the % of the roofline a good kernel reaches")
        ->check(CLI::Range(1.0, 100.0))
        ->capture_default_str();
    app->add_flag("--rules", o_.rules, "also list every rule: what it finds, what it means, how to fix it");
    app->add_option("--warmup", o_.warmup, "warm-up steps left out of the steady-state step (default: 1 of 3 or more)")
        ->check(NumberAtLeastZero());
  }
  StatusOr<Report> Analyse(const app::Session& s) override { return app::Diagnose(s, o_); }
  std::optional<app::Sharded> Sharded() override { return app::DiagnoseSharded(o_); }
  app::DiagnoseOptions o_;
};

}  // namespace
std::unique_ptr<Command> MakeDiagnoseCommand() { return std::make_unique<DiagnoseCommand>(); }
}  // namespace mlprof::cli
