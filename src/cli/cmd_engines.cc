// mlprof engines: how busy each engine was.
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"

namespace mlprof::cli {
namespace {

class EnginesCommand : public ProfileCommand {
  StatusOr<Report> Analyse(const app::Session& s) override {
    app::TableOptions o;
    o.top = top();
    return app::Engines(s, o);
  }
  std::optional<app::Sharded> Sharded() override {
    app::TableOptions o;
    o.top = top();
    return app::EnginesSharded(o);
  }
};

}  // namespace
std::unique_ptr<Command> MakeEnginesCommand() { return std::make_unique<EnginesCommand>(); }
}  // namespace mlprof::cli
