#include "analysis/critical_path.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

#include "analysis/comm_kernels.h"
#include "model/steps.h"

namespace mlprof {

const char* CpEdgeTypeName(CpEdgeType t) {
  switch (t) {
    case CpEdgeType::kOperator:
      return "critical_path_operator";
    case CpEdgeType::kDependency:
      return "critical_path_dependency";
    case CpEdgeType::kLaunchDelay:
      return "critical_path_kernel_launch_delay";
    case CpEdgeType::kKernelKernel:
      return "critical_path_kernel_kernel_delay";
    case CpEdgeType::kSync:
      return "critical_path_sync_dependency";
  }
  return "";
}

const char* CpBoundName(CpBound b) {
  switch (b) {
    case CpBound::kCpu:
      return "cpu_bound";
    case CpBound::kGpuCompute:
      return "gpu_compute_bound";
    case CpBound::kGpuCommunication:
      return "gpu_communication_bound";
    case CpBound::kGpuMemory:
      return "gpu_memory_bound";
    case CpBound::kKernelKernel:
      return "gpu_kernel_kernel_overhead";
    case CpBound::kLaunch:
      return "gpu_kernel_launch_overhead";
    case CpBound::kWait:
      return "dependency";
  }
  return "";
}

CpBound BoundOf(const RankProfile& p, const CpEdge& e) {
  switch (e.type) {
    case CpEdgeType::kKernelKernel:
      return CpBound::kKernelKernel;
    case CpEdgeType::kLaunchDelay:
      return CpBound::kLaunch;
    case CpEdgeType::kDependency:
    case CpEdgeType::kSync:
      return CpBound::kWait;
    case CpEdgeType::kOperator:
      break;
  }
  if (e.op < 0) return CpBound::kCpu;
  const auto i = static_cast<size_t>(e.op);
  const OpKind k = p.ops.kind[i];
  if (!IsGpuOp(k)) return CpBound::kCpu;
  if (k == OpKind::kMemcpy || k == OpKind::kMemset) return CpBound::kGpuMemory;
  const std::string_view n = p.str(p.ops.name[i]);
  if (IsHtaCriticalPathCommKernel(n)) return CpBound::kGpuCommunication;
  return CpBound::kGpuCompute;
}

namespace {

constexpr int32_t kNoCorrelation = -1;  // HTA's index_correlation -1
constexpr int32_t kNoPartner = -2;      // HTA's 0: a correlation without its other side

// One event as HTA's dataframe holds it (rows in file order).
struct Row {
  uint32_t op = 0;
  Ps ts = 0, dur = 0;
  int64_t stream = -1;  // -1 for host events and stream-less syncs
  int64_t corr = -1;
  int64_t pid = 0, tid = 0;
  StringId name = 0;
  OpKind kind = OpKind::kOther;
  int64_t wait_stream = -1, wait_record = -1;
  int32_t ic = kNoCorrelation;  // the row at the other end of the correlation
  Ps end() const { return ts + dur; }
};

struct Names {
  StringId event_sync, context_sync, stream_wait, event_record, stream_wait_call;
  std::vector<StringId> lock, blocking, launch;
  static StringId Find(const RankProfile& p, std::string_view s) { return p.strings.Find(s); }
  explicit Names(const RankProfile& p) {
    event_sync = Find(p, "Event Sync");
    context_sync = Find(p, "Context Sync");
    stream_wait = Find(p, "Stream Wait Event");
    event_record = Find(p, "cudaEventRecord");
    stream_wait_call = Find(p, "cudaStreamWaitEvent");
    for (const char* n : {"cudaHostAlloc", "cudaLaunchKernel", "cudaMemcpyAsync"}) lock.push_back(Find(p, n));
    for (const char* n : {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventQuery", "cudaEventSynchronize",
                          "cudaMemcpy", "cudaMemcpyAsync"})
      blocking.push_back(Find(p, n));
    for (const char* n :
         {"cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx", "cudaMemcpyAsync",
          "cudaMemsetAsync", "hipLaunchKernel", "hipExtModuleLaunchKernel", "hipMemsetAsync", "hipMemcpyAsync",
          "hipMemcpyWithStream", "runFunction - job_prep_and_submit_for_execution"})
      launch.push_back(Find(p, n));
  }
  static bool In(const std::vector<StringId>& v, StringId id) {
    return id != StringPool::kNotFound && std::find(v.begin(), v.end(), id) != v.end();
  }
};

std::vector<Row> Rows(const RankProfile& p, const Names& nm) {
  const OpTable& o = p.ops;
  std::vector<uint32_t> order;
  order.reserve(o.size());
  for (size_t i = 0; i < o.size(); ++i)
    if (o.kind[i] != OpKind::kInstant && o.kind[i] != OpKind::kTraceSpan) order.push_back(static_cast<uint32_t>(i));
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return o.offset[a] < o.offset[b]; });
  const StringId k_ws = p.strings.Find("wait_on_stream"), k_wr = p.strings.Find("wait_on_cuda_event_record_corr_id"),
                 k_stream = p.strings.Find("stream");
  std::vector<Row> rows(order.size());
  for (size_t r = 0; r < order.size(); ++r) {
    const uint32_t i = order[r];
    Row& w = rows[r];
    w.op = i;
    w.ts = o.ts[i];
    w.dur = o.dur[i];
    w.corr = o.correlation[i];
    const Track& t = p.tracks[o.track[i]];
    w.pid = t.pid;
    w.tid = t.tid;
    w.name = o.name[i];
    w.kind = o.kind[i];
    if (IsGpuOp(w.kind) && t.kind == TrackKind::kGpuStream) w.stream = t.stream;
    if (w.kind == OpKind::kCudaSync || w.kind == OpKind::kDeviceSync) {
      for (const Arg& a : p.args.Of(ArgOwner::kOp, i)) {
        if (a.value.type != ArgType::kInt) continue;
        if (a.value.key == k_ws) w.wait_stream = a.value.i;
        if (a.value.key == k_wr) w.wait_record = a.value.i;
        // A host-side sync record (nsys puts them on a track of their own)
        // names the stream it waited on: HTA's row has it as its stream.
        if (a.value.key == k_stream && t.kind != TrackKind::kGpuStream) w.stream = a.value.i;
      }
    }
  }
  // HTA's transform_correlation_to_index.
  auto gpu_side = [&](const Row& w) {
    return (w.stream >= 0 && w.corr >= 0) || w.name == nm.event_sync || w.name == nm.context_sync;
  };
  std::unordered_map<int64_t, std::vector<uint32_t>> gpu_by_corr;
  for (size_t r = 0; r < rows.size(); ++r) {
    Row& w = rows[r];
    w.ic = w.corr == -1 ? kNoCorrelation : kNoPartner;
    if (w.corr != -1 && gpu_side(w)) gpu_by_corr[w.corr].push_back(static_cast<uint32_t>(r));
  }
  for (size_t r = 0; r < rows.size(); ++r) {
    Row& w = rows[r];
    if (w.corr == -1 || gpu_side(w)) continue;
    auto it = gpu_by_corr.find(w.corr);
    if (it == gpu_by_corr.end()) continue;
    for (uint32_t g : it->second) {
      w.ic = static_cast<int32_t>(g);
      rows[g].ic = static_cast<int32_t>(r);
    }
  }
  return rows;
}

// networkx's DiGraph as HTA fills it: nodes in first-seen order, successor
// and predecessor lists in insertion order, an edge added twice keeps its
// place and takes the new type and weight.
struct Graph {
  std::vector<CpEdge>* edges;
  std::vector<uint32_t> order;  // graph nodes, first seen first
  std::vector<char> seen;
  std::vector<std::vector<uint32_t>> succ, pred;  // edge ids
  std::unordered_map<uint64_t, uint32_t> index;
  Graph(std::vector<CpEdge>* e, size_t nodes) : edges(e), seen(nodes, 0), succ(nodes), pred(nodes) {}
  uint32_t Add(uint32_t u, uint32_t v, CpEdgeType type, Ps weight) {
    for (uint32_t n : {u, v})
      if (!seen[n]) seen[n] = 1, order.push_back(n);
    const uint64_t key = (uint64_t{u} << 32) | v;
    auto [it, fresh] = index.try_emplace(key, static_cast<uint32_t>(edges->size()));
    if (fresh) {
      edges->push_back({u, v, type, weight, -1});
      succ[u].push_back(it->second);
      pred[v].push_back(it->second);
    } else {
      (*edges)[it->second].type = type;
      (*edges)[it->second].weight = weight;
    }
    return it->second;
  }
};

// networkx.topological_generations, flattened.
std::vector<uint32_t> TopologicalOrder(const std::vector<CpEdge>& edges, const std::vector<uint32_t>& nodes,
                                       const std::vector<std::vector<uint32_t>>& succ,
                                       const std::vector<std::vector<uint32_t>>& pred, bool* cycle) {
  std::vector<uint32_t> indeg(succ.size(), 0);
  for (uint32_t v : nodes) indeg[v] = static_cast<uint32_t>(pred[v].size());
  std::vector<uint32_t> order, gen, next;
  for (uint32_t v : nodes)
    if (indeg[v] == 0) gen.push_back(v);
  while (!gen.empty()) {
    next.clear();
    for (uint32_t n : gen)
      for (uint32_t e : succ[n])
        if (--indeg[edges[e].to] == 0) next.push_back(edges[e].to);
    order.insert(order.end(), gen.begin(), gen.end());
    gen.swap(next);
  }
  *cycle = order.size() != nodes.size();
  return order;
}

// dag_longest_path over `order` with weights max(0, w x scale): per node the
// longest distance and its predecessor edge (-1 none); the end node.
struct Longest {
  std::vector<Ps> dist;
  std::vector<int64_t> via;
  uint32_t last = 0;
  Ps length = 0;
};
Longest LongestPath(const std::vector<CpEdge>& edges, const std::vector<uint32_t>& order,
                    const std::vector<std::vector<uint32_t>>& pred, size_t nodes, const std::vector<double>* scale) {
  Longest l;
  l.dist.assign(nodes, 0);
  l.via.assign(nodes, -1);
  auto weight = [&](uint32_t e) -> Ps {
    Ps w = std::max<Ps>(0, edges[e].weight);
    if (scale) w = static_cast<Ps>(static_cast<double>(w) * (*scale)[e] + 0.5);
    return w;
  };
  bool first = true;
  for (uint32_t v : order) {
    Ps best = 0;
    int64_t via = -1;
    for (uint32_t e : pred[v]) {
      const Ps d = l.dist[edges[e].from] + weight(e);
      if (via < 0 || d > best) best = d, via = e;
    }
    l.dist[v] = best;
    l.via[v] = via;
    if (first || best > l.length) l.length = best, l.last = v, first = false;
  }
  return l;
}

}  // namespace

std::vector<CpOptions> DefaultCpWindows(const RankProfile& p) {
  std::vector<CpOptions> out;
  bool profiler_steps = p.step_source == StepSource::kProfilerStep;
  for (const Step& s : p.steps)
    profiler_steps =
        profiler_steps && s.op >= 0 && p.str(p.ops.name[static_cast<size_t>(s.op)]).starts_with("ProfilerStep#");
  if (p.steps.size() >= 2 && !profiler_steps && p.step_source != StepSource::kTrace) {
    // Steps found otherwise (or reader-marked ranges such as NVTX "step 3"):
    // time windows, in time order.
    std::vector<const Step*> by_time;
    for (const Step& s : p.steps) by_time.push_back(&s);
    std::stable_sort(by_time.begin(), by_time.end(), [](const Step* a, const Step* b) { return a->ts < b->ts; });
    if (p.MarkedSteps()) by_time.pop_back();
    for (const Step* s : by_time) {
      CpOptions o;
      o.from = s->ts;
      o.to = s->ts + s->dur;
      o.label = s->op >= 0 ? std::string(p.str(p.ops.name[static_cast<size_t>(s->op)]))
                           : fmt::format("{} step {}", StepSourceName(p.step_source), s->number);
      out.push_back(std::move(o));
    }
    if (out.size() > kMaxDefaultWindows) out.erase(out.begin(), out.end() - kMaxDefaultWindows);
  } else if (p.steps.size() >= 2) {
    // ProfilerStep instances in file order: the steps sorted by their op's offset.
    std::vector<std::pair<uint64_t, size_t>> by_offset;
    for (size_t s = 0; s < p.steps.size(); ++s)
      if (p.steps[s].op >= 0) by_offset.emplace_back(p.ops.offset[static_cast<size_t>(p.steps[s].op)], s);
    std::sort(by_offset.begin(), by_offset.end());
    // Every step but the last by time (HTA leaves the last ProfilerStep out).
    size_t last = 0;
    for (size_t s = 1; s < p.steps.size(); ++s)
      if (p.steps[s].ts > p.steps[last].ts) last = s;
    for (size_t k = 0; k < by_offset.size(); ++k) {
      if (by_offset[k].second == last) continue;
      CpOptions o;
      o.annotation = "ProfilerStep#";
      o.first = o.last = static_cast<int64_t>(k);
      out.push_back(o);
    }
    // The steady state: at most the last kMaxDefaultWindows of them.
    if (out.size() > kMaxDefaultWindows) out.erase(out.begin(), out.end() - kMaxDefaultWindows);
  }
  if (out.empty()) out.push_back(CpOptions{});
  return out;
}

namespace {

// What every window of a rank shares: the events in file order with their
// correlations, HTA's queue lengths, and the launch lookups of the syncs.
struct CpPrepared {
  Names nm;
  std::vector<Row> rows;
  std::unordered_map<uint32_t, int64_t> ql;
  std::unordered_map<int64_t, int64_t> record_launch;
  std::map<std::tuple<int64_t, int64_t, int64_t>, std::vector<uint32_t>> by_thread;
  explicit CpPrepared(const RankProfile& p) : nm(p), rows(Rows(p, nm)) {
    // Queue length at each launch call and GPU op (whole trace; calls first).
    {
      std::unordered_map<int64_t, uint32_t> gpu_by_corr;  // first GPU row per correlation
      for (size_t r = 0; r < rows.size(); ++r)
        if (rows[r].stream != -1) gpu_by_corr.try_emplace(rows[r].corr, static_cast<uint32_t>(r));
      std::unordered_map<int64_t, char> launch_corr;
      struct Item {
        Ps ts;
        int64_t stream;
        int d;
        uint32_t row;
      };
      std::vector<Item> items;
      for (size_t r = 0; r < rows.size(); ++r) {
        const Row& w = rows[r];
        if (w.ic < 0 || !Names::In(nm.launch, w.name)) continue;
        launch_corr[w.corr] = 1;
        auto it = gpu_by_corr.find(w.corr);
        if (it != gpu_by_corr.end()) items.push_back({w.ts, rows[it->second].stream, +1, static_cast<uint32_t>(r)});
      }
      for (size_t r = 0; r < rows.size(); ++r)
        if (rows[r].stream != -1 && launch_corr.count(rows[r].corr))
          items.push_back({rows[r].ts, rows[r].stream, -1, static_cast<uint32_t>(r)});
      std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.ts < b.ts; });
      std::unordered_map<int64_t, int64_t> cur;
      for (const Item& it : items) ql[it.row] = cur[it.stream] += it.d;
    }
    // Launch calls whose GPU op exists, by start (file order on ties).
    std::vector<uint32_t> launches;
    for (size_t r = 0; r < rows.size(); ++r) {
      const Row& w = rows[r];
      if (w.ic >= 0 && Names::In(nm.launch, w.name) && rows[static_cast<size_t>(w.ic)].stream != -1)
        launches.push_back(static_cast<uint32_t>(r));
    }
    std::stable_sort(launches.begin(), launches.end(), [&](uint32_t a, uint32_t b) { return rows[a].ts < rows[b].ts; });
    // cudaEventRecord -> the last launch before it onto the recorded stream.
    bool any_record = false;
    for (const Row& w : rows)
      any_record = any_record || (w.name == nm.event_record && nm.event_record != StringPool::kNotFound);
    if (any_record) {
      std::unordered_map<int64_t, std::pair<int64_t, int64_t>> waited;  // record corr -> (stream, pid)
      for (const Row& w : rows)
        if (w.wait_stream > -1) waited.try_emplace(w.wait_record, std::make_pair(w.wait_stream, w.pid));
      std::map<std::pair<int64_t, int64_t>, std::vector<uint32_t>> by_stream;  // (stream, gpu pid) -> launches
      for (uint32_t l : launches) {
        const Row& k = rows[static_cast<size_t>(rows[l].ic)];
        by_stream[{k.stream, k.pid}].push_back(l);
      }
      for (const Row& w : rows) {
        if (w.name != nm.event_record) continue;
        auto it = waited.find(w.corr);
        if (it == waited.end()) continue;
        int64_t best = -1;
        auto bs = by_stream.find(it->second);
        if (bs != by_stream.end()) {
          auto ub = std::upper_bound(bs->second.begin(), bs->second.end(), w.ts,
                                     [&](Ps ts, uint32_t l) { return ts < rows[l].ts; });
          if (ub != bs->second.begin()) best = *(ub - 1);
        }
        record_launch.try_emplace(w.corr, best);
      }
    }
    // cudaStreamWaitEvent -> the next launch on its thread onto the waiting stream.
    for (uint32_t l : launches)
      by_thread[{rows[l].pid, rows[l].tid, rows[static_cast<size_t>(rows[l].ic)].stream}].push_back(l);
  }
};

CpResult Window(const RankProfile& p, const CpPrepared& prep, int64_t rank, const CpOptions& opt) {
  CpResult res;
  CriticalPath& cp = res.path;
  cp.rank = rank;
  const Names& nm = prep.nm;
  const std::vector<Row>& rows = prep.rows;
  if (rows.empty()) {
    res.error = "no events";
    return res;
  }
  // --- the window -------------------------------------------------------------------------
  Ps start = std::numeric_limits<Ps>::max(), end = std::numeric_limits<Ps>::min();
  if (opt.to > opt.from) {
    start = opt.from;
    end = opt.to;
    cp.window = opt.label;
  } else if (opt.annotation.empty()) {
    for (const Row& w : rows) start = std::min(start, w.ts), end = std::max(end, w.end());
    cp.window = "whole trace";
  } else {
    std::vector<uint32_t> sel;
    std::unordered_map<StringId, bool> match;
    for (size_t r = 0; r < rows.size(); ++r) {
      auto [it, fresh] = match.try_emplace(rows[r].name, false);
      if (fresh)
        it->second = opt.exact ? p.str(rows[r].name) == opt.annotation
                               : p.str(rows[r].name).find(opt.annotation) != std::string_view::npos;
      if (it->second) sel.push_back(static_cast<uint32_t>(r));
    }
    if (opt.first < 0 || opt.last < opt.first || static_cast<size_t>(opt.first) >= sel.size()) {
      res.error =
          fmt::format("no instance {} of an event named like '{}' ({} found)", opt.first, opt.annotation, sel.size());
      return res;
    }
    const size_t a = static_cast<size_t>(opt.first), b = std::min(sel.size() - 1, static_cast<size_t>(opt.last));
    for (size_t k = a; k <= b; ++k) start = std::min(start, rows[sel[k]].ts), end = std::max(end, rows[sel[k]].end());
    cp.window = a == b ? std::string(p.str(rows[sel[a]].name))
                       : fmt::format("{} .. {}", p.str(rows[sel[a]].name), p.str(rows[sel[b]].name));
  }
  cp.start = start;
  cp.end = end;
  // --- clip (rule A: host events in the window; rule B: GPU work whose
  // launch call is; every Stream Wait Event) ------------------------------------------------
  std::vector<char> keep(rows.size(), 0);
  for (size_t r = 0; r < rows.size(); ++r) {
    const Row& w = rows[r];
    if (w.stream == -1) {
      if (w.ts >= start && w.ts <= end && w.dur > 0) keep[r] = 1;
    } else if (w.name == nm.stream_wait) {
      keep[r] = 1;
    }
  }
  for (size_t r = 0; r < rows.size(); ++r) {
    const Row& c = rows[r];
    if (c.stream != -1 || c.ic < 0) continue;
    const Row& g = rows[static_cast<size_t>(c.ic)];
    if (g.stream == -1 || g.ic != static_cast<int32_t>(r)) continue;
    if (c.ts >= start && c.ts <= end && c.dur > 0) keep[static_cast<size_t>(c.ic)] = 1;
  }
  // --- nodes ------------------------------------------------------------------------------
  std::vector<int32_t> snode(rows.size(), -1), enode(rows.size(), -1);
  {
    std::vector<std::pair<Ps, uint32_t>> starts, ends;
    for (size_t r = 0; r < rows.size(); ++r) {
      if (!keep[r]) continue;
      const Row& w = rows[r];
      const bool host = w.kind == OpKind::kCpuOp || w.kind == OpKind::kRuntime || w.kind == OpKind::kDriver;
      if (!host && !(w.stream != -1 && w.ic != kNoCorrelation)) continue;
      starts.emplace_back(w.ts, static_cast<uint32_t>(r));
      ends.emplace_back(w.end(), static_cast<uint32_t>(r));
    }
    struct N {
      Ps ts;
      uint32_t row;
      bool start;
    };
    std::vector<N> all;
    all.reserve(starts.size() * 2);
    for (auto& [ts, r] : starts) all.push_back({ts, r, true});
    for (auto& [ts, r] : ends) all.push_back({ts, r, false});
    std::stable_sort(all.begin(), all.end(),
                     [](const N& a, const N& b) { return a.ts != b.ts ? a.ts < b.ts : a.row < b.row; });
    cp.nodes.reserve(all.size());
    for (const N& n : all) {
      (n.start ? snode : enode)[n.row] = static_cast<int32_t>(cp.nodes.size());
      cp.nodes.push_back({rows[n.row].op, n.ts, n.start});
    }
  }
  if (cp.nodes.empty()) {
    res.error = "no CPU op, runtime call or GPU op in the window";
    return res;
  }
  std::vector<uint32_t> node_row(cp.nodes.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    if (snode[r] >= 0) node_row[static_cast<size_t>(snode[r])] = static_cast<uint32_t>(r);
    if (enode[r] >= 0) node_row[static_cast<size_t>(enode[r])] = static_cast<uint32_t>(r);
  }
  Graph g(&cp.edges, cp.nodes.size());
  // Edge weight: the time between its nodes, 0 for dependency and sync edges.
  auto add = [&](uint32_t u, uint32_t v, CpEdgeType type, bool zero = false) -> uint32_t {
    const bool z = zero || type == CpEdgeType::kDependency || type == CpEdgeType::kSync;
    return g.Add(u, v, type, z ? 0 : cp.nodes[v].ts - cp.nodes[u].ts);
  };
  // HTA's attribution of operator and kernel-kernel edges.
  auto attribute = [&](uint32_t e, int32_t parent_row) {
    CpEdge& x = cp.edges[e];
    if (x.type != CpEdgeType::kOperator && x.type != CpEdgeType::kKernelKernel) return;
    const CpNode &s = cp.nodes[x.from], &d = cp.nodes[x.to];
    if (x.type == CpEdgeType::kKernelKernel || s.start)
      x.op = static_cast<int32_t>(s.op);
    else if (!d.start)
      x.op = static_cast<int32_t>(d.op);
    else
      x.op = parent_row >= 0 ? static_cast<int32_t>(rows[static_cast<size_t>(parent_row)].op) : -1;
  };
  auto is_lock = [&](uint32_t n) { return Names::In(nm.lock, rows[node_row[n]].name); };
  // --- the CUDA runtime lock ----------------------------------------------------------------
  {
    std::vector<uint32_t> open;
    int64_t last = -1;
    for (uint32_t n = 0; n < cp.nodes.size(); ++n) {
      if (!is_lock(n)) continue;
      if (cp.nodes[n].start) {
        open.push_back(n);
      } else {
        while (!open.empty()) {
          const uint32_t q = open.back();
          open.pop_back();
          if (node_row[q] == node_row[n])
            attribute(add(q, n, CpEdgeType::kOperator), static_cast<int32_t>(node_row[n]));
          else
            add(q, n, CpEdgeType::kDependency);
        }
        if (last >= 0 && !cp.nodes[static_cast<size_t>(last)].start)
          add(static_cast<uint32_t>(last), n, CpEdgeType::kDependency);
      }
      last = n;
    }
  }
  // --- call stacks per thread ---------------------------------------------------------------
  {
    std::map<std::pair<int64_t, int64_t>, std::vector<uint32_t>> threads;
    for (size_t r = 0; r < rows.size(); ++r)
      if (keep[r]) threads[{rows[r].pid, rows[r].tid}].push_back(static_cast<uint32_t>(r));
    struct Ev {
      uint32_t row;
      Ps ts, dur;
      bool start;
    };
    // HTA's compare_events.
    auto cmp = [](const Ev& x, const Ev& y) -> int {
      if (x.row == y.row) return x.start ? -1 : 1;
      if (x.ts != y.ts) return x.ts < y.ts ? -1 : 1;
      if (x.start == y.start) {
        if (x.start) {
          if (x.dur == y.dur) return x.row < y.row ? -1 : (x.row > y.row ? 1 : 0);
          return x.dur < y.dur ? 1 : -1;
        }
        if (x.dur == y.dur) return x.row < y.row ? 1 : (x.row > y.row ? -1 : 0);
        return x.dur < y.dur ? -1 : 1;
      }
      if (x.dur > 0 && y.dur > 0) return x.start ? 1 : -1;
      if (x.dur == 0 && y.dur == 0) return x.row < y.row ? -1 : (x.row > y.row ? 1 : 0);
      return x.start ? -1 : 1;
    };
    const std::vector<StringId>& blocking = nm.blocking;
    for (auto& [key, members] : threads) {
      bool gpu = false, all_host = true;
      for (uint32_t r : members) {
        if (rows[r].stream > 0) gpu = true;
        if (rows[r].stream >= 0) all_host = false;
      }
      if (gpu || !all_host) continue;
      std::vector<Ev> evs;
      evs.reserve(members.size() * 2);
      for (uint32_t r : members) {
        const Ps d = std::max<Ps>(rows[r].dur, 0);
        evs.push_back({r, rows[r].ts, d, true});
        evs.push_back({r, rows[r].ts + d, d, false});
      }
      std::stable_sort(evs.begin(), evs.end(), [&](const Ev& a, const Ev& b) { return cmp(a, b) < 0; });
      std::unordered_map<uint32_t, int32_t> parent;
      std::unordered_map<int64_t, std::vector<uint32_t>> children;
      std::vector<uint32_t> stack;
      for (const Ev& e : evs) {
        if (e.start) {
          const int32_t par = stack.empty() ? -1 : static_cast<int32_t>(stack.back());
          if (parent.try_emplace(e.row, par).second) children[par].push_back(e.row);
          stack.push_back(e.row);
        } else if (!stack.empty()) {
          stack.pop_back();
        }
      }
      int64_t last = -1;
      int depth = 0;
      int32_t last_parent = -1;
      auto shares_lock = [&](uint32_t a, uint32_t b) {
        return is_lock(a) && is_lock(b) && (cp.nodes[a].start || !cp.nodes[b].start);
      };
      // Iterative DFS from the root (-1): enter, children, exit.
      struct Frame {
        int64_t row;
        size_t next;
      };
      std::vector<Frame> dfs{{-1, 0}};
      while (!dfs.empty()) {
        Frame& f = dfs.back();
        const auto ch = children.find(f.row);
        if (ch != children.end() && f.next < ch->second.size()) {
          const uint32_t c = ch->second[f.next++];
          if (snode[c] >= 0) {  // enter
            const auto s = static_cast<uint32_t>(snode[c]);
            if (last >= 0 && !shares_lock(static_cast<uint32_t>(last), s))
              attribute(
                  add(static_cast<uint32_t>(last), s, depth == 0 ? CpEdgeType::kDependency : CpEdgeType::kOperator),
                  last_parent);
            last = s;
            last_parent = parent.at(c);
            ++depth;
          }
          dfs.push_back({c, 0});
          continue;
        }
        const int64_t row = f.row;
        dfs.pop_back();
        if (row >= 0 && snode[static_cast<size_t>(row)] >= 0) {  // exit
          const auto en = static_cast<uint32_t>(enode[static_cast<size_t>(row)]);
          if (last >= 0 && !shares_lock(static_cast<uint32_t>(last), en))
            attribute(add(static_cast<uint32_t>(last), en, CpEdgeType::kOperator,
                          Names::In(blocking, rows[static_cast<size_t>(row)].name)),
                      last_parent);
          last = en;
          last_parent = parent.at(static_cast<uint32_t>(row));
          --depth;
        }
      }
    }
  }
  // --- GPU work and synchronisation ---------------------------------------------------------
  {
    const auto& ql = prep.ql;
    const auto& record_launch = prep.record_launch;
    auto next_launch = [&](const Row& call) -> int64_t {
      if (call.ic < 0) return -1;
      auto it = prep.by_thread.find({call.pid, call.tid, rows[static_cast<size_t>(call.ic)].stream});
      if (it == prep.by_thread.end()) return -1;
      auto lb = std::lower_bound(it->second.begin(), it->second.end(), call.ts,
                                 [&](uint32_t l, Ps ts) { return rows[l].ts < ts; });
      return lb == it->second.end() ? -1 : *lb;
    };
    std::vector<uint32_t> gk;
    for (size_t r = 0; r < rows.size(); ++r) {
      const Row& w = rows[r];
      if (keep[r] && (w.stream != -1 || w.name == nm.event_sync || w.name == nm.context_sync) && w.ic != kNoCorrelation)
        gk.push_back(static_cast<uint32_t>(r));
    }
    auto is_sync = [&](const Row& w) { return w.kind == OpKind::kCudaSync || w.kind == OpKind::kDeviceSync; };
    auto sort_ts = [&](uint32_t r) { return is_sync(rows[r]) ? rows[r].end() : rows[r].ts; };
    std::stable_sort(gk.begin(), gk.end(), [&](uint32_t a, uint32_t b) { return sort_ts(a) < sort_ts(b); });
    std::vector<std::pair<int64_t, uint32_t>> last_on;  // (stream, end node), streams in first-seen order
    auto last_of = [&](int64_t s) -> int64_t {
      for (auto& [st, n] : last_on)
        if (st == s) return n;
      return -1;
    };
    auto set_last = [&](int64_t s, uint32_t n) {
      for (auto& [st, m] : last_on)
        if (st == s) {
          m = n;
          return;
        }
      last_on.emplace_back(s, n);
    };
    std::unordered_map<uint32_t, int64_t> ksync;  // kernel row -> the kernel row it waits for
    for (uint32_t r : gk) {
      const Row& w = rows[r];
      if (is_sync(w)) {
        const bool ic_ok = w.ic >= 0;
        if (w.name == nm.stream_wait || w.name == nm.event_sync) {
          auto rec = record_launch.find(w.wait_record);
          if (rec == record_launch.end() || rec->second < 0) continue;
          const int32_t src = rows[static_cast<size_t>(rec->second)].ic;
          if (w.name == nm.stream_wait) {
            if (!ic_ok) continue;
            const int64_t dl = next_launch(rows[static_cast<size_t>(w.ic)]);
            if (dl < 0) continue;
            ksync[static_cast<uint32_t>(rows[static_cast<size_t>(dl)].ic)] = src;
          } else if (src >= 0 && enode[static_cast<size_t>(src)] >= 0 && ic_ok &&
                     enode[static_cast<size_t>(w.ic)] >= 0) {
            add(static_cast<uint32_t>(enode[static_cast<size_t>(src)]),
                static_cast<uint32_t>(enode[static_cast<size_t>(w.ic)]), CpEdgeType::kSync);
          }
          continue;
        }
        if (!ic_ok || enode[static_cast<size_t>(w.ic)] < 0) continue;
        const auto target = static_cast<uint32_t>(enode[static_cast<size_t>(w.ic)]);
        if (w.name == nm.context_sync) {
          for (auto& [st, n] : last_on) add(n, target, CpEdgeType::kSync);
        } else if (const int64_t n = last_of(w.stream); n >= 0) {
          add(static_cast<uint32_t>(n), target, CpEdgeType::kSync);
        }
        continue;
      }
      if (snode[r] < 0) continue;
      const auto sn = static_cast<uint32_t>(snode[r]), en = static_cast<uint32_t>(enode[r]);
      attribute(add(sn, en, CpEdgeType::kOperator), -1);
      int64_t kse = -1;  // the end node of the kernel this one waits for
      if (auto ks = ksync.find(r); ks != ksync.end()) {
        if (ks->second >= 0 && enode[static_cast<size_t>(ks->second)] >= 0) {
          kse = enode[static_cast<size_t>(ks->second)];
          add(static_cast<uint32_t>(kse), sn, CpEdgeType::kSync);
        }
        ksync.erase(ks);
      }
      const int64_t last = last_of(w.stream);
      bool launch_edge = false;
      if (w.ic >= 0) {
        const Row& rt = rows[static_cast<size_t>(w.ic)];
        auto qk = ql.find(r);
        auto qr = ql.find(static_cast<uint32_t>(w.ic));
        const bool queue_empty = qk != ql.end() && qr != ql.end() && qr->second == 1 && qk->second == 0;
        if (queue_empty && (last < 0 || cp.nodes[static_cast<size_t>(last)].ts < rt.ts) &&
            (kse < 0 || cp.nodes[static_cast<size_t>(kse)].ts < rt.ts)) {
          if (snode[static_cast<size_t>(w.ic)] >= 0) {
            add(static_cast<uint32_t>(snode[static_cast<size_t>(w.ic)]), sn, CpEdgeType::kLaunchDelay);
            launch_edge = true;
          }
        } else if (last >= 0 && cp.nodes[sn].ts - cp.nodes[static_cast<size_t>(last)].ts < opt.max_kernel_gap &&
                   (kse < 0 || cp.nodes[static_cast<size_t>(kse)].ts < cp.nodes[static_cast<size_t>(last)].ts)) {
          attribute(add(static_cast<uint32_t>(last), sn, CpEdgeType::kKernelKernel), -1);
        }
        if (opt.zero_weight_launch_edges && !launch_edge && snode[static_cast<size_t>(w.ic)] >= 0)
          add(static_cast<uint32_t>(snode[static_cast<size_t>(w.ic)]), sn, CpEdgeType::kLaunchDelay, true);
      } else if (last >= 0 && cp.nodes[sn].ts - cp.nodes[static_cast<size_t>(last)].ts < opt.max_kernel_gap &&
                 (kse < 0 || cp.nodes[static_cast<size_t>(kse)].ts < cp.nodes[static_cast<size_t>(last)].ts)) {
        attribute(add(static_cast<uint32_t>(last), sn, CpEdgeType::kKernelKernel), -1);
      }
      set_last(w.stream, en);
    }
  }
  // --- the longest path ---------------------------------------------------------------------
  bool cycle = false;
  const std::vector<uint32_t> order = TopologicalOrder(cp.edges, g.order, g.succ, g.pred, &cycle);
  if (cycle) {
    res.error = "the dependency graph has a cycle";
    return res;
  }
  if (order.empty()) {
    res.error = "no dependencies between the window's events";
    return res;
  }
  const Longest l = LongestPath(cp.edges, order, g.pred, cp.nodes.size(), nullptr);
  cp.length = l.length;
  for (int64_t v = l.last;;) {
    cp.path.push_back(static_cast<uint32_t>(v));
    const int64_t e = l.via[static_cast<size_t>(v)];
    if (e < 0) break;
    cp.path_edges.push_back(static_cast<uint32_t>(e));
    v = cp.edges[static_cast<size_t>(e)].from;
  }
  std::reverse(cp.path.begin(), cp.path.end());
  std::reverse(cp.path_edges.begin(), cp.path_edges.end());
  for (uint32_t n : cp.path) cp.critical_ops.push_back(cp.nodes[n].op);
  std::sort(cp.critical_ops.begin(), cp.critical_ops.end());
  cp.critical_ops.erase(std::unique(cp.critical_ops.begin(), cp.critical_ops.end()), cp.critical_ops.end());
  for (uint32_t e : cp.path_edges) {
    const auto b = static_cast<size_t>(BoundOf(p, cp.edges[e]));
    cp.by_bound[b] += std::max<Ps>(0, cp.edges[e].weight);
    cp.edges_by_bound[b]++;
  }
  // Slack: the longest path to each node and from it.
  cp.to = l.dist;
  cp.from.assign(cp.nodes.size(), 0);
  for (auto it = order.rbegin(); it != order.rend(); ++it)
    for (uint32_t e : g.pred[*it]) {
      const CpEdge& x = cp.edges[e];
      cp.from[x.from] = std::max(cp.from[x.from], cp.from[x.to] + std::max<Ps>(0, x.weight));
    }
  return res;
}

}  // namespace

CpResult ComputeCriticalPath(const RankProfile& p, int64_t rank, const CpOptions& o) {
  const CpPrepared prep(p);
  return Window(p, prep, rank, o);
}

std::vector<CpResult> ComputeCriticalPaths(const RankProfile& p, int64_t rank, const std::vector<CpOptions>& windows) {
  const CpPrepared prep(p);
  std::vector<CpResult> out;
  for (const CpOptions& o : windows) out.push_back(Window(p, prep, rank, o));
  return out;
}

CpWhatIf RecomputeCriticalPath(const RankProfile& p, const CriticalPath& cp, const std::vector<double>& scale) {
  CpWhatIf w;
  std::vector<std::vector<uint32_t>> succ(cp.nodes.size()), pred(cp.nodes.size());
  std::vector<uint32_t> nodes;
  std::vector<char> seen(cp.nodes.size(), 0);
  for (uint32_t e = 0; e < cp.edges.size(); ++e) {
    const CpEdge& x = cp.edges[e];
    for (uint32_t n : {x.from, x.to})
      if (!seen[n]) seen[n] = 1, nodes.push_back(n);
    succ[x.from].push_back(e);
    pred[x.to].push_back(e);
  }
  bool cycle = false;
  const std::vector<uint32_t> order = TopologicalOrder(cp.edges, nodes, succ, pred, &cycle);
  if (cycle || order.empty()) return w;
  const Longest l = LongestPath(cp.edges, order, pred, cp.nodes.size(), &scale);
  w.length = l.length;
  for (int64_t v = l.last; l.via[static_cast<size_t>(v)] >= 0;) {
    const auto e = static_cast<uint32_t>(l.via[static_cast<size_t>(v)]);
    const Ps weight = static_cast<Ps>(static_cast<double>(std::max<Ps>(0, cp.edges[e].weight)) * scale[e] + 0.5);
    w.by_bound[static_cast<size_t>(BoundOf(p, cp.edges[e]))] += weight;
    v = cp.edges[e].from;
  }
  return w;
}

}  // namespace mlprof
