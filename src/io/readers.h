// The readers, as a registry. Every input format mlprof knows is one entry:
// how to recognise it from its first bytes (and name), and what it can be
// read into: a trace (one RankProfile per file) and/or HLO modules. Loading
// (io/load.h) and `mlprof hlo` (io/hlo_files.h) ask the registry; a new
// reader is one entry in readers.cc, its own files, and a fuzz target.
#pragma once

#include <string_view>
#include <vector>

#include "base/file_loader.h"
#include "base/status.h"
#include "hlo/module.h"
#include "io/read_options.h"
#include "model/profile.h"

namespace mlprof {

struct Reader {
  const char* name;         // as `mlprof info` names the format ("chrome-json", "xplane", ...)
  const char* description;  // for messages: "Chrome/Kineto trace JSON"
  // True if the (decompressed) bytes look like this format.
  bool (*sniff)(std::string_view bytes);
  // File name endings that make this reader the fallback when no reader
  // recognises the bytes and the caller wants what this reader gives (HLO
  // text dumps may start with a bare computation, no header).
  std::vector<std::string_view> extensions;
  // Reads a trace into `out`; null when the format holds no trace.
  Status (*read_trace)(LoadedFile& file, const ReadOptions& options, RankProfile* out);
  // Reads the HLO modules the file holds; null when it holds none.
  StatusOr<std::vector<hlo::Module>> (*read_hlo)(LoadedFile& file, const ReadOptions& options);
};

// What every trace reader records of its file first: path, format,
// compression and sizes.
void DescribeFile(const LoadedFile& file, TraceFormat format, RankProfile* out);
// For readers that cannot use a prefix (binary formats): an error when the
// compressed stream ended early, naming the compressed offset; else OK.
Status RefuseTruncated(const LoadedFile& file);

// In sniffing order (the first that recognises the bytes reads them).
const std::vector<Reader>& Readers();

enum class ReadFor { kTrace, kHlo };
// The reader that recognises the bytes (whatever it can read: the caller
// words "holds no trace"); else one that can read `want` and claims the
// file's extension; else null.
const Reader* SniffReader(const LoadedFile& file, ReadFor want);

}  // namespace mlprof
