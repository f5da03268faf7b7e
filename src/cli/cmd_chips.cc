// mlprof chips: the chip database; --chip shows one chip's every field.
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"

namespace mlprof::cli {
namespace {

class ChipsCommand : public Command {
  void AddOptions(CLI::App* app) override {
    app->add_option("--chip-file", o_.chip_files, "add or replace chips from JSON files (fields as data/chips/*.json)");
    AddFormatOption(app, out_.format);
    AddWidthOption(app, out_.width);
    app->add_option("--chip", o_.chip, "show every field and source of this chip");
  }
  StatusOr<Report> Run() override { return app::Chips(o_); }
  app::ChipsOptions o_;
};

}  // namespace
std::unique_ptr<Command> MakeChipsCommand() { return std::make_unique<ChipsCommand>(); }
}  // namespace mlprof::cli
