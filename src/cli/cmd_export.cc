// mlprof export: the profile in other tools' formats (Perfetto).
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"

namespace mlprof::cli {
namespace {

class ExportCommand : public ProfileCommand {
  void AddOwnOptions(CLI::App* app) override {
    in_.all_args = true;  // every arg of every event, in the exports
    app->add_option("--perfetto", o_.perfetto, "write a Perfetto trace (open at ui.perfetto.dev) to this file");
    app->add_option("--sqlite", o_.sqlite,
                    "write a SQLite database with Perfetto's tables (slice, track, args, ...) to this file");
    app->add_flag("--force", o_.force, "overwrite the output file if it exists");
  }
  StatusOr<Report> Analyse(const app::Session& s) override { return app::Export(s, o_); }
  app::ExportOptions o_;
};

}  // namespace
std::unique_ptr<Command> MakeExportCommand() { return std::make_unique<ExportCommand>(); }
}  // namespace mlprof::cli
