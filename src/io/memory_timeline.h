// torch.profiler's raw memory timeline (`prof.export_memory_timeline(
// "x.raw.json.gz")`, which HTA's MemoryAnalysis reads): a JSON array of
// [timestamp ns (-1: allocated before the profile), action (1 PREEXISTING,
// 2 CREATE, 3 INCREMENT_VERSION, 4 DESTROY), bytes (negative: freed or the
// old version), category] for one device, the category an index into
// Parameter, Optimizer state, Input, Temporary, Activation, Gradient,
// Autograd, Unknown (torch's _CATEGORY_TO_INDEX).
//
// Read as HTA reads it: bytes per category summed in file order; after the
// last event of each timestamp, one counter sample per category (and
// "Total") on the track "memory timeline", named "memory by category";
// timestamp -1 becomes the earliest real one. Format "torch-memory-timeline".
#pragma once

#include <string_view>

#include "base/file_loader.h"
#include "base/status.h"
#include "io/read_options.h"
#include "model/profile.h"

namespace mlprof {

// The category names, in the file's index order.
inline constexpr const char* kMemoryCategories[] = {"Parameter",  "Optimizer state", "Input",    "Temporary",
                                                    "Activation", "Gradient",        "Autograd", "Unknown"};

bool LooksLikeMemoryTimeline(std::string_view bytes);
Status ReadMemoryTimeline(LoadedFile& file, const ReadOptions& options, RankProfile* out);

}  // namespace mlprof
