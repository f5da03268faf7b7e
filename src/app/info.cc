// mlprof info.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "app/command_parts.h"
#include "app/commands.h"
#include "app/shards.h"
#include "report/columns.h"
#include "report/info_tables.h"

namespace mlprof::app {

Report Info(const Session& s) {
  Report r = WithImportWarnings(s);
  r.tables = InfoTables(SummarizeRanks(s.profile));
  Table grade = GradeShard(s);
  grade.id = "grade";
  r.tables.insert(r.tables.begin() + 1, std::move(grade));
  return r;
}

}  // namespace mlprof::app
