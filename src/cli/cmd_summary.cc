// mlprof summary: per-rank GPU time breakdown, overlap, kernel classes, steps
// (and for XLA profiles the category breakdown and the heaviest ops).
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"
#include "cli/validators.h"

namespace mlprof::cli {
namespace {

class SummaryCommand : public ProfileCommand {
 public:
  SummaryCommand() : ProfileCommand(true, 5) {}

 private:
  void AddOwnOptions(CLI::App* app) override {
    app->add_option("--warmup", o_.warmup, "warm-up steps left out of medians (default 1 if >= 3 steps)")
        ->check(NumberAtLeastZero());
  }
  void Prepare() {
    // --top: kernel names per class; the heaviest XLA ops: 10 in text.
    o_.top = top();
    o_.top_ops = top_.given >= 0 ? top_.given : out_.format == "text" ? 10 : 0;
  }
  StatusOr<Report> Analyse(const app::Session& s) override {
    Prepare();
    return app::Summary(s, o_);
  }
  std::optional<app::Sharded> Sharded() override {
    Prepare();
    return app::SummarySharded(o_, in_.all_steps);
  }
  app::SummaryOptions o_;
};

}  // namespace
std::unique_ptr<Command> MakeSummaryCommand() { return std::make_unique<SummaryCommand>(); }
}  // namespace mlprof::cli
