#include "model/steps.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <string>

#include "base/repeats.h"
#include "base/serving_step.h"

namespace mlprof {

const char* StepSourceName(StepSource s) {
  switch (s) {
    case StepSource::kAuto:
      return "auto";
    case StepSource::kProfilerStep:
      return "profiler";
    case StepSource::kServing:
      return "serving";
    case StepSource::kOptimizer:
      return "optimizer";
    case StepSource::kAnnotation:
      return "annotation";
    case StepSource::kRepeat:
      return "repeat";
    case StepSource::kTrace:
      return "trace";
    case StepSource::kNone:
      break;
  }
  return "none";
}

const char* StepSourceDescription(StepSource s) {
  switch (s) {
    case StepSource::kProfilerStep:
      return "ProfilerStep#N ranges";
    case StepSource::kServing:
      return "serving steps (vLLM execute_..., SGLang step[...])";
    case StepSource::kOptimizer:
      return "Optimizer.step ranges (a step ends where an optimizer step ends)";
    case StepSource::kAnnotation:
      return "user-annotated iterations";
    case StepSource::kRepeat:
      return "a repeating sequence of top-level ops";
    case StepSource::kTrace:
      return "the whole trace (no iterations found)";
    case StepSource::kAuto:
    case StepSource::kNone:
      break;
  }
  return "none";
}

bool ParseStepSource(std::string_view name, StepSource* out) {
  for (StepSource s : {StepSource::kAuto, StepSource::kProfilerStep, StepSource::kServing, StepSource::kOptimizer,
                       StepSource::kAnnotation, StepSource::kRepeat, StepSource::kTrace})
    if (name == StepSourceName(s)) {
      *out = s;
      return true;
    }
  return false;
}

namespace {

bool HostSide(OpKind k) { return !IsGpuOp(k) && k != OpKind::kGpuUserAnnotation; }

// ProfilerStep#N ops and the names a reader marked.
void ProfilerSteps(RankProfile& p) {
  OpTable& o = p.ops;
  std::vector<int64_t> step_number(p.strings.size(), -1);
  bool any_step_name = false;
  for (size_t id = 0; id < p.strings.size(); ++id) {
    constexpr std::string_view kPrefix = "ProfilerStep#";
    const std::string_view name = p.strings.Get(static_cast<StringId>(id));
    if (name.size() <= kPrefix.size() || name.substr(0, kPrefix.size()) != kPrefix) continue;
    int64_t num = 0;
    bool ok = true;
    for (char c : name.substr(kPrefix.size())) {
      if (c < '0' || c > '9' || num > (INT64_MAX - 9) / 10) {
        ok = false;
        break;
      }
      num = num * 10 + (c - '0');
    }
    if (ok) step_number[id] = num, any_step_name = true;
  }
  for (const auto& [id, num] : p.step_names)
    if (id < step_number.size()) step_number[id] = num, any_step_name = true;
  for (size_t i = 0; any_step_name && i < o.size(); ++i) {
    // Host-side markers only: a gpu_user_annotation of the same name (newer
    // Kineto writes one per step on the GPU timeline) is not a step.
    if (!HostSide(o.kind[i]) || o.name[i] >= step_number.size() || step_number[o.name[i]] < 0) continue;
    p.steps.push_back({step_number[o.name[i]], o.ts[i], o.dur[i], static_cast<int32_t>(i)});
  }
}

// Serving engines record no ProfilerStep#N: their step annotations (vLLM
// execute_..., SGLang step[...]; base/serving_step.h) become the steps,
// numbered 0.. in time order. One family only: vLLM's execute_... when
// present, as TraceLens picks its iteration roots (its detailed form first):
// SGLang traces can hold both, the execute_ range around step[...], which
// leaves out the step's first kernels.
void ServingSteps(RankProfile& p) {
  OpTable& o = p.ops;
  std::vector<uint8_t> family(p.strings.size(), 0);  // 1: vLLM, 2: SGLang, per distinct string
  bool any = false;
  for (size_t id = 0; id < p.strings.size(); ++id) {
    const std::string_view name = p.strings.Get(static_cast<StringId>(id));
    if (!name.starts_with("execute_") && !name.starts_with("step[")) continue;
    if (auto info = ParseServingStep(name)) {
      family[id] = info->engine == ServingEngine::kSglang ? 2 : 1;
      any = true;
    }
  }
  if (!any) return;
  std::vector<uint32_t> found[3];
  for (size_t i = 0; i < o.size(); ++i)
    if (o.kind[i] == OpKind::kUserAnnotation && o.name[i] < family.size() && family[o.name[i]] != 0)
      found[family[o.name[i]]].push_back(static_cast<uint32_t>(i));
  std::vector<uint32_t> order(found[1].empty() ? found[2] : found[1]);
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return o.ts[a] != o.ts[b] ? o.ts[a] < o.ts[b] : a < b; });
  for (size_t k = 0; k < order.size(); ++k)
    p.steps.push_back({static_cast<int64_t>(k), o.ts[order[k]], o.dur[order[k]], static_cast<int32_t>(order[k])});
}

// Steps between consecutive ends: [ends[k-1], ends[k]) for k = 1.., numbered
// from 0.
void StepsBetweenEnds(RankProfile& p, std::vector<Ps> ends) {
  std::sort(ends.begin(), ends.end());
  ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
  for (size_t k = 1; k < ends.size(); ++k)
    p.steps.push_back({static_cast<int64_t>(k - 1), ends[k - 1], ends[k] - ends[k - 1], -1});
}

// Optimizer.step#Adam.step ranges (torch.optim's record_function): the name
// with the most ranges (of equals, the one ending last), outermost ranges
// only; two or more make steps.
void OptimizerSteps(RankProfile& p) {
  const OpTable& o = p.ops;
  std::map<StringId, std::vector<size_t>> by_name;
  std::vector<int8_t> is_opt(p.strings.size(), -1);
  for (size_t i = 0; i < o.size(); ++i) {
    if (!HostSide(o.kind[i]) || (o.kind[i] != OpKind::kUserAnnotation && o.kind[i] != OpKind::kCpuOp)) continue;
    int8_t& known = is_opt[o.name[i]];
    if (known < 0) known = p.str(o.name[i]).starts_with("Optimizer.step#") ? 1 : 0;
    if (!known) continue;
    bool nested = false;  // inside another range of an optimizer step
    for (int32_t q = o.parent[i]; q >= 0 && !nested; q = o.parent[static_cast<size_t>(q)])
      nested = is_opt[o.name[static_cast<size_t>(q)]] == 1;
    if (!nested) by_name[o.name[i]].push_back(i);
  }
  const std::vector<size_t>* best = nullptr;
  Ps best_end = 0;
  for (const auto& [name, ops] : by_name) {
    Ps end = 0;
    for (size_t i : ops) end = std::max(end, o.end(i));
    if (!best || ops.size() > best->size() || (ops.size() == best->size() && end > best_end))
      best = &ops, best_end = end;
  }
  if (!best || best->size() < 2) return;
  std::vector<Ps> ends;
  for (size_t i : *best) ends.push_back(o.end(i));
  StepsBetweenEnds(p, std::move(ends));
}

// Whether an annotation's name says it is an iteration: "train_step",
// "iteration 3", "## batch ##", "Iter#4" (not ProfilerStep, optimizer or
// DataLoader ranges). Its stem (the name without digits) groups the ranges.
bool IterationName(std::string_view name, std::string* stem) {
  if (name.starts_with("ProfilerStep#") || name.starts_with("Optimizer.") || name.starts_with("enumerate(DataLoader)"))
    return false;
  std::string lower;
  stem->clear();
  for (char c : name) {
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!std::isdigit(static_cast<unsigned char>(c))) *stem += c;
  }
  for (const char* w : {"iteration", "iter", "step", "batch"}) {
    const size_t at = lower.find(w);
    if (at == std::string::npos) continue;
    // A whole word, or joined by '_', '-', '#' or a digit: not "stepper", "batchnorm".
    const size_t end = at + std::char_traits<char>::length(w);
    const bool left = at == 0 || !std::isalpha(static_cast<unsigned char>(lower[at - 1]));
    const bool right = end == lower.size() || !std::isalpha(static_cast<unsigned char>(lower[end]));
    if (left && right) return true;
  }
  return false;
}

// Top-level host annotations named as iterations, two or more of one stem,
// none overlapping: the stem whose ranges cover the most time.
void AnnotationSteps(RankProfile& p) {
  const OpTable& o = p.ops;
  std::map<std::string, std::vector<size_t>> by_stem;
  std::vector<int8_t> verdict(p.strings.size(), -1);
  std::vector<std::string> stems(p.strings.size());
  for (size_t i = 0; i < o.size(); ++i) {
    // record_function ranges are user_annotation in Kineto traces, cpu_op in
    // torch's legacy exporter and 2021 Kineto: a cpu_op counts when its name
    // is not an operator's (no "::", as aten::batch_norm has).
    if (o.kind[i] != OpKind::kUserAnnotation &&
        (o.kind[i] != OpKind::kCpuOp || p.str(o.name[i]).find("::") != std::string_view::npos))
      continue;
    int8_t& v = verdict[o.name[i]];
    if (v < 0) v = IterationName(p.str(o.name[i]), &stems[o.name[i]]) ? 1 : 0;
    if (!v) continue;
    bool top = true;  // under no cpu_op or annotation (a trace span or python frames may enclose it)
    for (int32_t q = o.parent[i]; q >= 0 && top; q = o.parent[static_cast<size_t>(q)]) {
      const OpKind k = o.kind[static_cast<size_t>(q)];
      top = k != OpKind::kCpuOp && k != OpKind::kUserAnnotation;
    }
    if (top) by_stem[stems[o.name[i]]].push_back(i);
  }
  const std::vector<size_t>* best = nullptr;
  Ps best_cover = 0;
  for (auto& [stem, ops] : by_stem) {
    if (ops.size() < 2) continue;
    std::sort(ops.begin(), ops.end(), [&](size_t a, size_t b) { return o.ts[a] < o.ts[b]; });
    bool overlap = false;
    Ps cover = 0;
    for (size_t k = 0; k < ops.size(); ++k) {
      cover += o.dur[ops[k]];
      if (k > 0 && o.ts[ops[k]] < o.end(ops[k - 1])) overlap = true;
    }
    if (!overlap && cover > best_cover) best = &ops, best_cover = cover;
  }
  if (!best) return;
  for (size_t k = 0; k < best->size(); ++k) {
    const size_t i = (*best)[k];
    p.steps.push_back({static_cast<int64_t>(k), o.ts[i], o.dur[i], static_cast<int32_t>(i)});
  }
}

// The host thread that launches the most GPU work, else the one with the
// most ops; -1 when the trace has no host thread.
int64_t MainThread(const RankProfile& p) {
  const OpTable& o = p.ops;
  std::vector<int64_t> launches(p.tracks.size(), 0), ops(p.tracks.size(), 0);
  for (size_t i = 0; i < o.size(); ++i) {
    if (IsGpuOp(o.kind[i]) && o.launch[i] >= 0) ++launches[o.track[static_cast<size_t>(o.launch[i])]];
    if (HostSide(o.kind[i])) ++ops[o.track[i]];
  }
  int64_t best = -1;
  for (size_t t = 0; t < p.tracks.size(); ++t) {
    if (p.tracks[t].kind != TrackKind::kHostThread || ops[t] == 0) continue;
    if (best < 0 || launches[t] > launches[static_cast<size_t>(best)] ||
        (launches[t] == launches[static_cast<size_t>(best)] && ops[t] > ops[static_cast<size_t>(best)]))
      best = static_cast<int64_t>(t);
  }
  return best;
}

// A repeating sequence of top-level ops (cpu_ops and annotations under no
// other) on the main thread: each repeat is a step, when there are at least
// two and they cover at least half of the thread's top-level time span.
void RepeatSteps(RankProfile& p) {
  const OpTable& o = p.ops;
  const int64_t main = MainThread(p);
  if (main < 0) return;
  std::vector<size_t> top;
  for (size_t i = 0; i < o.size(); ++i) {
    if (o.track[i] != static_cast<uint32_t>(main)) continue;
    const OpKind k = o.kind[i];
    if (k != OpKind::kCpuOp && k != OpKind::kUserAnnotation) continue;
    bool outer = true;
    for (int32_t q = o.parent[i]; q >= 0 && outer; q = o.parent[static_cast<size_t>(q)]) {
      const OpKind kq = o.kind[static_cast<size_t>(q)];
      outer = kq != OpKind::kCpuOp && kq != OpKind::kUserAnnotation;
    }
    if (outer) top.push_back(i);
  }
  if (top.size() < 4) return;  // ops of one track are in time order
  std::vector<uint32_t> seq;
  std::vector<Ps> weight;
  for (size_t i : top) seq.push_back(o.name[i]), weight.push_back(o.dur[i]);
  const RepeatingRun run = FindRepeatingRun(seq, weight);
  if (run.repeats < 2) return;
  const Ps span = o.end(top.back()) - o.ts[top.front()];
  const size_t last = run.start + run.period * run.repeats - 1;
  const Ps covered = o.end(top[last]) - o.ts[top[run.start]];
  if (span <= 0 || 2 * covered < span) return;
  // Repeats inside one model call are its layers, not iterations: no
  // iteration runs inside a forward (switchtransformers' inference trace:
  // ten blocks under one "model.py(343): forward" frame).
  const Ps run_end = o.end(top[last]);
  for (int32_t q = o.parent[top[run.start]]; q >= 0; q = o.parent[static_cast<size_t>(q)]) {
    const size_t a = static_cast<size_t>(q);
    if (o.end(a) < run_end) continue;
    const std::string_view n = p.str(o.name[a]);
    if (n.substr(0, 11) == "nn.Module: " || n.ends_with(": forward") || n.ends_with(".forward")) return;
  }
  for (size_t k = 0; k < run.repeats; ++k) {
    const Ps ts = o.ts[top[run.start + k * run.period]];
    const Ps end = k + 1 < run.repeats ? o.ts[top[run.start + (k + 1) * run.period]] : o.end(top[last]);
    p.steps.push_back({static_cast<int64_t>(k), ts, end - ts, -1});
  }
}

// The whole trace: from the first op to the last end (the profiler's own
// envelope span and instants left out).
void TraceStep(RankProfile& p) {
  const OpTable& o = p.ops;
  Ps first = INT64_MAX, last = INT64_MIN;
  for (size_t i = 0; i < o.size(); ++i) {
    if (o.kind[i] == OpKind::kTraceSpan || o.kind[i] == OpKind::kInstant) continue;
    first = std::min(first, o.ts[i]);
    last = std::max(last, o.end(i));
  }
  if (first <= last) p.steps.push_back({0, first, last - first, -1});
}

bool Try(RankProfile& p, StepSource s) {
  p.steps.clear();
  switch (s) {
    case StepSource::kProfilerStep:
      ProfilerSteps(p);
      break;
    case StepSource::kServing:
      ServingSteps(p);
      break;
    case StepSource::kOptimizer:
      OptimizerSteps(p);
      break;
    case StepSource::kAnnotation:
      AnnotationSteps(p);
      break;
    case StepSource::kRepeat:
      RepeatSteps(p);
      break;
    case StepSource::kTrace:
      TraceStep(p);
      break;
    default:
      break;
  }
  if (p.steps.empty()) return false;
  p.step_source = s;
  return true;
}

}  // namespace

void FindSteps(RankProfile& p, StepSource from) {
  OpTable& o = p.ops;
  std::fill(o.step.begin(), o.step.end(), -1);
  p.steps.clear();
  p.step_source = StepSource::kNone;
  p.step_note.clear();
  p.steps_asked = from;
  if (from != StepSource::kAuto) {
    if (Try(p, from)) {
      p.step_note =
          std::string("--steps-from ") + StepSourceName(from) + ": the steps are " + StepSourceDescription(from);
    } else {
      p.step_note = std::string("--steps-from ") + StepSourceName(from) + ": none found (" +
                    StepSourceDescription(from) + "); the whole trace is the step";
      Try(p, StepSource::kTrace);
    }
  } else if (!Try(p, StepSource::kProfilerStep) && !Try(p, StepSource::kServing) && p.xla_ops.empty()) {
    // Host-side iterations where the profiler marked none. XLA profiles have
    // steps of their own (analysis/xla.cc); a profile with no host ops
    // (a device-only trace) gets the whole trace.
    for (StepSource s : {StepSource::kOptimizer, StepSource::kAnnotation, StepSource::kRepeat, StepSource::kTrace})
      if (Try(p, s)) break;
  }
  std::sort(p.steps.begin(), p.steps.end(),
            [](const Step& a, const Step& b) { return a.ts != b.ts ? a.ts < b.ts : a.number < b.number; });
  if (p.steps.empty()) return;
  for (size_t i = 0; i < o.size(); ++i) {
    if (!HostSide(o.kind[i])) continue;
    const Ps ts = o.ts[i];
    auto it = std::upper_bound(p.steps.begin(), p.steps.end(), ts, [](Ps v, const Step& s) { return v < s.ts; });
    if (it == p.steps.begin()) continue;
    --it;
    if (ts < it->ts + it->dur || (it->dur == 0 && ts == it->ts) ||
        (p.step_source == StepSource::kTrace && ts <= it->ts + it->dur))
      o.step[i] = static_cast<int32_t>(it - p.steps.begin());
  }
  for (size_t i = 0; i < o.size(); ++i) {
    if (!IsGpuOp(o.kind[i])) continue;
    if (o.launch[i] >= 0)
      o.step[i] = o.step[static_cast<size_t>(o.launch[i])];
    else if (p.step_source == StepSource::kTrace)
      o.step[i] = 0;  // the whole trace holds GPU work with no launch too
  }
}

}  // namespace mlprof
