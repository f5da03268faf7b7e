// mlprof sql QUERY PATH...: SQL over the trace, under Perfetto's table names.
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"

namespace mlprof::cli {
namespace {

class SqlCommand : public ProfileCommand {
  void AddLeadingPositionals(CLI::App* app) override {
    in_.all_args = true;  // every arg of every event, for `args`
    app->add_option("query", query_,
                    "one SQL query over the tables slice, track, thread_track, process_track, counter_track, "
                    "thread, process, args, counter, flow (Perfetto's names; ts and dur in ns) and mlprof's own "
                    "mlprof_<table> (mlprof_kernels, mlprof_steps, ...; listed in mlprof_tables)")
        ->required();
  }
  StatusOr<Report> Analyse(const app::Session& s) override { return app::Sql(s, query_); }
  std::string query_;
};

}  // namespace
std::unique_ptr<Command> MakeSqlCommand() { return std::make_unique<SqlCommand>(); }
}  // namespace mlprof::cli
