#include "analysis/overview.h"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

#include "analysis/intervals.h"
#include "analysis/kernel_class.h"

namespace mlprof {

const char* StepRoleName(StepRole r) {
  switch (r) {
    case StepRole::kKernel:
      return "kernel";
    case StepRole::kMemcpy:
      return "memcpy";
    case StepRole::kMemset:
      return "memset";
    case StepRole::kCommunication:
      return "comm";
    case StepRole::kRuntime:
      return "runtime";
    case StepRole::kDataLoader:
      return "dataloader";
    case StepRole::kCpuExec:
      return "cpu_exec";
    case StepRole::kOther:
      return "other";
  }
  return "?";
}

bool IsTensorCoreKernelName(std::string_view name) {
  // torch-tb-profiler's allow-list (from NVIDIA PyProf's tc.py): a kernel
  // whose name contains one of these uses Tensor Cores.
  static constexpr std::string_view kPatterns[] = {"h884",
                                                   "s884",
                                                   "h1688",
                                                   "s1688",
                                                   "hmma",
                                                   "i8816",
                                                   "16816",
                                                   "dgrad_1x1_stride_2x2",
                                                   "first_layer_wgrad_kernel",
                                                   "conv1x1",
                                                   "conv2d_c1_k1",
                                                   "direct_group",
                                                   "xmma_implicit_gemm",
                                                   "xmma_sparse_conv",
                                                   "xmma_warp_specialized_implicit_gemm",
                                                   "xmma_gemm",
                                                   "xmma_sparse_gemm",
                                                   "c1688"};
  for (std::string_view p : kPatterns)
    if (name.find(p) != std::string_view::npos) return true;
  return false;
}

bool IsTensorCoreKernelNameExt(std::string_view name) {
  if (IsTensorCoreKernelName(name)) return true;
  // Names the plugin's list predates: Hopper warpgroup MMA (wgmma, CUTLASS
  // 3 "gmma" collectives), CUTLASS tensor-op and NVIDIA xmma kernels of any
  // architecture (sm90_xmma_..., xmma_fprop_...), cuBLAS's nvjet kernels,
  // cuDNN / xFormers / TensorRT fused attention (fmha, native_sdpa).
  static constexpr std::string_view kPatterns[] = {"gmma", "tensorop", "xmma", "nvjet", "fmha", "native_sdpa"};
  for (std::string_view p : kPatterns)
    if (name.find(p) != std::string_view::npos) return true;
  // FlashAttention's main loops (FA2 flash_fwd_kernel / flash_bwd_dq_dk_dv
  // and compute_attn; FA3 flash::FlashAttnFwd / FlashAttnBwd<...>), not its
  // pre- and post-processing kernels (FlashAttnBwdPreprocess, convert_dq).
  static constexpr std::string_view kFlash[] = {
      "flash_fwd_kernel", "flash_fwd_splitkv_kernel", "flash_bwd_dq_dk_dv", "flash::compute_attn", "FlashAttnFwd<",
      "FlashAttnBwd<",    "FlashAttnFwdSm90",         "FlashAttnBwdSm90"};
  for (std::string_view p : kFlash)
    if (name.find(p) != std::string_view::npos) return true;
  // An FP8 GEMM (DeepGEMM, grouped FP8 GEMMs): no SIMT path computes in fp8.
  // Casts to and from fp8 ("per_token_cast_to_fp8", "cast_back<e4m3>") are
  // no GEMMs.
  const bool gemm = name.find("gemm") != std::string_view::npos || name.find("GEMM") != std::string_view::npos ||
                    name.find("Gemm") != std::string_view::npos;
  const bool fp8 = name.find("fp8") != std::string_view::npos || name.find("FP8") != std::string_view::npos ||
                   name.find("e4m3") != std::string_view::npos || name.find("e5m2") != std::string_view::npos;
  return gemm && fp8;
}

bool IsDataLoaderName(std::string_view n) {
  constexpr std::string_view kPrefix = "enumerate(DataLoader)#", kSuffix = ".__next__";
  return n.size() >= kPrefix.size() + kSuffix.size() && n.substr(0, kPrefix.size()) == kPrefix &&
         n.substr(n.size() - kSuffix.size()) == kSuffix;
}

namespace {

constexpr Ps kNone = std::numeric_limits<Ps>::max();

struct HostStep {
  int64_t number;
  Ps start, end;
};

// The GPU work a CUDA runtime call launched: first start, last end, count.
struct Launched {
  Ps start = kNone, end = std::numeric_limits<Ps>::min();
  int64_t ops = 0;
};

// The plugin's step spans: ProfilerStep widened to the GPU work it launched,
// and the tail steps with missing launches dropped (see the header).
void WidenSteps(const RankProfile& r, std::vector<HostStep>& steps, RankOverview& out) {
  const OpTable& o = r.ops;
  // Device ops (kernels, copies, fills) by the runtime call that launched them.
  std::unordered_map<int32_t, Launched> by_launch;
  for (size_t i = 0; i < o.size(); ++i) {
    const OpKind k = o.kind[i];
    if (k != OpKind::kKernel && k != OpKind::kMemcpy && k != OpKind::kMemset) continue;
    const int32_t l = o.launch[i];
    if (l < 0 || o.kind[l] != OpKind::kRuntime) continue;
    Launched& g = by_launch[l];
    g.start = std::min(g.start, o.ts[i]);
    g.end = std::max(g.end, o.end(i));
    ++g.ops;
  }
  struct Runtime {
    Ps start, end;
    int32_t op;
  };
  std::vector<Runtime> runtimes;
  for (size_t i = 0; i < o.size(); ++i)
    if (o.kind[i] == OpKind::kRuntime) runtimes.push_back({o.ts[i], o.end(i), static_cast<int32_t>(i)});
  std::stable_sort(runtimes.begin(), runtimes.end(),
                   [](const Runtime& a, const Runtime& b) { return a.start < b.start; });

  // A runtime call belongs to the step whose host span holds it whole.
  std::vector<Launched> step_gpu(steps.size());
  std::vector<char> matched_launch(o.size(), 0);
  bool any_matched = false;
  size_t s = 0, k = 0;
  while (s < steps.size() && k < runtimes.size()) {
    const Runtime& rt = runtimes[k];
    if (rt.start < steps[s].start) {
      ++k;  // before the step (or straddling its start)
    } else if (rt.end <= steps[s].end) {
      auto it = by_launch.find(rt.op);
      if (it != by_launch.end()) {
        step_gpu[s].start = std::min(step_gpu[s].start, it->second.start);
        step_gpu[s].end = std::max(step_gpu[s].end, it->second.end);
        step_gpu[s].ops += it->second.ops;
        matched_launch[rt.op] = 1;
        any_matched = true;
      }
      ++k;
    } else if (rt.start < steps[s].end) {
      ++k;  // straddles the step's end
    } else {
      ++s;  // starts after the step: on to the next step
    }
  }
  if (!any_matched) return;
  out.gpu_adjusted = true;

  // The first step starts after the GPU work launched outside every step
  // that ended before the first step's own GPU work began.
  Ps prev_end = steps[0].start;
  if (step_gpu[0].ops > 0) {
    for (size_t i = 0; i < o.size(); ++i) {
      const OpKind kd = o.kind[i];
      if (kd != OpKind::kKernel && kd != OpKind::kMemcpy && kd != OpKind::kMemset) continue;
      const int32_t l = o.launch[i];
      if (l >= 0 && matched_launch[l]) continue;
      if (o.end(i) < step_gpu[0].start) prev_end = std::max(prev_end, o.end(i));
    }
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    const Ps start = std::max(prev_end, steps[i].start);
    Ps end = steps[i].end;
    if (step_gpu[i].ops > 0) end = std::max(end, step_gpu[i].end);
    end = std::max(end, start);
    steps[i].start = start;
    steps[i].end = end;
    prev_end = end;
  }
  // Drop the tail steps whose launches were not all captured.
  if (steps.size() > 1) {
    int64_t last = static_cast<int64_t>(steps.size()) - 1;
    while (last >= 0 && step_gpu[last].ops == 0) --last;
    if (last >= 0) {
      size_t keep = static_cast<size_t>(last) + 1;
      if (last > 0 && static_cast<double>(step_gpu[last - 1].ops) * 0.8 > static_cast<double>(step_gpu[last].ops))
        keep = static_cast<size_t>(last);
      out.dropped_tail_steps = static_cast<int>(steps.size() - keep);
      steps.resize(keep);
    }
  }
}

}  // namespace

RankOverview ComputeRankOverview(const RankProfile& r, int64_t rank, const CommKernelPatterns* comm_kernels) {
  RankOverview out;
  out.rank = rank;
  const OpTable& o = r.ops;

  // Host steps: the rank's steps (model/steps.h), the same every step-based
  // command uses: ProfilerStep ops, serving or annotated iterations (their
  // ops are the host span, not CPU work), optimizer or repeat intervals. The
  // whole trace as one step is the host ops' span below, as the plugin has it.
  std::vector<char> is_step(o.size(), 0);
  std::vector<HostStep> steps;
  if (r.step_source != StepSource::kTrace) {
    for (const Step& st : r.steps) {
      if (st.op >= 0) {
        const OpKind k = o.kind[st.op];
        if (k != OpKind::kCpuOp && k != OpKind::kUserAnnotation) continue;
        is_step[st.op] = 1;
      }
      steps.push_back({st.number, st.ts, st.ts + st.dur});
    }
  }
  if (!steps.empty()) out.source = r.step_source;
  std::stable_sort(steps.begin(), steps.end(), [](const HostStep& a, const HostStep& b) { return a.start < b.start; });

  // Role intervals, over the whole rank.
  std::array<std::vector<Interval>, kStepRoleCount> roles;
  auto add = [&](StepRole role, size_t i) { roles[static_cast<int>(role)].push_back({o.ts[i], o.end(i)}); };
  KernelClassCache classes(r, comm_kernels);
  Ps host_min = kNone, host_max = std::numeric_limits<Ps>::min();
  for (size_t i = 0; i < o.size(); ++i) {
    switch (o.kind[i]) {
      case OpKind::kKernel:
        add(classes.Get(o.name[i]) == KernelClass::kCommunication ? StepRole::kCommunication : StepRole::kKernel, i);
        break;
      case OpKind::kMemcpy:
        add(StepRole::kMemcpy, i);
        break;
      case OpKind::kMemset:
        add(StepRole::kMemset, i);
        break;
      case OpKind::kRuntime:
        add(StepRole::kRuntime, i);
        break;
      case OpKind::kCpuOp:
      case OpKind::kUserAnnotation:
        if (is_step[i]) {
          // counted for the host span below
        } else if (IsDataLoaderName(r.str(o.name[i]))) {
          add(StepRole::kDataLoader, i);
        } else if (o.kind[i] == OpKind::kCpuOp) {
          add(StepRole::kCpuExec, i);
        } else {
          break;  // other annotations are neither CPU work nor the host span
        }
        host_min = std::min(host_min, o.ts[i]);
        host_max = std::max(host_max, o.end(i));
        break;
      default:
        break;
    }
  }
  if (steps.empty()) {
    if (host_min == kNone) return out;
    steps.push_back({0, host_min, host_max});
    out.host_span_step = true;
  }
  WidenSteps(r, steps, out);

  // Each role takes what the roles before it left of the steps.
  std::vector<Interval> step_iv;
  for (const HostStep& st : steps) step_iv.push_back({st.start, st.end});
  std::vector<Interval> slots = Union(step_iv);
  std::array<std::vector<Interval>, kStepRoleCount> cost;
  for (int role = 0; role < kStepRoleCount - 1; ++role) {
    cost[role] = Intersection(slots, Union(std::move(roles[role])));
    slots = Subtract(slots, cost[role]);
  }
  cost[kStepRoleCount - 1] = std::move(slots);

  for (const HostStep& st : steps) {
    OverviewStep row;
    row.number = st.number;
    row.start = st.start;
    row.end = st.end;
    for (int role = 0; role < kStepRoleCount; ++role) {
      row.role[role] = LengthWithin(cost[role], st.start, st.end);
      out.mean[role] += static_cast<double>(row.role[role]);
    }
    out.mean_total += static_cast<double>(row.total());
    out.steps.push_back(row);
  }
  const double n = static_cast<double>(out.steps.size());
  for (double& m : out.mean) m /= n;
  out.mean_total /= n;

  // GPU summary per device, over [first step start, last step end).
  const Ps span_start = steps.front().start, span_end = steps.back().end;
  const Ps span = span_end - span_start;
  struct Device {
    std::vector<Interval> kernels;
    struct Edge {
      Ps t;
      bool end;
      double blocks;
    };
    std::vector<Edge> edges;
    double occ_weighted = 0;
    Ps occ_time = 0, tc_time = 0, tc_ext_time = 0, kernel_time = 0;
    int64_t count = 0;
    bool any_blocks = false;
  };
  std::map<int32_t, Device> devices;
  std::vector<char> tc_cache;  // by name id: 0 unknown, 1 no, 2 mlprof's list only, 3 the plugin's
  for (size_t i = 0; i < o.size(); ++i) {
    if (o.kind[i] != OpKind::kKernel) continue;
    const Track& t = r.track_of(i);
    Device& d = devices[t.device];
    const Ps ts = o.ts[i], end = o.end(i);
    const double blocks = o.blocks_per_sm_of(i), occupancy = o.occupancy_of(i);
    ++d.count;
    d.kernels.push_back({ts, end});
    if (blocks > 0) {
      d.edges.push_back({ts, false, blocks});
      d.edges.push_back({end, true, blocks});
      d.any_blocks = true;
    }
    const Ps lo = std::max(ts, span_start), hi = std::min(end, span_end);
    if (lo < hi) {
      if (occupancy >= 0) {
        d.occ_weighted += occupancy * static_cast<double>(hi - lo);
        d.occ_time += hi - lo;
      }
      const StringId name = o.name[i];
      if (name >= tc_cache.size()) tc_cache.resize(name + 64, 0);
      if (!tc_cache[name]) {
        const std::string_view n = r.str(name);
        tc_cache[name] = IsTensorCoreKernelName(n) ? 3 : IsTensorCoreKernelNameExt(n) ? 2 : 1;
      }
      if (tc_cache[name] == 3) d.tc_time += hi - lo;
      if (tc_cache[name] >= 2) d.tc_ext_time += hi - lo;
      d.kernel_time += hi - lo;
    }
  }
  for (auto& [device, d] : devices) {
    OverviewGpu g;
    g.device = device;
    g.kernels = d.count;
    for (const DeviceProperties& p : r.meta.devices) {
      if (p.id != device) continue;
      g.name = p.name;
      g.memory = p.total_global_mem;
      g.compute_major = p.compute_major;
      g.compute_minor = p.compute_minor;
    }
    if (span > 0) {
      g.utilization = static_cast<double>(LengthWithin(Union(std::move(d.kernels)), span_start, span_end)) /
                      static_cast<double>(span);
      if (d.any_blocks) {
        // Sweep the kernels' start and end points; at equal times starts
        // come first. Between two points the running kernels' blocks per SM
        // sum to `level`, worth min(level, 1) of the SMs.
        std::stable_sort(d.edges.begin(), d.edges.end(), [](const Device::Edge& a, const Device::Edge& b) {
          return a.t != b.t ? a.t < b.t : (!a.end && b.end);
        });
        double level = 0, weighted = 0;
        Ps last = d.edges.front().t;
        for (const Device::Edge& e : d.edges) {
          if (e.t > last && level > 0) {
            const Ps lo = std::max(last, span_start), hi = std::min(e.t, span_end);
            if (lo < hi) weighted += std::min(level, 1.0) * static_cast<double>(hi - lo);
          }
          last = e.t;
          level += e.end ? -e.blocks : e.blocks;
        }
        g.sm_efficiency = weighted / static_cast<double>(span);
      }
    } else {
      g.utilization = NAN;
    }
    if (d.occ_time > 0) g.occupancy = d.occ_weighted / static_cast<double>(d.occ_time);
    if (d.kernel_time > 0) {
      g.tensor_cores = static_cast<double>(d.tc_time) / static_cast<double>(d.kernel_time);
      g.tensor_cores_ext = static_cast<double>(d.tc_ext_time) / static_cast<double>(d.kernel_time);
    }
    out.gpus.push_back(std::move(g));
  }
  return out;
}

}  // namespace mlprof
