// libFuzzer target for the HLO readers, the planner's model files and the
// chip files: the input is tried as HLO text, as a binary HloProto, as one
// instruction line, as a TOML model file and as a chip JSON file; every
// module that parses is run through the cost model and the category rules,
// every model through a plan search on 8 chips, every chip through its
// derived figures and the chips table. Errors are fine;
// crashes, sanitizer reports and hangs are not.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "analysis/hlo_summary.h"
#include "analysis/xla.h"
#include "hlo/cost.h"
#include "hlo/proto_reader.h"
#include "hlo/text_parser.h"
#include "hw/chip.h"
#include "plan/planner.h"
#include "report/plan_explain.h"

namespace {
void Exercise(const mlprof::hlo::Module& m) {
  mlprof::hlo::CostModel cm(m);
  for (const auto& c : m.computations)
    for (const auto& in : c.instructions) {
      (void)cm.Of(c, in);
      (void)mlprof::XprofCategory(m, in);
      (void)mlprof::ScopeFromName(in.metadata.op_name);
    }
}
// What `mlprof hlo` computes over the modules that parsed.
void Summarize(const std::vector<mlprof::hlo::Module>& modules) {
  (void)mlprof::SummarizeHloModules(modules);
  (void)mlprof::HloOpsByCategory(modules);
  (void)mlprof::FindHloCollectives(modules);
  for (const auto& m : modules)
    for (const auto& c : m.computations)
      if (!c.instructions.empty()) (void)mlprof::FindHloInstruction(modules, c.instructions.back().name);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (auto model = mlprof::plan::ParseModelToml(bytes, "fuzz.toml"); model.ok()) {
    static const mlprof::hw::Chip* chip = mlprof::hw::ChipDb::BuiltIn().Find("h100-sxm");
    mlprof::plan::Cluster c = mlprof::plan::MakeCluster(*chip, 8, 8, {});
    mlprof::plan::TrainSpec t;
    t.global_batch = 8;
    t.seq = model->seq_len > 0 && model->seq_len <= (1 << 20) ? model->seq_len : 2048;
    if (!mlprof::plan::CheckRun(*model, c, t, {})) {
      auto s = mlprof::plan::SearchPlans(*model, c, t, {}, {});
      if (!s.plans.empty())
        (void)mlprof::PlanExplainTable(1, *model, c, t, {}, mlprof::plan::Explain(*model, c, t, {}, s.plans[0]));
    }
  }
  if (auto chip = mlprof::hw::ParseChipJson(bytes, "fuzz.json"); chip.ok()) {
    for (int t = 0; t < static_cast<int>(mlprof::hw::DType::kCount); ++t)
      (void)chip->ridge(static_cast<mlprof::hw::DType>(t));
    for (const auto& l : chip->interconnect) (void)l.bytes_per_s_per_dir();
  }
  if (auto text = mlprof::hlo::ParseHloText(bytes, "fuzz.hlo"); text.ok()) {
    for (const auto& m : *text) Exercise(m);
    Summarize(*text);
  }
  if (auto proto = mlprof::hlo::ReadHloProto(bytes, "fuzz.pb"); proto.ok()) {
    Exercise(*proto);
    std::vector<mlprof::hlo::Module> one;
    one.push_back(std::move(proto).value());
    Summarize(one);
  }
  mlprof::hlo::StringArena arena;
  if (auto in = mlprof::hlo::ParseHloInstruction(bytes, &arena); in.ok()) {
    // Every view must stay readable while `bytes` and `arena` live.
    size_t n = in->name.size() + in->opcode.size() + in->metadata.op_name.size();
    for (auto v : in->operand_names) n += v.size();
    for (const auto& [k, v] : in->attrs) n += k.size() + v.size() + (v.empty() ? 0 : static_cast<size_t>(v[0]));
    (void)n;
  }
  return 0;
}
