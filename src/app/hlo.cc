// `mlprof hlo`, `mlprof shape` and `mlprof chips`: the commands over HLO
// modules, shapes and the chip database.
#include <fmt/format.h>

#include "analysis/hlo_summary.h"
#include "analysis/roofline.h"
#include "app/chip.h"
#include "app/commands.h"
#include "hlo/shape.h"
#include "io/hlo_files.h"
#include "report/hw_tables.h"
#include "report/info_tables.h"
#include "report/xla_tables.h"

namespace mlprof::app {

StatusOr<Report> Hlo(const HloOptions& o) {
  std::vector<hlo::Module> modules;
  for (const auto& path : o.paths) {
    ASSIGN_OR_RETURN(std::vector<hlo::Module> m, LoadHloModules(path));
    for (auto& x : m) modules.push_back(std::move(x));
  }
  Report r;
  if (!o.op.empty()) {
    // A name several computations use (reducers' "add"): the user picks one.
    const std::vector<std::string> where = HloComputationsWith(modules, o.op);
    if (where.size() > 1) {
      std::string list;
      for (size_t i = 0; i < where.size() && i < 8; ++i) list += (i ? ", " : "") + where[i];
      if (where.size() > 8) list += fmt::format(" and {} more", where.size() - 8);
      return InvalidArgument(
          fmt::format("--op {}: {} computations have an instruction of that name ({}); give "
                      "--op COMPUTATION/NAME",
                      o.op, where.size(), list));
    }
    std::optional<HloInstructionFacts> f = FindHloInstruction(modules, o.op);
    if (!f) {
      const std::string want(o.op.substr(0, 1) == "%" ? o.op.substr(1) : o.op);
      std::string near;
      for (const auto& n : HloNamesContaining(modules, want, 8)) near += (near.empty() ? "" : ", ") + n;
      return NotFound(fmt::format("--op {}: no such instruction in the module(s){}", want,
                                  near.empty() ? std::string() : " (names containing it: " + near + ")"));
    }
    r.tables.push_back(HloExplainTable(*f));
  } else {
    const std::vector<HloModuleSummary> summaries = SummarizeHloModules(modules);
    r.tables.push_back(HloModulesTable(summaries));
    if (!o.chip.empty()) {
      ASSIGN_OR_RETURN(hw::ChipDb db, hw::ChipDb::WithFiles(o.chip_files));
      ASSIGN_OR_RETURN(const hw::Chip* chip, FindChip(db, o.chip));
      ASSIGN_OR_RETURN(hw::DType dtype, ParseDTypeOption(o.dtype));
      if (!(chip->peak(dtype) > 0))
        return InvalidArgument(
            fmt::format("chip '{}' has no {} peak; pick another --dtype", chip->id, hw::DTypeName(dtype)));
      std::vector<HloExpected> expected;
      for (const HloModuleSummary& s : summaries)
        expected.push_back(ExpectHloModule(s, *chip, dtype, o.devices, o.per_core));
      r.tables.push_back(HloExpectedTable(expected, *chip, dtype));
    }
    r.tables.push_back(HloCategoryTable(HloOpsByCategory(modules)));
    r.tables.push_back(HloCollectivesTable(GroupHloCollectives(FindHloCollectives(modules)), o.top));
  }
  return r;
}

StatusOr<Report> Shapes(const std::vector<std::string>& texts) {
  std::vector<hlo::Shape> shapes;
  for (const auto& text : texts) {
    size_t used = 0;
    auto s = hlo::ParseShape(text, &used);
    if (s.ok() && text.find_first_not_of(" \t", used) != std::string::npos)
      s = InvalidArgument(fmt::format("HLO shape, column {}: expected the end of the shape in '{}'", used + 1, text));
    if (!s.ok()) return InvalidArgument(s.status().message());
    shapes.push_back(std::move(s).value());
  }
  Report r;
  r.tables.push_back(ShapeTable(ShapeElements(shapes)));
  return r;
}

StatusOr<Report> Chips(const ChipsOptions& o) {
  ASSIGN_OR_RETURN(hw::ChipDb db, hw::ChipDb::WithFiles(o.chip_files));
  Report r;
  if (o.chip.empty()) {
    r.tables.push_back(ChipsTable(db));
  } else {
    ASSIGN_OR_RETURN(const hw::Chip* c, FindChip(db, o.chip));
    r.tables.push_back(ChipDetailTable(*c));
  }
  return r;
}

}  // namespace mlprof::app
