// Typed tables of modules: the module tree, classes, annotations, kernel launchers.
#pragma once

#include <string>
#include <vector>

#include "analysis/modules.h"
#include "report/table.h"

namespace mlprof {

// --top rows each (0: all); `hidden` counts those left out.
Table ModuleTreeTable(const ModuleReport& m, int top, size_t* hidden);
Table ModuleClassTable(const ModuleReport& m, int top, size_t* hidden);
Table AnnotationTable(const ModuleReport& m, int top, size_t* hidden);
Table KernelLaunchersTable(const ModuleReport& m, int top, size_t* hidden);
Table AnnotationStepTable(const ModuleReport& m, int top, size_t* hidden);

}  // namespace mlprof
