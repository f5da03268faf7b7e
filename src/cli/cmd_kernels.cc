// mlprof kernels: GPU time by kernel class (HTA) and by kernel name.
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"

namespace mlprof::cli {
namespace {

class KernelsCommand : public ProfileCommand {
  StatusOr<Report> Analyse(const app::Session& s) override { return app::Kernels(s, {top()}); }
  std::optional<app::Sharded> Sharded() override { return app::KernelsSharded({top()}); }
};

}  // namespace
std::unique_ptr<Command> MakeKernelsCommand() { return std::make_unique<KernelsCommand>(); }
}  // namespace mlprof::cli
