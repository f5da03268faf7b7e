// mlprof modules: GPU time up the nn.Module tree, per class, per user
// annotation, and who launches each kernel.
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"

namespace mlprof::cli {
namespace {

class ModulesCommand : public ProfileCommand {
 public:
  ModulesCommand() : ProfileCommand(/*with_view=*/true, /*top_in_text=*/20) {}

 private:
  StatusOr<Report> Analyse(const app::Session& s) override {
    app::TableOptions o;
    o.top = top();
    return app::Modules(s, o);
  }
  std::optional<app::Sharded> Sharded() override {
    app::TableOptions o;
    o.top = top();
    return app::ModulesSharded(o);
  }
};

}  // namespace
std::unique_ptr<Command> MakeModulesCommand() { return std::make_unique<ModulesCommand>(); }
}  // namespace mlprof::cli
