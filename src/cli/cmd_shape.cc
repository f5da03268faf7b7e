// mlprof shape: XLA HLO shapes explained (layout, tiling, padding, memory
// space).
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"

namespace mlprof::cli {
namespace {

class ShapeCommand : public Command {
  void AddOptions(CLI::App* app) override {
    app->add_option("shapes", texts_, "HLO shapes, e.g. 'f32[3,5]{1,0:T(2,2)}'")->required();
    AddFormatOption(app, out_.format);
  }
  StatusOr<Report> Run() override { return app::Shapes(texts_); }
  std::vector<std::string> texts_;
};

}  // namespace
std::unique_ptr<Command> MakeShapeCommand() { return std::make_unique<ShapeCommand>(); }
}  // namespace mlprof::cli
