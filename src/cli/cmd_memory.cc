// mlprof memory: memory over time per device, its peak and who holds it.
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"

namespace mlprof::cli {
namespace {

class MemoryCommand : public ProfileCommand {
 public:
  MemoryCommand() : ProfileCommand(/*with_view=*/false, /*top_in_text=*/10) {}

 private:
  StatusOr<Report> Analyse(const app::Session& s) override {
    app::TableOptions o;
    o.top = top();
    return app::Memory(s, o);
  }
  std::optional<app::Sharded> Sharded() override {
    app::TableOptions o;
    o.top = top();
    return app::MemorySharded(o);
  }
};

}  // namespace
std::unique_ptr<Command> MakeMemoryCommand() { return std::make_unique<MemoryCommand>(); }
}  // namespace mlprof::cli
