// Corpus tests: HTA's own outputs on real traces (../shared/corpus/kineto/
// REFERENCE.md, HTA commit f4d0062c) reproduced within 1 us and 0.01
// percentage points; event counts from the corpus SOURCE.md files; every
// Kineto/TraceLens file loads or is refused with a clear error.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>

#include "analysis/gpu_time.h"
#include "analysis/idle.h"
#include "io/load.h"
#include "test_util.h"

namespace mlprof {
namespace {

constexpr double kUsTol = 1.0;    // us
constexpr double kPctTol = 0.01;  // percentage points (HTA rounds to 2 dp)

double Us(Ps ps) { return PsToUs(ps); }

Profile Load(const std::vector<std::string>& paths) {
  auto p = LoadProfile(paths, {});
  EXPECT_TRUE(p.ok()) << p.status().message();
  return p.ok() ? std::move(p).value() : Profile{};
}

// The view HTA computes on traces with fractional-us timestamps.
ProfileView HtaRoundedView(const Profile& p) {
  AnalysisOptions o;
  o.hta_rounding = true;
  return BuildProfileView(p, o);
}

struct TemporalRef {
  int64_t rank;
  double idle, compute, non_compute, kernel_time, idle_pct, compute_pct, non_compute_pct;
};

void ExpectTemporal(const ProfileView& v, const std::vector<TemporalRef>& want) {
  auto got = ComputeTemporalBreakdown(v);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("rank " + std::to_string(want[i].rank));
    EXPECT_EQ(got[i].rank, want[i].rank);
    EXPECT_NEAR(Us(got[i].idle), want[i].idle, kUsTol);
    EXPECT_NEAR(Us(got[i].compute), want[i].compute, kUsTol);
    EXPECT_NEAR(Us(got[i].non_compute), want[i].non_compute, kUsTol);
    EXPECT_NEAR(Us(got[i].kernel_time), want[i].kernel_time, kUsTol);
    // HTA prints round(x, 2): compare our unrounded value within 0.005 + tol.
    EXPECT_NEAR(got[i].idle_pct(), want[i].idle_pct, 0.005 + kPctTol);
    EXPECT_NEAR(got[i].compute_pct(), want[i].compute_pct, 0.005 + kPctTol);
    EXPECT_NEAR(got[i].non_compute_pct(), want[i].non_compute_pct, 0.005 + kPctTol);
  }
}

void ExpectOverlap(const ProfileView& v, const std::vector<double>& want_pct) {
  auto got = ComputeOverlap(v);
  ASSERT_EQ(got.size(), want_pct.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want_pct[i]))
      EXPECT_TRUE(std::isnan(got[i].pct()));
    else
      EXPECT_NEAR(got[i].pct(), want_pct[i], 0.005 + kPctTol);
  }
}

void ExpectKernelTypes(const ProfileView& v, const std::map<std::string, double>& want) {
  KernelBreakdown k = ComputeKernelBreakdown(v, {});
  std::map<std::string, double> got;
  for (const auto& t : k.types) got[KernelTypeLabel(t.mask)] = Us(t.time);
  EXPECT_EQ(got.size(), want.size());
  for (const auto& [label, us] : want) EXPECT_NEAR(got[label], us, kUsTol) << label;
}

struct IdleRef {
  int64_t rank, stream;
  const char* category;
  double us;
};

void ExpectIdle(const ProfileView& v, const std::vector<IdleRef>& want) {
  auto idle = ComputeIdleBreakdown(v, {});
  for (const IdleRef& w : want) {
    bool found = false;
    for (const StreamIdle& s : idle) {
      if (s.rank != w.rank || s.stream != w.stream) continue;
      for (int c = 0; c < 3; ++c) {
        if (std::string(IdleCategoryName(static_cast<IdleCategory>(c))) != w.category) continue;
        found = true;
        EXPECT_NEAR(Us(s.idle[c]), w.us, kUsTol) << "rank " << w.rank << " stream " << w.stream << " " << w.category;
      }
    }
    EXPECT_TRUE(found) << "rank " << w.rank << " stream " << w.stream;
  }
}

// Per-kernel "sum (us)" of REFERENCE.md, names cut to 90 characters there.
void ExpectKernelSum(const ProfileView& v, int64_t rank, const std::string& name_prefix, double us) {
  KernelBreakdown k = ComputeKernelBreakdown(v, {});
  for (const auto& s : k.kernels) {
    if (s.rank == rank && s.name.compare(0, name_prefix.size(), name_prefix) == 0) {
      EXPECT_NEAR(Us(s.sum), us, kUsTol) << name_prefix;
      return;
    }
  }
  ADD_FAILURE() << "no kernel row " << name_prefix << " on rank " << rank;
}

TEST(HtaReference, Sampled2Rank) {
  MLPROF_CORPUS_FILE(dir, "kineto/hta_sampled_2rank_nccl");
  Profile p = Load({dir});
  ProfileView v = BuildProfileView(p, {});
  ExpectTemporal(v, {{0, 321378, 106252, 172428, 600058, 53.56, 17.71, 28.74},
                     {1, 328671, 135548, 136455, 600674, 54.72, 22.57, 22.72}});
  ExpectOverlap(v, {11.81, 20.05});
  ExpectKernelTypes(v, {{"COMMUNICATION", 305584},
                        {"COMPUTATION", 185023},
                        {"COMPUTATION overlapping COMMUNICATION", 56747},
                        {"MEMORY", 2288},
                        {"COMMUNICATION overlapping MEMORY", 1011},
                        {"COMPUTATION overlapping MEMORY", 18},
                        {"COMPUTATION overlapping COMMUNICATION overlapping MEMORY", 12}});
  ExpectIdle(v, {{0, 23, "host_wait", 596037}, {0, 23, "kernel_wait", 70},  {0, 23, "other", 34},
                 {0, 84, "host_wait", 148934}, {0, 84, "kernel_wait", 6},   {0, 84, "other", 0},
                 {0, 25, "kernel_wait", 9},    {0, 25, "other", 47865},     {0, 7, "host_wait", 213825},
                 {0, 7, "kernel_wait", 1985},  {0, 7, "other", 261740},     {0, 203, "other", 0},
                 {1, 23, "host_wait", 596313}, {1, 23, "kernel_wait", 100}, {1, 23, "other", 0},
                 {1, 25, "kernel_wait", 9},    {1, 25, "other", 53028},     {1, 7, "host_wait", 156827},
                 {1, 7, "kernel_wait", 1816},  {1, 7, "other", 281064},     {1, 84, "host_wait", 251860},
                 {1, 84, "other", 23247},      {1, 203, "other", 0}});
  // Idle interval statistics (HTA show_idle_interval_stats=True).
  struct IntervalRef {
    int64_t rank, stream;
    IdleCategory cat;
    int64_t count;
    double mean, std, min, p25, p50, p75, max;
  } refs[] = {
      {0, 7, IdleCategory::kHostWait, 82, 2607.62, 7641.60, 11, 61, 129.5, 1285.25, 56614},
      {0, 7, IdleCategory::kKernelWait, 196, 10.13, 7.82, 1, 3, 8, 15.25, 29},
      {0, 7, IdleCategory::kOther, 247, 1059.68, 4606.06, 30, 91, 248, 763.5, 47785},
      {1, 84, IdleCategory::kHostWait, 2, 125930.00, 112321.08, 46507, 86218.5, 125930, 165641.5, 205353},
      {1, 25, IdleCategory::kOther, 6, 8838.00, 12503.64, 871, 1333.25, 2488.5, 10985.5, 32414},
  };
  auto idle = ComputeIdleBreakdown(v, {});
  for (const IntervalRef& ref : refs) {
    bool found = false;
    for (const StreamIdle& s : idle) {
      if (s.rank != ref.rank || s.stream != ref.stream) continue;
      found = true;
      Describe d = s.Stats(ref.cat);
      SCOPED_TRACE("rank " + std::to_string(ref.rank) + " stream " + std::to_string(ref.stream));
      EXPECT_EQ(d.count, ref.count);
      EXPECT_NEAR(d.mean, ref.mean, 0.005);  // HTA prints 2 decimals
      EXPECT_NEAR(d.std, ref.std, 0.005);
      EXPECT_NEAR(d.min, ref.min, 0.005);
      EXPECT_NEAR(d.p25, ref.p25, 0.005);
      EXPECT_NEAR(d.p50, ref.p50, 0.005);
      EXPECT_NEAR(d.p75, ref.p75, 0.005);
      EXPECT_NEAR(d.max, ref.max, 0.005);
    }
    EXPECT_TRUE(found);
  }
  ExpectKernelSum(v, 0, "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t", 195327);
  ExpectKernelSum(v, 1, "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t", 168027);
  ExpectKernelSum(v, 0, "others", 59998);
  ExpectKernelSum(v, 1, "others", 52412);
  ExpectKernelSum(v, 1,
                  "void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_cta_per_row_1<c10:", 28836);
  ExpectKernelSum(v, 0, "void permute_pooled_embs_kernel<float>", 4423);
  ExpectKernelSum(v, 1, "Memcpy DtoD (Device -> Device)", 2290);
  ExpectKernelSum(v, 0, "Memset (Device)", 19);
  // HTA's fold rule names exactly ten COMPUTATION kernels per rank here.
  KernelBreakdown k = ComputeKernelBreakdown(v, {});
  int named[2] = {0, 0};
  for (const auto& s : k.kernels)
    if (s.cls == KernelClass::kComputation && s.names == 1) named[s.rank]++;
  EXPECT_EQ(named[0], 10);
  EXPECT_EQ(named[1], 10);
}

TEST(HtaReference, A100Ws16Rank0) {
  MLPROF_CORPUS_FILE(f, "kineto/hta_a100_ws16_rank0_nccl/rank0.json.gz");
  Profile p = Load({f});
  ProfileView v = BuildProfileView(p, {});
  ExpectTemporal(v, {{0, 705853, 143836, 166865, 1016554, 69.44, 14.15, 16.41}});
  ExpectOverlap(v, {1.37});
  ExpectKernelTypes(v, {{"COMPUTATION", 138794},
                        {"COMMUNICATION", 134025},
                        {"MEMORY", 32246},
                        {"COMPUTATION overlapping MEMORY", 3171},
                        {"COMPUTATION overlapping COMMUNICATION", 1871},
                        {"COMMUNICATION overlapping MEMORY", 594}});
  ExpectIdle(v, {{0, 7, "kernel_wait", 17159},
                 {0, 7, "other", 691231},
                 {0, 25, "host_wait", 628598},
                 {0, 25, "kernel_wait", 85},
                 {0, 27, "host_wait", 792592},
                 {0, 27, "kernel_wait", 1000},
                 {0, 27, "other", 7135},
                 {0, 285, "other", 675305},
                 {0, 363, "kernel_wait", 75},
                 {0, 363, "other", 673182},
                 {0, 84, "host_wait", 62901},
                 {0, 84, "kernel_wait", 12},
                 {0, 84, "other", 665192}});
  ExpectKernelSum(v, 0, "Memcpy DtoD (Device -> Device)", 18814);
  ExpectKernelSum(v, 0, "Memcpy HtoD (Pinned -> Device)", 16792);
  ExpectKernelSum(v, 0, "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_tn_align1>", 30969);
}

// Float (ns-resolution) timestamps: HTA rounds them; --hta-rounding matches it.
TEST(HtaReference, V100NsResolutionWithHtaRounding) {
  MLPROF_CORPUS_FILE(f, "kineto/hta_v100_ns_resolution/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
  Profile p = Load({f});
  ProfileView v = HtaRoundedView(p);
  ExpectTemporal(v, {{0, 10113, 372150, 2371, 384634, 2.63, 96.75, 0.62}});
  ExpectOverlap(v, {std::nan("")});
  ExpectKernelTypes(v, {{"COMPUTATION", 372150}, {"MEMORY", 2371}});
  ExpectIdle(v, {{0, 7, "host_wait", 1709}, {0, 7, "kernel_wait", 8404}, {0, 7, "other", 0}});
  ExpectKernelSum(v, 0, "Memcpy DtoD (Device -> Device)", 1985);
  ExpectKernelSum(v, 0, "Memset (Device)", 386);
  ExpectKernelSum(v, 0, "volta_sgemm_64x64_nt", 18073);
  // Without rounding mlprof keeps exact ns: same span within 1 us, and more
  // busy time (HTA's rounding shortens every op).
  ProfileView exact = BuildProfileView(p, {});
  auto t = ComputeTemporalBreakdown(exact);
  EXPECT_NEAR(Us(t[0].kernel_time), 384634, 1.0);
  EXPECT_LT(Us(t[0].idle), 10113);
}

TEST(HtaReference, AmdMi250WithHtaRounding) {
  MLPROF_CORPUS_FILE(f, "kineto/hta_amd_mi250/mi250_minitoy_train_ROCm6_2_kineto.json.gz");
  Profile p = Load({f});
  ProfileView v = HtaRoundedView(p);
  ExpectTemporal(v, {{0, 8780, 96, 35, 8911, 98.53, 1.08, 0.39}});
  ExpectKernelTypes(v, {{"COMPUTATION", 96}, {"MEMORY", 35}});
  ExpectIdle(v, {{0, 0, "host_wait", 8780}, {0, 0, "other", 0}});
  ExpectKernelSum(v, 0, "Memcpy HtoD (Host -> Device)", 35);
}

// Event counts stated in corpus/kineto/SOURCE.md.
TEST(Corpus, EventCountsMatchSource) {
  struct Case {
    const char* rel;
    uint64_t events;
    size_t steps;
  } cases[] = {
      {"kineto/hta_a100_ws16_rank0_nccl/rank0.json.gz", 108936, 5},
      {"kineto/hta_v100_ws2_rank1_nccl/df_index_resolver.json.gz", 216092, 5},
      {"kineto/hta_mtia_train/mtia_rank_0.json.gz", 455739, 1},
  };
  for (const Case& c : cases) {
    MLPROF_CORPUS_FILE(f, c.rel);
    Profile p = Load({f});
    ASSERT_EQ(p.ranks.size(), 1u);
    uint64_t events = 0;
    for (uint64_t n : p.ranks[0].phase_counts) events += n;
    EXPECT_EQ(events, c.events) << c.rel;
    EXPECT_EQ(p.ranks[0].steps.size(), c.steps) << c.rel;
    EXPECT_EQ(p.ranks[0].stats.Total(Severity::kWarning), 0u) << c.rel;
  }
  MLPROF_CORPUS_FILE(v100, "kineto/hta_v100_ws2_rank1_nccl/df_index_resolver.json.gz");
  Profile p = Load({v100});
  const RankProfile& r = p.ranks[0];
  size_t kernels = 0, allreduce = 0;
  for (size_t i = 0; i < r.ops.size(); ++i) {
    if (r.ops.kind[i] != OpKind::kKernel) continue;
    ++kernels;
    if (r.str(r.ops.name[i]).find("ncclKernel_AllReduce") != std::string_view::npos) ++allreduce;
  }
  EXPECT_EQ(kernels, 19370u);
  EXPECT_EQ(allreduce, 2020u);
  EXPECT_EQ(r.meta.rank, 1);
  EXPECT_EQ(r.meta.world_size, 2);
  // The memory events' args, in the args table. Reference figures from
  // Python's json module over the same file: 28010 events named "[memory]",
  // each with 7 args; Total Allocated sums to 151222431052640 (max
  // 6629508096); Bytes sums to 0 (every allocation freed).
  StringId total_key = 0, bytes_key = 0;
  for (StringId id = 0; id < r.strings.size(); ++id) {
    if (r.str(id) == "Total Allocated") total_key = id;
    if (r.str(id) == "Bytes") bytes_key = id;
  }
  int64_t memory_events = 0, total_sum = 0, total_max = 0, bytes_sum = 0;
  for (size_t i = 0; i < r.ops.size(); ++i) {
    if (r.str(r.ops.name[i]) != "[memory]") continue;
    ++memory_events;
    EXPECT_EQ(r.args.Of(ArgOwner::kOp, static_cast<uint32_t>(i)).size(), 7u);
    const ArgValue* t = r.args.Find(ArgOwner::kOp, static_cast<uint32_t>(i), total_key);
    const ArgValue* b = r.args.Find(ArgOwner::kOp, static_cast<uint32_t>(i), bytes_key);
    ASSERT_TRUE(t && b);
    total_sum += t->i, total_max = std::max(total_max, t->i), bytes_sum += b->i;
  }
  EXPECT_EQ(memory_events, 28010);
  EXPECT_EQ(total_sum, 151222431052640);
  EXPECT_EQ(total_max, 6629508096);
  EXPECT_EQ(bytes_sum, 0);
  EXPECT_EQ(r.args.Of(ArgOwner::kDevice, 0).size(), 14u);  // every deviceProperties field of GPU 0
}

// Every JSON file of the Kineto and TraceLens corpora: traces load with no
// warnings; the files that are not traces get a clear WrongFormat error.
TEST(Corpus, EveryFileLoadsOrIsRefusedClearly) {
  MLPROF_CORPUS_FILE(root, "kineto");
  std::vector<std::string> files;
  for (const char* sub : {"kineto", "tracelens"})
    for (const auto& e : std::filesystem::recursive_directory_iterator(testing::CorpusDir() + "/" + sub)) {
      std::string s = e.path().string();
      if (e.is_regular_file() && (s.ends_with(".json") || s.ends_with(".gz"))) files.push_back(s);
    }
  ASSERT_GT(files.size(), 40u);
  const std::vector<std::string> not_traces = {"benchmark_simple_add_et.json.gz", "908_results.json.gz",
                                               "execution_details.json", "cpu_op_map"};
  int loaded = 0, refused = 0;
  for (const auto& f : files) {
    bool expect_refusal = false;
    for (const auto& n : not_traces) expect_refusal |= f.find(n) != std::string::npos;
    auto p = LoadProfile({f}, {});
    if (f.ends_with("memory_timeline.raw.gz")) {  // torch's memory timeline: counters, no ops
      ASSERT_TRUE(p.ok()) << p.status().message();
      EXPECT_EQ(p->ranks[0].format, TraceFormat::kTorchMemoryTimeline);
      EXPECT_GT(p->ranks[0].counters.size(), 0u);
      ++loaded;
      continue;
    }
    if (expect_refusal) {
      ASSERT_FALSE(p.ok()) << f;
      EXPECT_EQ(p.status().code(), StatusCode::kWrongFormat) << f;
      EXPECT_NE(p.status().message().find(f), std::string::npos);
      ++refused;
    } else {
      ASSERT_TRUE(p.ok()) << f << ": " << p.status().message();
      EXPECT_EQ(p->ranks[0].stats.Total(Severity::kWarning), 0u) << f;
      EXPECT_GT(p->ranks[0].ops.size(), 0u) << f;
      ++loaded;
    }
  }
  EXPECT_GE(loaded, 40);
  EXPECT_EQ(refused, 8);  // ET, rocprof, 3 execution_details, 3 cpu_op_map (the memory timeline is read)
}

}  // namespace
}  // namespace mlprof

namespace mlprof {
namespace {

// Files without distributedInfo.rank take the free rank numbers; a duplicate
// rank is an error naming both files.
TEST(Ranks, MissingRanksFillGapsAndDuplicatesAreRefused) {
  MLPROF_CORPUS_FILE(r1, "kineto/hta_sampled_2rank_nccl/sampled_rank-1.json.gz");
  MLPROF_CORPUS_FILE(none, "kineto/hta_edge_cases/distributed_info_not_found.json.gz");
  auto p = LoadProfile({r1, none}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->ranks.size(), 2u);
  EXPECT_EQ(p->ranks[0].meta.rank, 0);  // the file without a rank
  EXPECT_NE(p->ranks[0].path.find("distributed_info_not_found"), std::string::npos);
  EXPECT_EQ(p->ranks[1].meta.rank, 1);
  // A directory holding a trace and a sidecar JSON: the sidecar is skipped
  // with a message; named explicitly, it is an error.
  MLPROF_CORPUS_FILE(dir, "tracelens/tests/traces/inference/vllm_decode_full/capture_traces");
  auto d = LoadProfile({dir}, {});
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->ranks.size(), 1u);
  ASSERT_EQ(d->skipped.size(), 1u);
  EXPECT_NE(d->skipped[0].find("execution_details.json"), std::string::npos);
  auto named = LoadProfile({dir + "/execution_details.json"}, {});
  EXPECT_EQ(named.status().code(), StatusCode::kWrongFormat);
  auto dup = LoadProfile({r1, r1}, {});
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.status().message().find("all claim rank 1"), std::string::npos) << dup.status().message();
}

}  // namespace
}  // namespace mlprof
