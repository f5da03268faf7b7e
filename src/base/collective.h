// The collectives, once: their kinds, how HLO opcodes and PyTorch c10d
// names spell them, and what a ring sends per byte of the buffer. The XLA
// op resolver, the HLO cost model, `mlprof hlo`, the PyTorch op costs and
// the planner all read this table (it is in base because hlo depends on base
// only).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace mlprof {

enum class CollectiveKind : uint8_t {
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kRaggedAllToAll,
  kCollectivePermute,
  kCollectiveBroadcast,
  kBroadcast,  // c10d
  kReduce,
  kSend,
  kRecv,
  kGather,
  kScatter,
  kBarrier,
  kCount
};
// "all-reduce", "all-gather", ... (the HLO spelling where there is one).
std::string_view CollectiveKindName(CollectiveKind k);

// An HLO collective opcode, synchronous or one half of an async pair.
enum class AsyncPart : uint8_t { kSync, kStart, kDone };
struct HloCollectiveOpcode {
  CollectiveKind kind;
  AsyncPart part;
};
// all-reduce, all-gather, reduce-scatter, all-to-all, ragged-all-to-all,
// collective-permute, collective-broadcast, and their -start / -done forms.
std::optional<HloCollectiveOpcode> CollectiveFromHloOpcode(std::string_view opcode);

// c10d's names as record_param_comms writes them ("allreduce",
// "_allgather_base", "reduce_scatter_tensor", "all_to_all_single", ...).
std::optional<CollectiveKind> CollectiveFromC10dName(std::string_view name);

// What a ring of n sends per participant, per byte of the buffer (all-gather:
// the output; the others: the input), which is also nccl-tests' bus-bandwidth
// factor (checked against TraceLens's collective report): all-reduce 2(n-1)/n (reduce-scatter +
// all-gather), all-gather / reduce-scatter / all-to-all (n-1)/n, broadcast,
// reduce, send, recv, gather, scatter and the point-to-point HLO ops the
// buffer once (when n > 1), a barrier nothing. -1 when n <= 0.
double RingWireFactor(CollectiveKind k, int64_t n);
// Latency steps of a ring of n: 2(n-1) for an all-reduce, n-1 for the other
// ring collectives, 1 for the rest.
int64_t RingSteps(CollectiveKind k, int64_t n);

}  // namespace mlprof
