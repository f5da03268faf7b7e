// libFuzzer target for the HLO readers and the planner's model files: the
// input is tried as HLO text, as a binary HloProto, as one instruction line
// and as a TOML model file; every module that parses is run through the
// cost model and the category rules, every model through a plan search on
// 8 chips. Errors are fine;
// crashes, sanitizer reports and hangs are not.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analysis/planner.h"
#include "analysis/xla.h"
#include "hlo/cost.h"
#include "hlo/proto_reader.h"
#include "hlo/text_parser.h"
#include "hw/chip.h"

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
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (auto model = mlprof::plan::ParseModelToml(bytes, "fuzz.toml"); model.ok()) {
    static const mlprof::hw::Chip* chip = *mlprof::hw::ChipDb::BuiltIn().Find("h100-sxm");
    mlprof::plan::Cluster c = mlprof::plan::MakeCluster(*chip, 8, 8, {});
    mlprof::plan::TrainSpec t;
    t.global_batch = 8;
    t.seq = model->seq_len > 0 && model->seq_len <= (1 << 20) ? model->seq_len : 2048;
    if (mlprof::plan::CheckRun(*model, c, t, {}).ok()) {
      auto s = mlprof::plan::SearchPlans(*model, c, t, {}, {});
      if (!s.plans.empty()) (void)mlprof::plan::Explain(*model, c, t, {}, s.plans[0]);
    }
  }
  if (auto text = mlprof::hlo::ParseHloText(bytes, "fuzz.hlo"); text.ok())
    for (const auto& m : *text) Exercise(m);
  if (auto proto = mlprof::hlo::ReadHloProto(bytes, "fuzz.pb"); proto.ok()) Exercise(*proto);
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
