// mlprof hlo: HLO modules (text, HloProto, XPlane): cost, categories,
// collectives; --op explains one instruction.
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"

namespace mlprof::cli {
namespace {

class HloCommand : public Command {
  void AddOptions(CLI::App* app) override {
    app->add_option("paths", o_.paths, "HLO text (.hlo/.txt), HloProto (.hlo.pb) or XPlane files")->required();
    app->add_option("--op", o_.op, "explain this instruction (name with or without %)");
    AddFormatOption(app, out_.format);
    AddTopOption(app, top_, "collectives listed");
    AddWidthOption(app, out_.width);
  }
  StatusOr<Report> Run() override {
    o_.top = top_.For(out_.format);
    return app::Hlo(o_);
  }
  app::HloOptions o_;
  TopOption top_{-1, 20};
};

}  // namespace
std::unique_ptr<Command> MakeHloCommand() { return std::make_unique<HloCommand>(); }
}  // namespace mlprof::cli
