// mlprof idle: idle time per GPU stream (host wait, kernel wait, other).
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"
#include "cli/validators.h"

namespace mlprof::cli {
namespace {

class IdleCommand : public ProfileCommand {
  void AddOwnOptions(CLI::App* app) override {
    app->add_option("--kernel-wait-us", o_.kernel_wait_us, "gaps shorter than this are kernel_wait")
        ->check(NumberAtLeastZero())
        ->capture_default_str();
    app->add_flag("--intervals", o_.intervals, "also print interval statistics per category");
  }
  StatusOr<Report> Analyse(const app::Session& s) override { return app::Idle(s, o_); }
  std::optional<app::Sharded> Sharded() override {
    return app::PerRankSharded([o = o_](const app::Session& s) { return app::Idle(s, o); });
  }
  app::IdleOptions o_;
};

}  // namespace
std::unique_ptr<Command> MakeIdleCommand() { return std::make_unique<IdleCommand>(); }
}  // namespace mlprof::cli
