// Each command's meaning as a function: options in, a Report out. The CLI
// (src/cli/cmd_*.cc) only wires options to these and renders the Report;
// `mlprof report`, the diff and the bindings call them too.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/engines.h"
#include "analysis/mfu.h"
#include "analysis/steps.h"
#include "app/session.h"
#include "base/status.h"
#include "plan/planner.h"
#include "plan/spec.h"
#include "report/html.h"
#include "report/table.h"

namespace mlprof::app {

// Options every table-printing command has.
struct TableOptions {
  int top = 10;  // rows per rank/class in ranked tables (0 = all)
};

// --- commands over a loaded profile -------------------------------------------
// An empty report carrying the inputs' import warnings (every command's start).
Report WithImportWarnings(const Session& s);
// The grade of every selected rank (analysis/grade.h): the table every
// profile command's JSON carries (Report::grade). Of several runs (diff,
// compare), one table with a leading "run" column holding each run's label.
Table FullGrade(const Session& s);
Table FullGrade(const std::vector<const Session*>& runs, const std::vector<std::string>& labels);
// The same from each run's grade table (FullGrade of one session each).
Table RunsGrade(const std::vector<Table>& grades, const std::vector<std::string>& labels);

struct SummaryOptions : TableOptions {
  int warmup = -1;   // warm-up steps left out of medians (-1: default rule)
  int top_ops = 10;  // the heaviest XLA ops listed (0 = all); `top` is kernel names per class
};
StatusOr<Report> Summary(const Session& s, const SummaryOptions& o);
// Its shards (app/shards.h; `all_steps`: the inputs' --all-steps).
struct Sharded;
Sharded SummarySharded(const SummaryOptions& o, bool all_steps);
Sharded KernelsSharded(const TableOptions& o);
Sharded EnginesSharded(const TableOptions& o);
Sharded OverviewSharded();
Sharded ModulesSharded(const TableOptions& o);
Sharded MemorySharded(const TableOptions& o);
Sharded CountersSharded(const TableOptions& o);
// What is in the files (the session needs no view).
Report Info(const Session& s);
Report Kernels(const Session& s, const TableOptions& o);
// nsys stats' reports over the whole trace (analysis/summaries.h): the ones
// named (StatsReportNames(); none: all), `top` rows per rank each.
struct StatsOptions : TableOptions {
  std::vector<std::string> reports;
};
const std::vector<std::string>& StatsReportNames();
Report Stats(const Session& s, const StatsOptions& o);
struct OpsOptions : TableOptions {
  bool by_name = false;  // group by op name only, not by input shapes
  int by_stack = 0;      // > 0: host ops also grouped by their innermost N Python frames
};
Report Ops(const Session& s, const OpsOptions& o);
Sharded OpsSharded(const OpsOptions& o);
struct IdleOptions {
  int kernel_wait_us = 30;  // gaps shorter than this are kernel wait
  bool intervals = false;   // also interval statistics per category
};
Report Idle(const Session& s, const IdleOptions& o);
Report Overlap(const Session& s);
struct StepsOptions {
  int warmup = -1;
};
Report Steps(const Session& s, const StepsOptions& o);
Sharded StepsSharded(const StepsOptions& o);
Report Launches(const Session& s);
// The critical path (analysis/critical_path.h): per window (default: every
// ProfilerStep but the last, else the whole trace), its bounds, the ops on
// it, slack off it, what-if speed-ups and HTA's overlay file.
struct CriticalPathOptions : TableOptions {
  int64_t step = -1;            // ProfilerStep#N
  std::string annotation;       // events whose name contains it ...
  int64_t first = 0, last = 0;  // ... instances [first, last]
  bool whole = false;           // the whole trace
  bool zero_weight_launch_edges = false;
  std::string overlay;   // write HTA's overlay here
  std::string perfetto;  // write the Perfetto export with the path marked here
  std::vector<std::string> speedups;
};
StatusOr<Report> CriticalPathReport(const Session& s, const CriticalPathOptions& o);
// Counters over time (analysis/counters.h, analysis/launches.h): queue
// length, memory bandwidth, CUPTI range-profiler counters.
Report Counters(const Session& s, const TableOptions& o);
// PyTorch traces: GPU time up the nn.Module tree and per class, per user
// annotation, and who launches each kernel (analysis/modules.h).
Report Modules(const Session& s, const TableOptions& o);
// Collectives matched across ranks (analysis/collectives.h).
Report Collectives(const Session& s, const TableOptions& o, int gpus_per_node);
// What to fix first: the rules' findings with their savings (analysis/diagnose.h).
struct DiagnoseOptions {
  double min_share_pct = 5;  // a finding must save at least this % of the step
  double min_saving_us = 10;
  int kernel_wait_us = 30;
  int warmup = -1;
  bool rules = false;                 // also the rules table
  std::string chip;                   // matmul rules: the chip (empty: detected from the profile)
  double matmul_efficiency_pct = 70;  // matmul rules: a good kernel's share of the roofline
};
StatusOr<Report> Diagnose(const Session& s, const DiagnoseOptions& o);
Sharded DiagnoseSharded(const DiagnoseOptions& o);
// Forward / backward / optimizer per step and the repeated layers
// (analysis/layers.h).
Report Layers(const Session& s, int warmup);
// How busy each engine was: GPU streams, device lines, launching threads.
// `top`: op types per rank in the hardware-unit table.
Report Engines(const Session& s, const TableOptions& o);
// Memory over time per device (analysis/memory.h).
Report Memory(const Session& s, const TableOptions& o);
// The TensorBoard PyTorch profiler plugin's Overview: step time by role and
// the GPU summary.
Report Overview(const Session& s);
struct ScopesOptions : TableOptions {
  int depth = 4;
};
Report Scopes(const Session& s, const ScopesOptions& o);
Sharded ScopesSharded(const ScopesOptions& o);

struct RooflineOptions : TableOptions {
  std::string chip;  // id; empty: detected from the profile
  std::vector<std::string> chip_files;
  std::string dtype = "bf16";
  bool dtype_given = false;  // PyTorch ops: each op's own dtype unless given
  std::string ici_axes;      // "4x4x4"; empty: a ring on one axis
  bool want_svg = false;
};
struct RooflineOutput {
  Report report;
  std::string svg;  // when want_svg: the first rank's plot
};
StatusOr<RooflineOutput> Roofline(const Session& s, const RooflineOptions& o);
// Without the SVG (MPI refuses --svg).
Sharded RooflineSharded(const RooflineOptions& o);

// Writes the loaded profile as a Perfetto trace to `path` (through a
// temporary file renamed at the end, so an interrupted run leaves no file
// that looks complete; an existing file only with `force`). The Report says
// what was written.
struct ExportOptions {
  std::string perfetto;  // output paths (empty: not written)
  std::string sqlite;
  bool force = false;
};
StatusOr<Report> Export(const Session& s, const ExportOptions& o);
// mlprof report: writes into `dir` summary.txt (engines, steps, time by
// kind), trace.pftrace, trace.sqlite, report.html (charts and tables, one
// self-contained page) and report.xlsx (every table of
// summary, engines, kernels, ops, steps, overview, idle and overlap, one
// sheet each), each through a temporary name; an
// existing non-empty `dir` only with `force`. The Report lists the files.
struct ReportOptions {
  std::string dir;
  bool force = false;
  bool perfetto = true, sqlite = true, xlsx = true, html = true;
  // Called as each file is finished (from the thread that wrote it, one
  // call at a time): its name, how many are done and how many the report
  // writes (for a progress line).
  std::function<void(const std::string& file, int done, int count)> progress;
};
StatusOr<Report> WriteReport(const Session& s, const ReportOptions& o);
// report under MPI: the same pages (summary.txt, report.html, report.xlsx)
// from the shards of its tables and sections; process 0 writes them. The
// trace files are not written (ReportOptions' perfetto and sqlite unused).
Sharded ReportSharded(const ReportOptions& o, bool all_steps);
// report.html's content (app/html_report.cc): overview cards, time by
// category, the engines' busy timeline, top ops and kernels, the roofline,
// the scope tree and idle/overlap, with `warnings` as import problems.
// The tables report.html and report.xlsx share, every row (--top 0):
// computed once.
struct ReportTables {
  Report summary, engines, kernels, ops, steps, overview, idle, overlap, diagnose;
};
ReportTables ComputeReportTables(const Session& s);
// What summary.txt and report.html show beyond those tables: the inputs,
// the engines with their busy timeline over the job's window (200 bins),
// the engines' top 10, each rank's steady state, and (with `page`) the
// roofline, scopes, memory, counters and modules sections.
struct ReportExtras {
  std::vector<std::string> inputs;  // "rank R: PATH (FORMAT, N ops)", rank order
  std::string first_format;
  std::vector<EngineRow> engines;  // with busy_bins
  EngineTimeline timeline;
  Report engines_top10;
  std::vector<StepSummary> step_summary;
  StatusOr<Report> roofline = Report{};
  Report scopes, memory, counters, modules;
};
ReportExtras ComputeReportExtras(const Session& s, bool page);
// Its per-rank part: the inputs, the engines with their timeline (over
// JobFacts::engine_window when set) and each rank's steady state.
ReportExtras ComputeReportRanks(const Session& s);
HtmlReport BuildHtmlReport(const ReportTables& tables, const ReportExtras& extras,
                           const std::vector<std::string>& warnings);
// Runs one SQL query over the profile loaded into SQLite under Perfetto's
// table names (export/sqlite.h); the rows as a table. SQL errors are bad
// input (exit 2), with SQLite's message.
StatusOr<Report> Sql(const Session& s, const std::string& query);

// mlprof diff BASE NEW: what changed (analysis/diff.h), and --fail-if gates
// ("step_time>+5%", "compute>+2ms", "idle<-10%": a breakdown measure, > or <,
// a change in % or in ms/us), checked on every rank matched; a violated
// gate sets Report::gate_failed.
struct DiffOptions : TableOptions {
  int warmup = -1;
  double alpha = 0.05;        // significance level of the step-time test
  double min_change_pct = 1;  // smaller changes are not called slower/faster
  std::vector<std::string> gates;
};
StatusOr<Report> Diff(const Session& base, const Session& neu, const DiffOptions& o);
// The gates' words checked before any input is read.
Status CheckDiffGates(const DiffOptions& o);
// Diff as a shard over a share of each side's ranks and a combine (MPI).
struct PairSharded;
PairSharded DiffSharded(const DiffOptions& o);

// mlprof compare RUN...: the run table, best first. Per run: the job's step
// (the slowest rank's median over the chosen steps), its spread, the
// breakdown's shares, and with --tokens-per-step tokens/s, with
// --flops-per-step and --peak-tflops MFU (model FLOPs per step / (step x
// ranks x peak)).
struct CompareOptions {
  std::vector<std::string> labels;          // one per run (default: the path's last part)
  int64_t first_step = -1, last_step = -1;  // ProfilerStep numbers (inclusive); -1: the steady state
  double tokens_per_step = 0, flops_per_step = 0, peak_tflops = 0;
  // MFU's peak when --peak-tflops is not given: this chip's, else each run's
  // chip detected from its devices; at `dtype`.
  std::string chip;
  std::string dtype = "bf16";
};
StatusOr<Report> Compare(const std::vector<const Session*>& runs, const std::vector<std::string>& paths,
                         const CompareOptions& o);

// --- commands that may read no profile ----------------------------------------
struct MfuOptions : TableOptions {
  std::vector<std::string> chip_files;
  std::string chip;        // id, name or device name
  std::string dtype;       // "": bf16, or the chip's best below it when it has none (DefaultPeakDtype)
  double peak_tflops = 0;  // replaces the chip's peak when > 0
  MfuInput input;          // devices, throughput and model FLOPs as given
};
// `profile` (optional) gives the step time, devices, chip and op FLOPs that
// the options leave out.
StatusOr<Report> Mfu(const MfuOptions& o, const Session* profile);

struct PlanOptions : TableOptions {
  std::string model;  // built-in name or a .toml path
  std::string chip;
  std::vector<std::string> chip_files;
  std::string memory, ici_axes, precision, schedule;
  int64_t chips = 0, node = 0, slices = 0;
  plan::TrainSpec train;
  plan::Knobs knobs;
  plan::PlanFilter filter;
  double max_mem_gb = 0;
  int explain = 0;
  double latency_us = 1;
  // --calibrate: profiles of a real run whose measured efficiencies replace
  // the defaults; --this-run: also predict that run's own plan.
  InputOptions calibrate;
  bool this_run = false;
};
StatusOr<Report> Plan(PlanOptions o);

struct HloOptions : TableOptions {
  std::vector<std::string> paths;
  std::string op;  // explain this instruction
  // With a chip: each module's expected time (its FLOPs and bytes over
  // `devices` devices at the chip's peaks).
  std::string chip;
  std::vector<std::string> chip_files;
  std::string dtype = "bf16";
  double devices = 1;
  bool per_core = false;
  HloOptions() { top = 20; }
};
StatusOr<Report> Hlo(const HloOptions& o);

StatusOr<Report> Shapes(const std::vector<std::string>& texts);

struct ChipsOptions {
  std::vector<std::string> chip_files;
  std::string chip;  // every field of this one
};
StatusOr<Report> Chips(const ChipsOptions& o);

// Why some framework ops have no FLOPs: no shapes recorded, or a
// convolution's stride unknown (one warning each).
std::vector<std::string> UncostedWarnings(const std::vector<std::pair<std::string, int64_t>>& without_shapes,
                                          const std::vector<std::pair<std::string, int64_t>>& without_stride);
// The same over shards: each shard's `_uncosted` table (UncostedShard),
// calls summed by name.
Table UncostedShard(const ProfileView& v);
std::vector<std::string> UncostedWarnings(const std::vector<Report>& shards);

}  // namespace mlprof::app
