// mlprof launches: kernel launch statistics (CPU call time, GPU time, delay).
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"

namespace mlprof::cli {
namespace {

class LaunchesCommand : public ProfileCommand {
  StatusOr<Report> Analyse(const app::Session& s) override { return app::Launches(s); }
  std::optional<app::Sharded> Sharded() override { return app::PerRankSharded(app::Launches); }
};

}  // namespace
std::unique_ptr<Command> MakeLaunchesCommand() { return std::make_unique<LaunchesCommand>(); }
}  // namespace mlprof::cli
