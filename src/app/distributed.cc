#include "app/distributed.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "analysis/engines.h"
#include "app/commands.h"
#include "app/shards.h"
#include "io/load.h"
#include "report/serialize.h"

namespace mlprof::app {

std::vector<std::pair<size_t, size_t>> ShareFiles(const std::vector<uint64_t>& sizes, int processes) {
  const size_t n = sizes.size();
  const auto k = static_cast<size_t>(std::max(processes, 1));
  std::vector<long double> prefix(n + 1, 0);  // bytes of files [0, i)
  for (size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + static_cast<long double>(sizes[i]);
  // Process p starts at the file boundary closest to p/k of the bytes.
  std::vector<size_t> start(k + 1, n);
  start[0] = 0;
  for (size_t p = 1; p < k; ++p) {
    const long double goal = prefix[n] * static_cast<long double>(p) / static_cast<long double>(k);
    size_t i = static_cast<size_t>(std::lower_bound(prefix.begin(), prefix.end(), goal) - prefix.begin());
    if (i > 0 && goal - prefix[i - 1] < prefix[std::min(i, n)] - goal) --i;
    start[p] = std::clamp(std::min(i, n), start[p - 1], n);
  }
  std::vector<std::pair<size_t, size_t>> out(k);
  for (size_t p = 0; p < k; ++p) out[p] = {start[p], start[p + 1]};
  return out;
}

namespace {

// What a process tells the others after reading its share.
struct ShareFacts {
  int code = 0;  // StatusCode of the first error, 0 when none
  std::string message;
  std::vector<std::string> skipped;
  struct File {
    uint64_t index;  // in the job's file order
    int64_t recorded_rank;
    std::string path;
    bool has_steps;
    std::vector<int64_t> step_numbers;
    std::vector<DeviceProperties> devices;
    JobFileFacts job;  // the one-job check's facts (io/load.h)
  };
  std::vector<File> files;
};

std::string EncodeFacts(const ShareFacts& f) {
  ByteWriter w;
  w.I64(f.code);
  w.Str(f.message);
  w.U64(f.skipped.size());
  for (const auto& s : f.skipped) w.Str(s);
  w.U64(f.files.size());
  for (const auto& x : f.files) {
    w.U64(x.index);
    w.I64(x.recorded_rank);
    w.Str(x.path);
    w.U64(x.has_steps);
    w.U64(x.step_numbers.size());
    for (int64_t n : x.step_numbers) w.I64(n);
    w.U64(x.devices.size());
    for (const DeviceProperties& d : x.devices) {
      w.I64(d.id);
      w.Str(d.name);
      w.I64(d.total_global_mem);
      w.I64(d.num_sms);
      w.I64(d.compute_major);
      w.I64(d.compute_minor);
      w.Str(d.device_type);
      w.F64(d.peak_tflops);
      w.F64(d.peak_hbm_gbps);
      w.F64(d.memory_bandwidth_bps);
      w.Str(d.vendor);
      w.I64(d.clock_khz);
    }
    w.U64(uint64_t{x.job.torch} | uint64_t{x.job.has_distributed_info} << 1 | uint64_t{x.job.has_window} << 2);
    for (Ps128 v : {x.job.first, x.job.last}) {
      w.I64(static_cast<int64_t>(v >> 64));
      w.U64(static_cast<uint64_t>(v));
    }
  }
  return w.Take();
}

StatusOr<ShareFacts> DecodeFacts(std::string_view bytes) {
  ByteReader r(bytes);
  ShareFacts f;
  f.code = static_cast<int>(r.I64());
  f.message = r.Str();
  f.skipped.resize(r.Count());
  for (auto& s : f.skipped) s = r.Str();
  f.files.resize(r.Count(4));
  for (auto& x : f.files) {
    x.index = r.U64();
    x.recorded_rank = r.I64();
    x.path = r.Str();
    x.has_steps = r.U64() != 0;
    x.step_numbers.resize(r.Count());
    for (int64_t& n : x.step_numbers) n = r.I64();
    x.devices.resize(r.Count(8));
    for (DeviceProperties& d : x.devices) {
      d.id = r.I64();
      d.name = r.Str();
      d.total_global_mem = r.I64();
      d.num_sms = r.I64();
      d.compute_major = r.I64();
      d.compute_minor = r.I64();
      d.device_type = r.Str();
      d.peak_tflops = r.F64();
      d.peak_hbm_gbps = r.F64();
      d.memory_bandwidth_bps = r.F64();
      d.vendor = r.Str();
      d.clock_khz = r.I64();
    }
    const uint64_t bits = r.U64();
    x.job.torch = bits & 1, x.job.has_distributed_info = bits & 2, x.job.has_window = bits & 4;
    for (Ps128* v : {&x.job.first, &x.job.last}) {
      const int64_t hi = r.I64();
      *v = static_cast<Ps128>(static_cast<unsigned __int128>(static_cast<uint64_t>(hi)) << 64 | r.U64());
    }
  }
  if (r.ok() && !r.done()) r.Fail("bytes after the end");
  if (!r.ok()) return DataLoss("a process's facts about its ranks, " + r.error());
  return f;
}

// A status every process agrees on, or the report bytes.
std::string EncodeShard(const StatusOr<Report>& shard) {
  ByteWriter w;
  if (!shard.ok()) {
    w.I64(static_cast<int64_t>(shard.status().code()));
    w.Str(shard.status().message());
    return w.Take();
  }
  w.I64(0);
  w.Str(EncodeReport(*shard));
  return w.Take();
}

}  // namespace

namespace {

double Lap(std::chrono::steady_clock::time_point& clock) {
  const auto now = std::chrono::steady_clock::now();
  const double s = std::chrono::duration<double>(now - clock).count();
  clock = now;
  return s;
}

// Steps 1-4 of a run: this process's share of the inputs, its ranks numbered
// as the whole job numbers them, not yet viewed. Every process returns the
// same error.
StatusOr<Session> OpenShare(const InputOptions& inputs, Comm& comm, DistributedStats* stats) {
  auto clock = std::chrono::steady_clock::now();
  if (inputs.merge || inputs.merge_offset_us || !inputs.capture.empty())
    return InvalidArgument("--merge and --capture do not run under MPI: run them as one process");
  // 1. Every process finds the same files, and reads its share.
  std::vector<std::string> notes;
  ASSIGN_OR_RETURN(std::vector<std::string> files, ExpandTracePaths(inputs.paths, &notes));
  std::vector<uint64_t> sizes;
  for (const auto& f : files) {
    std::error_code ec;
    const uint64_t size = f == "-" ? 0 : std::filesystem::file_size(f, ec);
    sizes.push_back(ec ? 0 : size);
  }
  if (std::find(files.begin(), files.end(), "-") != files.end())
    return InvalidArgument("standard input ('-') cannot be shared out under MPI: name the files");
  const auto [first, last] = ShareFiles(sizes, comm.size())[static_cast<size_t>(comm.process())];
  const std::vector<std::string> mine(files.begin() + static_cast<std::ptrdiff_t>(first),
                                      files.begin() + static_cast<std::ptrdiff_t>(last));
  LoadOptions lo;
  lo.threads = inputs.threads;
  lo.max_decoded_bytes = static_cast<uint64_t>(inputs.max_input_gb * 1e9);
  lo.all_args = inputs.all_args;
  ASSIGN_OR_RETURN(lo.steps_from, ParseStepsFrom(inputs.steps_from));
  ExpandedLoad how;
  how.assign_ranks = false;
  how.require_one = false;
  std::vector<size_t> kept;
  how.kept = &kept;
  const std::set<std::string> named(inputs.paths.begin(), inputs.paths.end());
  StatusOr<Profile> loaded = LoadExpanded(mine, named, lo, how);
  stats->files += files.size();
  stats->read_s += Lap(clock);

  // 2. What each process found, to every process.
  ShareFacts facts;
  if (!loaded.ok()) {
    facts.code = static_cast<int>(loaded.status().code());
    facts.message = loaded.status().message();
  } else {
    facts.skipped = loaded->skipped;
    for (size_t k = 0; k < loaded->ranks.size(); ++k) {
      const RankProfile& r = loaded->ranks[k];
      ShareFacts::File f{first + kept[k], r.meta.rank,        r.path, !r.steps.empty(), {},
                         r.meta.devices,  FactsForJobCheck(r)};
      if (r.MarkedSteps())
        for (const Step& s : r.steps) f.step_numbers.push_back(s.number);
      facts.files.push_back(std::move(f));
    }
  }
  std::vector<ShareFacts> all;
  for (const std::string& bytes : comm.AllGather(EncodeFacts(facts))) {
    stats->fact_bytes += bytes.size();
    ASSIGN_OR_RETURN(ShareFacts f, DecodeFacts(bytes));
    all.push_back(std::move(f));
  }
  // The first error in file order, as one process would meet it.
  for (const ShareFacts& f : all)
    if (f.code != 0) return Status(static_cast<StatusCode>(f.code), f.message);
  std::vector<const ShareFacts::File*> job;
  std::vector<std::string> skipped;
  for (const ShareFacts& f : all) {
    for (const auto& x : f.files) job.push_back(&x);
    skipped.insert(skipped.end(), f.skipped.begin(), f.skipped.end());
  }
  if (job.empty())
    return NotFound(
        fmt::format("no traces among the {} files given ({})", files.size(), skipped.empty() ? "" : skipped.front()));

  // 3. Rank numbers over the whole job, as LoadProfile gives them.
  std::set<int64_t> taken;
  for (const auto* x : job) {
    if (x->recorded_rank < 0) continue;
    if (!taken.insert(x->recorded_rank).second) {
      std::string both;
      for (const auto* q : job)
        if (q->recorded_rank == x->recorded_rank) both += (both.empty() ? "" : " and ") + q->path;
      return InvalidArgument(
          fmt::format("{} all claim rank {} (distributedInfo.rank, or the MPI rank in an Nsight Systems export's "
                      "environment); pass the traces of one job only",
                      both, x->recorded_rank));
    }
  }
  std::map<uint64_t, int64_t> rank_of;                    // file index -> rank
  std::vector<std::pair<std::string, int64_t>> numbered;  // files numbered by their order, as LoadProfile notes them
  int64_t next_free = 0;
  std::set<int64_t> step_numbers;
  JobFacts jf;
  jf.every_rank_has_steps = 1;
  for (const auto* x : job) {
    int64_t rank = x->recorded_rank;
    if (rank < 0) {
      while (taken.count(next_free)) ++next_free;
      rank = next_free;
      taken.insert(next_free);
      numbered.emplace_back(x->path, rank);
    }
    rank_of[x->index] = rank;
    jf.ranks.push_back(rank);
    step_numbers.insert(x->step_numbers.begin(), x->step_numbers.end());
    if (!x->has_steps) jf.every_rank_has_steps = 0;
  }
  std::sort(jf.ranks.begin(), jf.ranks.end());
  {
    std::vector<std::pair<int64_t, const std::vector<DeviceProperties>*>> by_rank;
    for (const auto* x : job) by_rank.push_back({rank_of.at(x->index), &x->devices});
    std::stable_sort(by_rank.begin(), by_rank.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    jf.devices.emplace();
    for (const auto& [rank, d] : by_rank) jf.devices->insert(jf.devices->end(), d->begin(), d->end());
  }
  stats->ranks += jf.ranks.size();
  jf.multi_step = step_numbers.size() >= 2 ? 1 : 0;

  // 4. This process's ranks, viewed as the whole job views them; its shard.
  Session s;
  s.inputs = inputs;
  s.inputs.job = jf;
  s.profile = std::move(*loaded);
  for (size_t k = 0; k < s.profile.ranks.size(); ++k) s.profile.ranks[k].meta.rank = rank_of.at(first + kept[k]);
  std::stable_sort(s.profile.ranks.begin(), s.profile.ranks.end(),
                   [](const RankProfile& a, const RankProfile& b) { return a.meta.rank < b.meta.rank; });
  // The job's notes once (process 0); skipped files where they were found.
  if (comm.process() == 0) {
    s.profile.notes = std::move(notes);
    if (std::string note = FileOrderRankNote(numbered, job.size()); !note.empty())
      s.profile.notes.push_back(std::move(note));
    // Whether the files are one job, over every process's files in job order.
    std::vector<const ShareFacts::File*> ordered(job);
    std::sort(ordered.begin(), ordered.end(), [&](const ShareFacts::File* a, const ShareFacts::File* b) {
      return rank_of.at(a->index) < rank_of.at(b->index);
    });
    std::vector<JobFileFacts> jobs;
    for (const auto* x : ordered) jobs.push_back(x->job);
    for (std::string& n : NotOneJob(jobs)) s.profile.notes.push_back(std::move(n));
  }
  return s;
}

// Step 5: the shards to process 0, which combines them.
StatusOr<std::optional<Report>> GatherAndCombine(const StatusOr<Report>& shard,
                                                 const std::function<StatusOr<Report>(std::vector<Report>)>& combine,
                                                 Comm& comm, DistributedStats* stats) {
  auto clock = std::chrono::steady_clock::now();
  std::vector<std::string> gathered = comm.Gather(EncodeShard(shard));
  // Errors: process 0 knows them all; the others know their own. Every
  // process that failed returns its error; process 0 the first in order.
  if (comm.process() != 0) {
    if (!shard.ok()) return shard.status();
    return std::optional<Report>();
  }
  std::vector<Report> shards;
  for (size_t p = 0; p < gathered.size(); ++p) {
    stats->shard_bytes += gathered[p].size();
    stats->max_shard_bytes = std::max<uint64_t>(stats->max_shard_bytes, gathered[p].size());
    ByteReader r(gathered[p]);
    const auto code = static_cast<int>(r.I64());
    std::string body = r.Str();
    if (!r.ok()) return DataLoss(fmt::format("process {}'s results, {}", p, r.error()));
    if (code != 0) return Status(static_cast<StatusCode>(code), body);
    ASSIGN_OR_RETURN(Report rep, DecodeReport(body));
    shards.push_back(std::move(rep));
  }
  ASSIGN_OR_RETURN(Report report, combine(std::move(shards)));
  stats->combine_s = Lap(clock);
  return std::optional<Report>(std::move(report));
}

}  // namespace

StatusOr<std::optional<Report>> RunDistributed(const InputOptions& inputs, const Sharded& command, Comm& comm,
                                               DistributedStats* stats) {
  DistributedStats local;
  if (!stats) stats = &local;
  stats->processes = comm.size();
  ASSIGN_OR_RETURN(Session s, OpenShare(inputs, comm, stats));
  auto clock = std::chrono::steady_clock::now();
  Status viewed = AttachView(s);
  if (command.needs_engine_window) {
    // Every process takes part, whatever its view's state.
    auto [first, last] = viewed.ok() ? EngineWindow(s.view) : std::pair<Ps, Ps>{1, 0};
    ByteWriter w;
    w.I64(first);
    w.I64(last);
    Ps all_first = std::numeric_limits<Ps>::max(), all_last = std::numeric_limits<Ps>::min();
    for (const std::string& bytes : comm.AllGather(w.Take())) {
      stats->fact_bytes += bytes.size();
      ByteReader r(bytes);
      const Ps a = r.I64(), z = r.I64();
      if (!r.ok()) return DataLoss("a process's engine window, " + r.error());
      if (a <= z) all_first = std::min(all_first, a), all_last = std::max(all_last, z);
    }
    s.inputs.job.engine_window = std::pair<Ps, Ps>{all_first, all_last};
  }
  StatusOr<Report> shard = [&]() -> StatusOr<Report> {
    RETURN_IF_ERROR(viewed);
    ASSIGN_OR_RETURN(Report r, command.shard(s));
    Table grade = FullGrade(s);  // every command's JSON carries the job's grade
    grade.id = "_job_grade";
    r.tables.push_back(std::move(grade));
    return r;
  }();
  s = Session();  // the ops go before the gather
  stats->shard_s = Lap(clock);
  auto combine = [&command](std::vector<Report> shards) -> StatusOr<Report> {
    ASSIGN_OR_RETURN(Table grade, ConcatByRank(shards, "_job_grade"));
    for (Report& r : shards) std::erase_if(r.tables, [](const Table& t) { return t.id == "_job_grade"; });
    ASSIGN_OR_RETURN(Report r, command.combine(std::move(shards)));
    grade.id = "grade";
    if (!r.grade) r.grade = std::move(grade);
    return r;
  };
  return GatherAndCombine(shard, combine, comm, stats);
}

StatusOr<std::optional<Report>> RunDistributed(const InputOptions& base, const InputOptions& neu,
                                               const PairSharded& command, Comm& comm, DistributedStats* stats) {
  DistributedStats local;
  if (!stats) stats = &local;
  stats->processes = comm.size();
  // Both sides read first, as one process reads them, then viewed.
  ASSIGN_OR_RETURN(Session b, OpenShare(base, comm, stats));
  ASSIGN_OR_RETURN(Session n, OpenShare(neu, comm, stats));
  auto clock = std::chrono::steady_clock::now();
  StatusOr<Report> shard = [&]() -> StatusOr<Report> {
    RETURN_IF_ERROR(AttachView(b));
    RETURN_IF_ERROR(AttachView(n));
    ASSIGN_OR_RETURN(Report r, command.shard(b, n));
    for (auto [side, id] : {std::pair{&b, "_base_grade"}, std::pair{&n, "_new_grade"}}) {
      Table grade = FullGrade(*side);
      grade.id = id;
      r.tables.push_back(std::move(grade));
    }
    return r;
  }();
  b = Session(), n = Session();
  stats->shard_s = Lap(clock);
  auto combine = [&command](std::vector<Report> shards) -> StatusOr<Report> {
    std::vector<Table> grades;
    for (const char* id : {"_base_grade", "_new_grade"}) {
      ASSIGN_OR_RETURN(Table g, ConcatByRank(shards, id));
      grades.push_back(std::move(g));
    }
    for (Report& r : shards)
      std::erase_if(r.tables, [](const Table& t) { return t.id == "_base_grade" || t.id == "_new_grade"; });
    ASSIGN_OR_RETURN(Report r, command.combine(std::move(shards)));
    if (!r.grade) r.grade = RunsGrade(grades, {"base", "new"});
    return r;
  };
  return GatherAndCombine(shard, combine, comm, stats);
}

}  // namespace mlprof::app
