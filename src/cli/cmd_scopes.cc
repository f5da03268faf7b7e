// mlprof scopes: XLA device time by JAX named scope, as a tree.
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"

namespace mlprof::cli {
namespace {

class ScopesCommand : public ProfileCommand {
  void AddOwnOptions(CLI::App* app) override {
    app->add_option("--depth", o_.depth, "scope levels to show")->check(CLI::Range(1, 64))->capture_default_str();
  }
  StatusOr<Report> Analyse(const app::Session& s) override {
    o_.top = top();
    return app::Scopes(s, o_);
  }
  std::optional<app::Sharded> Sharded() override {
    o_.top = top();
    return app::ScopesSharded(o_);
  }
  app::ScopesOptions o_;
};

}  // namespace
std::unique_ptr<Command> MakeScopesCommand() { return std::make_unique<ScopesCommand>(); }
}  // namespace mlprof::cli
