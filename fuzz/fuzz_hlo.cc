// libFuzzer target for the HLO readers: the input is tried as HLO text, as a
// binary HloProto and as one instruction line; every module that parses is
// run through the cost model and the category rules. Errors are fine;
// crashes, sanitizer reports and hangs are not.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analysis/xla.h"
#include "hlo/cost.h"
#include "hlo/proto_reader.h"
#include "hlo/text_parser.h"

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
