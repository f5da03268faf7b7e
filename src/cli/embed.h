// The command table without a terminal: what the Python bindings call
// (python/_native.cc). Options are parsed by the same CLI11 declarations as
// on the command line, so a command's options, defaults, checks and error
// words are one definition; results come back as Reports, unrendered, and
// nothing is printed (a progress bar only on a terminal, as in the CLI).
#pragma once

#include <string>
#include <vector>

#include "app/session.h"
#include "base/status.h"
#include "report/table.h"

namespace mlprof::cli {

struct CommandSummary {
  std::string name, help;
  bool profile = false;  // reads profiles given as paths (summary, ops, sql, ...): RunOnSession takes it
};
// Every command, in the order `mlprof --help` lists them.
std::vector<CommandSummary> CommandList();

// `mlprof ARGS...` (args[0]: the command) as a Report. Ranked tables keep
// every row unless --top is given, as JSON and CSV output do. A usage error
// is kInvalidArgument in the CLI's words; --help gives the help text as
// kInvalidArgument too (use CommandHelp).
StatusOr<Report> RunCommand(const std::vector<std::string>& args);

// A profile command on a session opened elsewhere (app::OpenSession):
// `args` are the command's own options (and the leading positionals: sql's
// QUERY), not paths or input options.
StatusOr<Report> RunOnSession(const std::string& command, const std::vector<std::string>& args, const app::Session& s);

// The help text: of the whole command (`mlprof NAME --help`), or, with
// analysis_only, of the options RunOnSession takes. NotFound for an unknown
// name (with the nearest one).
StatusOr<std::string> CommandHelp(const std::string& command, bool analysis_only);

}  // namespace mlprof::cli
