// mlprof stats PATH...: the reports people run `nsys stats` for, from any
// profile (analysis/summaries.h).
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"

namespace mlprof::cli {
namespace {

class StatsCommand : public ProfileCommand {
 public:
  StatsCommand() : ProfileCommand(/*with_view=*/false, /*top_in_text=*/20) {}

 private:
  void AddOwnOptions(CLI::App* app) override {
    app->add_option("--report", o_.reports, "a report by its nsys stats name (repeat; default: all)")
        ->check(CLI::IsMember(app::StatsReportNames()));
  }
  StatusOr<Report> Analyse(const app::Session& s) override {
    app::StatsOptions o = o_;
    o.top = top();
    return app::Stats(s, o);
  }
  std::optional<app::Sharded> Sharded() override {
    app::StatsOptions o = o_;
    o.top = top();
    return app::PerRankSharded([o](const app::Session& s) { return app::Stats(s, o); });
  }
  app::StatsOptions o_;
};

}  // namespace
std::unique_ptr<Command> MakeStatsCommand() { return std::make_unique<StatsCommand>(); }
}  // namespace mlprof::cli
