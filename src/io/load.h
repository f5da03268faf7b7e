// Entry point of the io layer: turns paths (files or directories of per-rank
// traces) into a Profile. Each file is sniffed by its first bytes and read by
// the matching reader; files are read in parallel, one RankProfile each.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "io/read_options.h"
#include "model/profile.h"

namespace mlprof {

struct LoadOptions {
  int threads = 0;                 // 0: one per core
  uint64_t max_decoded_bytes = 0;  // per input; 0: DefaultMaxDecodedBytes(), at most one per file
  // (bytes done, bytes total) over all files; called from reader threads
  // under a lock.
  std::function<void(uint64_t, uint64_t)> progress;
  bool all_args = false;  // ReadOptions::all_args
  // --merge (io/merge.h): the inputs are one rank, host side from the first,
  // GPU work from the others; merge_offset_us: their clock + it = the host's.
  bool merge = false;
  std::optional<double> merge_offset_us;
  // --capture FILE|DIR (io/graph_capture.h): attribute graph-replayed
  // kernels to the ops recorded at capture.
  std::string capture;
  // --steps-from (model/steps.h): where each rank's steps come from; kAuto:
  // the first source that has any.
  StepSource steps_from = StepSource::kAuto;
};

// Expands directories into their trace files (*.json, *.json.gz, *.gz, *.zst,
// *.pt.trace.json...), sorted by name; files are taken as given.
// A directory's trace files (or a TensorBoard log directory's latest run in
// plugins/profile/, said in `notes`).
StatusOr<std::vector<std::string>> ExpandTracePaths(const std::vector<std::string>& paths,
                                                    std::vector<std::string>* notes = nullptr);

StatusOr<Profile> LoadProfile(const std::vector<std::string>& paths, const LoadOptions& options);

// What the one-job check needs of a file (exchanged between the processes
// of an MPI run): whether it is a PyTorch trace, records distributedInfo,
// and its time window on its own clock.
struct JobFileFacts {
  bool torch = false, has_distributed_info = false, has_window = false;
  Ps128 first = 0, last = 0;
};
JobFileFacts FactsForJobCheck(const RankProfile& r);
// Why the PyTorch traces of a job may not be one job (none records
// distributedInfo, or they were not recorded at the same time): a note, or
// none. LoadProfile adds it to Profile::notes.
std::vector<std::string> NotOneJob(const std::vector<JobFileFacts>& files);

// LoadProfile's second half: reads files already expanded (`named`: those
// given by name, which must be traces; the others are skipped when they are
// not). A process of an MPI run reads its share of a job's files this way,
// leaving the ranks to be numbered over the whole job and an empty share
// allowed; `kept` receives the indices of the files that gave a rank.
struct ExpandedLoad {
  bool assign_ranks = true;  // number and sort the ranks (else meta.rank stays as recorded, -1 if none)
  bool require_one = true;   // no trace among the files: an error
  std::vector<size_t>* kept = nullptr;
};
// The note that says which files of a job of several were numbered by their
// order because they record no rank; "" when none was, or for one file.
// `numbered`: (path, rank given), in file order.
std::string FileOrderRankNote(const std::vector<std::pair<std::string, int64_t>>& numbered, size_t files);

StatusOr<Profile> LoadExpanded(const std::vector<std::string>& files, const std::set<std::string>& named,
                               const LoadOptions& options, const ExpandedLoad& how = {});

// Reads one in-memory trace (tests, fuzzing).
StatusOr<RankProfile> LoadTraceBytes(std::string_view bytes, const std::string& name);
StatusOr<RankProfile> LoadTraceBytes(std::string_view bytes, const std::string& name, const ReadOptions& options);

}  // namespace mlprof
