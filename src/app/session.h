// The app layer: what each command means, without a command line. It turns
// inputs plus options into a Report (neutral tables) by calling readers,
// analyses and table builders; the CLI, `mlprof report`, the diff and the
// Python bindings call it. It prints nothing and never exits.
//
// A Session is the loaded inputs: the profile, the analysis view (HTA's
// last-step filter and optional rounding, the --rank selection) and what
// loading cost.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/view.h"
#include "base/status.h"
#include "model/profile.h"

namespace mlprof::app {

// Facts about the whole job that analyses need when a process holds only
// some of its ranks (an MPI run: exchanged between the processes before the
// analyses; app/distributed.h). Unset (-1, empty): from the session's ranks.
struct JobFacts {
  int multi_step = -1;            // >= 2 distinct ProfilerStep numbers over all ranks
  int every_rank_has_steps = -1;  // every rank has ProfilerSteps
  std::vector<int64_t> ranks;     // every rank of the job, ascending
  // Every rank's devices in rank order (a chip family named by --chip
  // resolves against them); unset: the profile's own.
  std::optional<std::vector<DeviceProperties>> devices;
  // The engines' window over every rank (EngineWindow), when the command
  // asked for it (report's busy timeline).
  std::optional<std::pair<Ps, Ps>> engine_window;
};

struct InputOptions {
  std::vector<std::string> paths;  // trace files or directories of per-rank traces
  int64_t rank = -1;               // only this rank (-1: all)
  bool hta_rounding = false;
  bool all_steps = false;   // keep the last ProfilerStep
  int threads = 0;          // 0: one per core
  double max_input_gb = 0;  // decoded bytes one input may hold (0: half the machine's memory)
  bool all_args = false;    // keep every arg of every op (SQL, exports), not only those analysed
  bool merge = false;       // --merge: host side from the first input, GPU work from the others (io/merge.h)
  std::optional<double> merge_offset_us;
  std::string capture;  // --capture FILE|DIR (io/graph_capture.h)
  // --comm-kernel REGEX: kernels to count as communication besides the
  // libraries mlprof knows (analysis/kernel_class.h).
  std::vector<std::string> comm_kernels;
  // --steps-from SOURCE (model/steps.h: auto, profiler, serving, optimizer,
  // annotation, repeat, trace); "": auto.
  std::string steps_from;
  JobFacts job;  // set by app/distributed.h only
};

// (bytes done, bytes total) over all files, from reader threads.
using ProgressFn = std::function<void(uint64_t, uint64_t)>;

struct Session {
  InputOptions inputs;
  Profile profile;
  ProfileView view;  // empty when opened without one (info)
  double load_seconds = 0;
  uint64_t decoded_bytes = 0;
  uint64_t ops = 0;

  // The rank passes the --rank selection.
  bool Selected(const RankProfile& r) const { return inputs.rank < 0 || r.rank_or(0) == inputs.rank; }
  // Every rank's devices, in rank order: the whole job's under MPI.
  std::vector<DeviceProperties> JobDevices() const {
    return inputs.job.devices ? *inputs.job.devices : profile.AllDevices();
  }
};

// --steps-from's value as a step source ("" and "auto": the first found).
StatusOr<StepSource> ParseStepsFrom(const std::string& name);

// Loads the inputs; with_view also builds the analysis view and checks that
// the selected rank exists (a usage error naming the ranks there are).
StatusOr<Session> OpenSession(const InputOptions& inputs, const ProgressFn& progress, bool with_view = true);
// OpenSession's second half: the analysis view of a loaded profile, and the
// --rank check (against inputs.job.ranks when set).
Status AttachView(Session& s);

}  // namespace mlprof::app
