// XPlane reader: a hand-built XSpace (every field and link checked), bad
// protobuf input, and the corpus files' event counts from the reference study.
#include "io/xplane.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "../../tests/test_util.h"
#include "../../tests/xspace_util.h"
#include "io/load.h"

namespace mlprof {
namespace {

using namespace testing::xspace;  // NOLINT: Field, Event, EventMeta, MakeSpace

TEST(XPlane, HandBuiltSpace) {
  std::string bytes = MakeSpace();
  ASSERT_TRUE(LooksLikeXSpace(bytes));
  auto r = LoadTraceBytes(bytes, "t.xplane.pb");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const RankProfile& p = *r;
  EXPECT_EQ(p.format, TraceFormat::kXPlane);
  ASSERT_EQ(p.ops.size(), 3u);
  std::map<std::string, size_t> by;
  for (size_t i = 0; i < p.ops.size(); ++i) by[std::string(p.str(p.ops.name[i]))] = i;
  size_t k = by.at("gemm_fusion"), m = by.at("MemcpyH2D"), l = by.at("hipLaunchKernel");
  EXPECT_EQ(p.ops.kind[k], OpKind::kKernel);
  EXPECT_EQ(p.ops.kind[m], OpKind::kMemcpy);
  EXPECT_EQ(p.ops.kind[l], OpKind::kRuntime);
  // Origin = the earliest start (1 us + 1 us) floored to a microsecond.
  EXPECT_EQ(p.origin_abs_ps, 2 * kPsPerUs);
  EXPECT_EQ(p.ops.ts[k], 1000 * 1000 + 5000000 - 2 * kPsPerUs);
  EXPECT_EQ(p.ops.dur[k], 2500000);
  EXPECT_EQ(p.ops.launch[k], static_cast<int32_t>(l));
  EXPECT_EQ(p.ops.launch[m], -1);
  const Track& t = p.track_of(k);
  EXPECT_EQ(t.kind, TrackKind::kGpuStream);
  EXPECT_EQ(t.device, 0);
  EXPECT_EQ(t.stream, 7);
  EXPECT_EQ(p.str(t.name), "Stream #7(Kernel)");
  EXPECT_EQ(p.str(t.process_name), "/device:GPU:0");
}

// The lean path leaves the Kineto-only columns empty ("all default"), fills
// the derived ones, and the analyses that read those columns still work.
TEST(XPlane, KinetoOnlyColumnsStayEmptyAndReadAsDefaults) {
  auto r = LoadTraceBytes(MakeSpace(), "t.xplane.pb");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const OpTable& o = r->ops;
  ASSERT_EQ(o.size(), 3u);
  EXPECT_TRUE(o.external_id.empty() && o.input_dims.empty() && o.input_types.empty() && o.grid.empty() &&
              o.block.empty() && o.bytes.empty());
  EXPECT_EQ(o.parent.size(), 3u);
  EXPECT_EQ(o.depth.size(), 3u);
  EXPECT_EQ(o.launch.size(), 3u);
  EXPECT_EQ(o.step.size(), 3u);
  for (size_t i = 0; i < o.size(); ++i) {
    EXPECT_EQ(o.external_id_of(i), -1);
    EXPECT_EQ(o.input_dims_of(i), 0u);
    EXPECT_EQ(o.grid_of(i), 0u);
    EXPECT_EQ(o.bytes_of(i), -1);
    EXPECT_EQ(o.step[i], -1);
  }
}

// Times past the +-2^62 ps the model allows are counted and the event
// dropped, whether the line start (per-line base) or the event's own offset
// or duration is the cause; the events around them keep exact times.
TEST(XPlane, OutOfRangeTimesAreCountedPerEvent) {
  const uint64_t kBig = (uint64_t{1} << 62) + 5;
  auto line = [](uint64_t id, uint64_t ts_ns, const std::string& events) {
    return Field(3, Field(1, id) + Field(3, ts_ns) + events);
  };
  std::string plane = Field(2, std::string("/host:CPU")) + EventMeta(1, "op") +
                      line(1, 1000, Field(4, Event(1, 7, 3))) +  // base: 1 us
                      line(2, 5'000'000'000'000'000, Field(4, Event(1, 0, 1)) + Field(4, Event(1, 9, 1))) +
                      line(3, 2000, Field(4, Event(1, kBig, 1)) + Field(4, Event(1, 11, 2))) +
                      line(4, 3000, Field(4, Event(1, 13, kBig)));
  auto r = LoadTraceBytes(Field(1, plane), "range.xplane.pb");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->stats.Get(ImportStat::number_out_of_range), 4u);
  ASSERT_EQ(r->ops.size(), 2u);
  // Origin: 1 us + 7 ps floored = 1 us; the kept events at 7 ps and 1 us + 11 ps.
  EXPECT_EQ(r->origin_abs_ps, kPsPerUs);
  std::vector<Ps> ts(r->ops.ts.begin(), r->ops.ts.end());
  std::sort(ts.begin(), ts.end());
  EXPECT_EQ(ts, (std::vector<Ps>{7, kPsPerUs + 11}));
}

TEST(XPlane, BadProtobufIsAnErrorWithTheOffset) {
  std::string bytes = MakeSpace();
  // Cut inside a plane: the stated length runs past the end.
  auto cut = LoadTraceBytes(bytes.substr(0, bytes.size() / 2), "cut.xplane.pb");
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find(
                "cut.xplane.pb: invalid XPlane protobuf at byte 0: expected an XPlane of the stated length"),
            std::string::npos)
      << cut.status().message();
  // An absurd length inside a plane.
  std::string absurd = Field(1, Field(2, std::string("/host:CPU")) + Varint((3 << 3) | 2) + Varint(1ULL << 40));
  auto a = LoadTraceBytes(absurd, "a.xplane.pb");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("expected a valid value for XPlane field 3"), std::string::npos)
      << a.status().message();
  // A wrong wire type (group start) in an event.
  std::string line = Field(1, uint64_t{1}) + Field(4, Field(1, uint64_t{1}) + Varint((9 << 3) | 3));
  auto w = LoadTraceBytes(Field(1, Field(2, std::string("/host:CPU")) + Field(3, line)), "w.xplane.pb");
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("expected a valid value for XEvent field 9"), std::string::npos)
      << w.status().message();
  // An HloProto is recognised as not an XSpace.
  auto h = LoadTraceBytes(Field(1, Field(1, std::string("jit_f"))), "m.hlo.pb");
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.status().code(), StatusCode::kWrongFormat);
}

// Pre-aggregated events (num_occurrences, no start time) are counted, not
// placed at the line start.
TEST(XPlane, AggregatedEventsAreSkippedAndCounted) {
  std::string line = Field(1, uint64_t{1}) + Field(3, uint64_t{1000}) + Field(4, Event(1, 5000, 100)) +
                     Field(4, Field(1, uint64_t{1}) + Field(5, uint64_t{12}) + Field(3, uint64_t{900}));
  auto r = LoadTraceBytes(Field(1, Field(2, std::string("/host:CPU")) + Field(3, line) + EventMeta(1, "op")), "x.pb");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->ops.size(), 1u);
  EXPECT_EQ(r->stats.Get(ImportStat::aggregated_event), 1u);
}

// Event counts stated in ../shared/reference/xla-profiles-hlo.md section 1.7.
TEST(XPlane, CorpusCounts) {
  MLPROF_CORPUS_FILE(tpu, "xla/xprof_tpu_v6e_x4_psum_hostoffload.xplane.pb");
  auto p = LoadProfile({tpu}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  const RankProfile& r = p->ranks[0];
  EXPECT_EQ(r.ops.size(), 26723u);
  std::map<std::string, int64_t> tpu0;
  int host_lines = 0;
  std::vector<int64_t> per_track(r.tracks.size(), 0);
  for (size_t i = 0; i < r.ops.size(); ++i) per_track[r.ops.track[i]]++;
  for (size_t t = 0; t < r.tracks.size(); ++t) {
    std::string plane(r.str(r.tracks[t].process_name)), line(r.str(r.tracks[t].name));
    if (plane == "/device:TPU:0") tpu0[line] += per_track[t];
    if (plane == "/host:CPU") ++host_lines;
  }
  EXPECT_EQ(tpu0["XLA Modules"], 105);
  EXPECT_EQ(tpu0["XLA Ops"], 1504);
  EXPECT_EQ(tpu0["Async XLA Ops"], 600);
  EXPECT_EQ(tpu0["XLA TraceMe"], 108);
  EXPECT_EQ(host_lines, 122);
  // The device planes' stats, every one, as device args.
  ASSERT_FALSE(r.meta.devices.empty());
  // Independent figures: Google's published TPU v6e (v6 Lite) peaks, 918
  // TFLOP/s bf16 and 1638 GB/s of HBM (data/chips/tpu-v6e.json cites
  // them); 11 stats with a value besides the serialized core_details,
  // which is not text and is left out.
  for (uint32_t d = 0; d < r.meta.devices.size(); ++d) {
    std::map<std::string, const ArgValue*> stats;
    for (const Arg& a : r.args.Of(ArgOwner::kDevice, d)) stats[std::string(r.str(a.value.key))] = &a.value;
    EXPECT_EQ(stats.size(), 11u);
    ASSERT_TRUE(stats.count("device_type_string") && stats.count("peak_teraflops_per_second") &&
                stats.count("peak_hbm_bw_gigabytes_per_second") && stats.count("has_merged_vmem"));
    EXPECT_EQ(r.str(stats["device_type_string"]->s), "TPU v6 Lite");
    EXPECT_EQ(stats["peak_teraflops_per_second"]->r, 918.0);
    EXPECT_NEAR(stats["peak_hbm_bw_gigabytes_per_second"]->r, 1637.99, 0.005);
    EXPECT_EQ(stats["has_merged_vmem"]->i, 1);
    EXPECT_EQ(stats.count("core_details"), 0u);
  }

  MLPROF_CORPUS_FILE(v100, "xla/xprof_demo_tf_gpu_v100x8_multiworker.xplane.pb");
  auto q = LoadProfile({v100}, {});
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(q->ranks[0].ops.size(), 23128u);

  // AMD JAX gemm: 54 GPU kernels (corpus/xla/SOURCE.md), each linked to its
  // host launch through correlation_id.
  MLPROF_CORPUS_FILE(gemm, "xla/tracelens_mi300x_jax08_gemm.xplane.pb");
  auto g = LoadProfile({gemm}, {});
  ASSERT_TRUE(g.ok()) << g.status().message();
  int kernels = 0, linked = 0;
  for (size_t i = 0; i < g->ranks[0].ops.size(); ++i) {
    if (g->ranks[0].ops.kind[i] != OpKind::kKernel) continue;
    ++kernels;
    linked += g->ranks[0].ops.launch[i] >= 0;
  }
  EXPECT_EQ(kernels, 54);
  EXPECT_EQ(linked, 54);
}

}  // namespace
}  // namespace mlprof

namespace mlprof {
namespace {

using namespace testing::xspace;  // NOLINT

// Names in an XSpace are bytes: invalid UTF-8 in an event name and a plane
// name reaches the model as '?', so that JSON output parses.
TEST(XPlane, InvalidUtf8NamesAreRepaired) {
  std::string line = Field(1, uint64_t{7}) + Field(2, std::string("Stream #7(Kernel)")) + Field(3, uint64_t{1000}) +
                     Field(4, Event(1, 5000000, 2500000));
  // A plane stat (device_type_string, id 9) makes the plane a device, with
  // its name and type from the bytes.
  std::string gpu = Field(1, uint64_t{1}) + Field(2, std::string("/device:GPU:0\xff")) + Field(3, line) +
                    EventMeta(1, "gemm\xc3\x28kernel") + StatMeta(9, "device_type_string") +
                    Field(6, Field(1, uint64_t{9}) + Field(5, std::string("H100\xfe")));
  auto r = LoadTraceBytes(Field(1, gpu), "u.xplane.pb");
  ASSERT_TRUE(r.ok()) << r.status().message();
  bool found = false;
  for (size_t i = 0; i < r->strings.size(); ++i) {
    const std::string_view s = r->strings.Get(static_cast<StringId>(i));
    EXPECT_EQ(s.find('\xff'), std::string_view::npos);
    found = found || s == "gemm?(kernel";
  }
  EXPECT_TRUE(found);
  ASSERT_EQ(r->meta.devices.size(), 1u);
  EXPECT_EQ(r->meta.devices[0].name, "/device:GPU:0?");
  EXPECT_EQ(r->meta.devices[0].device_type, "H100?");
}

}  // namespace
}  // namespace mlprof
