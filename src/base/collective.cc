#include "base/collective.h"

namespace mlprof {

namespace {

enum class Ring : uint8_t { kTwoPhase, kOnePhase, kOnce, kNothing };

struct KindInfo {
  std::string_view name;
  Ring ring;
  bool hlo;  // an HLO opcode
};
constexpr KindInfo kKinds[] = {
    {"all-reduce", Ring::kTwoPhase, true},
    {"all-gather", Ring::kOnePhase, true},
    {"reduce-scatter", Ring::kOnePhase, true},
    {"all-to-all", Ring::kOnePhase, true},
    {"ragged-all-to-all", Ring::kOnePhase, true},
    {"collective-permute", Ring::kOnce, true},
    {"collective-broadcast", Ring::kOnce, true},
    {"broadcast", Ring::kOnce, false},
    {"reduce", Ring::kOnce, false},
    {"send", Ring::kOnce, false},
    {"recv", Ring::kOnce, false},
    {"gather", Ring::kOnce, false},
    {"scatter", Ring::kOnce, false},
    {"barrier", Ring::kNothing, false},
};
static_assert(sizeof(kKinds) / sizeof(kKinds[0]) == static_cast<size_t>(CollectiveKind::kCount));

struct C10dName {
  std::string_view name;
  CollectiveKind kind;
};
constexpr C10dName kC10d[] = {
    {"allreduce", CollectiveKind::kAllReduce},
    {"all_reduce", CollectiveKind::kAllReduce},
    {"allreduce_coalesced", CollectiveKind::kAllReduce},
    {"all_reduce_coalesced", CollectiveKind::kAllReduce},
    {"allgather", CollectiveKind::kAllGather},
    {"all_gather", CollectiveKind::kAllGather},
    {"_allgather_base", CollectiveKind::kAllGather},
    {"allgather_into_tensor_coalesced", CollectiveKind::kAllGather},
    {"allgather_coalesced", CollectiveKind::kAllGather},
    {"all_gather_into_tensor", CollectiveKind::kAllGather},
    {"reduce_scatter", CollectiveKind::kReduceScatter},
    {"_reduce_scatter_base", CollectiveKind::kReduceScatter},
    {"reduce_scatter_tensor", CollectiveKind::kReduceScatter},
    {"reduce_scatter_tensor_coalesced", CollectiveKind::kReduceScatter},
    {"all_to_all", CollectiveKind::kAllToAll},
    {"alltoall", CollectiveKind::kAllToAll},
    {"alltoall_base", CollectiveKind::kAllToAll},
    {"all_to_all_single", CollectiveKind::kAllToAll},
    {"broadcast", CollectiveKind::kBroadcast},
    {"reduce", CollectiveKind::kReduce},
    {"send", CollectiveKind::kSend},
    {"recv", CollectiveKind::kRecv},
    {"gather", CollectiveKind::kGather},
    {"scatter", CollectiveKind::kScatter},
    {"barrier", CollectiveKind::kBarrier},
};

const KindInfo& Info(CollectiveKind k) { return kKinds[static_cast<size_t>(k)]; }

}  // namespace

std::string_view CollectiveKindName(CollectiveKind k) {
  return k < CollectiveKind::kCount ? Info(k).name : std::string_view("?");
}

std::optional<HloCollectiveOpcode> CollectiveFromHloOpcode(std::string_view opcode) {
  AsyncPart part = AsyncPart::kSync;
  for (auto [suffix, p] :
       {std::pair<std::string_view, AsyncPart>{"-start", AsyncPart::kStart}, {"-done", AsyncPart::kDone}})
    if (opcode.size() > suffix.size() && opcode.substr(opcode.size() - suffix.size()) == suffix) {
      opcode.remove_suffix(suffix.size());
      part = p;
      break;
    }
  for (size_t i = 0; i < static_cast<size_t>(CollectiveKind::kCount); ++i)
    if (kKinds[i].hlo && kKinds[i].name == opcode) return HloCollectiveOpcode{static_cast<CollectiveKind>(i), part};
  return std::nullopt;
}

std::optional<CollectiveKind> CollectiveFromC10dName(std::string_view name) {
  for (const C10dName& c : kC10d)
    if (c.name == name) return c.kind;
  return std::nullopt;
}

double RingWireFactor(CollectiveKind k, int64_t n) {
  if (n <= 0 || k >= CollectiveKind::kCount) return -1;
  const double f = static_cast<double>(n - 1) / static_cast<double>(n);
  switch (Info(k).ring) {
    case Ring::kTwoPhase:
      return 2 * f;
    case Ring::kOnePhase:
      return f;
    case Ring::kOnce:
      return n > 1 ? 1 : 0;
    case Ring::kNothing:
      return 0;
  }
  return -1;
}

int64_t RingSteps(CollectiveKind k, int64_t n) {
  if (n <= 1 || k >= CollectiveKind::kCount) return 0;
  switch (Info(k).ring) {
    case Ring::kTwoPhase:
      return 2 * (n - 1);
    case Ring::kOnePhase:
      return n - 1;
    default:
      return 1;
  }
}

}  // namespace mlprof
