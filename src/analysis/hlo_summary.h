// What `mlprof hlo` reports of HLO modules, as values: per module the counts
// and the entry computation's cost; the ops that run, by category; every
// collective with its replica groups and buffers; one instruction's facts.
// The report layer (report/xla_tables.h) words and scales them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/xla.h"
#include "base/collective.h"
#include "hlo/cost.h"
#include "hlo/module.h"
#include "hlo/shape.h"

namespace mlprof {

struct HloModuleSummary {
  const hlo::Module* module = nullptr;
  int64_t computations = 0, instructions = 0, fusions = 0, collectives = 0;
  int64_t unknown_custom_calls = 0;  // custom calls the cost model cannot see into
  hlo::Cost entry_cost;              // the entry computation (while loops: one iteration)
  // SPMD partitions: the header's num_partitions, or, when the header does
  // not say (XLA leaves it out of many dumps), the most devices a sharding
  // annotation tiles over ({devices=[8,1]<=[8]}: 8).
  int64_t partitions = 1;
  bool partitions_from_shardings = false;
};
// The devices a sharding annotation tiles over (0 if it names none:
// replicated, maximal).
int64_t ShardingDevices(std::string_view sharding);
std::vector<HloModuleSummary> SummarizeHloModules(const std::vector<hlo::Module>& modules);

// The ops that run (the entry's instructions and those of while bodies,
// conditionals and calls reached from it; not fusion bodies or reducers),
// grouped by (mlprof category, xprof category), by FLOPs then bytes.
struct HloCategoryRow {
  OpCategory group = OpCategory::kOther;
  std::string xla_category;
  int64_t count = 0;
  double flops = 0, bytes = 0;
};
std::vector<HloCategoryRow> HloOpsByCategory(const std::vector<hlo::Module>& modules);

// Replica groups read as a mesh axis: count x size, the device stride
// between neighbours of a group (1 innermost; 0 irregular).
struct HloGroups {
  int64_t count = 0, size = 0, stride = 0;
  std::string_view text;  // replica_groups (or source_target_pairs) as written
};
HloGroups ReadHloGroups(const hlo::Module& m, const hlo::Instruction& in);

struct HloCollective {
  const hlo::Module* module = nullptr;
  const hlo::Instruction* instruction = nullptr;
  CollectiveKind kind = CollectiveKind::kAllReduce;
  HloGroups groups;
  const hlo::Shape* per_shard = nullptr;  // all-gather: operand; reduce-scatter: result; else result
  const hlo::Shape* global = nullptr;     // all-gather: result; reduce-scatter: operand; else result
  int64_t result_bytes = 0;
  double network_bytes = 0;  // bytes each device sends (cost model's ring rule)
};
// In module and instruction order.
std::vector<HloCollective> FindHloCollectives(const std::vector<hlo::Module>& modules);

// Collectives that do the same thing, merged: same module, opcode, replica
// groups and per-shard shape (a layer's all-gather repeated in each of 80
// layers is one row of count 80). In order of first appearance.
struct HloCollectiveGroup {
  HloCollective first;  // the first instruction of the group (its name is shown)
  int64_t count = 0;
  double network_bytes = 0;  // summed over the group
};
std::vector<HloCollectiveGroup> GroupHloCollectives(const std::vector<HloCollective>& collectives);

struct HloOutputFacts {
  const hlo::Shape* shape = nullptr;
  hlo::PhysicalShape physical;
};
struct HloInstructionFacts {
  const hlo::Module* module = nullptr;
  const hlo::Computation* computation = nullptr;
  const hlo::Instruction* instruction = nullptr;
  std::string xla_category;
  OpCategory group = OpCategory::kOther;
  std::vector<HloOutputFacts> outputs;            // tuple leaves, at most 8
  std::vector<const hlo::Shape*> operand_shapes;  // null where unresolved
  hlo::Cost cost;
  HloGroups groups;
  XlaPass pass = XlaPass::kForward;
  std::vector<std::string> scope;
};
// `name` with or without '%', or "computation/name" to pick one of several
// computations that have an instruction of that name; the first match,
// nullopt when none.
std::optional<HloInstructionFacts> FindHloInstruction(const std::vector<hlo::Module>& modules, std::string_view name);
// The computations holding an instruction `name` ("computation/name"
// narrows it), in module order.
std::vector<std::string> HloComputationsWith(const std::vector<hlo::Module>& modules, std::string_view name);
// Up to `max` instruction names containing `part`, for "did you mean".
std::vector<std::string> HloNamesContaining(const std::vector<hlo::Module>& modules, std::string_view part, size_t max);

// The arrays of shapes (tuples expanded, index "0.1" for element 1 of
// element 0) with their physical (tiled, padded) layout.
struct ShapeElement {
  std::string index;  // "" for an array shape
  const hlo::Shape* shape = nullptr;
  hlo::PhysicalShape physical;
};
std::vector<ShapeElement> ShapeElements(const std::vector<hlo::Shape>& shapes);

}  // namespace mlprof
