#include "analysis/modules.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

#include "analysis/attribution.h"

namespace mlprof {
namespace {

std::string AnnotationName(std::string_view name) {
  if (name.starts_with("ProfilerStep#")) return "ProfilerStep*";
  return std::string(name);
}

double Pct(Ps part, Ps total) {
  return total > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(total) : 0.0;
}

// The key with the most time (ties: the first by name), and its share.
std::pair<std::string, double> Top(const std::map<std::string, Ps>& m, Ps total) {
  std::pair<std::string, Ps> best{"", -1};
  for (const auto& [k, t] : m)
    if (t > best.second) best = {k, t};
  return {best.first, Pct(best.second, total)};
}

template <class K>
std::string ArgMaxKey(const std::map<std::pair<K, K>, Ps>& pairs, const K& child, Ps* time) {
  std::string best;
  *time = -1;
  for (auto it = pairs.lower_bound({child, K{}}); it != pairs.end() && it->first.first == child; ++it)
    if (it->second > *time) *time = it->second, best = it->first.second;
  return best;
}

}  // namespace

namespace {

// The annotations of one rank: host ranges with the GPU time launched inside
// them, GPU ranges with the kernel time inside them on their stream, and the
// host ranges per step. `ann_pairs`: the GPU time under each pair of nested
// host annotations (from the module walk).
void AddAnnotations(const RankView& rv, Ps total, const std::map<std::pair<std::string, std::string>, Ps>& ann_pairs,
                    ModuleReport& rep) {
  const RankProfile& p = *rv.profile;
  const OpTable& o = p.ops;
  std::map<std::string, std::pair<int64_t, Ps>> ann_gpu;  // name -> ops, time
  // Annotations: host ranges with the GPU time launched inside, GPU ranges
  // with the kernel time inside on their stream.
  std::map<std::string, std::pair<int64_t, Ps>> host_ranges, gpu_ranges;
  std::map<std::string, std::pair<int64_t, Ps>> gpu_inside;
  std::unordered_map<uint32_t, std::vector<std::pair<Ps, Ps>>> by_track;  // kernels per GPU track, by start
  for (const GpuOpRef& g : rv.gpu)
    if (o.kind[g.op] == OpKind::kKernel || o.kind[g.op] == OpKind::kMemcpy || o.kind[g.op] == OpKind::kMemset)
      by_track[g.track].push_back({g.ts, g.end});
  for (size_t i = 0; i < o.size(); ++i) {
    if (o.kind[i] == OpKind::kUserAnnotation && rv.keep[i]) {
      auto& h = host_ranges[AnnotationName(p.str(o.name[i]))];
      h.first++;
      h.second += o.dur[i];
    } else if (o.kind[i] == OpKind::kGpuUserAnnotation && rv.keep[i]) {
      const std::string name = AnnotationName(p.str(o.name[i]));
      auto& h = gpu_ranges[name];
      h.first++;
      h.second += o.dur[i];
      auto it = by_track.find(o.track[i]);
      if (it == by_track.end()) continue;
      const Ps a = o.ts[i], b = o.end(i);
      auto& in = gpu_inside[name];
      // The stream's ops are sorted by start: those starting before b.
      const auto& v = it->second;
      auto hi = std::lower_bound(v.begin(), v.end(), std::make_pair(b, Ps{0}));
      for (auto k = v.begin(); k != hi; ++k) {
        const Ps s = std::max(a, k->first), e = std::min(b, k->second);
        if (e > s) in.first++, in.second += e - s;
      }
    }
  }
  // Host annotations by time: a GPU op belongs to every annotation range
  // of its launching process that holds its launch call's start, on any
  // thread (backward kernels are launched by the autograd thread while the
  // main thread sits in its "backward" range), once per name. A sweep per
  // process over range starts, ends and launches.
  {
    std::map<std::string, int> ann_id;
    std::vector<std::string> ann_names;
    struct Ev {
      int64_t pid;
      Ps ts;
      int order;  // 0 end, 1 start, 2 launch (an end at t excludes t, a start includes it)
      int name;   // start / end: annotation id; launch: index into gpu_refs
    };
    std::vector<Ev> evs;
    for (size_t i = 0; i < o.size(); ++i) {
      if (o.kind[i] != OpKind::kUserAnnotation || !rv.keep[i] || o.dur[i] <= 0) continue;
      auto [it, fresh] = ann_id.emplace(AnnotationName(p.str(o.name[i])), static_cast<int>(ann_names.size()));
      if (fresh) ann_names.push_back(it->first);
      const int64_t pid = p.tracks[o.track[i]].pid;
      evs.push_back({pid, o.ts[i], 1, it->second});
      evs.push_back({pid, o.end(i), 0, it->second});
    }
    std::vector<const GpuOpRef*> gpu_refs;
    if (!ann_names.empty())
      for (const GpuOpRef& g : rv.gpu) {
        const OpKind k = o.kind[g.op];
        if ((k != OpKind::kKernel && k != OpKind::kMemcpy && k != OpKind::kMemset) || o.launch[g.op] < 0) continue;
        const auto l = static_cast<size_t>(o.launch[g.op]);
        evs.push_back({p.tracks[o.track[l]].pid, o.ts[l], 2, static_cast<int>(gpu_refs.size())});
        gpu_refs.push_back(&g);
      }
    std::sort(evs.begin(), evs.end(), [](const Ev& a, const Ev& b) {
      return std::tie(a.pid, a.ts, a.order, a.name) < std::tie(b.pid, b.ts, b.order, b.name);
    });
    std::vector<int> count(ann_names.size(), 0), active;
    std::vector<size_t> pos(ann_names.size(), 0);
    std::vector<std::pair<int64_t, Ps>> acc(ann_names.size(), {0, 0});
    std::map<std::pair<int, int32_t>, std::pair<int64_t, Ps>> by_step;  // (annotation, step index)
    int64_t cur_pid = INT64_MIN;
    for (const Ev& e : evs) {
      if (e.pid != cur_pid) {
        for (int a : active) count[static_cast<size_t>(a)] = 0;
        active.clear();
        cur_pid = e.pid;
      }
      if (e.order == 1) {
        if (count[static_cast<size_t>(e.name)]++ == 0) {
          pos[static_cast<size_t>(e.name)] = active.size();
          active.push_back(e.name);
        }
      } else if (e.order == 0) {
        if (count[static_cast<size_t>(e.name)] > 0 && --count[static_cast<size_t>(e.name)] == 0) {
          const size_t at = pos[static_cast<size_t>(e.name)];
          active[at] = active.back();
          pos[static_cast<size_t>(active[at])] = at;
          active.pop_back();
        }
      } else {
        const GpuOpRef& g = *gpu_refs[static_cast<size_t>(e.name)];
        const int32_t step = o.step[g.op];
        for (int a : active) {
          acc[static_cast<size_t>(a)].first++, acc[static_cast<size_t>(a)].second += g.end - g.ts;
          if (step >= 0) {
            auto& bs = by_step[{a, step}];
            bs.first++, bs.second += g.end - g.ts;
          }
        }
      }
    }
    for (size_t a = 0; a < ann_names.size(); ++a)
      if (acc[a].first > 0) ann_gpu[ann_names[a]] = acc[a];
    // Per step, heaviest annotation first (the step markers themselves
    // left out: each holds its own step).
    std::vector<int> order;
    for (size_t a = 0; a < ann_names.size(); ++a)
      if (acc[a].first > 0 && ann_names[a] != "ProfilerStep*") order.push_back(static_cast<int>(a));
    std::sort(order.begin(), order.end(), [&](int x, int y) {
      return acc[static_cast<size_t>(x)].second != acc[static_cast<size_t>(y)].second
                 ? acc[static_cast<size_t>(x)].second > acc[static_cast<size_t>(y)].second
                 : ann_names[static_cast<size_t>(x)] < ann_names[static_cast<size_t>(y)];
    });
    // The whole trace as the one step says nothing per step.
    if (p.step_source == StepSource::kTrace) order.clear();
    for (int a : order)
      for (auto it = by_step.lower_bound({a, INT32_MIN}); it != by_step.end() && it->first.first == a; ++it) {
        const Step& st = p.steps[static_cast<size_t>(it->first.second)];
        if (st.op >= 0 &&
            AnnotationName(p.str(o.name[static_cast<size_t>(st.op)])) == ann_names[static_cast<size_t>(a)])
          continue;  // a serving step's own range
        rep.annotation_steps.push_back(
            {rv.rank, ann_names[static_cast<size_t>(a)], st.number, it->second.first, it->second.second});
      }
  }
  std::vector<AnnotationRow> ann_rows;
  for (const auto& [name, h] : host_ranges) {
    AnnotationRow r;
    r.rank = rv.rank;
    r.name = name;
    r.where = "host";
    r.calls = h.first;
    r.span = h.second;
    if (auto it = ann_gpu.find(name); it != ann_gpu.end()) r.gpu_ops = it->second.first, r.gpu = it->second.second;
    r.pct = Pct(r.gpu, total);
    Ps under = -1;
    r.parent = ArgMaxKey(ann_pairs, name, &under);
    ann_rows.push_back(std::move(r));
  }
  for (const auto& [name, h] : gpu_ranges) {
    AnnotationRow r;
    r.rank = rv.rank;
    r.name = name;
    r.where = "gpu";
    r.calls = h.first;
    r.span = h.second;
    if (auto it = gpu_inside.find(name); it != gpu_inside.end())
      r.gpu_ops = it->second.first, r.gpu = it->second.second;
    r.pct = Pct(r.gpu, total);
    ann_rows.push_back(std::move(r));
  }
  std::sort(ann_rows.begin(), ann_rows.end(), [](const AnnotationRow& a, const AnnotationRow& b) {
    return a.gpu != b.gpu ? a.gpu > b.gpu : std::tie(a.where, a.name) < std::tie(b.where, b.name);
  });
  for (auto& r : ann_rows) rep.annotations.push_back(std::move(r));
}

}  // namespace

ModuleReport ComputeModules(const ProfileView& view) {
  ModuleReport rep;
  for (const RankView& rv : view.ranks) {
    const RankProfile& p = *rv.profile;
    const OpTable& o = p.ops;
    Ps total = 0;
    // Module tree nodes by path (frame names, outermost first).
    struct Node {
      std::vector<StringId> path;
      std::set<uint32_t> frames;
      int64_t gpu_ops = 0;
      Ps gpu = 0, self = 0;
    };
    std::map<std::vector<StringId>, Node> nodes;
    struct Cls {
      std::set<StringId> instances;
      std::set<uint32_t> frames;
      Ps gpu = 0;
    };
    std::map<std::string, Cls> classes;
    std::map<std::pair<std::string, std::string>, Ps> class_pairs;  // (class, enclosing class)
    std::map<std::pair<std::string, std::string>, Ps> ann_pairs;
    struct Kern {
      int64_t count = 0;
      Ps gpu = 0;
      std::map<std::string, Ps> ops, modules;
    };
    std::map<std::string, Kern> kernels;
    std::vector<uint32_t> frames;
    std::vector<std::string> anns;
    std::vector<StringId> key;
    for (const GpuOpRef& g : rv.gpu) {
      const OpKind k = o.kind[g.op];
      if (k != OpKind::kKernel && k != OpKind::kMemcpy && k != OpKind::kMemset) continue;
      const Ps d = g.end - g.ts;
      total += d;
      frames.clear();
      anns.clear();
      int32_t owner = -1;
      ForEachLaunchAncestor(p, g.op, [&](size_t q) {
        if (owner < 0 && p.IsFrameworkOp(q)) owner = static_cast<int32_t>(q);
        if (!ModuleFrameClass(p, q).empty()) frames.push_back(static_cast<uint32_t>(q));
        if (o.kind[q] == OpKind::kUserAnnotation) {
          std::string a = AnnotationName(p.str(o.name[q]));
          if (anns.empty() || anns.back() != a) anns.push_back(std::move(a));
        }
        return true;
      });
      // Modules, outermost first.
      std::reverse(frames.begin(), frames.end());
      key.clear();
      std::set<std::string_view> seen_cls;
      for (size_t i = 0; i < frames.size(); ++i) {
        key.push_back(o.name[frames[i]]);
        Node& n = nodes[key];
        if (n.path.empty()) n.path = key;
        n.frames.insert(frames[i]);
        n.gpu += d;
        n.gpu_ops++;
        if (i + 1 == frames.size()) n.self += d;
        const std::string_view cls = ModuleFrameClass(p, frames[i]);
        Cls& c = classes[std::string(cls)];
        c.instances.insert(o.name[frames[i]]);
        c.frames.insert(frames[i]);
        if (seen_cls.insert(cls).second) c.gpu += d;
        if (i > 0) {
          const std::string_view up = ModuleFrameClass(p, frames[i - 1]);
          if (up != cls) class_pairs[{std::string(cls), std::string(up)}] += d;
        }
      }
      // The enclosing annotation on the launching thread (innermost first
      // in anns), for each annotation's parent.
      for (size_t i = 0; i + 1 < anns.size(); ++i)
        if (anns[i + 1] != anns[i]) ann_pairs[{anns[i], anns[i + 1]}] += d;
      Kern& kr = kernels[std::string(p.str(o.name[g.op]))];
      kr.count++;
      kr.gpu += d;
      kr.ops[owner >= 0 ? std::string(p.str(o.name[static_cast<size_t>(owner)])) : std::string("(no cpu_op)")] += d;
      kr.modules[frames.empty() ? std::string("(no module)") : std::string(ModuleFrameClass(p, frames.back()))] += d;
    }
    rep.any_module = rep.any_module || !nodes.empty();
    // The tree, depth first, heaviest child first.
    std::map<std::vector<StringId>, std::vector<const Node*>> children;
    for (const auto& [path, n] : nodes) {
      std::vector<StringId> up(path.begin(), path.end() - 1);
      children[up].push_back(&n);
    }
    for (auto& [up, v] : children)
      std::sort(v.begin(), v.end(), [&](const Node* a, const Node* b) {
        return a->gpu != b->gpu ? a->gpu > b->gpu : p.str(a->path.back()) < p.str(b->path.back());
      });
    std::function<void(const std::vector<StringId>&)> walk = [&](const std::vector<StringId>& up) {
      auto it = children.find(up);
      if (it == children.end()) return;
      for (const Node* n : it->second) {
        ModuleNodeRow r;
        r.rank = rv.rank;
        for (size_t i = 0; i < n->path.size(); ++i) {
          if (i) r.path += " > ";
          r.path += p.str(n->path[i]).substr(kModulePrefix.size());
        }
        r.instance = std::string(p.str(n->path.back()).substr(kModulePrefix.size()));
        r.cls = std::string(ModuleClass(p.str(n->path.back())));
        r.depth = static_cast<int>(n->path.size()) - 1;
        r.calls = static_cast<int64_t>(n->frames.size());
        r.gpu_ops = n->gpu_ops;
        r.gpu = n->gpu;
        r.self = n->self;
        r.pct = Pct(n->gpu, total);
        rep.tree.push_back(std::move(r));
        walk(n->path);
      }
    };
    walk({});
    // What no module holds (backward kernels: the autograd thread runs
    // outside the module frames; ops called outside the model).
    if (!nodes.empty()) {
      Ps in_modules = 0;
      int64_t ops_in = 0, ops_all = 0;
      for (const auto& [path, n] : nodes)
        if (path.size() == 1) in_modules += n.gpu, ops_in += n.gpu_ops;
      for (const GpuOpRef& g : rv.gpu) {
        const OpKind k = o.kind[g.op];
        ops_all += k == OpKind::kKernel || k == OpKind::kMemcpy || k == OpKind::kMemset;
      }
      if (total > in_modules) {
        ModuleNodeRow r;
        r.rank = rv.rank;
        r.path = r.instance = r.cls = "(no module)";
        r.gpu_ops = ops_all - ops_in;
        r.gpu = r.self = total - in_modules;
        r.pct = Pct(r.gpu, total);
        rep.tree.push_back(std::move(r));
      }
    }
    std::vector<ModuleClassRow> cls_rows;
    for (const auto& [name, c] : classes) {
      ModuleClassRow r;
      r.rank = rv.rank;
      r.cls = name;
      r.instances = static_cast<int64_t>(c.instances.size());
      r.calls = static_cast<int64_t>(c.frames.size());
      r.gpu = c.gpu;
      r.pct = Pct(c.gpu, total);
      Ps under = -1;
      r.parent = ArgMaxKey(class_pairs, name, &under);
      if (!r.parent.empty() && classes.count(r.parent) && classes.at(r.parent).gpu > 0)
        r.pct_of_parent = Pct(under, classes.at(r.parent).gpu);
      cls_rows.push_back(std::move(r));
    }
    std::sort(cls_rows.begin(), cls_rows.end(), [](const ModuleClassRow& a, const ModuleClassRow& b) {
      return a.gpu != b.gpu ? a.gpu > b.gpu : a.cls < b.cls;
    });
    for (auto& r : cls_rows) rep.classes.push_back(std::move(r));
    AddAnnotations(rv, total, ann_pairs, rep);
    std::vector<KernelLauncherRow> krows;
    for (const auto& [name, k] : kernels) {
      KernelLauncherRow r;
      r.rank = rv.rank;
      r.kernel = name;
      r.count = k.count;
      r.gpu = k.gpu;
      r.pct = Pct(k.gpu, total);
      r.ops = static_cast<int64_t>(k.ops.size());
      std::tie(r.top_op, r.top_op_pct) = Top(k.ops, k.gpu);
      r.modules = static_cast<int64_t>(k.modules.size());
      std::tie(r.top_module, r.top_module_pct) = Top(k.modules, k.gpu);
      krows.push_back(std::move(r));
    }
    std::sort(krows.begin(), krows.end(), [](const KernelLauncherRow& a, const KernelLauncherRow& b) {
      return a.gpu != b.gpu ? a.gpu > b.gpu : a.kernel < b.kernel;
    });
    for (auto& r : krows) rep.kernels.push_back(std::move(r));
  }
  return rep;
}

}  // namespace mlprof
