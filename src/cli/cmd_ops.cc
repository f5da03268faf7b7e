// mlprof ops: GPU time per framework op, with shapes, FLOPs and bytes.
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"

namespace mlprof::cli {
namespace {

class OpsCommand : public ProfileCommand {
  void AddOwnOptions(CLI::App* app) override {
    app->add_flag("--by-name", o_.by_name, "group by op name only, not by input shapes");
  }
  StatusOr<Report> Analyse(const app::Session& s) override {
    o_.top = top();
    return app::Ops(s, o_);
  }
  app::OpsOptions o_;
};

}  // namespace
std::unique_ptr<Command> MakeOpsCommand() { return std::make_unique<OpsCommand>(); }
}  // namespace mlprof::cli
