#include "analysis/serving.h"

#include <algorithm>
#include <map>

#include "analysis/kernel_class.h"
#include "analysis/stats.h"

namespace mlprof {

ServingReport ComputeServingSteps(const ProfileView& view, const StepOptions& opt) {
  ServingReport rep;
  for (const RankView& rv : view.ranks) {
    const RankProfile& p = *rv.profile;
    if (p.steps.empty()) continue;
    std::vector<std::optional<ServingStepInfo>> info(p.steps.size());
    bool any = false;
    for (size_t s = 0; s < p.steps.size(); ++s) {
      if (p.steps[s].op < 0) continue;
      info[s] = ParseServingStep(p.str(p.ops.name[static_cast<size_t>(p.steps[s].op)]));
      any = any || info[s].has_value();
    }
    if (!any) continue;
    // SGLang traces can hold vLLM-style ranges (the steps then) and its own
    // step[...]: the engine is SGLang's.
    bool sglang = false;
    for (size_t id = 0; id < p.strings.size() && !sglang; ++id) {
      const std::string_view n = p.strings.Get(static_cast<StringId>(id));
      if (n.starts_with("step[")) {
        auto s = ParseServingStep(n);
        sglang = s && s->engine == ServingEngine::kSglang;
      }
    }
    // Blocking calls per step: on the step range's thread, inside it, not
    // inside another blocking call.
    std::vector<Ps> blocked(p.steps.size(), 0);
    for (size_t i = 0; i < p.ops.size(); ++i) {
      if (!IsLaunchOp(p.ops.kind[i]) || p.ops.step[i] < 0 || !IsSyncCall(p.str(p.ops.name[i]))) continue;
      const int32_t parent = p.ops.parent[i];
      if (parent >= 0 && IsLaunchOp(p.ops.kind[static_cast<size_t>(parent)]) &&
          IsSyncCall(p.str(p.ops.name[static_cast<size_t>(parent)])))
        continue;
      const Step& st = p.steps[static_cast<size_t>(p.ops.step[i])];
      if (st.op < 0 || p.ops.track[i] != p.ops.track[static_cast<size_t>(st.op)]) continue;
      blocked[static_cast<size_t>(p.ops.step[i])] += std::min(p.ops.end(i), st.ts + st.dur) - p.ops.ts[i];
    }
    // The step's GPU ops: those launched inside its range (op.step).
    struct Span {
      std::vector<Interval> iv;
      int64_t n = 0;
    };
    std::vector<Span> gpu(p.steps.size());
    for (size_t i = 0; i < p.ops.size(); ++i) {
      if (!OccupiesStream(p.ops.kind[i]) || p.ops.step[i] < 0) continue;
      auto op = static_cast<uint32_t>(i);
      Span& g = gpu[static_cast<size_t>(p.ops.step[i])];
      g.iv.push_back({rv.Ts(op), rv.End(op)});
      g.n++;
    }
    const int warmup = WarmupSteps(p.steps.size(), opt);
    const size_t first_row = rep.steps.size();
    for (size_t s = 0; s < p.steps.size(); ++s) {
      const Step& st = p.steps[s];
      ServingStepRow r;
      r.rank = rv.rank;
      r.number = st.number;
      if (info[s]) {
        r.engine = std::string(ServingEngineName(sglang ? ServingEngine::kSglang : info[s]->engine));
        r.kind = std::string(ServingStepKindName(info[s]->kind));
        r.requests = info[s]->requests;
        r.tokens = info[s]->tokens;
        r.prefill_tokens = info[s]->prefill_tokens;
        r.decode_tokens = info[s]->decode_tokens;
        r.kv_tokens = info[s]->kv_tokens;
        r.output_tokens = info[s]->decode_requests;
      } else {
        r.kind = "other";
      }
      r.host = st.dur;
      Ps end = st.ts + st.dur;
      if (!gpu[s].iv.empty()) {
        std::vector<Interval> u = Union(std::move(gpu[s].iv));
        r.gpu_busy = TotalLength(u);
        r.gpu_span = u.back().end - u.front().start;
        end = std::max(end, u.back().end);
      }
      r.gpu_ops = gpu[s].n;
      r.latency = end - st.ts;
      if (s + 1 < p.steps.size()) r.gap = std::max<Ps>(0, p.steps[s + 1].ts - end);
      r.blocked = std::max<Ps>(0, blocked[s]);
      r.host_bound = r.host - r.blocked > r.gpu_busy;
      r.warmup = static_cast<int>(s) < warmup;
      r.last = rv.filtered && s + 1 == p.steps.size();
      rep.steps.push_back(std::move(r));
    }
    // Steady state per kind.
    std::map<std::string, std::vector<const ServingStepRow*>> by_kind;
    std::map<std::string, int64_t> all_steps;
    for (size_t i = first_row; i < rep.steps.size(); ++i) {
      const ServingStepRow& r = rep.steps[i];
      all_steps[r.kind]++;
      if (!r.warmup && !r.last) by_kind[r.kind].push_back(&r);
    }
    for (const auto& [kind, total] : all_steps) {
      ServingKindSummary k;
      k.rank = rv.rank;
      k.kind = kind;
      k.steps = total;
      const auto it = by_kind.find(kind);
      if (it != by_kind.end()) {
        const auto& rows = it->second;
        k.steady_steps = static_cast<int64_t>(rows.size());
        std::vector<double> lat, host, busy, gap;
        double tokens = 0, out = 0, requests = 0, lat_sum = 0;
        bool tokens_known = true, out_known = true, requests_known = true;
        for (const ServingStepRow* r : rows) {
          lat.push_back(PsToUs(r->latency));
          host.push_back(PsToUs(r->host));
          busy.push_back(PsToUs(r->gpu_busy));
          if (r->gap >= 0) gap.push_back(PsToUs(r->gap));
          k.host_bound_steps += r->host_bound ? 1 : 0;
          lat_sum += PsToUs(r->latency);
          if (r->tokens < 0) tokens_known = false;
          if (r->output_tokens < 0) out_known = false;
          if (r->requests < 0) requests_known = false;
          tokens += static_cast<double>(r->tokens);
          out += static_cast<double>(r->output_tokens);
          requests += static_cast<double>(r->requests);
        }
        std::vector<double> sorted = lat;
        std::sort(sorted.begin(), sorted.end());
        k.median_latency_us = Median(lat);
        k.p90_latency_us = QuantileSorted(sorted, 0.9);
        k.median_host_us = Median(host);
        k.median_gpu_busy_us = Median(busy);
        if (!gap.empty()) k.median_gap_us = Median(gap);
        if (lat_sum > 0 && tokens_known) k.tokens_per_s = tokens / (lat_sum * 1e-6);
        if (lat_sum > 0 && out_known) k.output_tokens_per_s = out / (lat_sum * 1e-6);
        if (kind == "decode") k.median_tpot_us = k.median_latency_us;
        if (requests_known) k.mean_requests = requests / static_cast<double>(rows.size());
      }
      rep.summary.push_back(std::move(k));
    }
  }
  return rep;
}

}  // namespace mlprof
