// `mlprof plan`: the parallelism planner over a model, a chip and a cluster.
#include <fmt/format.h>

#include "analysis/planner.h"
#include "app/chip.h"
#include "app/commands.h"
#include "report/plan_tables.h"

namespace mlprof::app {

StatusOr<Report> Plan(PlanOptions o) {
  ASSIGN_OR_RETURN(hw::ChipDb db, ChipDatabase(o.chip_files));
  ASSIGN_OR_RETURN(const hw::Chip* chip, db.Find(o.chip));
  const bool is_file =
      o.model.find('/') != std::string::npos || (o.model.size() > 5 && o.model.substr(o.model.size() - 5) == ".toml");
  ASSIGN_OR_RETURN(plan::ModelSpec model, is_file ? plan::LoadModelFile(o.model) : plan::BuiltInModel(o.model));
  std::vector<int64_t> axes;
  if (!o.ici_axes.empty()) {
    ASSIGN_OR_RETURN(axes, ParseAxes(o.ici_axes));
  }
  int64_t node = o.node;
  if (o.slices > 0) {
    if (chip->kind != "tpu") return InvalidArgument("--slices: TPU chips only (GPUs: --gpus-per-node)");
    if (o.chips % o.slices != 0)
      return InvalidArgument(fmt::format("--slices = {} does not divide --chips = {}", o.slices, o.chips));
    node = o.chips / o.slices;
  }
  plan::Cluster cluster = plan::MakeCluster(*chip, o.chips, node, axes);
  plan::TrainSpec& t = o.train;
  if (t.seq == 0) t.seq = model.seq_len;
  if (t.seq == 0) return InvalidArgument("--seq: the model file has no seq_len; give --seq");
  const std::string mem = o.memory.empty() ? (cluster.tpu ? "maxtext" : "megatron") : o.memory;
  if (!plan::ParseMemoryConvention(mem, &t.memory))
    return InvalidArgument(fmt::format("--memory '{}': expected megatron, zero or maxtext", mem));
  o.filter.max_mem_bytes = o.max_mem_gb * 1e9;
  o.knobs.latency = o.latency_us * 1e-6;
  RETURN_IF_ERROR(plan::CheckRun(model, cluster, t, o.filter));
  plan::PlanSearch search = plan::SearchPlans(model, cluster, t, o.knobs, o.filter);
  Report r;
  r.tables.push_back(PlanSettingTable(model, cluster, t, o.knobs, o.filter, search));
  if (o.explain > 0) {
    if (static_cast<size_t>(o.explain) > search.plans.size())
      return InvalidArgument(fmt::format("--explain {}: there are {} plans", o.explain, search.plans.size()));
    r.tables.push_back(PlansTable({search.plans[o.explain - 1]}, 0, o.explain));
    r.tables.push_back(
        PlanExplainTable(o.explain, plan::Explain(model, cluster, t, o.knobs, search.plans[o.explain - 1])));
  } else {
    r.tables.push_back(PlansTable(search.plans, o.top));
  }
  return r;
}

}  // namespace mlprof::app
