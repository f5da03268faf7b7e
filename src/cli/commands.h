// The command line: the command table, "did you mean", and RunMain, which
// parses, runs the chosen command, renders its report and maps errors to
// exit codes. Only this layer prints or exits.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/distributed.h"
#include "cli/command.h"

namespace mlprof {

enum ExitCode { kExitOk = 0, kExitUsage = 1, kExitBadInput = 2, kExitInternal = 3, kExitGateFailed = 4 };

// Every command, in the order `mlprof --help` lists them.
const std::vector<cli::CommandInfo>& Commands();
// Closest command name within edit distance 2, or "".
std::string SuggestCommand(const std::string& typo);
// `comm`: the MPI world when run under mpirun (cli/mpi.h); commands that
// can (summary, diagnose) then share the inputs out over its processes and
// process 0 alone prints.
int RunMain(int argc, char** argv, std::unique_ptr<app::Comm> comm = nullptr);

}  // namespace mlprof
