// Output files that appear whole or not at all: each is written under a
// temporary name beside its final path and renamed into place when complete,
// so that a failed or interrupted write never leaves half a file under the
// name a user (or a later run) reads.
#pragma once

#include <cstdio>
#include <functional>
#include <string>

#include "base/status.h"

namespace mlprof {

// An output path mlprof may write: not a directory; an existing file only
// with `force`.
Status CheckOutputPath(const std::string& path, bool force);

// The temporary name beside `path` (unique to this process).
std::string TempPathFor(const std::string& path);

// Checks `path`, runs `write` on its temporary name (for writers that open
// the file themselves: SQLite, libxlsxwriter) and renames it into place when
// `write` succeeds; removes it otherwise.
Status WriteFileAtomically(const std::string& path, bool force, const std::function<Status(const std::string&)>& write);

// The same with the temporary file opened for `write` ("wb") and closed after.
Status WriteStreamAtomically(const std::string& path, bool force, const std::function<Status(std::FILE*)>& write);

}  // namespace mlprof
