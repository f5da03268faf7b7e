// The command table's entries. Each command is one file, cmd_<name>.cc: its
// options (CLI11) and a Run that calls the app layer and returns a Report or
// a Status. RunMain (commands.cc) parses, dispatches, renders the report and
// words errors as exit codes; only this layer prints.
#pragma once

#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/distributed.h"
#include "app/session.h"
#include "app/shards.h"
#include "base/status.h"
#include "report/table.h"

// CLI11 is large and header-only: only the files that add options include
// it (CMake compiles them as one unity source), so that main.cc and the
// tests do not compile it again.
namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace mlprof::cli {

struct OutputOptions {
  std::string format = "text";
  int width = 120;
  bool quiet = false;  // no import warnings
};

class Command {
 public:
  virtual ~Command() = default;
  virtual void AddOptions(CLI::App* app) = 0;
  // Runs the parsed command.
  virtual StatusOr<Report> Run() = 0;
  // Called after the report is printed (--stats).
  virtual void AfterOutput() {}
  const OutputOptions& output() const { return out_; }
  // Output format the Run sees (ranked tables: --top's default depends on it).
  void set_format(std::string format) { out_.format = std::move(format); }

 protected:
  OutputOptions out_;
};

struct CommandInfo {
  const char* name;
  const char* help;
  std::unique_ptr<Command> (*make)();
};

// --top: how many rows ranked tables keep. Machine output is never cut
// unless asked: without --top, text keeps the command's default and JSON and
// CSV keep every row (0 = all).
struct TopOption {
  int given = -1;    // -1: not given
  int text_default;  // rows kept in text output when not given
  int For(const std::string& format) const { return given >= 0 ? given : format == "text" ? text_default : 0; }
};

// --- shared options --------------------------------------------------------------
void AddFormatOption(CLI::App* app, std::string& format);
void AddWidthOption(CLI::App* app, int& width);
void AddTopOption(CLI::App* app, TopOption& top, const char* what);

// A command over loaded profiles (summary, kernels, ...): paths and the
// common options, a session opened with a progress bar, --stats.
class ProfileCommand : public Command {
 public:
  void AddOptions(CLI::App* app) final;
  StatusOr<Report> Run() final;
  void AfterOutput() final;
  // Embedding (cli/embed.h): the command's own options only (leading
  // positionals, --top and AddOwnOptions; no paths or input options), and
  // its analysis of a session opened elsewhere.
  void AddAnalysisOptions(CLI::App* app);
  StatusOr<Report> AnalyseLoaded(const app::Session& s) { return Analyse(s); }
  // The input options the command asks for (after AddAnalysisOptions):
  // export, report and sql want every arg kept.
  const app::InputOptions& wanted_inputs() const { return in_; }

 protected:
  explicit ProfileCommand(bool with_view = true, int top_in_text = 10) : top_{-1, top_in_text}, with_view_(with_view) {}
  virtual void AddOwnOptions(CLI::App*) {}
  // Positionals that come before the paths (`mlprof sql QUERY PATH...`).
  virtual void AddLeadingPositionals(CLI::App*) {}
  virtual StatusOr<Report> Analyse(const app::Session& s) = 0;
  // Commands that run under MPI: their shard and combine (app/shards.h).
  virtual std::optional<app::Sharded> Sharded() { return std::nullopt; }
  // Under MPI, before any input is read: options that cannot run there
  // refuse (the same words on every process); options only a single process
  // needs may be dropped.
  virtual Status CheckMpiOptions() { return OkStatus(); }
  int top() const { return top_.For(out_.format); }
  app::InputOptions in_;
  TopOption top_;

 private:
  bool with_view_;
  bool stats_ = false;
  app::DistributedStats mpi_;  // under MPI
  double merge_offset_us_ = std::numeric_limits<double>::quiet_NaN();
  double load_s_ = 0, analyse_s_ = 0;
  uint64_t bytes_ = 0, ops_ = 0;
};

// The MPI world of this process (null: one process). Set by RunMain.
void SetProcessComm(app::Comm* comm);
app::Comm* ProcessComm();

// Opens the inputs with a progress bar on a terminal.
StatusOr<app::Session> OpenWithProgress(const app::InputOptions& in, bool with_view = true);

// The commands, one factory each (cmd_<name>.cc).
std::unique_ptr<Command> MakeSummaryCommand();
std::unique_ptr<Command> MakeInfoCommand();
std::unique_ptr<Command> MakeKernelsCommand();
std::unique_ptr<Command> MakeOpsCommand();
std::unique_ptr<Command> MakeIdleCommand();
std::unique_ptr<Command> MakeDiagnoseCommand();
std::unique_ptr<Command> MakeDiffCommand();
std::unique_ptr<Command> MakeCompareCommand();
std::unique_ptr<Command> MakeOverlapCommand();
std::unique_ptr<Command> MakeLayersCommand();
std::unique_ptr<Command> MakeStatsCommand();
std::unique_ptr<Command> MakeOverviewCommand();
std::unique_ptr<Command> MakeExportCommand();
std::unique_ptr<Command> MakeSqlCommand();
std::unique_ptr<Command> MakeEnginesCommand();
std::unique_ptr<Command> MakeMemoryCommand();
std::unique_ptr<Command> MakeReportCommand();
std::unique_ptr<Command> MakeStepsCommand();
std::unique_ptr<Command> MakeLaunchesCommand();
std::unique_ptr<Command> MakeCountersCommand();
std::unique_ptr<Command> MakeModulesCommand();
std::unique_ptr<Command> MakeCollectivesCommand();
std::unique_ptr<Command> MakeCriticalPathCommand();
std::unique_ptr<Command> MakeScopesCommand();
std::unique_ptr<Command> MakeHloCommand();
std::unique_ptr<Command> MakeShapeCommand();
std::unique_ptr<Command> MakeChipsCommand();
std::unique_ptr<Command> MakeMfuCommand();
std::unique_ptr<Command> MakeRooflineCommand();
std::unique_ptr<Command> MakePlanCommand();

}  // namespace mlprof::cli
