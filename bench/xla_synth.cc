#include "xla_synth.h"

#include <fmt/format.h>

#include <string_view>
#include <vector>

#include "report/table.h"

namespace mlprof::synth {

namespace {

// Protobuf wire encoding, just what an XSpace needs.
void Varint(std::string* o, uint64_t v) {
  while (v >= 0x80) {
    o->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  o->push_back(static_cast<char>(v));
}
void Tag(std::string* o, uint32_t field, uint32_t type) { Varint(o, (static_cast<uint64_t>(field) << 3) | type); }
void VarintField(std::string* o, uint32_t field, uint64_t v) {
  Tag(o, field, 0);
  Varint(o, v);
}
void BytesField(std::string* o, uint32_t field, std::string_view b) {
  Tag(o, field, 2);
  Varint(o, b.size());
  o->append(b);
}

struct Rng {  // xorshift64*: deterministic, no <random> differences across libcs
  uint64_t s;
  uint64_t Next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 2685821657736338717ull;
  }
  uint64_t Below(uint64_t n) { return Next() % n; }
};

// Stat metadata ids, as the TPU runtime interns them per plane.
enum StatId : uint64_t {
  kHloCategory = 1,
  kProgramId,
  kFlops,
  kBytesAccessed,
  kTfOp,
  kSource,
  kGroupId,
  kRunId,
  kCorrelationId,
  kPeakTflops,
  kPeakHbm,
  kDeviceType,
  kStatCount
};
constexpr std::string_view kStatNames[] = {"",
                                           "hlo_category",
                                           "program_id",
                                           "flops",
                                           "bytes_accessed",
                                           "tf_op",
                                           "source",
                                           "group_id",
                                           "run_id",
                                           "correlation_id",
                                           "peak_teraflops_per_second",
                                           "peak_hbm_bw_gigabytes_per_second",
                                           "device_type_string"};

std::string Stat(uint64_t id, uint64_t u) {
  std::string s;
  VarintField(&s, 1, id);
  VarintField(&s, 3, u);
  return s;
}
std::string StatInt(uint64_t id, int64_t i) {
  std::string s;
  VarintField(&s, 1, id);
  VarintField(&s, 4, static_cast<uint64_t>(i));
  return s;
}
std::string StatStr(uint64_t id, std::string_view v) {
  std::string s;
  VarintField(&s, 1, id);
  BytesField(&s, 5, v);
  return s;
}
std::string StatDouble(uint64_t id, double d) {
  std::string s;
  VarintField(&s, 1, id);
  Tag(&s, 2, 1);
  uint64_t bits;
  static_assert(sizeof bits == sizeof d);
  __builtin_memcpy(&bits, &d, 8);
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>(bits >> (8 * i)));
  return s;
}

void StatMetadata(std::string* plane) {
  for (uint64_t id = 1; id < kStatCount; ++id) {
    std::string meta, entry;
    VarintField(&meta, 1, id);
    BytesField(&meta, 2, kStatNames[id]);
    VarintField(&entry, 1, id);
    BytesField(&entry, 2, meta);
    BytesField(plane, 5, entry);
  }
}

void EventMetadata(std::string* plane, uint64_t id, std::string_view name, std::string_view display,
                   const std::vector<std::string>& stats) {
  std::string meta, entry;
  VarintField(&meta, 1, id);
  BytesField(&meta, 2, name);
  if (!display.empty()) BytesField(&meta, 4, display);
  for (const auto& s : stats) BytesField(&meta, 5, s);
  VarintField(&entry, 1, id);
  BytesField(&entry, 2, meta);
  BytesField(plane, 4, entry);
}

// One event as both encodings need it: the per-event stats are a group id
// and, optionally, a run id (module executions) or a correlation id (host).
struct Ev {
  uint64_t meta, offset_ps, dur_ps;
  int64_t group = -1, correlation = -1;
  uint64_t run = 0;
};

struct Line {
  std::string bytes;  // encoded events so far
  uint64_t id;
  std::string name;
  std::vector<Ev> events;
};

void Event(Line* line, const Ev& e) {
  std::string ev;
  VarintField(&ev, 1, e.meta);
  VarintField(&ev, 2, e.offset_ps);
  VarintField(&ev, 3, e.dur_ps);
  if (e.run) BytesField(&ev, 4, Stat(kRunId, e.run));
  if (e.group >= 0) BytesField(&ev, 4, StatInt(kGroupId, e.group));
  if (e.correlation >= 0) BytesField(&ev, 4, StatInt(kCorrelationId, e.correlation));
  BytesField(&line->bytes, 4, ev);
  line->events.push_back(e);
}

std::string EncodeLine(const Line& l, uint64_t timestamp_ns) {
  std::string o;
  VarintField(&o, 1, l.id);
  BytesField(&o, 2, l.name);
  VarintField(&o, 3, timestamp_ns);
  o += l.bytes;
  return o;
}

constexpr std::string_view kCategories[] = {"convolution fusion", "loop fusion",   "non-fusion elementwise",
                                            "data formatting",    "all-reduce",    "copy-start",
                                            "copy-done",          "custom fusion", "reduce"};

}  // namespace

namespace {

// The synthetic profile before encoding.
struct Synth {
  struct Op {
    std::string text, display, category, tf_op;
    uint64_t flops, bytes, dur_ps;
  };
  std::vector<Op> ops;
  std::vector<std::vector<Line>> dev_lines;  // per device: XLA Modules, XLA Ops, Steps
  std::vector<Line> host_lines;
  uint64_t host_meta_count = 64;
  XSpaceStats st;
  static constexpr uint64_t kStartNs = 1'700'000'000'000'000'000ull;
  static constexpr uint64_t kProgramId = 2041036616644817336ull;
  static std::string HostName(uint64_t m) { return fmt::format("PjitFunction(train_step)::Execute#{}", m); }
  std::string Source(size_t i) const { return fmt::format("/app/model.py:{}", 100 + i % 50); }
};

Synth Build(const XSpaceOptions& opt) {
  Rng rng{opt.seed * 0x9e3779b97f4a7c15ull + 1};
  Synth y;
  XSpaceStats& st = y.st;
  // The program's ops, shared by every device plane.
  for (int i = 0; i < opt.ops_per_step; ++i) {
    Synth::Op op;
    const int kind = static_cast<int>(rng.Below(std::size(kCategories)));
    const int layer = i / 20;
    op.display = fmt::format("fusion.{}", i);
    op.category = std::string(kCategories[kind]);
    const int64_t d = 512 << rng.Below(4);
    op.text = fmt::format(
        "%fusion.{0} = bf16[1,2048,{1}]{{2,1,0:T(8,128)(2,1)}} fusion(bf16[1,2048,{1}]{{2,1,0:T(8,128)(2,1)S(1)}} "
        "%copy-done.{0}, bf16[{1},2048]{{1,0:T(8,128)(2,1)}} %param.{2}), kind=kOutput, calls=%fused_computation.{0}",
        i, d, layer);
    op.tf_op = fmt::format("jit(train_step)/jvp(model)/layer_{}/mlp/dot_general", layer);
    op.flops = kind == 0 ? 2ull * 2048 * 2048 * static_cast<uint64_t>(d) : 2048ull * static_cast<uint64_t>(d);
    op.bytes = 2ull * 2048 * static_cast<uint64_t>(d) * 3;
    op.dur_ps = 1'000'000 + rng.Below(50'000'000);
    y.ops.push_back(std::move(op));
  }
  // Device planes and the host plane grow step by step until the target size.
  y.dev_lines.resize(static_cast<size_t>(opt.devices));
  for (auto& l : y.dev_lines) l = {{{}, 1, "XLA Modules", {}}, {{}, 2, "XLA Ops", {}}, {{}, 3, "Steps", {}}};
  for (int t = 0; t < opt.host_threads; ++t)
    y.host_lines.push_back({{}, static_cast<uint64_t>(1000 + t), fmt::format("python3/{}", 1000 + t), {}});
  uint64_t size = 0, t_ps = 0;
  while (size < opt.target_bytes || st.steps == 0) {
    const uint64_t step_start = t_ps;
    for (int dvc = 0; dvc < opt.devices; ++dvc) {
      auto& lines = y.dev_lines[static_cast<size_t>(dvc)];
      uint64_t t = step_start;
      for (size_t i = 0; i < y.ops.size(); ++i) {
        // Op events carry only the group id; costs live on the metadata.
        Event(&lines[1], {100 + i, t, y.ops[i].dur_ps, st.steps});
        t += y.ops[i].dur_ps + 10'000;
        ++st.xla_op_events;
        ++st.device_events;
      }
      Event(&lines[0], {10, step_start, t - step_start, st.steps, -1, 7});
      Event(&lines[2], {11, step_start, t - step_start, st.steps});
      st.device_events += 2;
      if (dvc == 0) t_ps = t + 5'000'000;
    }
    for (size_t th = 0; th < y.host_lines.size(); ++th) {
      uint64_t t = step_start;
      for (int k = 0; k < 200; ++k) {
        uint64_t dur = 100'000 + rng.Below(5'000'000);
        Ev e{1 + rng.Below(y.host_meta_count), t, dur};
        if (k % 4 == 0) e.correlation = static_cast<int64_t>(st.host_events);
        Event(&y.host_lines[th], e);
        t += dur + 1000;
        ++st.host_events;
      }
    }
    ++st.steps;
    size = 0;
    for (const auto& lines : y.dev_lines)
      for (const auto& l : lines) size += l.bytes.size();
    for (const auto& l : y.host_lines) size += l.bytes.size();
  }
  return y;
}

// Picoseconds as microseconds with all six decimals, the way the trace
// viewer writes them ("ts":1700000000000000.123456).
std::string Micros(uint64_t ps) { return fmt::format("{}.{:06}", ps / 1'000'000, ps % 1'000'000); }

}  // namespace

std::string MakeXSpace(const XSpaceOptions& opt, XSpaceStats* stats) {
  Synth y = Build(opt);
  std::string space;
  for (int dvc = 0; dvc < opt.devices; ++dvc) {
    std::string plane;
    VarintField(&plane, 1, static_cast<uint64_t>(dvc));
    BytesField(&plane, 2, fmt::format("/device:TPU:{}", dvc));
    for (const Line& l : y.dev_lines[static_cast<size_t>(dvc)])
      BytesField(&plane, 3, EncodeLine(l, Synth::kStartNs / 1000));
    EventMetadata(&plane, 10, fmt::format("jit_train_step({})", Synth::kProgramId), "jit_train_step",
                  {Stat(kProgramId, Synth::kProgramId)});
    EventMetadata(&plane, 11, "step", "", {});
    for (size_t i = 0; i < y.ops.size(); ++i) {
      const Synth::Op& op = y.ops[i];
      EventMetadata(&plane, 100 + i, op.text, op.display,
                    {StatStr(kHloCategory, op.category), Stat(kProgramId, Synth::kProgramId), Stat(kFlops, op.flops),
                     Stat(kBytesAccessed, op.bytes), StatStr(kTfOp, op.tf_op), StatStr(kSource, y.Source(i))});
    }
    StatMetadata(&plane);
    BytesField(&plane, 6, StatDouble(kPeakTflops, 918));
    BytesField(&plane, 6, StatDouble(kPeakHbm, 1638));
    BytesField(&plane, 6, StatStr(kDeviceType, "TPU v6 lite"));
    BytesField(&space, 1, plane);
  }
  {
    std::string plane;
    VarintField(&plane, 1, 1000);
    BytesField(&plane, 2, "/host:CPU");
    for (const Line& l : y.host_lines) BytesField(&plane, 3, EncodeLine(l, Synth::kStartNs / 1000));
    for (uint64_t m = 1; m <= y.host_meta_count; ++m) EventMetadata(&plane, m, Synth::HostName(m), "", {});
    StatMetadata(&plane);
    BytesField(&space, 1, plane);
  }
  if (stats) *stats = y.st;
  return space;
}

std::string MakeTraceViewerJson(const XSpaceOptions& opt, XSpaceStats* stats) {
  Synth y = Build(opt);
  constexpr int kHostPid = 701;  // tsl's kHostThreadsDeviceId; devices are 1 + plane id
  std::string o = R"({"displayTimeUnit":"ns","metadata":{"highres-ticks":true},"traceEvents":[)";
  o += "\n";
  auto metadata = [&](int pid, int64_t tid, std::string_view what, std::string_view name) {
    o += fmt::format(R"({{"ph":"M","pid":{},)", pid);
    if (tid >= 0) o += fmt::format(R"("tid":{},)", tid);
    o += fmt::format(R"("name":"{}","args":{{"name":)", what);
    o += JsonEscape(name);
    o += "}},\n";
  };
  auto complete = [&](int pid, const Line& l, const Ev& e, std::string_view name) {
    o += fmt::format(R"({{"ph":"X","pid":{},"tid":{},"ts":{},"dur":{},"name":)", pid, l.id,
                     Micros(Synth::kStartNs / 1000 * 1000 + e.offset_ps), Micros(e.dur_ps));
    o += JsonEscape(name);
  };
  bool first_arg = true;
  auto arg = [&](std::string_view key, std::string_view value) {
    o += first_arg ? R"(,"args":{)" : ",";
    first_arg = false;
    o += JsonEscape(key);
    o += ':';
    o += JsonEscape(value);
  };
  for (int dvc = 0; dvc < opt.devices; ++dvc) {
    const int pid = 1 + dvc;
    metadata(pid, -1, "process_name", fmt::format("/device:TPU:{}", dvc));
    for (const Line& l : y.dev_lines[static_cast<size_t>(dvc)])
      metadata(pid, static_cast<int64_t>(l.id), "thread_name", l.name);
  }
  metadata(kHostPid, -1, "process_name", "/host:CPU");
  for (const Line& l : y.host_lines) metadata(kHostPid, static_cast<int64_t>(l.id), "thread_name", l.name);
  // Events with their metadata stats and then their own; flops and
  // program_id are internal stats the viewer leaves out.
  for (int dvc = 0; dvc < opt.devices; ++dvc) {
    const int pid = 1 + dvc;
    for (const Line& l : y.dev_lines[static_cast<size_t>(dvc)]) {
      for (const Ev& e : l.events) {
        first_arg = true;
        if (e.meta >= 100) {
          const size_t i = e.meta - 100;
          const Synth::Op& op = y.ops[i];
          complete(pid, l, e, op.display);
          arg("long_name", op.text);
          arg("hlo_category", op.category);
          arg("bytes_accessed", fmt::format("{}", op.bytes));
          arg("tf_op", op.tf_op);
          arg("source", y.Source(i));
        } else if (e.meta == 10) {
          complete(pid, l, e, "jit_train_step");
          arg("long_name", fmt::format("jit_train_step({})", Synth::kProgramId));
          arg("run_id", fmt::format("{}", e.run));
        } else {
          complete(pid, l, e, "step");
        }
        arg("group_id", fmt::format("{}", e.group));
        o += "}},\n";
      }
    }
  }
  for (const Line& l : y.host_lines) {
    for (const Ev& e : l.events) {
      complete(kHostPid, l, e, Synth::HostName(e.meta));
      if (e.correlation >= 0) o += fmt::format(R"(,"args":{{"correlation_id":"{}"}})", e.correlation);
      o += "},\n";
    }
  }
  o += "{}]}\n";
  if (stats) *stats = y.st;
  return o;
}

std::string MakeHloText(const HloTextOptions& opt, HloTextStats* stats) {
  HloTextStats st;
  std::string o = "HloModule jit_train_step, is_scheduled=true, num_partitions=8\n\n";
  o += "%add_f32 (x: f32[], y: f32[]) -> f32[] {\n  %x = f32[] parameter(0)\n  %y = f32[] parameter(1)\n"
       "  ROOT %add = f32[] add(f32[] %x, f32[] %y)\n}\n\n";
  st.computations = 1;
  st.instructions = 3;
  // Entry is written last; its text is collected as layers are added.
  std::string entry;
  const std::string act = "bf16[2048,7168]{1,0:T(8,128)(2,1)}";
  const std::string w = "bf16[7168,7168]{1,0:T(8,128)(2,1)}";
  const std::string vec = "bf16[7168]{0:T(1024)(128)(2,1)}";
  const std::string f32act = "f32[2048,7168]{1,0:T(8,128)}";
  entry += fmt::format("  %x.0 = {} parameter(0)\n", act);
  st.instructions += 1;
  std::string prev = "x.0";
  int layer = 0, param = 1;
  while (o.size() + entry.size() < opt.target_bytes || layer == 0) {
    const int L = layer;
    auto md = [&](std::string_view op_type, std::string_view what) {
      return fmt::format(
          "metadata={{op_type=\"{}\" op_name=\"jit(train_step)/jvp(model)/layer_{}/{}\" "
          "source_file=\"/app/model.py\" source_line={}}}",
          op_type, L, what, 100 + L % 400);
    };
    // RMS norm fusion.
    o += fmt::format("%fused_norm.{0} (param_0.{0}: {1}, param_1.{0}: {2}) -> {1} {{\n", L, act, vec);
    o += fmt::format("  %param_0.{0} = {1} parameter(0)\n  %param_1.{0} = {2} parameter(1)\n", L, act, vec);
    o += fmt::format("  %convert.{0} = {1} convert({2} %param_0.{0}), {3}\n", L, f32act, act,
                     md("convert", "norm/convert"));
    o += fmt::format("  %multiply.sq.{0} = {1} multiply({1} %convert.{0}, {1} %convert.{0}), {2}\n", L, f32act,
                     md("mul", "norm/square"));
    o += fmt::format("  %zero.{0} = f32[] constant(0)\n", L);
    o += fmt::format(
        "  %reduce.{0} = f32[2048]{{0:T(1024)}} reduce({1} %multiply.sq.{0}, f32[] %zero.{0}), dimensions={{1}}, "
        "to_apply=%add_f32, {2}\n",
        L, f32act, md("reduce_sum", "norm/reduce_sum"));
    o += fmt::format("  %rsqrt.{0} = f32[2048]{{0:T(1024)}} rsqrt(f32[2048]{{0:T(1024)}} %reduce.{0}), {1}\n", L,
                     md("rsqrt", "norm/rsqrt"));
    o += fmt::format("  %bcast.{0} = {1} broadcast(f32[2048]{{0:T(1024)}} %rsqrt.{0}), dimensions={{0}}\n", L, f32act);
    o += fmt::format("  %scaled.{0} = {1} multiply({1} %convert.{0}, {1} %bcast.{0}), {2}\n", L, f32act,
                     md("mul", "norm/mul"));
    o += fmt::format("  %down.{0} = {1} convert({2} %scaled.{0})\n", L, act, f32act);
    o += fmt::format("  %wb.{0} = {1} broadcast({2} %param_1.{0}), dimensions={{1}}\n", L, act, vec);
    o += fmt::format("  ROOT %out.{0} = {1} multiply({1} %down.{0}, {1} %wb.{0}), {2}\n}}\n\n", L, act,
                     md("mul", "norm/scale"));
    // Matmul fusion (TPU spelling: a convolution).
    o += fmt::format("%fused_mm.{0} (param_0.m{0}: {1}, param_1.m{0}: {2}) -> {1} {{\n", L, act, w);
    o += fmt::format("  %param_0.m{0} = {1} parameter(0)\n  %param_1.m{0} = {2} parameter(1)\n", L, act, w);
    o += fmt::format(
        "  ROOT %conv.{0} = {1} convolution({1} %param_0.m{0}, {2} %param_1.m{0}), dim_labels=bf_io->bf, {3}\n}}\n\n",
        L, act, w, md("dot_general", "mlp/dot_general"));
    st.computations += 2;
    st.instructions += 12 + 3;
    // Entry instructions of the layer.
    entry += fmt::format("  %w.{0} = {1} parameter({2})\n  %g.{0} = {3} parameter({4})\n", L, w, param, vec, param + 1);
    param += 2;
    entry += fmt::format("  %norm.{0} = {1} fusion({1} %{2}, {3} %g.{0}), kind=kLoop, calls=%fused_norm.{0}, {4}\n", L,
                         act, prev, vec, md("mul", "norm"));
    entry += fmt::format(
        "  %cs.{0} = ({1}, {1}, u32[]{{:S(2)}}) copy-start({1} %norm.{0}), cross_program_prefetch_index=0\n", L, act);
    entry += fmt::format("  %cd.{0} = {1} copy-done(({1}, {1}, u32[]{{:S(2)}}) %cs.{0})\n", L, act);
    entry += fmt::format("  %mm.{0} = {1} fusion({1} %cd.{0}, {2} %w.{0}), kind=kOutput, calls=%fused_mm.{0}, {3}\n", L,
                         act, w, md("dot_general", "mlp/dot_general"));
    entry += fmt::format(
        "  %ar.{0} = {1} all-reduce({1} %mm.{0}), channel_id={2}, replica_groups=[2,4]<=[8], "
        "use_global_device_ids=true, "
        "to_apply=%add_f32, {3}\n",
        L, act, L + 1, md("psum", "mlp/psum"));
    entry += fmt::format("  %res.{0} = {1} add({1} %{2}, {1} %ar.{0}), {3}\n", L, act, prev, md("add", "residual"));
    st.instructions += 8;
    prev = fmt::format("res.{}", L);
    ++layer;
  }
  o += "ENTRY %main {\n";
  o += entry;
  o += fmt::format("  ROOT %out = {0} copy({0} %{1})\n}}\n", act, prev);
  st.instructions += 1;
  st.computations += 1;
  if (stats) *stats = st;
  return o;
}

}  // namespace mlprof::synth
