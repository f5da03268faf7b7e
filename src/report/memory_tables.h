// Typed tables of memory over time: per device, by category, the blocks at the peak.
#pragma once

#include <string>
#include <vector>

#include "analysis/memory.h"
#include "report/table.h"

namespace mlprof {

// The TensorBoard plugin's Overview: step time by role, the mean step, and
// the GPU summary.
// Memory over time (analysis/memory.h): per device; the blocks alive at the
// peak and the allocations, by op (`top` per device, 0 all).
Table MemoryTable(const std::vector<DeviceMemory>& m);
Table MemoryCategoriesTable(const std::vector<CategoryMemory>& m);
Table MemorySitesTable(const std::vector<DeviceMemory>& m, bool at_peak, int top, size_t* hidden);

}  // namespace mlprof
