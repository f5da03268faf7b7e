// HLO text reader: what `compiled.as_text()`, `--xla_dump_hlo_as_text` and
// XLA's test files contain. Grammar: ../shared/reference/xla-profiles-hlo.md
// section 3 (xla/hlo/parser/hlo_parser.cc is the authority).
//
// One file may hold several modules (test files separate them with
// "// -----"); `//`, `/* */` and line-initial `#` comments are skipped. Values
// may continue over several lines. Errors name the file, line and column, the
// token expected and the one found.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "hlo/module.h"

namespace mlprof::hlo {

// Parses every module in `text`; `path` is used in messages only.
StatusOr<std::vector<Module>> ParseHloText(std::string_view text, std::string_view path);

// Parses one instruction line, e.g. an xprof/TPU op expression
// "%fusion.1 = bf16[8]{0} fusion(bf16[8]{0} %p), kind=kLoop, calls=%f".
// Operand names are kept; nothing is resolved. The instruction's strings are
// views of `text`, or of `arena` where they had to be decoded: both must
// outlive it.
StatusOr<Instruction> ParseHloInstruction(std::string_view text, StringArena* arena);

// True if the bytes look like HLO text (an "HloModule" header near the start).
bool LooksLikeHloText(std::string_view head);

}  // namespace mlprof::hlo
