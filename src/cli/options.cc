// Options shared by several commands, the progress bar, and the base of the
// commands over loaded profiles.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "app/commands.h"
#include "cli/command.h"
#include "cli/validators.h"
#include "report/render.h"

namespace mlprof::cli {

namespace {

// Progress on stderr, only on a terminal and only for inputs over 100 MB (the
// total arrives with the first update).
class ProgressBar {
 public:
  explicit ProgressBar(bool tty) : enabled_(tty) {}
  ~ProgressBar() {
    if (shown_) std::fprintf(stderr, "\r%60s\r", "");
  }
  void Update(uint64_t done, uint64_t total) {
    if (!enabled_ || total <= (uint64_t{100} << 20)) return;
    int pct = static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(total));
    if (pct == last_) return;
    last_ = pct;
    shown_ = true;
    std::fprintf(stderr, "\rreading %3d%% (%llu / %llu MB)", pct, static_cast<unsigned long long>(done >> 20),
                 static_cast<unsigned long long>(total >> 20));
    std::fflush(stderr);
  }

 private:
  bool enabled_;
  bool shown_ = false;
  int last_ = -1;
};

}  // namespace

void AddFormatOption(CLI::App* app, std::string& format) {
  app->add_option("--format", format, "output format")->check(CLI::IsMember(RendererNames()))->capture_default_str();
}

void AddWidthOption(CLI::App* app, int& width) {
  app->add_option("--width", width,
                  "fit text tables to this many columns, shortening long names in the middle (0 = no limit)")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
}

void AddTopOption(CLI::App* app, TopOption& top, const char* what) {
  app->add_option("--top", top.given,
                  fmt::format("{} (0 = all; default {} in text, all in json and csv)", what, top.text_default))
      ->check(NumberAtLeastZero());
}

StatusOr<app::Session> OpenWithProgress(const app::InputOptions& in, bool with_view) {
  ProgressBar bar(isatty(2));
  return app::OpenSession(
      in, [&bar](uint64_t d, uint64_t t) { bar.Update(d, t); }, with_view);
}

void ProfileCommand::AddOptions(CLI::App* app) {
  AddLeadingPositionals(app);
  app->add_option("paths", in_.paths, "trace files or directories of per-rank traces")->required();
  AddFormatOption(app, out_.format);
  AddTopOption(app, top_, "rows per rank/class in ranked tables");
  app->add_option("--rank", in_.rank, "only this rank");
  app->add_flag("--hta-rounding", in_.hta_rounding,
                "round fractional-us timestamps as HTA does (ceil start, floor end) to reproduce its numbers");
  app->add_flag("--all-steps", in_.all_steps,
                "keep the last ProfilerStep (HTA and mlprof drop it by default when there are >= 2 steps)");
  app->add_option("--threads", in_.threads, "threads for reading and analysing ranks (default: one per core)")
      ->check(NumberAtLeastZero());
  app->add_option("--max-input-gb", in_.max_input_gb,
                  "the most one input may decode to, in GB (default: half the machine's memory)")
      ->check(CLI::Range(0.001, 1e6));
  app->add_flag("--merge", in_.merge,
                "one timeline from a host trace (the first input) and device profiles of the same run (the others: "
                "their GPU work), aligned by the launch calls both record");
  app->add_option("--merge-offset-us", merge_offset_us_,
                  "with --merge: the device inputs' clock + this = the host's (instead of matching launch calls)")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            char* end = nullptr;
            const double x = std::strtod(v.c_str(), &end);
            return end != v.c_str() && *end == 0 && std::isfinite(x) && std::abs(x) <= 1e12
                       ? std::string()
                       : "expected a finite offset in us within +-10^12";
          },
          "OFFSET_US"));
  app->add_option("--capture", in_.capture,
                  "the trace recorded while the CUDA/HIP graphs were captured (FILE, or DIR with TraceLens's "
                  "execution_details.json): graph-replayed kernels go to the ops and modules recorded there")
      ->check(CLI::Validator(
          [](std::string& v) { return v.empty() ? std::string("expected a file or directory") : std::string(); },
          "FILE|DIR"));
  app->add_option("--comm-kernel", in_.comm_kernels,
                  "count kernels whose name matches this regular expression as communication (repeatable), besides "
                  "NCCL, RCCL, HCCL and the libraries mlprof knows (DeepEP, NVSHMEM, MSCCL++, custom all-reduce ...)")
      ->take_all()
      ->allow_extra_args(false);
  app->add_option("--steps-from", in_.steps_from,
                  "where the steps come from: auto (the first found: ProfilerStep#N, serving steps, Optimizer.step "
                  "ranges, iteration annotations, repeating top-level ops, the whole trace), or one of profiler, "
                  "serving, optimizer, annotation, repeat, trace")
      ->check(CLI::IsMember({"auto", "profiler", "serving", "optimizer", "annotation", "repeat", "trace"}));
  AddWidthOption(app, out_.width);
  app->add_flag("--stats", stats_, "print mlprof's own timing to stderr");
  app->add_flag("-q,--quiet", out_.quiet, "do not print import warnings");
  AddOwnOptions(app);
}

void ProfileCommand::AddAnalysisOptions(CLI::App* app) {
  AddLeadingPositionals(app);
  AddTopOption(app, top_, "rows per rank/class in ranked tables");
  AddOwnOptions(app);
}

namespace {
app::Comm* g_comm = nullptr;
}  // namespace
void SetProcessComm(app::Comm* comm) { g_comm = comm; }
app::Comm* ProcessComm() { return g_comm; }

StatusOr<Report> ProfileCommand::Run() {
  if (!std::isnan(merge_offset_us_)) in_.merge_offset_us = merge_offset_us_;
  if (g_comm && g_comm->size() > 1) {
    std::optional<app::Sharded> sharded = Sharded();
    if (!sharded)
      return Unimplemented(
          fmt::format("this command does not run under MPI yet (summary, diagnose, diff, kernels, ops, idle, overlap, "
                      "engines, overview, steps, memory, counters, modules, scopes, roofline, launches, info, stats "
                      "and report do): run "
                      "it as one process, without "
                      "mpirun ({} processes here)",
                      g_comm->size()));
    RETURN_IF_ERROR(CheckMpiOptions());
    ASSIGN_OR_RETURN(std::optional<Report> r, app::RunDistributed(in_, *sharded, *g_comm, &mpi_));
    return r ? std::move(*r) : Report{};
  }
  ASSIGN_OR_RETURN(app::Session s, OpenWithProgress(in_, with_view_));
  const auto t0 = std::chrono::steady_clock::now();
  StatusOr<Report> r = Analyse(s);
  if (r.ok() && !r->grade) r->grade = app::FullGrade(s);
  analyse_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  load_s_ = s.load_seconds, bytes_ = s.decoded_bytes, ops_ = s.ops;
  return r;
}

void ProfileCommand::AfterOutput() {
  if (!stats_) return;
  if (mpi_.processes > 1) {
    std::fprintf(stderr,
                 "mlprof: stats: %d processes, %zu files, %zu ranks; process 0: read %.3f s, shard %.3f s, gather and "
                 "combine %.3f s; exchanged %llu bytes of facts, gathered %llu bytes of shards (at most %llu from one "
                 "process)\n",
                 mpi_.processes, mpi_.files, mpi_.ranks, mpi_.read_s, mpi_.shard_s, mpi_.combine_s,
                 static_cast<unsigned long long>(mpi_.fact_bytes), static_cast<unsigned long long>(mpi_.shard_bytes),
                 static_cast<unsigned long long>(mpi_.max_shard_bytes));
    return;
  }
  std::fprintf(stderr, "mlprof: stats: load %.3f s (%.1f MB/s of decoded input, %llu ops), analyse %.3f s\n", load_s_,
               load_s_ > 0 ? static_cast<double>(bytes_) / 1e6 / load_s_ : 0.0, static_cast<unsigned long long>(ops_),
               analyse_s_);
}

}  // namespace mlprof::cli
