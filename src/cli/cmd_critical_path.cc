// mlprof critical-path PATH...: the critical path per step (HTA's
// definition), what bounds it, what-if speed-ups, HTA's overlay.
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"
#include "cli/validators.h"

namespace mlprof::cli {
namespace {

class CriticalPathCommand : public ProfileCommand {
 public:
  CriticalPathCommand() : ProfileCommand(/*with_view=*/false, /*top_in_text=*/15) {}

 private:
  void AddOwnOptions(CLI::App* app) override {
    auto* step = app->add_option("--step", o_.step, "the step ProfilerStep#N (default: every step but the last)")
                     ->check(NumberAtLeastZero());
    auto* ann = app->add_option("--annotation", o_.annotation,
                                "a window: events whose name contains this text (HTA's annotation), with --instance");
    app->add_option("--instance", instance_, "which instance of --annotation, 0-based: K or A:B (default 0)")
        ->needs(ann);
    auto* whole = app->add_flag("--whole", o_.whole, "the whole trace as one window");
    step->excludes(ann)->excludes(whole);
    ann->excludes(whole);
    app->add_flag("--zero-weight-launch-edges", o_.zero_weight_launch_edges,
                  "HTA's CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE: a 0-weight edge from every launch to its kernel");
    app->add_option("--overlay", o_.overlay,
                    "write the input trace with the path overlaid as HTA does (args.critical, critical_path flows); "
                    ".gz compresses");
    app->add_option("--perfetto", o_.perfetto,
                    "write the Perfetto trace (as `mlprof export --perfetto`) with the path's ops marked critical = 1 "
                    "and flows for the path's dependency, launch and sync edges (as HTA's overlay)");
    app->add_option("--speedup", o_.speedups,
                    "what-if, repeatable: class=computation|communication|memory:F, name~TEXT:F, cpu:F, launch:F, "
                    "gap:F (F times faster), launch=0, gap=0");
  }
  StatusOr<Report> Analyse(const app::Session& s) override {
    app::CriticalPathOptions o = o_;
    o.top = top();
    if (!instance_.empty()) {
      const size_t colon = instance_.find(':');
      auto num = [&](const std::string& t, int64_t* v) {
        try {
          size_t used = 0;
          *v = std::stoll(t, &used);
          return used == t.size() && *v >= 0;
        } catch (...) {
          return false;
        }
      };
      const bool ok = colon == std::string::npos ? num(instance_, &o.first) && (o.last = o.first, true)
                                                 : num(instance_.substr(0, colon), &o.first) &&
                                                       num(instance_.substr(colon + 1), &o.last) && o.last >= o.first;
      if (!ok) return InvalidArgument("--instance: expected K or A:B (0-based, A <= B), got '" + instance_ + "'");
    }
    return app::CriticalPathReport(s, o);
  }
  app::CriticalPathOptions o_;
  std::string instance_;
};

}  // namespace
std::unique_ptr<Command> MakeCriticalPathCommand() { return std::make_unique<CriticalPathCommand>(); }
}  // namespace mlprof::cli
