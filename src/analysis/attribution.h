// Which ops a GPU op belongs to: the walks up from its launch call that the
// op, layer and module analyses share.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "model/profile.h"

namespace mlprof {

inline constexpr std::string_view kModulePrefix = "nn.Module: ";

// "nn.Module: Qwen2DecoderLayer_3" -> "Qwen2DecoderLayer"; "" for other names.
inline std::string_view ModuleClass(std::string_view name) {
  if (name.substr(0, kModulePrefix.size()) != kModulePrefix) return {};
  std::string_view c = name.substr(kModulePrefix.size());
  const size_t us = c.rfind('_');
  if (us != std::string_view::npos && us + 1 < c.size() &&
      std::all_of(c.begin() + static_cast<std::ptrdiff_t>(us) + 1, c.end(),
                  [](char ch) { return ch >= '0' && ch <= '9'; }))
    c = c.substr(0, us);
  return c;
}

// A module frame (torch.profiler's with_modules / with_stack python frames,
// copied ones too under --capture): its class, else "".
inline std::string_view ModuleFrameClass(const RankProfile& p, size_t op) {
  return p.ops.kind[op] == OpKind::kPythonFunction ? ModuleClass(p.str(p.ops.name[op])) : std::string_view{};
}

// Calls f(op) for the ops above GPU op `g`, innermost first, until f returns
// false: the launch call it is attributed to (itself first) and the ops
// enclosing it; for a call copied from a capture trace (--capture), then its
// graph launch and the ops enclosing that on the launching thread (a
// PIECEWISE graph's modules are above the launch).
template <class F>
void ForEachLaunchAncestor(const RankProfile& p, size_t g, F&& f) {
  const int32_t a = p.AttributionLaunch(g);
  for (int32_t q = a; q >= 0; q = p.ops.parent[static_cast<size_t>(q)])
    if (!f(static_cast<size_t>(q))) return;
  const int32_t l = p.ops.launch[g];
  if (a >= 0 && a != l)
    for (int32_t q = l; q >= 0; q = p.ops.parent[static_cast<size_t>(q)])
      if (!f(static_cast<size_t>(q))) return;
}

}  // namespace mlprof
