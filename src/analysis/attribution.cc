#include "analysis/attribution.h"

namespace mlprof {

const char* AttributedByName(AttributedBy b) {
  switch (b) {
    case AttributedBy::kExternalId:
      return "external_id";
    case AttributedBy::kContainment:
      return "time";
    case AttributedBy::kGraphLaunch:
      return "graph_launch";
    case AttributedBy::kAnnotation:
      return "annotation";
    case AttributedBy::kNone:
    case AttributedBy::kCount:
      break;
  }
  return "none";
}

OpAttribution::OpAttribution(const RankProfile& p) : p_(p), step_op_(p.ops.size(), 0) {
  const OpTable& o = p.ops;
  if (!o.external_id.empty()) {
    for (size_t i = 0; i < o.size(); ++i)
      if (p.IsFrameworkOp(i) && o.external_id[i] >= 0) cpu_op_ids_.push_back(o.external_id[i]);
    std::sort(cpu_op_ids_.begin(), cpu_op_ids_.end());
    cpu_op_ids_.erase(std::unique(cpu_op_ids_.begin(), cpu_op_ids_.end()), cpu_op_ids_.end());
  }
  for (const Step& s : p.steps)
    if (s.op >= 0) step_op_[static_cast<size_t>(s.op)] = 1;
}

OpAttribution::Owner OpAttribution::Of(size_t g) const {
  const OpTable& o = p_.ops;
  Owner out;
  const int32_t a = p_.AttributionLaunch(g);
  if (a >= 0) {
    const int64_t ext = o.external_id_of(static_cast<size_t>(a));
    int32_t inner = -1, verified = -1, annotation = -1;
    ForEachLaunchAncestor(p_, g, [&](size_t q) {
      if (p_.IsFrameworkOp(q)) {
        if (inner < 0) inner = static_cast<int32_t>(q);
        if (ext >= 0 && o.external_id_of(q) == ext) {
          verified = static_cast<int32_t>(q);
          return false;
        }
      } else if (o.kind[q] == OpKind::kUserAnnotation && !step_op_[q] && annotation < 0) {
        annotation = static_cast<int32_t>(q);
      }
      return ext >= 0 || inner < 0;  // without an id, the innermost op is the answer
    });
    if (verified >= 0) return {verified, AttributedBy::kExternalId, ExternalIdRepair::kNone};
    if (ext >= 0 && ext == o.correlation[static_cast<size_t>(a)])
      out.repair = ExternalIdRepair::kCorrelation;
    else if (ext >= 0)
      out.repair = std::binary_search(cpu_op_ids_.begin(), cpu_op_ids_.end(), ext) ? ExternalIdRepair::kOutside
                                                                                   : ExternalIdRepair::kUnmatched;
    if (inner >= 0) {
      out.op = inner;
      out.by = AttributedBy::kContainment;
      return out;
    }
    // Kernels replayed by a graph launch with no op above it (and no
    // --capture to say more) belong to that launch, as in TraceLens.
    if (IsLaunchOp(o.kind[static_cast<size_t>(a)]) &&
        p_.str(o.name[static_cast<size_t>(a)]).find("GraphLaunch") != std::string_view::npos) {
      out.op = a;
      out.by = AttributedBy::kGraphLaunch;
      return out;
    }
    if (annotation >= 0) {
      out.op = annotation;
      out.by = AttributedBy::kAnnotation;
      return out;
    }
  }
  // The GPU side: a gpu_user_annotation range around the GPU op on its stream.
  for (int32_t q = o.parent[g]; q >= 0; q = o.parent[static_cast<size_t>(q)])
    if (o.kind[static_cast<size_t>(q)] == OpKind::kGpuUserAnnotation && !step_op_[static_cast<size_t>(q)]) {
      out.op = q;
      out.by = AttributedBy::kAnnotation;
      return out;
    }
  return out;
}

AttributionSummary SummarizeAttribution(const RankView& rv, const OpAttribution& attribution) {
  AttributionSummary s;
  const RankProfile& p = *rv.profile;
  for (const GpuOpRef& g : rv.gpu) {
    const OpKind k = p.ops.kind[g.op];
    if (k != OpKind::kKernel && k != OpKind::kMemcpy && k != OpKind::kMemset) continue;
    const Ps d = g.end - g.ts;
    const OpAttribution::Owner w = attribution.Of(g.op);
    s.total += d;
    s.total_ops++;
    s.time[static_cast<size_t>(w.by)] += d;
    s.ops[static_cast<size_t>(w.by)]++;
    if (w.repair == ExternalIdRepair::kUnmatched) s.unmatched_time += d, s.unmatched_ops++;
    if (w.repair == ExternalIdRepair::kOutside) s.outside_time += d, s.outside_ops++;
    if (w.repair == ExternalIdRepair::kCorrelation) s.correlation_time += d, s.correlation_ops++;
    if (p.AttributionLaunch(g.op) < 0) s.without_launch_time += d, s.without_launch_ops++;
  }
  return s;
}

std::vector<std::pair<int64_t, AttributionSummary>> SummarizeAttribution(const ProfileView& view) {
  std::vector<std::pair<int64_t, AttributionSummary>> out;
  for (const RankView& rv : view.ranks)
    if (!rv.gpu.empty()) out.emplace_back(rv.rank, SummarizeAttribution(rv, OpAttribution(*rv.profile)));
  return out;
}

}  // namespace mlprof
