#include "xla_synth.h"

#include <fmt/format.h>

#include <string_view>
#include <vector>

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

struct Line {
  std::string bytes;  // encoded events so far
  uint64_t id;
  std::string name;
};

void Event(Line* line, uint64_t meta, uint64_t offset_ps, uint64_t dur_ps, const std::vector<std::string>& stats) {
  std::string ev;
  VarintField(&ev, 1, meta);
  VarintField(&ev, 2, offset_ps);
  VarintField(&ev, 3, dur_ps);
  for (const auto& s : stats) BytesField(&ev, 4, s);
  BytesField(&line->bytes, 4, ev);
}

std::string EncodeLine(const Line& l, uint64_t timestamp_ns) {
  std::string o;
  VarintField(&o, 1, l.id);
  BytesField(&o, 2, l.name);
  VarintField(&o, 3, timestamp_ns);
  o += l.bytes;
  return o;
}

constexpr std::string_view kCategories[] = {"convolution fusion", "loop fusion",     "non-fusion elementwise",
                                            "data formatting",    "all-reduce",      "copy-start",
                                            "copy-done",          "custom fusion",   "reduce"};

}  // namespace

std::string MakeXSpace(const XSpaceOptions& opt, XSpaceStats* stats) {
  Rng rng{opt.seed * 0x9e3779b97f4a7c15ull + 1};
  XSpaceStats st;
  constexpr uint64_t kStartNs = 1'700'000'000'000'000'000ull;
  const uint64_t program_id = 2041036616644817336ull;
  // The program's ops, shared by every device plane.
  struct Op {
    std::string text, display, category, tf_op;
    uint64_t flops, bytes, dur_ps;
  };
  std::vector<Op> ops;
  for (int i = 0; i < opt.ops_per_step; ++i) {
    Op op;
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
    ops.push_back(std::move(op));
  }

  std::string space;
  // Device planes and the host plane grow step by step until the target
  // size; each plane is encoded at the end.
  std::vector<std::vector<Line>> dev_lines(static_cast<size_t>(opt.devices));
  for (auto& l : dev_lines) l = {{{}, 1, "XLA Modules"}, {{}, 2, "XLA Ops"}, {{}, 3, "Steps"}};
  std::vector<Line> host_lines;
  for (int t = 0; t < opt.host_threads; ++t)
    host_lines.push_back({{}, static_cast<uint64_t>(1000 + t), fmt::format("python3/{}", 1000 + t)});
  uint64_t size = 0, t_ps = 0;
  const uint64_t host_meta_count = 64;
  while (size < opt.target_bytes || st.steps == 0) {
    const uint64_t step_start = t_ps;
    for (int dvc = 0; dvc < opt.devices; ++dvc) {
      auto& lines = dev_lines[static_cast<size_t>(dvc)];
      uint64_t t = step_start;
      for (size_t i = 0; i < ops.size(); ++i) {
        // Op events carry only the group id; costs live on the metadata.
        Event(&lines[1], 100 + i, t, ops[i].dur_ps, {StatInt(kGroupId, st.steps)});
        t += ops[i].dur_ps + 10'000;
        ++st.xla_op_events;
        ++st.device_events;
      }
      Event(&lines[0], 10, step_start, t - step_start, {Stat(kRunId, 7), StatInt(kGroupId, st.steps)});
      Event(&lines[2], 11, step_start, t - step_start, {StatInt(kGroupId, st.steps)});
      st.device_events += 2;
      if (dvc == 0) t_ps = t + 5'000'000;
    }
    for (size_t th = 0; th < host_lines.size(); ++th) {
      uint64_t t = step_start;
      for (int k = 0; k < 200; ++k) {
        uint64_t dur = 100'000 + rng.Below(5'000'000);
        std::vector<std::string> s;
        if (k % 4 == 0) s.push_back(StatInt(kCorrelationId, static_cast<int64_t>(st.host_events)));
        Event(&host_lines[th], 1 + rng.Below(host_meta_count), t, dur, s);
        t += dur + 1000;
        ++st.host_events;
      }
    }
    ++st.steps;
    size = 0;
    for (const auto& lines : dev_lines)
      for (const auto& l : lines) size += l.bytes.size();
    for (const auto& l : host_lines) size += l.bytes.size();
  }

  for (int dvc = 0; dvc < opt.devices; ++dvc) {
    std::string plane;
    VarintField(&plane, 1, static_cast<uint64_t>(dvc));
    BytesField(&plane, 2, fmt::format("/device:TPU:{}", dvc));
    for (const Line& l : dev_lines[static_cast<size_t>(dvc)]) BytesField(&plane, 3, EncodeLine(l, kStartNs / 1000));
    EventMetadata(&plane, 10, "jit_train_step(2041036616644817336)", "jit_train_step",
                  {Stat(kProgramId, program_id)});
    EventMetadata(&plane, 11, "step", "", {});
    for (size_t i = 0; i < ops.size(); ++i) {
      const Op& op = ops[i];
      EventMetadata(&plane, 100 + i, op.text, op.display,
                    {StatStr(kHloCategory, op.category), Stat(kProgramId, program_id), Stat(kFlops, op.flops),
                     Stat(kBytesAccessed, op.bytes), StatStr(kTfOp, op.tf_op),
                     StatStr(kSource, fmt::format("/app/model.py:{}", 100 + i % 50))});
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
    for (const Line& l : host_lines) BytesField(&plane, 3, EncodeLine(l, kStartNs / 1000));
    for (uint64_t m = 1; m <= host_meta_count; ++m)
      EventMetadata(&plane, m, fmt::format("PjitFunction(train_step)::Execute#{}", m), "", {});
    StatMetadata(&plane);
    BytesField(&space, 1, plane);
  }
  if (stats) *stats = st;
  return space;
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
    o += fmt::format("  %convert.{0} = {1} convert({2} %param_0.{0}), {3}\n", L, f32act, act, md("convert", "norm/convert"));
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
    o += fmt::format("  ROOT %conv.{0} = {1} convolution({1} %param_0.m{0}, {2} %param_1.m{0}), dim_labels=bf_io->bf, {3}\n}}\n\n",
                     L, act, w, md("dot_general", "mlp/dot_general"));
    st.computations += 2;
    st.instructions += 12 + 3;
    // Entry instructions of the layer.
    entry += fmt::format("  %w.{0} = {1} parameter({2})\n  %g.{0} = {3} parameter({4})\n", L, w, param, vec, param + 1);
    param += 2;
    entry += fmt::format("  %norm.{0} = {1} fusion({1} %{2}, {3} %g.{0}), kind=kLoop, calls=%fused_norm.{0}, {4}\n", L, act,
                         prev, vec, md("mul", "norm"));
    entry += fmt::format(
        "  %cs.{0} = ({1}, {1}, u32[]{{:S(2)}}) copy-start({1} %norm.{0}), cross_program_prefetch_index=0\n", L, act);
    entry += fmt::format("  %cd.{0} = {1} copy-done(({1}, {1}, u32[]{{:S(2)}}) %cs.{0})\n", L, act);
    entry += fmt::format("  %mm.{0} = {1} fusion({1} %cd.{0}, {2} %w.{0}), kind=kOutput, calls=%fused_mm.{0}, {3}\n", L, act, w,
                         md("dot_general", "mlp/dot_general"));
    entry += fmt::format(
        "  %ar.{0} = {1} all-reduce({1} %mm.{0}), channel_id={2}, replica_groups=[2,4]<=[8], use_global_device_ids=true, "
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
