// The renderers, as a registry: `--format` lists what is here, and a new
// output format (xlsx, HTML, SQLite, Perfetto) is one more entry.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report/table.h"

namespace mlprof {

struct RenderOptions {
  int width = 120;  // text: tables fitted to this many columns
};

struct Renderer {
  const char* name;  // the --format value
  bool binary;       // writes bytes a terminal should not get
  std::string (*render)(const Report& report, const RenderOptions& options);
};

// In the order `--format` lists them; the first is the default.
const std::vector<Renderer>& Renderers();
const Renderer* FindRenderer(std::string_view name);
std::vector<std::string> RendererNames();

}  // namespace mlprof
