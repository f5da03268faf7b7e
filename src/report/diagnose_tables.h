// Typed tables of diagnose: the findings, the rules, the grade.
#pragma once

#include <string>
#include <vector>

#include "analysis/diagnose.h"
#include "analysis/grade.h"
#include "report/table.h"

namespace mlprof {

// mlprof diagnose: the findings, largest saving first; the rules.
Table FindingsTable(const std::vector<Finding>& v);
Table RulesTable();
// The grade of what profiles hold (analysis/grade.h), one row per item.
Table GradeTable(const std::vector<GradeItem>& items);

}  // namespace mlprof
