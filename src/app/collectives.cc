// mlprof collectives.
#include "analysis/collectives.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "analysis/kernel_class.h"
#include "app/command_parts.h"
#include "app/commands.h"
#include "app/shards.h"
#include "report/collective_tables.h"
#include "report/columns.h"

namespace mlprof::app {

Report Collectives(const Session& s, const TableOptions& o, int gpus_per_node) {
  Report r = WithImportWarnings(s);
  CollectiveOptions co;
  co.gpus_per_node = gpus_per_node;
  const CollectiveReport c = ComputeCollectives(s.view, co);
  size_t hidden = 0;
  r.tables.push_back(CollectiveSummaryTable(c, o.top, &hidden));
  NoteHiddenRows(r.tables.back(), hidden);
  if (c.kernels == 0)
    r.tables.back().notes.push_back("No collective kernels (nccl, rccl, cross_device_reduce) in these inputs.");
  // Communication kernels of other libraries (DeepEP, NVSHMEM, ...) or of
  // --comm-kernel: communication in every other table, but with no
  // collective description to match across ranks.
  std::map<std::string, std::pair<int64_t, Ps>> other;
  for (const RankView& rv : s.view.ranks)
    for (const GpuOpRef& g : rv.gpu) {
      if (g.cls != KernelClass::kCommunication) continue;
      const std::string_view name = rv.profile->str(rv.profile->ops.name[g.op]);
      std::string_view lib = CommLibraryOf(name);
      if (lib.empty() && ClassifyKernelName(name) == KernelClass::kCommunication) continue;  // NCCL and kin
      auto& [n, t] = other[lib.empty() ? std::string("--comm-kernel") : std::string(lib)];
      ++n, t += g.end - g.ts;
    }
  if (!other.empty()) {
    std::string what;
    for (const auto& [lib, nt] : other)
      what += fmt::format("{}{} ({} kernels, {:.3f} ms)", what.empty() ? "" : ", ", lib, nt.first,
                          static_cast<double>(nt.second) / 1e9);
    r.tables.back().notes.push_back(
        fmt::format("Communication kernels not matched here: {}. They count as communication in summary, overlap and "
                    "diagnose, but record no collective (kind, size, group) to match across ranks.",
                    what));
  }
  // gloo runs its collectives on host threads (CPU tensors, or CUDA tensors
  // staged through the host): no kernel to match, so say what is not here.
  {
    int64_t n = 0, ranks = 0;
    Ps t = 0;
    for (const RankView& rv : s.view.ranks) {
      const OpTable& o = rv.profile->ops;
      int64_t here = 0;
      for (size_t i = 0; i < o.size(); ++i)
        if (IsGlooHostOp(*rv.profile, i)) ++here, t += o.dur[i];
      n += here;
      ranks += here > 0;
    }
    if (n > 0)
      r.tables.back().notes.push_back(fmt::format(
          "Host-side collectives not analysed: {} gloo ops on {} ranks ({:.3f} ms): gloo runs them on host threads, "
          "and the tables above match GPU collective kernels only; `mlprof ops` lists their times.",
          n, ranks, static_cast<double>(t) / 1e9));
  }
  if (c.kernels_without_args > 0)
    r.tables.back().notes.push_back(fmt::format(
        "{} of {} collective kernels carry no collective args (nor does an op above them): no name, size or group; "
        "matched by call order",
        c.kernels_without_args, c.kernels));
  if (c.mismatched > 0)
    r.tables.back().notes.push_back(fmt::format(
        "{} instances whose ranks disagree on the collective, its size or dtype: a rank may have skipped or added "
        "one, which shifts the call-order matching",
        c.mismatched));
  r.tables.back().notes.push_back(fmt::format("GPUs per node: {} (--gpus-per-node).", c.gpus_per_node));
  if (c.world_size > c.ranks && c.kernels > 0)
    r.tables.back().notes.push_back(fmt::format(
        "These inputs hold {} of the job's {} ranks (distributedInfo.world_size): arrivals, skews and the last rank "
        "are among these only.",
        c.ranks, c.world_size));
  hidden = 0;
  r.tables.push_back(LastArrivalTable(c, o.top, &hidden));
  NoteHiddenRows(r.tables.back(), hidden);
  hidden = 0;
  r.tables.push_back(CollectiveInstanceTable(c, o.top, &hidden));
  NoteHiddenRows(r.tables.back(), hidden);
  hidden = 0;
  r.tables.push_back(CollectiveLongTable(c, o.top, &hidden));
  NoteHiddenRows(r.tables.back(), hidden);
  if (!c.alltoall.empty()) r.tables.push_back(AllToAllTable(c));
  return r;
}

// modules' --top keeps the first rows of the job (rank order), not of each
// rank: each shard sends its first `top` rows and how many it left out; the
// combine keeps the job's first `top` and writes the notes.

}  // namespace mlprof::app
