// mlprof overlap: communication overlapped by computation, per rank.
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"

namespace mlprof::cli {
namespace {

class OverlapCommand : public ProfileCommand {
  StatusOr<Report> Analyse(const app::Session& s) override { return app::Overlap(s); }
  std::optional<app::Sharded> Sharded() override { return app::PerRankSharded(app::Overlap); }
};

}  // namespace
std::unique_ptr<Command> MakeOverlapCommand() { return std::make_unique<OverlapCommand>(); }
}  // namespace mlprof::cli
