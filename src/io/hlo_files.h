// HLO modules from a file: HLO text, a binary HloProto, or the HloProtos an
// XPlane's /host:metadata plane carries; chosen by content.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "hlo/module.h"

namespace mlprof {

StatusOr<std::vector<hlo::Module>> LoadHloModules(const std::string& path);

}  // namespace mlprof
