// mlprof collectives: collectives matched across ranks.
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"

namespace mlprof::cli {
namespace {

class CollectivesCommand : public ProfileCommand {
 public:
  CollectivesCommand() : ProfileCommand(/*with_view=*/true, /*top_in_text=*/20) {}

 private:
  void AddOwnOptions(CLI::App* app) override {
    app->add_option("--gpus-per-node", gpus_per_node_,
                    "GPUs per node, for intra- vs inter-node groups (default: the first rank's deviceProperties "
                    "count, else 8)")
        ->check(CLI::Range(1, 1 << 20));
  }
  StatusOr<Report> Analyse(const app::Session& s) override {
    app::TableOptions o;
    o.top = top();
    return app::Collectives(s, o, gpus_per_node_);
  }
  int gpus_per_node_ = 0;
};

}  // namespace
std::unique_ptr<Command> MakeCollectivesCommand() { return std::make_unique<CollectivesCommand>(); }
}  // namespace mlprof::cli
