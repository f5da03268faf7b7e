#include "io/xspace_conventions.h"

#include <vector>

#include "io/xprof_names.h"

namespace mlprof {

bool AdoptXSpaceConventions(ProfileBuilder& b) {
  const RankProfile& p = b.partial();
  enum Role : uint8_t { kNone, kHost, kOpLine, kStream };
  std::vector<uint8_t> role(p.tracks.size(), kNone);
  bool any = false;
  for (size_t t = 0; t < p.tracks.size(); ++t) {
    const Track& track = p.tracks[t];
    std::string_view plane = b.ProcessName(track.pid);
    if (!IsXSpacePlaneName(plane)) continue;
    any = true;
    if (!IsDevicePlane(plane)) {
      role[t] = kHost;
      continue;
    }
    std::string_view line = p.strings.Get(track.name);
    const int64_t device = GpuPlaneIndex(plane), stream = device >= 0 ? StreamLineNumber(line) : -1;
    if (stream >= 0) {
      role[t] = kStream;
      b.MakeGpuStream(static_cast<uint32_t>(t), static_cast<int32_t>(device), stream);
    } else if (line == "XLA Ops") {
      role[t] = kOpLine;
    }
  }
  if (!any) {
    b.DropXlaOps();
    return false;
  }
  StringPool& strings = b.strings();
  const StringId cat_kernel = strings.Intern("kernel"), cat_memcpy = strings.Intern("gpu_memcpy"),
                 cat_memset = strings.Intern("gpu_memset"), cat_launch = strings.Intern("cuda_runtime");
  const OpTable& o = p.ops;
  for (size_t i = 0; i < o.size(); ++i) {
    const uint8_t r = role[o.track[i]];
    if (r != kOpLine && r != kStream) b.UnlinkXla(i);
    if (o.kind[i] != OpKind::kOther) continue;  // the trace said what it is
    if (r == kStream) {
      const OpKind kind = GpuOpKindFromName(p.strings.Get(o.name[i]));
      b.SetOpKind(i, kind, kind == OpKind::kMemcpy ? cat_memcpy : kind == OpKind::kMemset ? cat_memset : cat_kernel);
    } else if (r == kHost && o.correlation[i] >= 0) {
      b.SetOpKind(i, OpKind::kRuntime, cat_launch);
    }
  }
  return true;
}

}  // namespace mlprof
