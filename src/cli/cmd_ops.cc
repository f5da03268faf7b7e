// mlprof ops: GPU time per framework op, with shapes, FLOPs and bytes.
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"
#include "cli/validators.h"

namespace mlprof::cli {
namespace {

class OpsCommand : public ProfileCommand {
  void AddOwnOptions(CLI::App* app) override {
    app->add_flag("--by-name", o_.by_name, "group by op name only, not by input shapes");
    app->add_option("--by-stack", o_.by_stack,
                    "also group host ops by their innermost N Python frames (key_averages(group_by_stack_n=N); "
                    "traces recorded with with_stack=True)")
        ->check(NumberAtLeastZero());
  }
  StatusOr<Report> Analyse(const app::Session& s) override {
    o_.top = top();
    return app::Ops(s, o_);
  }
  std::optional<app::Sharded> Sharded() override {
    o_.top = top();
    return app::OpsSharded(o_);
  }
  app::OpsOptions o_;
};

}  // namespace
std::unique_ptr<Command> MakeOpsCommand() { return std::make_unique<OpsCommand>(); }
}  // namespace mlprof::cli
