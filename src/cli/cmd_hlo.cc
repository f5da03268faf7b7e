// mlprof hlo: HLO modules (text, HloProto, XPlane): cost, categories,
// collectives; --op explains one instruction.
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"
#include "cli/validators.h"

namespace mlprof::cli {
namespace {

class HloCommand : public Command {
  void AddOptions(CLI::App* app) override {
    app->add_option("paths", o_.paths, "HLO text (.hlo/.txt), HloProto (.hlo.pb) or XPlane files")->required();
    app->add_option("--op", o_.op, "explain this instruction (name with or without %)");
    app->add_option("--chip", o_.chip, "also each module's expected time on this chip (`mlprof chips` lists them)");
    app->add_option("--chip-file", o_.chip_files, "add or replace chips from JSON files");
    app->add_option("--dtype", o_.dtype, "with --chip: the peak of this data type")->capture_default_str();
    app->add_option("--devices", o_.devices, "with --chip: devices the module's work is spread over")
        ->check(NumberAtLeastZero(true))
        ->capture_default_str();
    app->add_flag("--per-core", o_.per_core, "with --chip: devices are cores (TPU v2-v4: the chip's peak / cores)");
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
