// One command over many processes (mpirun -n K mlprof summary DIR): each
// process reads a contiguous share of the job's files (balanced by bytes),
// the processes exchange a few facts about their ranks (recorded rank
// numbers, step numbers, errors) so that every rank is numbered and viewed
// as one process would, each runs the command's shard over its ranks
// (app/shards.h), and process 0 combines the gathered shards into the
// report. Only those facts and the shards cross the network.
//
// The transport is an interface: MPI in the mlprof binary (cli/mpi.cc, built
// with MLPROF_MPI), threads in the tests.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/session.h"
#include "app/shards.h"
#include "base/status.h"
#include "report/table.h"

namespace mlprof::app {

class Comm {
 public:
  virtual ~Comm() = default;
  // This process, 0 .. size-1 (MPI calls it the rank; mlprof keeps "rank"
  // for a trace's rank in the job).
  virtual int process() const = 0;
  virtual int size() const = 0;
  // Every process's bytes, in process order, on every process.
  virtual std::vector<std::string> AllGather(std::string bytes) = 0;
  // Every process's bytes on process 0 (empty elsewhere).
  virtual std::vector<std::string> Gather(std::string bytes) = 0;
};

// The files each process reads: contiguous runs of `sizes` (in file order)
// with about the same bytes each; [first, last) per process.
std::vector<std::pair<size_t, size_t>> ShareFiles(const std::vector<uint64_t>& sizes, int processes);

// What a run cost (--stats): process 0's view.
struct DistributedStats {
  int processes = 0;
  size_t files = 0, ranks = 0;
  uint64_t fact_bytes = 0;       // exchanged after reading (all processes' together)
  uint64_t shard_bytes = 0;      // gathered to process 0 (all shards together)
  uint64_t max_shard_bytes = 0;  // the largest one process sent
  double read_s = 0;             // this process: reading its share
  double shard_s = 0;            // this process: its shard
  double combine_s = 0;          // process 0: gathering and combining
};

// Runs the command over the inputs on this process's share. Process 0 gets
// the report; the others nullopt. Every process returns the same error.
StatusOr<std::optional<Report>> RunDistributed(const InputOptions& inputs, const Sharded& command, Comm& comm,
                                               DistributedStats* stats = nullptr);
// A command over two profiles (diff): each side shared out over the
// processes as above (both read before either is analysed, as one process
// does), one shard per process from its shares of both.
StatusOr<std::optional<Report>> RunDistributed(const InputOptions& base, const InputOptions& neu,
                                               const PairSharded& command, Comm& comm,
                                               DistributedStats* stats = nullptr);

}  // namespace mlprof::app
