#include "io/graph_capture.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <unordered_map>

#include "base/file_loader.h"
#include "base/serving_step.h"
#include "io/load.h"

namespace mlprof {

namespace fs = std::filesystem;

namespace {

bool Contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

enum class NodeKind : uint8_t { kKernel, kMemcpy, kMemset };

StatusOr<std::vector<CaptureEntry>> ReadExecutionDetails(const fs::path& json_path, const fs::path& dir) {
  const std::string where = json_path.string();
  simdjson::padded_string text;
  if (simdjson::padded_string::load(where).get(text) != simdjson::SUCCESS)
    return NotFound(fmt::format("{}: cannot be read", where));
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (auto err = parser.parse(text).get(root))
    return DataLoss(fmt::format("{}: not JSON ({}); expected TraceLens's list of {{file, batch_size, mode}}", where,
                                simdjson::error_message(err)));
  simdjson::dom::array list;
  if (root.get_array().get(list) != simdjson::SUCCESS)
    return DataLoss(fmt::format("{}: expected a JSON list of {{file, batch_size, mode}}", where));
  std::vector<CaptureEntry> out;
  size_t index = 0;
  for (simdjson::dom::element item : list) {
    std::string_view file, mode;
    int64_t bs = 0;
    if (item["file"].get_string().get(file) != simdjson::SUCCESS || file.empty())
      return DataLoss(fmt::format("{}: entry {}: expected a \"file\" string", where, index));
    if (item["batch_size"].get_int64().get(bs) != simdjson::SUCCESS || bs < 0)
      return DataLoss(fmt::format("{}: entry {}: expected a non-negative integer \"batch_size\"", where, index));
    if (item["mode"].get_string().get(mode) != simdjson::SUCCESS || (mode != "FULL" && mode != "PIECEWISE"))
      return DataLoss(fmt::format("{}: entry {}: expected \"mode\" FULL or PIECEWISE", where, index));
    const fs::path p = dir / std::string(file);
    std::error_code ec;
    if (!fs::is_regular_file(p, ec))
      return NotFound(fmt::format("{}: entry {}: the capture trace {} is not there", where, index, p.string()));
    out.push_back({p.string(), bs, std::string(mode)});
    ++index;
  }
  if (out.empty()) return DataLoss(fmt::format("{}: lists no capture traces", where));
  return out;
}

// A captured graph: the launch calls between BeginCapture and EndCapture.
struct Window {
  Ps start = 0, end = 0;
  struct Call {
    uint32_t op;
    NodeKind kind;
    StringId kernel;  // the `kernel` arg (0: none)
  };
  std::vector<Call> calls;
};

std::vector<Window> CaptureWindows(const RankProfile& c) {
  const OpTable& o = c.ops;
  const StringId kernel_key = c.strings.Find("kernel");
  std::vector<Window> out;
  // Per track, in time order (ops are grouped by track, sorted).
  size_t i = 0;
  while (i < o.size()) {
    const uint32_t track = o.track[i];
    size_t j = i;
    while (j < o.size() && o.track[j] == track) ++j;
    Window* open = nullptr;
    for (size_t k = i; k < j; ++k) {
      if (!IsLaunchOp(o.kind[k])) continue;
      const std::string_view name = c.str(o.name[k]);
      if (Contains(name, "StreamBeginCapture")) {
        out.push_back({o.end(k), o.end(k), {}});
        open = &out.back();
        continue;
      }
      if (open == nullptr) continue;
      if (Contains(name, "StreamEndCapture")) {
        open->end = o.ts[k];
        open = nullptr;
        continue;
      }
      if (!Contains(name, "Launch") && !Contains(name, "Memcpy") && !Contains(name, "Memset")) continue;
      if (o.parent[k] >= 0 && IsLaunchOp(o.kind[static_cast<size_t>(o.parent[k])])) continue;  // nested call
      Window::Call call{static_cast<uint32_t>(k), NodeKind::kKernel, 0};
      if (Contains(name, "Memcpy")) call.kind = NodeKind::kMemcpy;
      if (Contains(name, "Memset")) call.kind = NodeKind::kMemset;
      if (kernel_key != 0)
        if (const ArgValue* a = c.args.Find(ArgOwner::kOp, static_cast<uint32_t>(k), kernel_key);
            a && a->type == ArgType::kString)
          call.kernel = a->s;
      open->calls.push_back(call);
    }
    if (open != nullptr) out.pop_back();  // no EndCapture: not a whole graph
    i = j;
  }
  std::stable_sort(out.begin(), out.end(), [](const Window& a, const Window& b) { return a.start < b.start; });
  return out;
}

struct NewOp {
  const RankProfile* src;
  uint32_t src_op;
  int32_t parent;  // index into the new ops
  bool call;
  Ps ts = 0, end = 0;
  bool spanned = false;
  uint32_t track;
  int32_t step;
  int32_t kernel = -1;  // a call: the replayed GPU op it stands for
};

// Pairs the replayed GPU ops with the window's calls: in order when every
// pair agrees, else the k-th of each name with the k-th; empty when neither.
std::vector<std::pair<uint32_t, size_t>> PairKernels(const RankProfile& p, const std::vector<uint32_t>& replayed,
                                                     const RankProfile& c, const Window& w) {
  auto kind_of = [&](uint32_t g) {
    const OpKind k = p.ops.kind[g];
    return k == OpKind::kMemcpy ? NodeKind::kMemcpy : k == OpKind::kMemset ? NodeKind::kMemset : NodeKind::kKernel;
  };
  auto key_of_replayed = [&](uint32_t g) -> std::string_view {
    const NodeKind k = kind_of(g);
    return k == NodeKind::kKernel ? p.str(p.ops.name[g]) : k == NodeKind::kMemcpy ? "\x01memcpy" : "\x01memset";
  };
  auto key_of_call = [&](const Window::Call& call) -> std::string_view {
    if (call.kind == NodeKind::kMemcpy) return "\x01memcpy";
    if (call.kind == NodeKind::kMemset) return "\x01memset";
    return call.kernel ? c.str(call.kernel) : std::string_view{};
  };
  std::vector<std::pair<uint32_t, size_t>> out;
  if (replayed.size() == w.calls.size()) {
    // A call that names no kernel (CUPTI writes no `kernel` arg on CUDA
    // launch calls; roctracer does) pairs with any kernel in its place.
    auto agrees = [&](uint32_t g, const Window::Call& call) {
      if (call.kind == NodeKind::kKernel && call.kernel == 0) return kind_of(g) == NodeKind::kKernel;
      return key_of_replayed(g) == key_of_call(call);
    };
    bool all = true;
    for (size_t i = 0; i < replayed.size() && all; ++i) all = agrees(replayed[i], w.calls[i]);
    if (all) {
      for (size_t i = 0; i < replayed.size(); ++i) out.push_back({replayed[i], i});
      return out;
    }
  }
  std::map<std::string_view, std::vector<uint32_t>> by_name;
  std::map<std::string_view, std::vector<size_t>> calls_by_name;
  for (uint32_t g : replayed) by_name[key_of_replayed(g)].push_back(g);
  for (size_t i = 0; i < w.calls.size(); ++i) calls_by_name[key_of_call(w.calls[i])].push_back(i);
  if (by_name.size() != calls_by_name.size()) return {};
  for (const auto& [name, gs] : by_name) {
    auto it = calls_by_name.find(name);
    if (it == calls_by_name.end() || it->second.size() != gs.size() || name.empty()) return {};
    for (size_t k = 0; k < gs.size(); ++k) out.push_back({gs[k], it->second[k]});
  }
  return out;
}

}  // namespace

StatusOr<std::vector<CaptureEntry>> FindCaptures(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return NotFound(fmt::format("--capture {}: no such file or directory", path));
  if (!fs::is_directory(path, ec)) return std::vector<CaptureEntry>{{path, -1, ""}};
  const fs::path details = fs::path(path) / "execution_details.json";
  if (fs::is_regular_file(details, ec)) return ReadExecutionDetails(details, path);
  ASSIGN_OR_RETURN(std::vector<std::string> files, ExpandTracePaths({path}));
  if (files.size() != 1)
    return InvalidArgument(fmt::format(
        "--capture {}: {} capture traces and no execution_details.json to say which batch size and mode each "
        "holds (TraceLens's layout: [{{\"file\": ..., \"batch_size\": N, \"mode\": \"FULL\"|\"PIECEWISE\"}}]); "
        "give one file",
        path, files.size()));
  return std::vector<CaptureEntry>{{files[0], -1, ""}};
}

Status ApplyGraphCaptures(RankProfile& p, const std::vector<CaptureEntry>& entries,
                          const std::vector<const RankProfile*>& captures, CaptureMergeStats* stats,
                          std::vector<std::string>* notes) {
  CaptureMergeStats st;
  OpTable& o = p.ops;
  const size_t n = o.size();
  // Graph launches and the GPU ops each replayed.
  std::vector<uint32_t> launches;
  std::unordered_map<uint32_t, std::vector<uint32_t>> replayed;
  for (size_t i = 0; i < n; ++i)
    if (IsLaunchOp(o.kind[i]) && Contains(p.str(o.name[i]), "GraphLaunch"))
      launches.push_back(static_cast<uint32_t>(i));
  st.graph_launches = static_cast<int64_t>(launches.size());
  if (launches.empty()) {
    notes->push_back(fmt::format("--capture: {} has no graph launches (cudaGraphLaunch, hipGraphLaunch)", p.path));
    if (stats) *stats = st;
    return OkStatus();
  }
  std::sort(launches.begin(), launches.end(),
            [&](uint32_t a, uint32_t b) { return o.ts[a] != o.ts[b] ? o.ts[a] < o.ts[b] : a < b; });
  {
    std::vector<bool> is_launch(n, false);
    for (uint32_t l : launches) is_launch[l] = true;
    for (size_t i = 0; i < n; ++i) {
      const OpKind k = o.kind[i];
      if ((k == OpKind::kKernel || k == OpKind::kMemcpy || k == OpKind::kMemset) && o.launch[i] >= 0 &&
          is_launch[static_cast<size_t>(o.launch[i])])
        replayed[static_cast<uint32_t>(o.launch[i])].push_back(static_cast<uint32_t>(i));
    }
    for (auto& [l, gs] : replayed)
      std::sort(gs.begin(), gs.end(),
                [&](uint32_t a, uint32_t b) { return o.ts[a] != o.ts[b] ? o.ts[a] < o.ts[b] : a < b; });
  }
  // Iterations: the steps, else the whole trace.
  struct Root {
    int32_t step;  // -1: the whole trace
    std::vector<uint32_t> launches;
  };
  std::vector<Root> roots;
  if (p.steps.empty()) {
    roots.push_back({-1, launches});
  } else {
    for (size_t s = 0; s < p.steps.size(); ++s) roots.push_back({static_cast<int32_t>(s), {}});
    int64_t outside = 0;
    for (uint32_t l : launches) {
      const Ps ts = o.ts[l];
      auto it = std::upper_bound(p.steps.begin(), p.steps.end(), ts, [](Ps v, const Step& s) { return v < s.ts; });
      if (it != p.steps.begin() && ts < std::prev(it)->ts + std::prev(it)->dur)
        roots[static_cast<size_t>(std::prev(it) - p.steps.begin())].launches.push_back(l);
      else
        ++outside;
    }
    if (outside > 0) {
      st.unmatched += outside;
      notes->push_back(fmt::format("--capture: {} of {} graph launches lie outside every step: left as they are",
                                   outside, launches.size()));
    }
  }
  std::vector<std::optional<std::vector<Window>>> windows(captures.size());
  std::vector<NewOp> added;
  std::map<std::string, int64_t> why_unmatched;
  std::map<size_t, int64_t> capture_uses;
  for (const Root& root : roots) {
    if (root.launches.empty()) continue;
    // Which capture: by batch size and mode when there are several.
    const bool full = root.launches.size() == 1;
    int64_t bs = -1;
    if (root.step >= 0 && p.steps[static_cast<size_t>(root.step)].op >= 0)
      if (auto info =
              ParseServingStep(p.str(o.name[static_cast<size_t>(p.steps[static_cast<size_t>(root.step)].op)]))) {
        if (info->engine == ServingEngine::kVllm && info->prefill_tokens >= 0 && info->decode_tokens >= 0)
          bs = info->prefill_tokens + info->decode_tokens;
        else
          bs = info->requests;
      }
    int64_t pick = -1;
    if (entries.size() == 1 && entries[0].batch_size < 0) {
      pick = 0;
    } else {
      for (size_t e = 0; e < entries.size(); ++e) {
        const CaptureEntry& ce = entries[e];
        if (!ce.mode.empty() && ce.mode != (full ? "FULL" : "PIECEWISE")) continue;
        if (bs >= 0 && ce.batch_size >= 0 && ce.batch_size < bs) continue;
        if (bs < 0 && pick >= 0) {  // no batch size to choose by
          pick = -2;
          break;
        }
        if (pick < 0 || entries[e].batch_size < entries[static_cast<size_t>(pick)].batch_size)
          pick = static_cast<int64_t>(e);
      }
    }
    if (pick < 0) {
      st.unmatched += static_cast<int64_t>(root.launches.size());
      why_unmatched[pick == -2 ? fmt::format("several {} captures and the step names no batch size",
                                             full ? "FULL" : "PIECEWISE")
                               : fmt::format("no {} capture of batch size >= {}", full ? "FULL" : "PIECEWISE", bs)] +=
          static_cast<int64_t>(root.launches.size());
      continue;
    }
    const size_t ci = static_cast<size_t>(pick);
    const RankProfile& c = *captures[ci];
    if (!windows[ci]) windows[ci] = CaptureWindows(c);
    const std::vector<Window>& ws = *windows[ci];
    capture_uses[ci]++;
    if (ws.empty()) {
      st.unmatched += static_cast<int64_t>(root.launches.size());
      why_unmatched[fmt::format("{} holds no captured graph (StreamBeginCapture .. StreamEndCapture)", c.path)] +=
          static_cast<int64_t>(root.launches.size());
      continue;
    }
    if (root.launches.size() % ws.size() != 0)
      notes->push_back(fmt::format(
          "--capture: {} holds {} captured graphs, and {} has {} graph launches in {}: the "
          "i-th launch is taken for graph i mod {}",
          c.path, ws.size(), p.path, root.launches.size(),
          root.step >= 0 ? fmt::format("step {}", p.steps[static_cast<size_t>(root.step)].number) : std::string("all"),
          ws.size()));
    for (size_t li = 0; li < root.launches.size(); ++li) {
      const uint32_t l = root.launches[li];
      // Replays in the order the graphs were captured, again and again
      // when the iteration replays them more than once (a trace without
      // steps).
      const Window& w = ws[li % ws.size()];
      auto it = replayed.find(l);
      const std::vector<uint32_t> none;
      const std::vector<uint32_t>& gs = it == replayed.end() ? none : it->second;
      std::vector<std::pair<uint32_t, size_t>> pairs = PairKernels(p, gs, c, w);
      if (pairs.empty()) {
        ++st.unmatched;
        if (!gs.empty() || !w.calls.empty())
          why_unmatched[fmt::format(
              "kernels that do not pair with their captured graph's launch calls ({} replayed, "
              "{} captured)",
              gs.size(), w.calls.size())]++;
        continue;
      }
      ++st.matched;
      // Copies of the window's ops, once per graph launch.
      std::unordered_map<uint32_t, int32_t> copy_of;
      const uint32_t track = o.track[l];
      const int32_t step = o.step[l];
      for (const auto& [g, call_index] : pairs) {
        const Window::Call& call = w.calls[call_index];
        // Enclosing cpu_ops and python functions inside the window, outermost first.
        std::vector<uint32_t> chain;
        for (int32_t q = c.ops.parent[call.op]; q >= 0; q = c.ops.parent[static_cast<size_t>(q)]) {
          const auto qi = static_cast<size_t>(q);
          if (c.ops.ts[qi] < w.start) break;
          const OpKind k = c.ops.kind[qi];
          if (k == OpKind::kCpuOp || k == OpKind::kPythonFunction || k == OpKind::kUserAnnotation)
            chain.push_back(static_cast<uint32_t>(qi));
        }
        int32_t parent = -1;
        for (auto ci_it = chain.rbegin(); ci_it != chain.rend(); ++ci_it) {
          auto [pos, fresh] = copy_of.emplace(*ci_it, static_cast<int32_t>(added.size()));
          if (fresh) added.push_back({&c, *ci_it, parent, false, 0, 0, false, track, step, -1});
          parent = pos->second;
        }
        added.push_back({&c, call.op, parent, true, o.ts[g], o.end(g), true, track, step, static_cast<int32_t>(g)});
        ++st.kernels;
      }
    }
  }
  for (const auto& [why, count] : why_unmatched)
    notes->push_back(fmt::format("--capture: {} graph launches left as they are: {}", count, why));
  if (added.empty()) {
    if (stats) *stats = st;
    notes->push_back(fmt::format("--capture: none of the {} graph launches of {} matched a captured graph",
                                 launches.size(), p.path));
    return OkStatus();
  }
  // Spans: each copy covers the kernels under it (children follow parents).
  for (size_t k = added.size(); k-- > 0;) {
    const NewOp& a = added[k];
    if (a.parent < 0 || !a.spanned) continue;
    NewOp& up = added[static_cast<size_t>(a.parent)];
    if (!up.spanned) {
      up.ts = a.ts, up.end = a.end, up.spanned = true;
    } else {
      up.ts = std::min(up.ts, a.ts), up.end = std::max(up.end, a.end);
    }
  }
  // One track per launching process, after the existing ones.
  std::map<int64_t, uint32_t> track_of_pid;
  const StringId track_name = p.strings.Intern("graph replay: ops recorded at capture");
  for (NewOp& a : added) {
    const int64_t pid = p.tracks[a.track].pid;
    auto [it, fresh] = track_of_pid.emplace(pid, static_cast<uint32_t>(p.tracks.size()));
    if (fresh) {
      Track t;
      t.kind = TrackKind::kOther;
      t.pid = pid;
      t.tid = kStringIdBase + track_name;
      t.name = track_name;
      t.process_name = p.tracks[a.track].process_name;
      p.tracks.push_back(t);
    }
    a.track = it->second;
  }
  std::vector<uint32_t> order(added.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = static_cast<uint32_t>(k);
  std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
    const NewOp &a = added[x], &b = added[y];
    if (a.track != b.track) return a.track < b.track;
    if (a.ts != b.ts) return a.ts < b.ts;
    if (a.end - a.ts != b.end - b.ts) return a.end - a.ts > b.end - b.ts;
    return x < y;
  });
  std::vector<int32_t> index_of(added.size());
  for (size_t k = 0; k < order.size(); ++k) index_of[order[k]] = static_cast<int32_t>(n + k);
  // Columns that are either full or empty: filled with their default once a
  // copy has a value.
  auto push = [&](auto& col, auto value, auto dflt) {
    if (col.empty() && value == dflt) return;
    if (col.size() < o.size() - 1) col.resize(o.size() - 1, dflt);
    col.push_back(value);
  };
  auto S = [&](const RankProfile& src, StringId id) { return id ? p.strings.Intern(src.str(id)) : StringId{0}; };
  p.captured_launch.assign(n, -1);
  for (uint32_t k : order) {
    const NewOp& a = added[k];
    const RankProfile& c = *a.src;
    const OpTable& co = c.ops;
    const size_t s = a.src_op;
    o.ts.push_back(a.ts);
    o.dur.push_back(a.end - a.ts);
    o.name.push_back(S(c, co.name[s]));
    o.cat.push_back(S(c, co.cat[s]));
    const OpKind src_kind = co.kind[s];
    o.kind.push_back(src_kind == OpKind::kCpuOp            ? OpKind::kCapturedOp
                     : src_kind == OpKind::kPythonFunction ? OpKind::kPythonFunction
                                                           : OpKind::kOther);
    o.track.push_back(a.track);
    o.correlation.push_back(-1);
    const int32_t parent = a.parent >= 0 ? index_of[static_cast<size_t>(a.parent)] : -1;
    o.parent.push_back(parent);
    o.depth.push_back(parent >= 0
                          ? static_cast<uint16_t>(std::min<int>(o.depth[static_cast<size_t>(parent)] + 1, UINT16_MAX))
                          : uint16_t{0});
    o.launch.push_back(-1);
    o.step.push_back(a.step);
    o.xla.push_back(-1);
    o.offset.push_back(co.offset[s]);
    push(o.external_id, int64_t{-1}, int64_t{-1});
    push(o.input_dims, S(c, co.input_dims_of(s)), StringId{0});
    push(o.input_types, S(c, co.input_types_of(s)), StringId{0});
    push(o.concrete_inputs, S(c, co.concrete_inputs_of(s)), StringId{0});
    push(o.comm, S(c, co.comm_of(s)), StringId{0});
    push(o.grid, S(c, co.grid_of(s)), StringId{0});
    push(o.block, co.block.empty() ? StringId{0} : S(c, co.block[s]), StringId{0});
    push(o.bytes, int64_t{-1}, int64_t{-1});
    push(o.stack, S(c, co.stack_of(s)), StringId{0});
    push(o.blocks_per_sm, -1.0f, -1.0f);
    push(o.occupancy, -1.0f, -1.0f);
    p.captured_launch.push_back(-1);
    if (a.call) p.captured_launch[static_cast<size_t>(a.kernel)] = static_cast<int32_t>(o.size() - 1);
  }
  st.ops_added = static_cast<int64_t>(added.size());
  for (const auto& [ci, uses] : capture_uses)
    notes->push_back(
        fmt::format("--capture: {} gave the ops of {} step{}", captures[ci]->path, uses, uses == 1 ? "" : "s"));
  notes->push_back(fmt::format(
      "--capture: {} of {} graph launches of {} matched their captured graphs: {} GPU ops attributed to the ops "
      "recorded at capture ({} copies on the track \"graph replay: ops recorded at capture\")",
      st.matched, st.graph_launches, p.path, st.kernels, st.ops_added));
  if (stats) *stats = st;
  return OkStatus();
}

}  // namespace mlprof
