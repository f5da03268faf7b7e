// The MPI path without MPI: K threads each run RunDistributed over a shared
// in-memory transport; process 0's report must render byte-identically to
// one process's. mpirun runs the same code over MPI (tests/mpi_test.sh).
#include "app/distributed.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <fstream>
#include <functional>
#include <iterator>
#include <mutex>
#include <thread>

#include "../../tests/corpus_util.h"
#include "app/commands.h"
#include "io/load.h"
#include "report/columns.h"
#include "report/gpu_tables.h"
#include "report/serialize.h"

namespace mlprof::app {
namespace {

class ThreadComm : public Comm {
 public:
  struct Shared {
    explicit Shared(int n) : n(n), slots(static_cast<size_t>(n)) {}
    int n;
    std::mutex mu;
    std::condition_variable cv;
    std::vector<std::string> slots, result;
    int arrived = 0;
    uint64_t round = 0;
  };
  ThreadComm(Shared* shared, int process) : shared_(shared), process_(process) {}
  int process() const override { return process_; }
  int size() const override { return shared_->n; }
  std::vector<std::string> AllGather(std::string bytes) override {
    std::unique_lock<std::mutex> lock(shared_->mu);
    shared_->slots[static_cast<size_t>(process_)] = std::move(bytes);
    const uint64_t round = shared_->round;
    if (++shared_->arrived == shared_->n) {
      shared_->result = shared_->slots;
      shared_->arrived = 0;
      ++shared_->round;
      shared_->cv.notify_all();
    } else {
      shared_->cv.wait(lock, [&] { return shared_->round != round; });
    }
    return shared_->result;
  }
  std::vector<std::string> Gather(std::string bytes) override {
    std::vector<std::string> all = AllGather(std::move(bytes));
    return process_ == 0 ? all : std::vector<std::string>{};
  }

 private:
  Shared* shared_;
  int process_;
};

// Process 0's outcome of K threads each running `run` over its transport.
StatusOr<Report> RunOnThreads(const std::function<StatusOr<std::optional<Report>>(Comm&)>& run, int k) {
  ThreadComm::Shared shared(k);
  std::vector<StatusOr<std::optional<Report>>> out(static_cast<size_t>(k), Internal("not run"));
  std::vector<std::thread> threads;
  for (int p = 0; p < k; ++p)
    threads.emplace_back([&, p] {
      ThreadComm comm(&shared, p);
      out[static_cast<size_t>(p)] = run(comm);
    });
  for (auto& t : threads) t.join();
  for (int p = 1; p < k; ++p) {
    const auto& o = out[static_cast<size_t>(p)];
    if (o.ok() && o->has_value()) return Internal("a process other than 0 got a report");
  }
  if (!out[0].ok()) return out[0].status();
  if (!out[0]->has_value()) return Internal("process 0 got no report");
  return std::move(**out[0]);
}
StatusOr<Report> RunOnThreads(const InputOptions& in, const Sharded& c, int k) {
  return RunOnThreads([&](Comm& comm) { return RunDistributed(in, c, comm); }, k);
}

std::string Rendered(const Report& r) {
  std::string all = RenderText(r, 120) + RenderJson(r) + RenderCsv(r);
  for (const auto& w : r.warnings) all += "warning: " + w + "\n";
  return all;
}

void ExpectSameOverProcesses(const std::vector<std::string>& paths, InputOptions in = {}) {
  in.paths = paths;
  in.threads = 1;
  auto session = OpenSession(in, nullptr);
  ASSERT_TRUE(session.ok()) << session.status().message();
  SummaryOptions so;
  DiagnoseOptions dopt;
  StatsOptions sto;
  sto.top = 3;
  OpsOptions ops3, ops_stack;
  ops3.top = 3;
  ops_stack.by_name = true;
  ops_stack.by_stack = 2;
  RooflineOptions ro3;
  ro3.top = 3;
  ro3.chip = "h100";
  ScopesOptions sc3;
  sc3.top = 3;
  IdleOptions io;
  io.intervals = true;
  struct Case {
    std::string name;
    Sharded sharded;
    std::function<Report(const Session&)> direct;  // one process, as the CLI runs it
  };
  auto via = [](Sharded c) { return [c](const Session& s) { return RunShardedReport(s, c); }; };
  std::vector<Case> commands = {
      {"summary", SummarySharded(so, in.all_steps), via(SummarySharded(so, in.all_steps))},
      {"diagnose", DiagnoseSharded(dopt), via(DiagnoseSharded(dopt))},
      {"kernels --top 3", KernelsSharded({3}), [](const Session& s) { return Kernels(s, {3}); }},
      {"idle --intervals", PerRankSharded([io](const Session& s) { return Idle(s, io); }),
       [io](const Session& s) { return Idle(s, io); }},
      {"overlap", PerRankSharded(Overlap), Overlap},
      {"engines --top 3", EnginesSharded({3}), [](const Session& s) { return Engines(s, {3}); }},
      {"overview", OverviewSharded(), Overview},
      {"steps", StepsSharded({}), [](const Session& s) { return Steps(s, {}); }},
      {"memory --top 3", MemorySharded({3}), [](const Session& s) { return Memory(s, {3}); }},
      {"counters --top 3", CountersSharded({3}), [](const Session& s) { return Counters(s, {3}); }},
      {"modules --top 3", ModulesSharded({3}), [](const Session& s) { return Modules(s, {3}); }},
      {"roofline --top 3 --chip h100", RooflineSharded(ro3),
       [ro3](const Session& s) {
         auto r = Roofline(s, ro3);
         return r.ok() ? std::move(r->report) : Report{};
       }},
      {"modules", ModulesSharded({0}), [](const Session& s) { return Modules(s, {0}); }},
      {"scopes --top 3", ScopesSharded(sc3), [sc3](const Session& s) { return Scopes(s, sc3); }},
      {"ops --top 3", OpsSharded(ops3), [ops3](const Session& s) { return Ops(s, ops3); }},
      {"ops --by-name --by-stack 2", OpsSharded(ops_stack),
       [ops_stack](const Session& s) { return Ops(s, ops_stack); }},
      {"launches", PerRankSharded(Launches), Launches},
      {"info", PerRankSharded(Info), Info},
      {"stats --top 3", PerRankSharded([sto](const Session& s) { return Stats(s, sto); }),
       [sto](const Session& s) { return Stats(s, sto); }},
  };
  for (const Case& c : commands) {
    Report direct = c.direct(*session);
    if (!direct.grade) direct.grade = FullGrade(*session);  // as the CLI adds it (cli/options.cc)
    const std::string want = Rendered(direct);
    for (int k : {2, 3, 5}) {
      auto many = RunOnThreads(in, c.sharded, k);
      ASSERT_TRUE(many.ok()) << c.name << " on " << k << ": " << many.status().message();
      EXPECT_EQ(Rendered(*many), want) << c.name << " over " << k << " processes: " << paths.front();
    }
  }
}

std::string FileBytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// mlprof report's pages over K processes against one process's: byte for
// byte (the trace files are one process's only).
void ExpectSameReport(const std::vector<std::string>& paths) {
  InputOptions in;
  in.paths = paths;
  in.threads = 1;
  auto session = OpenSession(in, nullptr);
  ASSERT_TRUE(session.ok()) << session.status().message();
  const std::string dir = ::testing::TempDir() + "/mlprof_report_mpi";
  ReportOptions o;
  o.force = true;
  o.perfetto = o.sqlite = false;
  o.dir = dir + "/one";
  auto one = WriteReport(*session, o);
  ASSERT_TRUE(one.ok()) << one.status().message();
  for (int k : {2, 3}) {
    ReportOptions ok = o;
    ok.dir = dir + "/k" + std::to_string(k);
    auto many = RunOnThreads(in, ReportSharded(ok, false), k);
    ASSERT_TRUE(many.ok()) << k << ": " << many.status().message();
    EXPECT_EQ(many->warnings, one->warnings);
    for (const char* f : {"summary.txt", "report.html"}) {
      const std::string want = FileBytes(o.dir + "/" + f);
      EXPECT_FALSE(want.empty()) << f;
      EXPECT_TRUE(FileBytes(ok.dir + "/" + f) == want) << f << " over " << k << " processes: " << paths.front();
    }
    // The workbook holds the time it was written (docProps/core.xml):
    // tests/mpi_test.sh compares its other members.
    EXPECT_FALSE(FileBytes(ok.dir + "/report.xlsx").empty());
  }
}

TEST(Distributed, ReportSameAsOneProcess) {
  ExpectSameReport({std::string(MLPROF_SOURCE_DIR) + "/examples/two_rank"});
  ExpectSameReport({std::string(MLPROF_SOURCE_DIR) + "/examples/two_rank/rank-1.json.gz",
                    std::string(MLPROF_SOURCE_DIR) + "/examples/two_rank/rank-0.json.gz"});
  for (const char* rel : {"kineto/hta_sampled_2rank_nccl", "ascend/msinsight_2rank/db/level1"}) {
    MLPROF_CORPUS_FILE(path, rel);
    ExpectSameReport({path});
  }
  MLPROF_CORPUS_FILE(tpu, "xla/xprof_tpu_v6e_x4_psum_hostoffload.xplane.pb");
  MLPROF_CORPUS_FILE(cupti, "kineto/hta_cupti_profiler/benchmark_result_924719_1679055439_trace.json.gz");
  ExpectSameReport({tpu, std::string(MLPROF_SOURCE_DIR) + "/examples/two_rank/rank-1.json.gz", cupti});
}

TEST(Distributed, ShareFilesIsContiguousAndBalanced) {
  auto s = ShareFiles({10, 10, 10, 10}, 2);
  EXPECT_EQ(s, (std::vector<std::pair<size_t, size_t>>{{0, 2}, {2, 4}}));
  s = ShareFiles({30, 10, 10, 10}, 2);  // the first file is half the bytes
  EXPECT_EQ(s, (std::vector<std::pair<size_t, size_t>>{{0, 1}, {1, 4}}));
  s = ShareFiles({5}, 3);  // more processes than files: some read none
  EXPECT_EQ(s.size(), 3u);
  size_t files = 0;
  for (auto [a, b] : s) files += b - a;
  EXPECT_EQ(files, 1u);
  s = ShareFiles({}, 2);
  EXPECT_EQ(s, (std::vector<std::pair<size_t, size_t>>{{0, 0}, {0, 0}}));
}

// A rank with several devices on one process, one-device ranks on another:
// the device column padded with nulls, its note first; "N more rows" summed.
TEST(Distributed, ConcatByRankPadsDevicesAndSumsHiddenRows) {
  auto table = [](bool per_device, std::vector<int64_t> ranks, size_t hidden) {
    Table t("t", "title");
    t.Add(RankKey());
    if (per_device) t.Add(Key("device", Unit::kId, "d"));
    t.Add(Measure("x", Unit::kCount, "x"));
    for (int64_t r : ranks) {
      std::vector<Cell> row{Cell::Int(r)};
      if (per_device) row.push_back(Cell::Int(7));
      row.push_back(Cell::Int(r * 10));
      t.rows.push_back(std::move(row));
    }
    if (per_device) t.notes.push_back(kPerDeviceNote);
    t.notes.push_back("shared");
    NoteHiddenRows(t, hidden);
    Report r;
    r.tables.push_back(std::move(t));
    return r;
  };
  const std::vector<Report> shards = {table(false, {3}, 2), table(true, {1, 1}, 1), table(false, {}, 0)};
  auto t = ConcatByRank(shards, "t");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->columns.size(), 3u);
  EXPECT_EQ(t->columns[1].name, "device");
  ASSERT_EQ(t->rows.size(), 3u);
  EXPECT_EQ(IntAt(t->rows[0], 0), 1);
  EXPECT_EQ(IntAt(t->rows[0], 1), 7);
  EXPECT_EQ(IntAt(t->rows[2], 0), 3);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(t->rows[2][1].value));
  EXPECT_EQ(IntAt(t->rows[2], 2), 30);
  EXPECT_EQ(t->notes, (std::vector<std::string>{kPerDeviceNote, "shared", "3 more rows (--top 0 for all)."}));
  // Columns that differ otherwise: merged by name, in rank order.
  Report other = table(false, {5}, 0);
  other.tables[0].columns[1].name = "y";
  auto xy = ConcatByRank({other, table(false, {3}, 0)}, "t");
  ASSERT_TRUE(xy.ok());
  ASSERT_EQ(xy->columns.size(), 3u);
  EXPECT_EQ(xy->columns[1].name, "x");
  EXPECT_EQ(xy->columns[2].name, "y");
  // A column twice in one part: refused, never mixed.
  Report twice = table(false, {5}, 0);
  twice.tables[0].columns[1].name = "rank";
  EXPECT_FALSE(ConcatByRank({table(false, {3}, 0), twice}, "t").ok());
  // Counter columns in first-seen order over the ranks (rank 0 has a and c,
  // rank 1 a, b and c: one process gives a, c, b), whichever process is first.
  auto counters = [](int64_t rank, std::vector<std::string> names, std::vector<std::string> notes) {
    Table t("units", "");
    t.Add(RankKey());
    std::vector<Cell> row{Cell::Int(rank)};
    for (const auto& n : names) t.Add(Measure(n, Unit::kRatio, "")), row.push_back(Cell::Text(n));
    if (rank >= 0) t.rows.push_back(std::move(row));
    t.notes = std::move(notes);
    Report r;
    r.tables.push_back(std::move(t));
    return r;
  };
  auto u = ConcatByRank({counters(1, {"a", "b", "c"}, {"n"}), counters(0, {"a", "c"}, {"n"}),
                         counters(-1, {}, {"rank 5: a note about a rank without rows", "the table is empty"})},
                        "units");
  ASSERT_TRUE(u.ok()) << u.status().message();
  std::vector<std::string> names;
  for (const Column& c : u->columns) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"rank", "a", "c", "b"}));
  ASSERT_EQ(u->rows.size(), 2u);
  EXPECT_EQ(TextAt(u->rows[0], 2), "c");
  EXPECT_TRUE(std::holds_alternative<std::monostate>(u->rows[0][3].value));
  EXPECT_EQ(TextAt(u->rows[1], 2), "c");
  EXPECT_EQ(TextAt(u->rows[1], 3), "b");
  // A part without rows keeps only its notes about one rank; notes about one
  // rank come before the notes never seen beside one (as NoteHiddenRows'
  // "N more rows" after the per-device notes of memory's tables).
  EXPECT_EQ(u->notes, (std::vector<std::string>{"rank 5: a note about a rank without rows", "n"}));
  EXPECT_EQ(HiddenRowsIn("1 more row (--top 0 for all)."), 1u);
  EXPECT_EQ(HiddenRowsIn("12 more rows (--top 0 for all)."), 12u);
  EXPECT_EQ(HiddenRowsIn("12 more rows"), 0u);
}

TEST(Distributed, ReportRoundTripsExactly) {
  Report r;
  r.warnings = {"w1", ""};
  r.gate_failed = true;
  Table t("id", "title");
  t.Add(Key("rank", Unit::kId, "d")).Add(Measure("x", Unit::kTime, "t").Us().Symbol());
  t.rows.push_back({Cell::Int(-5), Cell::Real(0.1 + 0.2)});
  t.rows.push_back({Cell::Null(), Cell::Text("a\0b").Shown("shown")});
  t.notes = {"n"};
  r.tables.push_back(t);
  auto back = DecodeReport(EncodeReport(r));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(EncodeReport(*back), EncodeReport(r));
  EXPECT_EQ(std::get<double>(back->tables[0].rows[0][1].value), 0.1 + 0.2);
  EXPECT_EQ(back->tables[0].columns[1].label, "x_us");
  EXPECT_TRUE(back->tables[0].columns[1].symbol);
  EXPECT_TRUE(back->gate_failed);
  // Every truncation is an error naming its offset, never a crash.
  const std::string bytes = EncodeReport(r);
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto cut = DecodeReport(std::string_view(bytes).substr(0, n));
    EXPECT_FALSE(cut.ok()) << n;
  }
  EXPECT_FALSE(DecodeReport(bytes + "x").ok());
}

TEST(Distributed, SameAsOneProcessOnTheExample) {
  ExpectSameOverProcesses({std::string(MLPROF_SOURCE_DIR) + "/examples/two_rank"});
  InputOptions rank1;
  rank1.rank = 1;
  ExpectSameOverProcesses({std::string(MLPROF_SOURCE_DIR) + "/examples/two_rank"}, rank1);
  InputOptions all_steps;
  all_steps.all_steps = true;
  ExpectSameOverProcesses({std::string(MLPROF_SOURCE_DIR) + "/examples/two_rank"}, all_steps);
  // Files not in rank order: process 0 reads rank 1, process 1 rank 0.
  ExpectSameOverProcesses({std::string(MLPROF_SOURCE_DIR) + "/examples/two_rank/rank-1.json.gz",
                           std::string(MLPROF_SOURCE_DIR) + "/examples/two_rank/rank-0.json.gz"});
}

TEST(Distributed, SameAsOneProcessOnCorpusJobs) {
  for (const char* rel : {"kineto/hta_sampled_2rank_nccl", "kineto/tbplugin_resnet50", "kineto/hta_amd_mi250",
                          "ascend/msinsight_2rank/db/level1", "ascend/msinsight_2rank/text/level2",
                          "ascend/msinsight_16rank_partial", "xla/xprof_demo_tf_gpu_v100x8_multiworker.xplane.pb"}) {
    MLPROF_CORPUS_FILE(path, rel);
    SCOPED_TRACE(rel);
    ExpectSameOverProcesses({path});
  }
  // Several files read as the ranks of one job, of different kinds: XLA ranks
  // (a table group each) beside each other and beside a PyTorch rank.
  MLPROF_CORPUS_FILE(gemm, "xla/tracelens_mi300x_jax08_gemm.xplane.pb");
  MLPROF_CORPUS_FILE(attention, "xla/tracelens_mi300x_jax08_attention.xplane.pb");
  MLPROF_CORPUS_FILE(tpu, "xla/xprof_tpu_v6e_x4_psum_hostoffload.xplane.pb");
  MLPROF_CORPUS_FILE(inference, "kineto/hta_inference");
  ExpectSameOverProcesses({gemm, attention, tpu});
  ExpectSameOverProcesses({tpu, std::string(MLPROF_SOURCE_DIR) + "/examples/two_rank/rank-1.json.gz", gemm});
  ExpectSameOverProcesses({inference});
  // CUPTI counters (a table group per rank) and a memory timeline beside
  // ranks with allocator events and without.
  MLPROF_CORPUS_FILE(cupti, "kineto/hta_cupti_profiler/benchmark_result_924719_1679055439_trace.json.gz");
  MLPROF_CORPUS_FILE(memory, "kineto/hta_memory_timeline/memory_timeline.raw.gz");
  ExpectSameOverProcesses({cupti, std::string(MLPROF_SOURCE_DIR) + "/examples/two_rank/rank-1.json.gz", memory});
  ExpectSameOverProcesses({std::string(MLPROF_SOURCE_DIR) + "/examples/two_rank/rank-0.json.gz", memory});
}

// mlprof diff BASE NEW over K processes against one process.
void ExpectSameDiff(const std::string& base, const std::string& neu, const DiffOptions& o = {}) {
  InputOptions b, n;
  b.paths = {base}, n.paths = {neu};
  b.threads = n.threads = 1;
  auto sb = OpenSession(b, nullptr);
  auto sn = OpenSession(n, nullptr);
  ASSERT_TRUE(sb.ok() && sn.ok());
  auto one = Diff(*sb, *sn, o);
  ASSERT_TRUE(one.ok()) << one.status().message();
  ASSERT_FALSE(one->tables.empty());
  for (const Table& t : one->tables) EXPECT_NE(t.id.front(), '_') << t.id;  // hidden tables never shown
  one->grade = FullGrade({&*sb, &*sn}, {"base", "new"});                    // as cmd_diff adds it
  const std::string want = Rendered(*one) + (one->gate_failed ? "gate failed" : "");
  for (int k : {2, 3, 5}) {
    auto many = RunOnThreads([&](Comm& comm) { return RunDistributed(b, n, DiffSharded(o), comm); }, k);
    ASSERT_TRUE(many.ok()) << k << ": " << many.status().message();
    EXPECT_EQ(Rendered(*many) + (many->gate_failed ? "gate failed" : ""), want)
        << "diff over " << k << " processes: " << base << " vs " << neu;
  }
}

TEST(Distributed, DiffSameAsOneProcess) {
  const std::string ex = std::string(MLPROF_SOURCE_DIR) + "/examples/two_rank";
  DiffOptions gates;
  gates.gates = {"step_time>+5%", "idle<-1us"};
  ExpectSameDiff(ex, ex, gates);
  ExpectSameDiff(ex, ex + "/rank-1.json.gz");                             // rank 0 only in the base
  ExpectSameDiff(ex + "/rank-0.json.gz", ex + "/rank-1.json.gz", gates);  // two single ranks, paired
  MLPROF_CORPUS_FILE(control, "kineto/hta_trace_diff/control");
  MLPROF_CORPUS_FILE(test, "kineto/hta_trace_diff/test");
  ExpectSameDiff(control, test, gates);
  MLPROF_CORPUS_FILE(nccl, "kineto/hta_sampled_2rank_nccl");
  ExpectSameDiff(nccl, ex);
  MLPROF_CORPUS_FILE(level1, "ascend/msinsight_2rank/db/level1");
  MLPROF_CORPUS_FILE(level2, "ascend/msinsight_2rank/text/level2");
  ExpectSameDiff(level1, level2);
}

TEST(Distributed, DiffErrorsAreOneProcesssErrors) {
  InputOptions b, n;
  b.paths = {std::string(MLPROF_SOURCE_DIR) + "/examples/two_rank"};
  n.paths = {"/nonexistent/new"};
  auto one = OpenSession(n, nullptr);
  ASSERT_FALSE(one.ok());
  auto r = RunOnThreads([&](Comm& comm) { return RunDistributed(b, n, DiffSharded({}), comm); }, 3);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), one.status().message());
}

// Bytes of LEB128 (unsigned) and zigzag LEB128 (signed) as the facts write them.
size_t Leb(uint64_t v) {
  size_t n = 1;
  while (v >= 128) v >>= 7, ++n;
  return n;
}
size_t ZigZag(int64_t v) { return Leb((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63)); }

// --stats' fact bytes, counted by hand from the encoding: per process its
// error code, message, skipped count and file count (1 byte each when
// empty); per file its index, recorded rank, path (length and bytes), has
// steps, step count and step numbers (1 byte each: LEB128 of small values),
// its devices (integers, strings with their length, three 8-byte reals), and
// the one-job check's facts.
TEST(Distributed, StatsCountTheFactsExchanged) {
  InputOptions in;
  in.paths = {std::string(MLPROF_SOURCE_DIR) + "/examples/two_rank"};
  in.threads = 1;
  auto one = OpenSession(in, nullptr);
  ASSERT_TRUE(one.ok());
  for (int k : {2, 3}) {
    uint64_t want = 4 * static_cast<uint64_t>(k);
    for (const RankProfile& r : one->profile.ranks) {
      ASSERT_LT(r.path.size(), 128u);
      ASSERT_LT(r.steps.size(), 128u);
      for (const Step& st : r.steps) ASSERT_LT(st.number, 64);
      ASSERT_LT(r.meta.rank, 64);
      want += 1 + 1 + (1 + r.path.size()) + 1 + 1 + r.steps.size();
      want += Leb(r.meta.devices.size());
      for (const DeviceProperties& d : r.meta.devices)
        want += ZigZag(d.id) + Leb(d.name.size()) + d.name.size() + ZigZag(d.total_global_mem) + ZigZag(d.num_sms) +
                ZigZag(d.compute_major) + ZigZag(d.compute_minor) + Leb(d.device_type.size()) + d.device_type.size() +
                3 * 8 + Leb(d.vendor.size()) + d.vendor.size() + ZigZag(d.clock_khz);
      // The one-job check's facts: three flags in one byte, then the window's
      // first and last ps as (high 64 bits, low 64 bits).
      const JobFileFacts j = FactsForJobCheck(r);
      want += 1;
      for (Ps128 v : {j.first, j.last}) want += ZigZag(static_cast<int64_t>(v >> 64)) + Leb(static_cast<uint64_t>(v));
    }
    std::vector<DistributedStats> stats(static_cast<size_t>(k));
    auto r = RunOnThreads(
        [&](Comm& comm) {
          return RunDistributed(in, SummarySharded({}, false), comm, &stats[static_cast<size_t>(comm.process())]);
        },
        k);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(stats[0].fact_bytes, want) << k;
    EXPECT_EQ(stats[0].processes, k);
    EXPECT_EQ(stats[0].files, 2u);
    EXPECT_EQ(stats[0].ranks, 2u);
    EXPECT_GT(stats[0].shard_bytes, 0u);
    EXPECT_LE(stats[0].max_shard_bytes, stats[0].shard_bytes);
  }
}

TEST(Distributed, ErrorsAreOneProcesssErrors) {
  InputOptions in;
  in.paths = {std::string(MLPROF_SOURCE_DIR) + "/examples/two_rank"};
  in.rank = 7;
  auto r = RunOnThreads(in, SummarySharded({}, false), 2);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "--rank 7: no such rank (the inputs hold ranks 0, 1)");
  in.rank = -1;
  in.merge = true;
  EXPECT_FALSE(RunOnThreads(in, SummarySharded({}, false), 2).ok());
}

}  // namespace
}  // namespace mlprof::app
