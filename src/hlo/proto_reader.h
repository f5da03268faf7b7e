// Binary xla.HloProto reader: `--xla_dump_hlo_as_proto` dumps (*.hlo.pb),
// legacy `<module>(<id>).hlo_proto.pb` profiler side files, and the
// `Hlo Proto` stats of an XPlane's /host:metadata plane. Field numbers:
// ../shared/reference/xla-profiles-hlo.md section 3.8 (xla/service/hlo.proto,
// xla/xla_data.proto). Fills the same Module as the text parser; attributes
// are written in their HLO text spelling so the analyses read one form.
#pragma once

#include <string_view>

#include "base/status.h"
#include "hlo/module.h"

namespace mlprof::hlo {

// `bytes` is a serialized HloProto (or, with `module_only`, a bare
// HloModuleProto). `path` names the source in messages; errors give the
// byte offset within `bytes` and what was expected.
StatusOr<Module> ReadHloProto(std::string_view bytes, std::string_view path, bool module_only = false);

// Cheap test: does this start like an HloProto (field 1, a message whose
// first field is the module name)?
bool LooksLikeHloProto(std::string_view head);

}  // namespace mlprof::hlo
