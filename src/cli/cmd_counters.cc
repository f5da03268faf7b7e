// mlprof counters: counters over time (launch queue length, memory
// bandwidth) and the CUPTI range profiler's per-kernel counters.
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"

namespace mlprof::cli {
namespace {

class CountersCommand : public ProfileCommand {
 public:
  CountersCommand() : ProfileCommand(/*with_view=*/false, /*top_in_text=*/20) {}

 private:
  StatusOr<Report> Analyse(const app::Session& s) override {
    app::TableOptions o;
    o.top = top();
    return app::Counters(s, o);
  }
  std::optional<app::Sharded> Sharded() override {
    app::TableOptions o;
    o.top = top();
    return app::CountersSharded(o);
  }
};

}  // namespace
std::unique_ptr<Command> MakeCountersCommand() { return std::make_unique<CountersCommand>(); }
}  // namespace mlprof::cli
