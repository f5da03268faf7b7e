// mlprof info: what is in the files (format, sizes, events, tracks, devices,
// import problems).
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"

namespace mlprof::cli {
namespace {

class InfoCommand : public ProfileCommand {
 public:
  InfoCommand() : ProfileCommand(/*with_view=*/false) {}

 private:
  StatusOr<Report> Analyse(const app::Session& s) override { return app::Info(s); }
  std::optional<app::Sharded> Sharded() override { return app::PerRankSharded(app::Info); }
};

}  // namespace
std::unique_ptr<Command> MakeInfoCommand() { return std::make_unique<InfoCommand>(); }
}  // namespace mlprof::cli
