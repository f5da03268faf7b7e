// The Perfetto export read back with the protobuf wire reader: packets,
// tracks, slices per track, flows and counters equal the model's, slices
// nest on every track, times never go back within a sequence, and every
// interned name is defined before it is used. Field numbers are Perfetto's
// (protos/perfetto/trace/trace_packet.proto, track_event/*.proto).
#include "export/perfetto.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>

#include "../../tests/corpus_util.h"
#include "../../tests/test_util.h"
#include "analysis/counters.h"
#include "analysis/launches.h"
#include "base/proto_wire.h"
#include "io/load.h"

namespace mlprof {
namespace {

struct ReadBack {
  uint64_t packets = 0;
  std::map<uint64_t, std::string> track_name;  // uuid -> name
  std::map<uint64_t, uint64_t> track_parent;
  std::set<uint64_t> counter_tracks, process_tracks, thread_tracks;
  std::map<uint64_t, uint64_t> begins, instants, counters;  // per track uuid
  std::multiset<uint64_t> flow_out, flow_in;
  std::map<uint64_t, std::string> first_name;  // track uuid -> name of its first slice
  // Debug annotations named in place (the trace's other args): name -> values
  // as text ("i:5", "d:19.5", "s:abc").
  std::map<std::string, std::vector<std::string>> named_args;
  // Debug annotations with interned names: name -> values as text.
  std::map<std::string, std::vector<std::string>> interned_args;
  bool nested = true, ordered = true, interned = true;
  std::string error;
};

bool Sub(proto::Wire& w, std::string_view* s) { return w.Bytes(s); }

// Reads a whole trace, checking what each packet says as it goes.
ReadBack ReadPerfetto(const std::string& bytes) {
  ReadBack rb;
  proto::Wire top(bytes.data(), bytes);
  std::map<uint64_t, uint64_t> last_ts;                           // per sequence
  std::map<uint64_t, std::map<uint64_t, std::string>> names;      // per sequence: iid -> name
  std::map<uint64_t, std::map<uint64_t, std::string>> ann_names;  // per sequence: debug annotation names
  std::map<uint64_t, int> depth;                                  // per track
  while (!top.done()) {
    uint32_t field = 0, type = 0;
    std::string_view packet;
    if (!top.Tag(&field, &type) || field != 1 || type != proto::kLen || !Sub(top, &packet)) {
      rb.error = "not a Trace of packets";
      return rb;
    }
    ++rb.packets;
    proto::Wire p(bytes.data(), packet);
    uint64_t ts = 0, seq = 0, flags = 0;
    std::string_view event, descriptor, interned;
    while (!p.done()) {
      if (!p.Tag(&field, &type)) return rb.error = "bad packet", rb;
      uint64_t v = 0;
      std::string_view s;
      if (type == proto::kVarint) {
        p.Varint(&v);
      } else if (type == proto::kLen) {
        Sub(p, &s);
      } else {
        return rb.error = "unexpected wire type in a packet", rb;
      }
      if (field == 8) ts = v;
      if (field == 10) seq = v;
      if (field == 13) flags = v;
      if (field == 11) event = s;
      if (field == 60) descriptor = s;
      if (field == 12) interned = s;
    }
    if (!descriptor.empty()) {
      proto::Wire d(bytes.data(), descriptor);
      uint64_t uuid = 0, parent = 0;
      std::string name;
      bool counter = false, process = false, thread = false;
      while (!d.done()) {
        d.Tag(&field, &type);
        uint64_t v = 0;
        std::string_view s;
        if (type == proto::kVarint) d.Varint(&v);
        if (type == proto::kLen) Sub(d, &s);
        if (field == 1) uuid = v;
        if (field == 5) parent = v;
        if (field == 2) name = std::string(s);
        if (field == 8) counter = true;
        if (field == 3 || field == 4) {
          (field == 3 ? process : thread) = true;
          proto::Wire x(bytes.data(), s);
          while (!x.done()) {
            uint32_t xf = 0, xt = 0;
            x.Tag(&xf, &xt);
            uint64_t xv = 0;
            std::string_view xs;
            if (xt == proto::kVarint) x.Varint(&xv);
            if (xt == proto::kLen) Sub(x, &xs);
            if ((field == 3 && xf == 6) || (field == 4 && xf == 5)) name = std::string(xs);
          }
        }
      }
      rb.track_name[uuid] = name;
      rb.track_parent[uuid] = parent;
      if (counter) rb.counter_tracks.insert(uuid);
      if (process) rb.process_tracks.insert(uuid);
      if (thread) rb.thread_tracks.insert(uuid);
    }
    if (event.empty()) continue;
    if (flags & 1) names[seq].clear(), ann_names[seq].clear();
    if (last_ts.count(seq) && ts < last_ts[seq]) rb.ordered = false;
    last_ts[seq] = ts;
    // Interned names of this packet.
    proto::Wire in(bytes.data(), interned);
    while (!in.done()) {
      in.Tag(&field, &type);
      std::string_view s;
      Sub(in, &s);
      if (field != 2 && field != 3) continue;  // event_names, debug_annotation_names
      proto::Wire e(bytes.data(), s);
      uint64_t iid = 0;
      std::string name;
      while (!e.done()) {
        uint32_t ef = 0, et = 0;
        e.Tag(&ef, &et);
        if (et == proto::kVarint) e.Varint(&iid);
        std::string_view es;
        if (et == proto::kLen) Sub(e, &es), name = std::string(es);
      }
      (field == 2 ? names : ann_names)[seq][iid] = name;
    }
    proto::Wire e(bytes.data(), event);
    uint64_t etype = 0, track = 0, name_iid = 0;
    while (!e.done()) {
      e.Tag(&field, &type);
      uint64_t v = 0;
      std::string_view s;
      if (type == proto::kVarint) e.Varint(&v);
      if (type == proto::kLen) Sub(e, &s);
      if (type == proto::kFixed64) {
        uint64_t x = 0;
        e.Fixed64(&x);
        if (field == 47) rb.flow_out.insert(x);
        if (field == 48) rb.flow_in.insert(x);
      }
      if (field == 4 && type == proto::kLen) {  // a DebugAnnotation
        proto::Wire a(bytes.data(), s);
        std::string name, value;
        uint64_t name_iid_of_ann = 0;
        while (!a.done()) {
          uint32_t af = 0, at = 0;
          a.Tag(&af, &at);
          uint64_t av = 0;
          std::string_view as;
          if (at == proto::kVarint) a.Varint(&av);
          if (at == proto::kLen) Sub(a, &as);
          if (at == proto::kFixed64) {
            uint64_t bits = 0;
            a.Fixed64(&bits);
            double d;
            std::memcpy(&d, &bits, sizeof d);
            if (af == 5) value = fmt::format("d:{}", d);
          }
          if (af == 10) name = std::string(as);
          if (af == 1 && at == proto::kVarint) name_iid_of_ann = av;
          if (af == 4) value = fmt::format("i:{}", static_cast<int64_t>(av));
          if (af == 6) value = "s:" + std::string(as);
        }
        if (!name.empty()) rb.named_args[name].push_back(value);
        if (name_iid_of_ann && ann_names[seq].count(name_iid_of_ann))
          rb.interned_args[ann_names[seq][name_iid_of_ann]].push_back(value);
      }
      if (field == 9) etype = v;
      if (field == 11) track = v;
      if (field == 10) name_iid = v;
    }
    if (name_iid && !names[seq].count(name_iid)) rb.interned = false;
    if (etype == 1) {
      ++rb.begins[track];
      if (++depth[track] == 1 && !rb.first_name.count(track)) rb.first_name[track] = names[seq][name_iid];
    } else if (etype == 2) {
      if (--depth[track] < 0) rb.nested = false;
    } else if (etype == 3) {
      ++rb.instants[track];
    } else if (etype == 4) {
      ++rb.counters[track];
    }
  }
  for (auto& [t, d] : depth)
    if (d != 0) rb.nested = false;
  return rb;
}

std::string Export(const Profile& p, PerfettoStats* stats) {
  std::FILE* f = std::tmpfile();
  EXPECT_NE(f, nullptr);
  auto r = WritePerfetto(p, f, "tmp");
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (r.ok()) *stats = *r;
  std::string bytes(static_cast<size_t>(std::ftell(f)), '\0');
  std::rewind(f);
  EXPECT_EQ(std::fread(bytes.data(), 1, bytes.size(), f), bytes.size());
  std::fclose(f);
  return bytes;
}

TEST(Perfetto, ExampleReadsBackAsTheModel) {
  auto p = LoadProfile({std::string(MLPROF_SOURCE_DIR) + "/examples/two_rank"}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  PerfettoStats st;
  const std::string bytes = Export(*p, &st);
  const ReadBack rb = ReadPerfetto(bytes);
  ASSERT_TRUE(rb.error.empty()) << rb.error;
  EXPECT_EQ(st.bytes, bytes.size());
  EXPECT_EQ(rb.packets, st.packets);
  EXPECT_TRUE(rb.nested);
  EXPECT_TRUE(rb.ordered);
  EXPECT_TRUE(rb.interned);
  // Model truth: ops, launches with GPU work, tracks.
  uint64_t ops = 0, flows = 0, used_tracks = 0;
  for (const RankProfile& r : p->ranks) {
    ops += r.ops.size();
    std::set<int32_t> launches;
    std::set<uint32_t> tracks;
    for (size_t i = 0; i < r.ops.size(); ++i) {
      tracks.insert(r.ops.track[i]);
      if (r.ops.launch[i] >= 0 && IsGpuOp(r.ops.kind[i])) launches.insert(r.ops.launch[i]);
    }
    flows += launches.size();
    used_tracks += tracks.size();
  }
  uint64_t begins = 0;
  for (auto& [t, n] : rb.begins) begins += n;
  EXPECT_EQ(begins, ops);  // no instants in the example
  EXPECT_EQ(st.slices, ops);
  EXPECT_EQ(rb.flow_out.size(), flows);
  EXPECT_EQ(rb.flow_in.size(), flows);
  EXPECT_EQ(rb.flow_out, rb.flow_in);
  EXPECT_EQ(st.flows, flows);
  // One process per rank; every model track with ops is a track (the
  // example nests everywhere: no overlap lanes).
  EXPECT_EQ(rb.process_tracks.size(), p->ranks.size());
  // and the derived counter tracks: a launch queue per stream with launched
  // work, a bandwidth track per copy kind (analysis/counters_test.cc).
  size_t derived = 0;
  for (const RankProfile& r : p->ranks) derived += QueueLengthSeriesOf(r).size() + MemoryBwSeriesOf(r, 0).size();
  EXPECT_GT(derived, 0u);
  EXPECT_EQ(rb.track_name.size(), p->ranks.size() + used_tracks + derived);
  for (const auto& [uuid, parent] : rb.track_parent)
    if (!rb.process_tracks.count(uuid)) {
      EXPECT_TRUE(rb.process_tracks.count(parent)) << rb.track_name.at(uuid);
    }
}

// Overlapping slices that do not nest go to a second lane; instants and
// counters are written; flows pair launch and kernel.
TEST(Perfetto, OverlapLanesInstantsCounters) {
  Profile p = testing::ProfileFromJson(R"({"traceEvents":[
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":0,"dur":2,"args":{"correlation":5}},
    {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":7,"ts":10,"dur":10,"args":{"stream":7,"correlation":5}},
    {"ph":"X","cat":"kernel","name":"b","pid":0,"tid":7,"ts":15,"dur":10,"args":{"stream":7}},
    {"ph":"X","cat":"kernel","name":"c","pid":0,"tid":7,"ts":16,"dur":2,"args":{"stream":7}},
    {"ph":"i","s":"t","name":"mark","pid":1,"tid":1,"ts":1},
    {"ph":"C","name":"mem","pid":1,"tid":1,"ts":3,"args":{"bytes":10}},
    {"ph":"C","name":"mem","pid":1,"tid":1,"ts":4,"args":{"bytes":20}},
    {"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":5,"args":{"Device Id":0,"Device Type":1,"Bytes":512,"Total Allocated":512,"Total Reserved":2048}},
    {"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":6,"args":{"Device Id":0,"Device Type":1,"Bytes":-512,"Total Allocated":0,"Total Reserved":2048}}
  ]})");
  PerfettoStats st;
  const ReadBack rb = ReadPerfetto(Export(p, &st));
  ASSERT_TRUE(rb.error.empty()) << rb.error;
  EXPECT_TRUE(rb.nested);
  EXPECT_TRUE(rb.ordered);
  EXPECT_TRUE(rb.interned);
  // a [10,20) and c [16,18) nest on the stream's track; b [15,25) overlaps a
  // without nesting: its own lane.
  uint64_t stream = 0, lane = 0;
  for (const auto& [uuid, name] : rb.track_name) {
    if (name == "GPU 0 stream 7") stream = uuid;
    if (name == "GPU 0 stream 7 (overlap 1)") lane = uuid;
  }
  ASSERT_NE(stream, 0u);
  ASSERT_NE(lane, 0u);
  EXPECT_EQ(rb.begins.at(stream), 2u);
  EXPECT_EQ(rb.begins.at(lane), 1u);
  EXPECT_EQ(rb.first_name.at(lane), "b");
  EXPECT_EQ(st.instants, 3u);  // the mark and the two memory events
  // The counter event's series, the memory events as the allocator's
  // allocated and reserved bytes on device 0, and the launch queue of stream
  // 7 (kernel a's call: +1, then -1 when a starts): 2 + 2 + 2 + 2 values.
  EXPECT_EQ(st.counters, 8u);
  ASSERT_EQ(rb.counter_tracks.size(), 4u);
  std::map<std::string, uint64_t> values;
  for (uint64_t t : rb.counter_tracks) values[rb.track_name.at(t)] = rb.counters.at(t);
  EXPECT_EQ(values["mem.bytes"], 2u);
  EXPECT_EQ(values["launch queue (GPU 0 stream 7)"], 2u);
  EXPECT_EQ(values["memory allocated (device 0), bytes"], 2u);
  EXPECT_EQ(values["memory reserved (device 0), bytes"], 2u);
  EXPECT_EQ(rb.flow_out.size(), 1u);
  EXPECT_EQ(rb.flow_out, rb.flow_in);
}

// A real trace's allocator timeline: HTA's V100 trace holds 28,010 "[memory]"
// events (26,770 on device 1, 1,240 on the CPU), each with Total Allocated
// and Total Reserved (counted with Python's json module), so 56,020 counter
// values on four counter tracks. The derived tracks add 50,420 (counted the
// same way): the launch queues of streams 7 and 14 (2 points per launched op:
// 40,540 and 4,040) and the bandwidth of DtoD copies (4,080) and memsets
// (1,760; 2 points per op with a byte count).
TEST(Perfetto, MemoryEventsBecomeCounterTracks) {
  MLPROF_CORPUS_FILE(f, "kineto/hta_v100_ws2_rank1_nccl/df_index_resolver.json.gz");
  auto p = LoadProfile({f}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  PerfettoStats st;
  const ReadBack rb = ReadPerfetto(Export(*p, &st));
  ASSERT_TRUE(rb.error.empty()) << rb.error;
  EXPECT_EQ(st.counters, 56020u + 50420u);
  std::map<std::string, uint64_t> values;
  for (uint64_t t : rb.counter_tracks) values[rb.track_name.at(t)] = rb.counters.at(t);
  EXPECT_EQ(values["launch queue (GPU 1 stream 7)"], 40540u);
  EXPECT_EQ(values["launch queue (GPU 1 stream 14)"], 4040u);
  EXPECT_EQ(values["Memcpy DtoD bandwidth, GB/s"], 4080u);
  EXPECT_EQ(values["Memset bandwidth, GB/s"], 1760u);
  EXPECT_EQ(values["memory allocated (device 1), bytes"], 26770u);
  EXPECT_EQ(values["memory reserved (device 1), bytes"], 26770u);
  EXPECT_EQ(values["memory allocated (CPU), bytes"], 1240u);
  EXPECT_EQ(values["memory reserved (CPU), bytes"], 1240u);
  EXPECT_TRUE(rb.nested);
  EXPECT_TRUE(rb.ordered);
}

// The trace's other args (read with ReadOptions::all_args) travel as debug
// annotations named in place, with their types: the vendor fixture's six
// slices (tests/data/sql/vendor_args.json).
TEST(Perfetto, OtherArgsBecomeNamedAnnotations) {
  LoadOptions lo;
  lo.all_args = true;
  auto p = LoadProfile({std::string(MLPROF_SOURCE_DIR) + "/tests/data/sql/vendor_args.json"}, lo);
  ASSERT_TRUE(p.ok()) << p.status().message();
  PerfettoStats st;
  const ReadBack rb = ReadPerfetto(Export(*p, &st));
  ASSERT_TRUE(rb.error.empty()) << rb.error;
  EXPECT_EQ(rb.named_args.at("DDR Bandwidth(GB/s)"),
            (std::vector<std::string>{"d:4", "d:8.5", "d:19.5", "d:21", "d:30", "d:5"}));
  EXPECT_EQ(rb.named_args.at("uArch Rate"),
            (std::vector<std::string>{"s:55.0", "s:38.25", "s:12.5", "s:90", "s:70.5", "s:39.9"}));
  // Without all_args the reader keeps only what mlprof analyses.
  auto lean = LoadProfile({std::string(MLPROF_SOURCE_DIR) + "/tests/data/sql/vendor_args.json"}, {});
  ASSERT_TRUE(lean.ok());
  EXPECT_TRUE(ReadPerfetto(Export(*lean, &st)).named_args.empty());
}

// Marks (mlprof critical-path --perfetto): the ops given critical = 1 and
// the flows between ops, apart from the launch flows.
TEST(Perfetto, MarksBecomeCriticalArgsAndFlows) {
  auto p = LoadProfile({std::string(MLPROF_SOURCE_DIR) + "/examples/two_rank/rank-0.json.gz"}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  const RankProfile& r = p->ranks[0];
  PerfettoMarks marks;
  marks.critical.assign(1, std::vector<uint8_t>(r.ops.size(), 0));
  marks.critical[0][0] = marks.critical[0][5] = marks.critical[0][9] = 1;
  marks.flows.resize(1);
  marks.flows[0] = {{0, 5}, {5, 9}};
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  auto w = WritePerfetto(*p, f, "tmp", &marks);
  ASSERT_TRUE(w.ok()) << w.status().message();
  std::string bytes(static_cast<size_t>(std::ftell(f)), '\0');
  std::rewind(f);
  ASSERT_EQ(std::fread(bytes.data(), 1, bytes.size(), f), bytes.size());
  std::fclose(f);
  const ReadBack rb = ReadPerfetto(bytes);
  ASSERT_TRUE(rb.error.empty()) << rb.error;
  ASSERT_TRUE(rb.interned_args.count("critical"));
  EXPECT_EQ(rb.interned_args.at("critical").size(), 3u);
  size_t marked_out = 0, marked_in = 0;
  for (uint64_t id : rb.flow_out) marked_out += id >> 63;
  for (uint64_t id : rb.flow_in) marked_in += id >> 63;
  EXPECT_EQ(marked_out, 2u);
  EXPECT_EQ(marked_in, 2u);
  // Without marks: none.
  PerfettoStats st;
  const ReadBack plain = ReadPerfetto(Export(*p, &st));
  EXPECT_FALSE(plain.interned_args.count("critical"));
  for (uint64_t id : plain.flow_out) EXPECT_EQ(id >> 63, 0u);
}

}  // namespace
}  // namespace mlprof
