// mlprof overview: the TensorBoard PyTorch profiler plugin's Overview.
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"

namespace mlprof::cli {
namespace {

class OverviewCommand : public ProfileCommand {
  StatusOr<Report> Analyse(const app::Session& s) override { return app::Overview(s); }
  std::optional<app::Sharded> Sharded() override { return app::OverviewSharded(); }
};

}  // namespace
std::unique_ptr<Command> MakeOverviewCommand() { return std::make_unique<OverviewCommand>(); }
}  // namespace mlprof::cli
