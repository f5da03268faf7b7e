// The subcommand table. Each command parses its own options (CLI11), runs
// analyses and hands a Report to the renderer. Only this layer prints/exits.
#pragma once

#include <string>
#include <vector>

namespace mlprof {

enum ExitCode { kExitOk = 0, kExitUsage = 1, kExitBadInput = 2, kExitInternal = 3 };

struct Command {
  const char* name;
  const char* help;
};

const std::vector<Command>& Commands();
// Closest command name within edit distance 2, or "".
std::string SuggestCommand(const std::string& typo);
int RunMain(int argc, char** argv);

}  // namespace mlprof
