// mlprof layers PATH...: forward / backward / optimizer per step, the
// repeated modules and the repeating block's parts.
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"
#include "cli/validators.h"

namespace mlprof::cli {
namespace {

class LayersCommand : public ProfileCommand {
  void AddOwnOptions(CLI::App* app) override {
    app->add_option("--warmup", warmup_, "warm-up steps left out (default: 1 of 3 or more)")
        ->check(NumberAtLeastZero());
  }
  StatusOr<Report> Analyse(const app::Session& s) override { return app::Layers(s, warmup_); }
  int warmup_ = -1;
};

}  // namespace
std::unique_ptr<Command> MakeLayersCommand() { return std::make_unique<LayersCommand>(); }
}  // namespace mlprof::cli
