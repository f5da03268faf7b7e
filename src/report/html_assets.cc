// The page assets of report.html, built into the binary: the chart library
// (web/node_modules/echarts/dist/echarts.min.js, installed by
// scripts/setup.sh from npm at the version web/package.json pins), the page's
// script (web/report.js) and style (web/report.css). The assembler includes
// the files as they are (.incbin), so no copy of them is generated; CMake
// passes their paths and rebuilds this file when they change.
#include <string_view>

#include "report/html.h"

#define MLPROF_ASSET(sym, path)                                       \
  __asm__(                                                            \
      ".pushsection .rodata\n"                                        \
      ".global " #sym "_begin\n" #sym "_begin:\n.incbin \"" path      \
      "\"\n"                                                          \
      ".global " #sym "_end\n" #sym "_end:\n.byte 0\n.popsection\n"); \
  extern "C" const char sym##_begin[];                                \
  extern "C" const char sym##_end[];

MLPROF_ASSET(mlprof_page_script, MLPROF_PAGE_SCRIPT)
MLPROF_ASSET(mlprof_page_style, MLPROF_PAGE_STYLE)
#ifdef MLPROF_CHART_LIBRARY
MLPROF_ASSET(mlprof_chart_library, MLPROF_CHART_LIBRARY)
#endif

namespace mlprof {

std::string_view PageScript() {
  return {mlprof_page_script_begin, static_cast<size_t>(mlprof_page_script_end - mlprof_page_script_begin)};
}
std::string_view PageStyle() {
  return {mlprof_page_style_begin, static_cast<size_t>(mlprof_page_style_end - mlprof_page_style_begin)};
}
std::string_view ChartLibrary() {
#ifdef MLPROF_CHART_LIBRARY
  return {mlprof_chart_library_begin, static_cast<size_t>(mlprof_chart_library_end - mlprof_chart_library_begin)};
#else
  return {};
#endif
}

}  // namespace mlprof
