// The Nsight Systems SQLite reader: name helpers, and the corpus exports
// against raw SQL counts and against pipit's own event tables.
#include "io/nsys.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "../../tests/corpus_util.h"
#include "analysis/engines.h"
#include "analysis/host_ops.h"
#include "analysis/info.h"
#include "analysis/view.h"
#include "io/load.h"

namespace mlprof {
namespace {

TEST(Nsys, StripApiVersion) {
  EXPECT_EQ(StripApiVersion("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(StripApiVersion("cudaMemcpyAsync_v3020"), "cudaMemcpyAsync");
  EXPECT_EQ(StripApiVersion("cuLaunchKernelEx"), "cuLaunchKernelEx");
  EXPECT_EQ(StripApiVersion("my_v"), "my_v");
  EXPECT_EQ(StripApiVersion("a_v2x"), "a_v2x");
}

TEST(Nsys, StepNumberOfRange) {
  EXPECT_EQ(StepNumberOfRange("ProfilerStep#12"), 12);
  EXPECT_EQ(StepNumberOfRange("step 3"), 3);
  EXPECT_EQ(StepNumberOfRange("Step_3"), 3);
  EXPECT_EQ(StepNumberOfRange("train_step 7"), 7);
  EXPECT_EQ(StepNumberOfRange("Iteration 4"), 4);
  EXPECT_EQ(StepNumberOfRange("iter#5"), 5);
  EXPECT_EQ(StepNumberOfRange("step"), -1);
  EXPECT_EQ(StepNumberOfRange("step 3 forward"), -1);
  EXPECT_EQ(StepNumberOfRange("stepper 3"), -1);
  EXPECT_EQ(StepNumberOfRange("aten::step, seq = 3"), -1);
  EXPECT_EQ(StepNumberOfRange("forward 3"), -1);
}

TEST(Nsys, SniffAndRefuse) {
  EXPECT_TRUE(LooksLikeSqlite(std::string_view("SQLite format 3\0xyz", 19)));
  EXPECT_FALSE(LooksLikeSqlite("SQLite format 2"));
  EXPECT_TRUE(LooksLikeNsysReport("NVIDIA Tegra Profiler Report 2024@6"));
}

// tests/data/nsys/mini_export.sql (its comment says what it holds).
// tests/data/nsys/gpu_metrics.sql on top of the hand-made export (its
// comment works out the figures).
TEST(Nsys, GpuMetricsOverTimeAndDuringKernels) {
  const std::string path = ::testing::TempDir() + "nsys_metrics.sqlite";
  std::remove(path.c_str());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  for (const char* f : {"/tests/data/nsys/mini_export.sql", "/tests/data/nsys/gpu_metrics.sql"}) {
    std::ifstream in(std::string(MLPROF_SOURCE_DIR) + f);
    std::stringstream sql;
    sql << in.rdbuf();
    ASSERT_FALSE(sql.str().empty()) << f;
    ASSERT_EQ(sqlite3_exec(db, sql.str().c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  }
  sqlite3_close(db);
  auto p = LoadProfile({path}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->ranks[0].counters.size(), 13u);
  EXPECT_EQ(p->ranks[0].stats.Get(ImportStat::unknown_string_id), 1u);
  const std::vector<MetricRow> m = ComputeGpuMetrics(*p, 0);
  auto find = [&](const std::string& metric, const std::string& kernel) -> const MetricRow* {
    for (const MetricRow& r : m)
      if (r.metric == metric && r.kernel == kernel) return &r;
    return nullptr;
  };
  const MetricRow* sm = find("SMs Active [Throughput %]", "");
  const MetricRow* sm_gemm = find("SMs Active [Throughput %]", "gemm");
  const MetricRow* tensor_gemm = find("Tensor Active [Throughput %]", "gemm");
  ASSERT_NE(sm, nullptr);
  ASSERT_NE(sm_gemm, nullptr);
  ASSERT_NE(tensor_gemm, nullptr);
  EXPECT_EQ(sm->device, 0);
  EXPECT_EQ(sm->samples, 6);
  EXPECT_DOUBLE_EQ(sm->mean, 50);
  EXPECT_DOUBLE_EQ(sm->max, 90);
  EXPECT_EQ(sm_gemm->samples, 3);
  EXPECT_NEAR(sm_gemm->mean, 220.0 / 3, 1e-12);
  EXPECT_DOUBLE_EQ(sm_gemm->max, 90);
  EXPECT_EQ(sm_gemm->kernel_time, 1500 * 1000);
  EXPECT_DOUBLE_EQ(tensor_gemm->mean, 40);
  EXPECT_EQ(m.size(), 6u);  // 3 metrics, each whole and during gemm
  EXPECT_NE(find("(metric 9)", "gemm"), nullptr);
}

TEST(Nsys, HandMadeExport) {
  const std::string path = ::testing::TempDir() + "nsys_hand.sqlite";
  std::remove(path.c_str());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  std::ifstream in(std::string(MLPROF_SOURCE_DIR) + "/tests/data/nsys/mini_export.sql");
  std::stringstream sql;
  sql << in.rdbuf();
  ASSERT_FALSE(sql.str().empty());
  ASSERT_EQ(sqlite3_exec(db, sql.str().c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
  auto p = LoadProfile({path}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  const RankProfile& r = p->ranks.at(0);
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0].number, 1);
  EXPECT_EQ(r.steps[0].dur, 3200 * 1000);
  int kernels = 0, linked = 0, device_syncs = 0, start_end = 0;
  for (size_t i = 0; i < r.ops.size(); ++i) {
    const std::string_view name = r.str(r.ops.name[i]);
    if (r.ops.kind[i] == OpKind::kKernel) {
      ++kernels;
      linked += r.ops.launch[i] >= 0 && r.str(r.ops.name[r.ops.launch[i]]) == "cudaLaunchKernel";
      EXPECT_EQ(r.tracks[r.ops.track[i]].stream, 7);
      EXPECT_EQ(r.tracks[r.ops.track[i]].device, 0);
    }
    if (r.ops.kind[i] == OpKind::kMemcpy) {
      EXPECT_EQ(name, "Memcpy HtoD (Pageable -> Device)");
      EXPECT_EQ(r.ops.bytes_of(i), 4096);
      EXPECT_EQ(r.ops.launch[i], -1);
    }
    if (r.ops.kind[i] == OpKind::kDeviceSync) {
      ++device_syncs;
      EXPECT_EQ(name, "Context Sync");
    }
    if (name == "range") start_end += r.tracks[r.ops.track[i]].tid == (int64_t{1} << 32) + 1;
  }
  EXPECT_EQ(kernels, 2);
  EXPECT_EQ(linked, 2);
  EXPECT_EQ(device_syncs, 1);
  EXPECT_EQ(start_end, 1);
  EXPECT_EQ(r.stats.Get(ImportStat::open_range), 1u);
  EXPECT_EQ(r.stats.Get(ImportStat::gpu_op_without_launch), 1u);
  std::remove(path.c_str());
}

}  // namespace

// File-local helpers of the tests below (a namespace of their own: the tests
// are built as one unity source).
namespace nsys_sync_test {

// Writes an SQLite file at `path` from SQL text; "" on success, else the error.
std::string MakeDb(const std::string& path, const std::string& sql) {
  std::remove(path.c_str());
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) return "cannot open " + path;
  std::string err;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) err = sqlite3_errmsg(db);
  sqlite3_close(db);
  return err;
}

std::string SourceFile(const std::string& rel) {
  std::ifstream in(std::string(MLPROF_SOURCE_DIR) + "/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace nsys_sync_test

namespace {

// tests/data/nsys/sync_export.sql (its comment has the hand counts): the
// synchronization records are host waits on a track of their own, not GPU
// work: device 1, which only they name, is no GPU; the busy time and the
// host ops' device time are the kernel's 3000 ns; the stream sync keeps its
// call's correlation without becoming a launch. The rank comes from the
// process's environment.
TEST(Nsys, SyncRecordsAreHostWaits) {
  const std::string path = ::testing::TempDir() + "nsys_sync.sqlite";
  const std::string sql = nsys_sync_test::SourceFile("tests/data/nsys/sync_export.sql");
  ASSERT_FALSE(sql.empty());
  ASSERT_EQ(nsys_sync_test::MakeDb(path, sql), "");
  auto p = LoadProfile({path}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  const RankProfile& r = p->ranks.at(0);
  EXPECT_EQ(r.meta.rank, 3);
  EXPECT_EQ(r.meta.world_size, 4);
  int streams = 0;
  for (const Track& t : r.tracks)
    if (t.kind == TrackKind::kGpuStream) {
      ++streams;
      EXPECT_EQ(t.device, 0);
      EXPECT_EQ(t.stream, 7);
    }
  EXPECT_EQ(streams, 1);
  const StringId k_device = r.strings.Find("device"), k_stream = r.strings.Find("stream");
  int syncs = 0;
  int64_t call_corr = -1, sync_corr = -2;
  for (size_t i = 0; i < r.ops.size(); ++i) {
    const std::string_view name = r.str(r.ops.name[i]);
    if (name == "cudaStreamSynchronize") call_corr = r.ops.correlation[i];
    if (r.ops.kind[i] == OpKind::kKernel) {
      EXPECT_EQ(r.str(r.ops.name[static_cast<size_t>(r.ops.launch[i])]), "cudaLaunchKernel");
    }
    if (r.ops.kind[i] != OpKind::kDeviceSync) continue;
    ++syncs;
    const Track& t = r.tracks[r.ops.track[i]];
    EXPECT_EQ(t.kind, TrackKind::kHostThread);
    EXPECT_EQ(r.str(t.name), "CUDA synchronization");
    EXPECT_EQ(t.pid, 1);
    const ArgValue* dev = r.args.Find(ArgOwner::kOp, static_cast<uint32_t>(i), k_device);
    const ArgValue* stream = r.args.Find(ArgOwner::kOp, static_cast<uint32_t>(i), k_stream);
    ASSERT_NE(dev, nullptr);
    EXPECT_EQ(dev->i, 1);
    if (name == "Stream Sync") {
      ASSERT_NE(stream, nullptr);
      EXPECT_EQ(stream->i, 5);
      sync_corr = r.ops.correlation[i];
      EXPECT_EQ(r.ops.dur[i], 6680 * 1000);
    } else {
      EXPECT_EQ(name, "Event Sync");
      EXPECT_EQ(stream, nullptr);
      EXPECT_EQ(r.ops.correlation[i], -1);
    }
  }
  EXPECT_EQ(syncs, 2);
  EXPECT_EQ(sync_corr, call_corr);
  EXPECT_EQ(r.stats.Get(ImportStat::duplicate_correlation), 0u);
  EXPECT_EQ(r.stats.Get(ImportStat::gpu_op_without_launch), 0u);
  EXPECT_EQ(SummarizeRanks(*p).at(0).gpus, 1);

  const ProfileView view = BuildProfileView(*p, {});
  Ps stream_busy = -1, all_busy = -1;
  for (const EngineRow& e : ComputeEngines(view)) {
    if (e.kind == "stream") {
      EXPECT_EQ(e.engine, "GPU 0 stream 7");
      stream_busy = e.busy;
    }
    if (e.kind == "all") all_busy = e.busy;
  }
  EXPECT_EQ(stream_busy, 3000 * 1000);
  EXPECT_EQ(all_busy, 3000 * 1000);
  Ps device_self = 0;
  for (const HostOpRow& h : ComputeHostOps(view, {})) {
    device_self += h.device_self;
    if (h.name == "infer") {
      EXPECT_EQ(h.device_self, 3000 * 1000);
    }
    if (h.name == "cudaStreamSynchronize") {
      EXPECT_EQ(h.device_total, 0);
    }
  }
  EXPECT_EQ(device_self, 3000 * 1000);
  std::remove(path.c_str());
}

// Older exports keep the session's environment in TARGET_INFO_SYSTEM_ENV
// ('DeviceEnvironment', NUL-separated); OMPI's variables outrank SLURM's.
TEST(Nsys, RankFromTheSessionEnvironment) {
  const std::string path = ::testing::TempDir() + "nsys_env.sqlite";
  const std::string base =
      "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);"
      "INSERT INTO StringIds VALUES (1,'cudaFree_v3020');"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, globalTid INTEGER, correlationId INTEGER,"
      " nameId INTEGER);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (100,200,16777217,1,1);"
      "CREATE TABLE TARGET_INFO_SYSTEM_ENV (globalVid INTEGER, devStateName TEXT, name TEXT, nameEnum INTEGER,"
      " value TEXT);";
  // HOME=/x \0 SLURM_PROCID=5 \0 OMPI_COMM_WORLD_RANK=6 \0 OMPI_COMM_WORLD_SIZE=8
  ASSERT_EQ(nsys_sync_test::MakeDb(
                path, base + "INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES (1,'Local','DeviceEnvironment',610,"
                             "CAST(X'484F4D453D2F7800534C55524D5F50524F4349443D35004F4D50495F434F4D4D5F574F524C445F52"
                             "414E4B3D36004F4D50495F434F4D4D5F574F524C445F53495A453D38' AS TEXT));"),
            "");
  auto p = LoadProfile({path}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->ranks.at(0).meta.rank, 6);
  EXPECT_EQ(p->ranks.at(0).meta.world_size, 8);
  // No rank variable: none recorded (a job numbers it by file order).
  ASSERT_EQ(nsys_sync_test::MakeDb(path, base), "");
  auto q = LoadProfile({path}, {});
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(q->ranks.at(0).meta.rank, 0);
  EXPECT_TRUE(q->notes.empty());
  std::remove(path.c_str());
}

// A directory of exports, one per rank as nsys writes them, is a job: ranks
// from the files, else by file order with a note; two files claiming one
// rank are refused.
TEST(Nsys, DirectoryOfExportsIsAJob) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / "nsys_job";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string mini = nsys_sync_test::SourceFile("tests/data/nsys/mini_export.sql");
  ASSERT_EQ(nsys_sync_test::MakeDb((dir / "report.0.sqlite").string(), mini), "");
  ASSERT_EQ(nsys_sync_test::MakeDb((dir / "report.1.sqlite").string(), mini), "");
  std::ofstream((dir / "notes.txt").string()) << "not a trace\n";
  auto p = LoadProfile({dir.string()}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->ranks.size(), 2u);
  EXPECT_EQ(p->ranks[0].meta.rank, 0);
  EXPECT_EQ(p->ranks[1].meta.rank, 1);
  EXPECT_EQ(fs::path(p->ranks[1].path).filename(), "report.1.sqlite");
  std::string notes;
  for (const std::string& n : p->notes) notes += n + "\n";
  EXPECT_NE(notes.find("2 of the 2 files record no rank"), std::string::npos) << notes;
  EXPECT_NE(notes.find("rank 1 = " + (dir / "report.1.sqlite").string()), std::string::npos) << notes;
  EXPECT_NE(notes.find("skipped 1 entry not named as traces"), std::string::npos) << notes;
  // Two exports of the same rank (PMI_RANK 3): refused, naming both.
  const std::string sync = nsys_sync_test::SourceFile("tests/data/nsys/sync_export.sql");
  ASSERT_EQ(nsys_sync_test::MakeDb((dir / "report.0.sqlite").string(), sync), "");
  ASSERT_EQ(nsys_sync_test::MakeDb((dir / "report.1.sqlite").string(), sync), "");
  auto dup = LoadProfile({dir.string()}, {});
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.status().message().find("all claim rank 3"), std::string::npos) << dup.status().message();
  fs::remove_all(dir);
}

// One number from raw SQL, or -1 when the table is not there.
int64_t RawCount(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  int64_t n = -1;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
      n = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
  }
  sqlite3_close(db);
  return n;
}

// Every corpus export loads, and its ops by category equal the rows of the
// tables they come from: kernels, copies, fills, API calls (runtime and
// driver), synchronisations, closed NVTX ranges, OS runtime calls.
TEST(NsysCorpus, CountsEqualRawSql) {
  MLPROF_CORPUS_FILE(dir, "nsys");
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string path = entry.path().string();
    if (entry.path().extension() != ".sqlite") continue;
    ++files;
    auto p = LoadProfile({path}, {});
    ASSERT_TRUE(p.ok()) << path << ": " << p.status().message();
    const RankProfile& r = p->ranks.at(0);
    std::map<std::string, int64_t> by_cat;
    for (size_t i = 0; i < r.ops.size(); ++i) ++by_cat[std::string(r.str(r.ops.cat[i]))];
    auto raw = [&](const std::string& table, const std::string& where = "") {
      const int64_t n = RawCount(path, "SELECT count(*) FROM " + table + where);
      return n < 0 ? 0 : n;
    };
    EXPECT_EQ(by_cat["kernel"], raw("CUPTI_ACTIVITY_KIND_KERNEL")) << path;
    EXPECT_EQ(by_cat["gpu_memcpy"], raw("CUPTI_ACTIVITY_KIND_MEMCPY")) << path;
    EXPECT_EQ(by_cat["gpu_memset"], raw("CUPTI_ACTIVITY_KIND_MEMSET")) << path;
    EXPECT_EQ(by_cat["cuda_runtime"] + by_cat["cuda_driver"], raw("CUPTI_ACTIVITY_KIND_RUNTIME")) << path;
    EXPECT_EQ(by_cat["cuda_sync"], raw("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION")) << path;
    EXPECT_EQ(by_cat["nvtx"], raw("NVTX_EVENTS", " WHERE eventType IN (59, 60) AND end IS NOT NULL")) << path;
    EXPECT_EQ(by_cat["osrt"], raw("OSRT_API")) << path;
    EXPECT_EQ(r.format, TraceFormat::kNsys);
  }
  EXPECT_EQ(files, 7);
}

// pipit's expected tables for its CloverLeaf export (pipit/tests/nsight.py):
// every kernel and copy as (start ns, end ns, stream, bytes) and every CUDA
// API call as (name without its _vNNNN suffix, start, end, pid, tid), as
// multisets, equal to what mlprof read.
TEST(NsysCorpus, CloverLeafMatchesPipit) {
  MLPROF_CORPUS_FILE(path, "nsys/pipit_perlmutter-cloverleaf-cuda.sqlite");
  MLPROF_CORPUS_FILE(gpu_csv, "nsys/pipit_cloverleaf_golden/cloverleaf_gpu_trace.csv");
  MLPROF_CORPUS_FILE(api_csv, "nsys/pipit_cloverleaf_golden/cloverleaf-cuda_api_trace.csv");
  auto p = LoadProfile({path}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  const RankProfile& r = p->ranks.at(0);
  using Gpu = std::tuple<int64_t, int64_t, int64_t, int64_t>;  // start, end, stream, bytes
  using Api = std::tuple<std::string, int64_t, int64_t, int64_t, int64_t>;
  std::multiset<Gpu> gpu_mine, gpu_pipit;
  std::multiset<Api> api_mine, api_pipit;
  auto ns = [&](Ps ts) { return static_cast<int64_t>((r.origin_abs_ps + ts) / 1000); };
  for (size_t i = 0; i < r.ops.size(); ++i) {
    const OpKind k = r.ops.kind[i];
    const Track& t = r.tracks[r.ops.track[i]];
    if (k == OpKind::kKernel || k == OpKind::kMemcpy)
      gpu_mine.insert(
          {ns(r.ops.ts[i]), ns(r.ops.ts[i] + r.ops.dur[i]), t.stream, k == OpKind::kMemcpy ? r.ops.bytes_of(i) : -1});
    if (k == OpKind::kRuntime || k == OpKind::kDriver)
      api_mine.insert(
          {std::string(r.str(r.ops.name[i])), ns(r.ops.ts[i]), ns(r.ops.ts[i] + r.ops.dur[i]), t.pid, t.tid});
  }
  auto rows = [](const std::string& file) {
    std::vector<std::vector<std::string>> out;
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::vector<std::string> f;
      std::stringstream ss(line);
      for (std::string c; std::getline(ss, c, ',');) f.push_back(c);
      out.push_back(std::move(f));
    }
    return out;
  };
  // Name,streamId,type,bytes,Trace Type,Event Type,Timestamp (ns),_matching_event,_matching_timestamp,...
  for (const auto& f : rows(gpu_csv)) {
    ASSERT_GE(f.size(), 9u);
    if (f[5] != "Enter") continue;
    gpu_pipit.insert({std::stoll(f[6]), std::stoll(f[8]), std::stoll(f[1]),
                      f[2] == "kernel" ? -1 : static_cast<int64_t>(std::stod(f[3]))});
  }
  // Name,Process,Thread,Trace Type,Event Type,Timestamp (ns),_matching_event,_matching_timestamp,...
  for (const auto& f : rows(api_csv)) {
    ASSERT_GE(f.size(), 8u);
    if (f[4] != "Enter") continue;
    api_pipit.insert(
        {std::string(StripApiVersion(f[0])), std::stoll(f[5]), std::stoll(f[7]), std::stoll(f[1]), std::stoll(f[2])});
  }
  EXPECT_EQ(gpu_pipit.size(), 1312u + 279u);
  EXPECT_EQ(api_pipit.size(), 3048u);
  EXPECT_TRUE(gpu_mine == gpu_pipit);
  EXPECT_TRUE(api_mine == api_pipit);
  // Every kernel and copy is linked to the API call that launched it.
  int64_t linked = 0, gpu = 0;
  for (size_t i = 0; i < r.ops.size(); ++i)
    if (r.ops.kind[i] == OpKind::kKernel || r.ops.kind[i] == OpKind::kMemcpy) ++gpu, linked += r.ops.launch[i] >= 0;
  EXPECT_EQ(linked, gpu);
}

}  // namespace
}  // namespace mlprof
