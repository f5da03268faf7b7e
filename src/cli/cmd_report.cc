// mlprof report PATH... -o DIR: the files to look at and share.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "app/commands.h"
#include "cli/command.h"

namespace mlprof::cli {
namespace {

class ReportCommand : public ProfileCommand {
  void AddOwnOptions(CLI::App* app) override {
    in_.all_args = true;  // every arg of every event, in trace.pftrace and trace.sqlite
    app->add_option("-o,--out", o_.dir, "the directory to write (created; an existing non-empty one needs --force)")
        ->required();
    app->add_flag("--force", o_.force, "write into an existing directory, replacing the report's files");
    app->add_flag("!--no-perfetto", o_.perfetto, "skip trace.pftrace");
    app->add_flag("!--no-sqlite", o_.sqlite, "skip trace.sqlite");
    app->add_flag("!--no-xlsx", o_.xlsx, "skip report.xlsx");
    app->add_flag("!--no-html", o_.html, "skip report.html");
  }
  StatusOr<Report> Analyse(const app::Session& s) override {
    // A progress line on a terminal for inputs over 100 MB, as when reading.
    bool shown = false;
    if (isatty(2) && s.decoded_bytes > (uint64_t{100} << 20)) {
      o_.progress = [&shown](const std::string& file, int i, int n) {
        std::fprintf(stderr, "\rwriting the report: %d of %d files (%s done)   ", i, n, file.c_str());
        std::fflush(stderr);
        shown = true;
      };
    }
    StatusOr<Report> r = app::WriteReport(s, o_);
    if (shown) std::fprintf(stderr, "\r%60s\r", "");
    return r;
  }
  // Under MPI process 0 writes the pages from every process's results; the
  // trace files hold every event of every rank, which only results cross.
  std::optional<app::Sharded> Sharded() override { return app::ReportSharded(o_, in_.all_steps); }
  Status CheckMpiOptions() override {
    if (o_.perfetto || o_.sqlite)
      return InvalidArgument(
          "under MPI, report writes summary.txt, report.html and report.xlsx from every process's results; the "
          "trace files hold every event of every rank: add --no-perfetto --no-sqlite (and write the traces per "
          "rank with `mlprof export`)");
    in_.all_args = false;  // only the trace files show every arg
    return OkStatus();
  }
  app::ReportOptions o_;
};

}  // namespace
std::unique_ptr<Command> MakeReportCommand() { return std::make_unique<ReportCommand>(); }
}  // namespace mlprof::cli
