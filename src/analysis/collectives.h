// Collectives across ranks (TraceLens's NcclAnalyser, docs/ANALYSES.md):
// every NCCL/RCCL kernel of every rank (names with nccl, rccl or
// cross_device_reduce), described by its own args or its launching op's
// (record_param_comms: Collective name, In/Out msg nelems, Group size, dtype,
// Process Group Name and Ranks, split sizes), matched across ranks by
// process group and call order within it (the i-th collective of group G on
// each rank is one instance; with no group names and one collective stream
// per rank, the i-th collective of the rank).
// Per instance of an implicitly synchronising collective (all-reduce,
// all-gather, reduce-scatter, all-to-all): each rank's arrival (kernel
// start) and its wait for the last arrival, the communication time
// (TraceLens: the shortest kernel of the instance, the time the transfer
// needs once everyone is there), start and end skew, algorithm bandwidth
// (message bytes / communication time) and bus bandwidth (x NCCL's factor:
// 2(n-1)/n all-reduce, (n-1)/n the others). Summaries per process group and
// kind, the rank that arrives last most often, per rank and collective the
// kernel time (TraceLens's long table), intra- or inter-node groups, and the
// all-to-all(v) bytes from each rank to each.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/view.h"

namespace mlprof {

struct CollectiveOptions {
  int gpus_per_node = 0;  // 0: the first rank's deviceProperties count, else 8
};

struct CollectiveInstance {
  std::string group;        // process group name ("all": matched by call order per rank)
  int64_t index = 0;        // within the group
  std::string name, dtype;  // Collective name as written ("allreduce", "_allgather_base")
  std::string kind;         // "all-reduce", "all-gather", "reduce-scatter", "all-to-all", ...
  int64_t group_size = -1;
  int64_t ranks = 0;   // ranks that recorded it
  int64_t bytes = -1;  // the message: all-gather's output, the others' input (-1 unknown)
  bool implicit_sync = false;
  Ps first_arrival = 0;  // the earliest rank's kernel start, ps from the earliest rank origin (trace clocks as written)
  Ps comm = 0;           // the shortest kernel of the instance
  Ps skew_start = 0, skew_end = 0;
  Ps mean_wait = 0;
  int64_t last_rank = -1, first_rank = -1;
  double algo_bw = -1, bus_bw = -1;  // bytes/s
};

struct CollectiveSummaryRow {
  std::string group, name, dtype, kind;
  int64_t in_nelems = -1, group_size = -1, bytes = -1;
  int64_t count = 0;
  double comm_mean = 0, comm_median = 0, comm_min = 0, comm_max = 0;  // ps
  double skew_start_mean = 0, skew_start_max = 0, skew_end_mean = 0, skew_end_max = 0;
  double algo_bw_mean = -1, algo_bw_median = -1, bus_bw_mean = -1, bus_bw_median = -1;
  Ps comm_total = 0;
  std::string span;  // intra_node, inter_node, unknown
};

struct LastArrivalRow {
  std::string group;
  int64_t rank = 0;
  int64_t instances = 0;  // of the group's implicitly synchronising instances it took part in
  int64_t last = 0;       // it arrived last
  Ps wait = 0;            // its own waits summed
  Ps held = 0;            // when last: the others' waits for it summed
  Ps after = 0;           // its kernel's time after the last arrival (end - last start), summed
};

struct CollectiveLongRow {  // TraceLens's nccl_summary_long / coll_analysis
  int64_t rank = 0;
  std::string group, group_ranks, name, dtype;
  int64_t group_size = -1, in_nelems = -1, out_nelems = -1;
  std::string in_split, out_split;
  int64_t stream = -1;
  int64_t count = 0;
  double dur_sum = 0, dur_mean = 0, dur_std = 0, dur_min = 0, dur_max = 0;  // ps; std: sample (n-1)
  int64_t node = -1;
  std::string span;
};

struct AllToAllCell {
  std::string group;
  int64_t src = 0, dst = 0;
  int64_t bytes = 0;
};

struct CollectiveReport {
  std::vector<CollectiveInstance> instances;  // by first arrival
  std::vector<CollectiveSummaryRow> summary;  // by total communication time
  std::vector<LastArrivalRow> last_arrival;
  std::vector<CollectiveLongRow> long_rows;
  std::vector<AllToAllCell> alltoall;
  int gpus_per_node = 8;
  int64_t ranks = 0, world_size = -1;  // ranks in the inputs; the job's (distributedInfo), -1 unknown
  int64_t kernels = 0, kernels_without_args = 0;
  // Kernels without collective args described by the c10d op or range they
  // were launched under ("nccl:all_to_all" around SendRecv kernels).
  int64_t kernels_by_op_name = 0;
  int64_t mismatched = 0;  // instances whose ranks disagree on name, size or dtype
};

CollectiveReport ComputeCollectives(const ProfileView& view, const CollectiveOptions& opt);

}  // namespace mlprof
