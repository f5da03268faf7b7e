#include "io/load.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

#include "base/file_loader.h"
#include "io/ascend_files.h"
#include "io/graph_capture.h"
#include "io/merge.h"
#include "io/readers.h"
#include "model/steps.h"

namespace mlprof {

namespace fs = std::filesystem;

namespace {

bool IsTraceFileName(const std::string& name) {
  auto ends = [&](std::string_view s) {
    return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  // .sqlite: Nsight Systems exports (`nsys export --type sqlite`), one per
  // rank as `nsys profile -o report.%q{RANK}` writes them.
  return ends(".json") || ends(".json.gz") || ends(".json.zst") || ends(".gz") || ends(".zst") || ends(".xplane.pb") ||
         ends(".sqlite");
}

Status ReadOne(LoadedFile& f, const ReadOptions& ro, RankProfile* out) {
  if (const Reader* r = SniffReader(f, ReadFor::kTrace)) {
    if (r->read_trace) return r->read_trace(f, ro, out);
    return WrongFormat(fmt::format("{}: this is {}, not a trace{}", f.path, r->description,
                                   r->read_hlo ? "; `mlprof hlo` reads it" : ""));
  }
  std::string_view head = f.bytes.view().substr(0, 64);
  if (!head.empty() && static_cast<unsigned char>(head[0]) == 0x0a)
    return WrongFormat(fmt::format("{}: a protobuf that is not an XSpace (an HloProto?): not readable yet", f.path));
  if (head.empty() && f.truncated)
    return DataLoss(fmt::format("{}: the {} stream ends at compressed byte {} before any data", f.path,
                                CompressionName(f.compression), f.truncated_at));
  if (head.empty()) return DataLoss(fmt::format("{}: empty file: expected a trace", f.path));
  return WrongFormat(fmt::format(
      "{}: unknown format at byte 0 (starts with bytes {:02x} {:02x}): expected Chrome/Kineto trace JSON "
      "({{ or [), optionally gzip- or zstd-compressed",
      f.path, static_cast<unsigned char>(head[0]), head.size() > 1 ? static_cast<unsigned char>(head[1]) : 0));
}

}  // namespace

namespace {

// A directory's trace files, by name. Every other entry is named in `notes`
// with why it was skipped: a trace name on something that is not a regular
// file (a FIFO, a device, a broken link) one by one, the rest in one line.
StatusOr<std::vector<std::string>> TraceFilesIn(const fs::path& dir, std::vector<std::string>* notes) {
  std::error_code ec;
  std::vector<std::string> files, others;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::string name = entry.path().filename().string();
    std::error_code ec2;
    const bool regular = entry.is_regular_file(ec2);
    if (!IsTraceFileName(name)) {
      others.push_back(entry.is_directory(ec2) ? name + "/" : name);
      continue;
    }
    if (regular) {
      files.push_back(entry.path().string());
      continue;
    }
    const fs::file_status st = entry.symlink_status(ec2);
    const char* kind = fs::is_fifo(st)                                      ? "a FIFO (named pipe)"
                       : fs::is_character_file(st) || fs::is_block_file(st) ? "a device"
                       : fs::is_socket(st)                                  ? "a socket"
                       : fs::is_directory(st)                               ? "a directory"
                       : fs::is_symlink(st)                                 ? "a link to no regular file"
                                                                            : "not a regular file";
    if (notes) notes->push_back(fmt::format("{}: skipped: {}, not a trace file", entry.path().string(), kind));
  }
  if (ec) return InvalidArgument(fmt::format("{}: cannot list directory: {}", dir.string(), ec.message()));
  std::sort(files.begin(), files.end());
  if (notes && !others.empty() && !files.empty()) {
    std::sort(others.begin(), others.end());
    std::string listed;
    for (size_t i = 0; i < others.size() && i < 5; ++i) listed += (i ? ", " : "") + others[i];
    if (others.size() > 5) listed += fmt::format(" and {} more", others.size() - 5);
    notes->push_back(
        fmt::format("{}: skipped {} {} not named as traces (*.json, *.json.gz, *.zst, *.xplane.pb, *.sqlite): {}",
                    dir.string(), others.size(), others.size() == 1 ? "entry" : "entries", listed));
  }
  return files;
}

// A TensorBoard log directory keeps profiles in plugins/profile/<run>/, one
// folder per capture named by its time: the latest run's files, an XSpace
// preferred over the trace-viewer JSON of the same host (the JSON is an
// export of it, and may be cut at the exporter's event cap).
StatusOr<std::vector<std::string>> TensorBoardRunFiles(const fs::path& dir, std::vector<std::string>* notes) {
  std::error_code ec;
  fs::path profile_dir = dir / "plugins" / "profile";
  if (!fs::is_directory(profile_dir, ec)) {
    if (dir.filename() == "profile" && fs::is_directory(dir, ec))
      profile_dir = dir;
    else
      return std::vector<std::string>{};
  }
  std::vector<fs::path> runs;
  for (const auto& entry : fs::directory_iterator(profile_dir, ec))
    if (entry.is_directory()) runs.push_back(entry.path());
  std::sort(runs.begin(), runs.end());
  for (auto run = runs.rbegin(); run != runs.rend(); ++run) {
    ASSIGN_OR_RETURN(std::vector<std::string> files, TraceFilesIn(*run, nullptr));
    std::set<std::string> xspace_hosts;
    for (const auto& f : files)
      if (f.ends_with(".xplane.pb")) xspace_hosts.insert(f.substr(0, f.size() - std::string_view(".xplane.pb").size()));
    std::vector<std::string> kept;
    for (const auto& f : files) {
      const size_t json = f.rfind(".trace.json");
      if (json != std::string::npos && xspace_hosts.count(f.substr(0, json))) continue;
      kept.push_back(f);
    }
    if (kept.empty()) continue;
    notes->push_back(fmt::format(
        "TensorBoard log directory: reading run '{}'{} ({} file(s)); name a run's folder to "
        "read another",
        run->filename().string(), runs.size() > 1 ? fmt::format(", the latest of {}", runs.size()) : "", kept.size()));
    return kept;
  }
  return std::vector<std::string>{};
}

}  // namespace

StatusOr<std::vector<std::string>> ExpandTracePaths(const std::vector<std::string>& paths,
                                                    std::vector<std::string>* notes) {
  std::vector<std::string> out;
  std::vector<std::string> ignored;
  if (!notes) notes = &ignored;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (p != "-" && fs::is_directory(p, ec)) {
      // torch_npu output: a run folder (or a folder of one per rank) holds
      // its trace in ASCEND_PROFILER_OUTPUT/, beside files the reader joins.
      std::vector<std::string> missing;
      std::vector<std::string> ascend = AscendTraceFiles(p, &missing);
      for (const std::string& m : missing)
        notes->push_back(
            fmt::format("{}: no trace_view.json, kernel_details.csv or ascend_pytorch_profiler_*.db; skipped", m));
      if (!ascend.empty() || !missing.empty()) {
        if (ascend.empty())
          return NotFound(
              fmt::format("{}: torch_npu output without a trace_view.json, kernel_details.csv or "
                          "ascend_pytorch_profiler_*.db in any ASCEND_PROFILER_OUTPUT folder",
                          p));
        out.insert(out.end(), ascend.begin(), ascend.end());
        continue;
      }
      ASSIGN_OR_RETURN(std::vector<std::string> files, TraceFilesIn(p, notes));
      if (files.empty()) {
        ASSIGN_OR_RETURN(files, TensorBoardRunFiles(p, notes));
      }
      if (files.empty())
        return NotFound(fmt::format(
            "{}: no trace files (*.json, *.json.gz, *.zst, *.xplane.pb, *.sqlite) in this directory, nor a TensorBoard "
            "plugins/profile/<run>/ folder with some",
            p));
      out.insert(out.end(), files.begin(), files.end());
    } else {
      if (p != "-" && !fs::exists(p, ec)) return NotFound(fmt::format("{}: no such file or directory", p));
      out.push_back(p);
    }
  }
  if (out.empty()) return InvalidArgument("no input files given");
  return out;
}

StatusOr<Profile> LoadProfile(const std::vector<std::string>& paths, const LoadOptions& options) {
  std::vector<std::string> notes;
  ASSIGN_OR_RETURN(std::vector<std::string> files, ExpandTracePaths(paths, &notes));
  // Files named on the command line must be traces; files found in a
  // directory may be other JSON (configs, sidecars) and are then skipped.
  std::set<std::string> named(paths.begin(), paths.end());
  ASSIGN_OR_RETURN(Profile profile, LoadExpanded(files, named, options));
  profile.notes.insert(profile.notes.begin(), notes.begin(), notes.end());
  return profile;
}

StatusOr<Profile> LoadExpanded(const std::vector<std::string>& files, const std::set<std::string>& named,
                               const LoadOptions& options, const ExpandedLoad& how) {
  Profile profile;
  profile.ranks.resize(files.size());
  std::vector<Status> statuses(files.size());

  uint64_t total_bytes = 0;
  for (const auto& f : files) {
    std::error_code ec;
    if (f != "-") total_bytes += fs::file_size(f, ec);
  }
  std::mutex progress_mu;
  std::vector<uint64_t> done(files.size(), 0);
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < files.size();) {
      auto loaded = LoadFile(files[i], LoadLimits{options.max_decoded_bytes});
      if (!loaded.ok()) {
        statuses[i] = loaded.status();
        continue;
      }
      ReadOptions ro;
      ro.all_args = options.all_args;
      if (options.progress) {
        uint64_t file_bytes = loaded->file_size;
        ro.progress = [&, i, file_bytes](uint64_t at, uint64_t size) {
          std::lock_guard<std::mutex> lock(progress_mu);
          done[i] = size ? file_bytes * at / size : 0;
          uint64_t sum = 0;
          for (uint64_t d : done) sum += d;
          options.progress(sum, total_bytes);
        };
      }
      statuses[i] = ReadOne(*loaded, ro, &profile.ranks[i]);
      // --steps-from: the steps from that source instead of the first found.
      if (statuses[i].ok() && options.steps_from != StepSource::kAuto) FindSteps(profile.ranks[i], options.steps_from);
      if (statuses[i].ok() && loaded->trailing_garbage_at)
        profile.ranks[i].stats.Add(ImportStat::compressed_trailing_garbage, loaded->trailing_garbage_at);
    }
  };
  int threads = options.threads > 0 ? options.threads : static_cast<int>(std::thread::hardware_concurrency());
  threads = std::max(1, std::min<int>(threads, static_cast<int>(files.size())));
  if (threads == 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }
  std::vector<RankProfile> kept;
  for (size_t i = 0; i < files.size(); ++i) {
    const Status& s = statuses[i];
    if (s.code() == StatusCode::kWrongFormat && !named.count(files[i])) {
      profile.skipped.push_back(s.message());
      continue;
    }
    RETURN_IF_ERROR(s);
    kept.push_back(std::move(profile.ranks[i]));
    if (how.kept) how.kept->push_back(i);
  }
  if (kept.empty() && how.require_one)
    return NotFound(fmt::format("no traces among the {} files given ({})", files.size(),
                                profile.skipped.empty() ? "" : profile.skipped.front()));
  profile.ranks = std::move(kept);
  if (options.merge) {
    MergeOptions mo;
    mo.offset_us = options.merge_offset_us;
    ASSIGN_OR_RETURN(RankProfile merged, MergeHostAndDevice(std::move(profile.ranks), mo, &profile.notes));
    if (options.steps_from != StepSource::kAuto) FindSteps(merged, options.steps_from);
    profile.ranks.clear();
    profile.ranks.push_back(std::move(merged));
  }
  if (!options.capture.empty()) {
    ASSIGN_OR_RETURN(std::vector<CaptureEntry> entries, FindCaptures(options.capture));
    std::vector<RankProfile> captures;
    for (const CaptureEntry& e : entries) {
      LoadOptions co;
      co.threads = 1;
      co.max_decoded_bytes = options.max_decoded_bytes;
      co.all_args = true;  // the launch calls' `kernel` arg
      auto loaded = LoadProfile({e.path}, co);
      if (!loaded.ok()) return Status(loaded.status().code(), fmt::format("--capture: {}", loaded.status().message()));
      captures.push_back(std::move(loaded->ranks.front()));
    }
    std::vector<const RankProfile*> ptrs;
    for (const RankProfile& c : captures) ptrs.push_back(&c);
    int64_t launches = 0, matched = 0;
    for (RankProfile& r : profile.ranks) {
      CaptureMergeStats st;
      RETURN_IF_ERROR(ApplyGraphCaptures(r, entries, ptrs, &st, &profile.notes));
      launches += st.graph_launches, matched += st.matched;
    }
    // --capture asked for attribution: nothing attributed is an error, not a
    // warning among others.
    if (launches == 0)
      return DataLoss(
          fmt::format("--capture {}: the inputs have no graph launches (cudaGraphLaunch, hipGraphLaunch) to "
                      "attribute",
                      options.capture));
    if (matched == 0) {
      std::string why;
      for (const std::string& n : profile.notes)
        if (n.starts_with("--capture:")) why += "\n  " + n.substr(11);
      return DataLoss(fmt::format("--capture {}: none of the {} graph launches matched a graph captured there:{}",
                                  options.capture, launches, why));
    }
  }

  if (!how.assign_ranks) return profile;
  // Ranks: distributedInfo.rank where recorded; files without one take the
  // smallest unused numbers in file order. Two files with one rank: error.
  std::set<int64_t> taken;
  for (const RankProfile& r : profile.ranks) {
    if (r.meta.rank < 0) continue;
    if (!taken.insert(r.meta.rank).second) {
      std::string both;
      for (const RankProfile& q : profile.ranks)
        if (q.meta.rank == r.meta.rank) both += (both.empty() ? "" : " and ") + q.path;
      return InvalidArgument(
          fmt::format("{} all claim rank {} (distributedInfo.rank, or the MPI rank in an Nsight Systems export's "
                      "environment); pass the traces of one job only",
                      both, r.meta.rank));
    }
  }
  int64_t next_free = 0;
  std::vector<std::pair<std::string, int64_t>> numbered;
  for (RankProfile& r : profile.ranks) {
    if (r.meta.rank >= 0) continue;
    while (taken.count(next_free)) ++next_free;
    r.meta.rank = next_free;
    taken.insert(next_free);
    numbered.emplace_back(r.path, next_free);
  }
  if (std::string note = FileOrderRankNote(numbered, profile.ranks.size()); !note.empty())
    profile.notes.push_back(std::move(note));
  std::stable_sort(profile.ranks.begin(), profile.ranks.end(),
                   [](const RankProfile& a, const RankProfile& b) { return a.meta.rank < b.meta.rank; });
  std::vector<JobFileFacts> facts;
  for (const RankProfile& r : profile.ranks) facts.push_back(FactsForJobCheck(r));
  for (std::string& n : NotOneJob(facts)) profile.notes.push_back(std::move(n));
  return profile;
}

JobFileFacts FactsForJobCheck(const RankProfile& r) {
  JobFileFacts f;
  // PyTorch traces only: nsys, XLA and Ascend exports record no
  // distributedInfo and are numbered by their own rules.
  f.torch = IsTorchTrace(r.format);
  f.has_distributed_info = r.meta.has_distributed_info;
  Ps first = INT64_MAX, last = INT64_MIN;
  for (size_t i = 0; i < r.ops.size(); ++i) {
    if (r.ops.kind[i] == OpKind::kTraceSpan) continue;
    first = std::min(first, r.ops.ts[i]);
    last = std::max(last, r.ops.end(i));
  }
  f.has_window = first <= last;
  if (f.has_window) f.first = r.origin_abs_ps + first, f.last = r.origin_abs_ps + last;
  return f;
}

std::vector<std::string> NotOneJob(const std::vector<JobFileFacts>& files) {
  std::vector<const JobFileFacts*> torch;
  for (const JobFileFacts& f : files)
    if (f.torch) torch.push_back(&f);
  if (torch.size() < 2) return {};
  size_t without_info = 0;
  for (const JobFileFacts* f : torch) without_info += !f->has_distributed_info;
  // Ranks of one job run at the same time: each file's window on its own
  // clock (whole microseconds since the epoch in Kineto), compared.
  std::vector<const JobFileFacts*> w;
  for (const JobFileFacts* f : torch)
    if (f->has_window) w.push_back(f);
  std::sort(w.begin(), w.end(), [](const JobFileFacts* a, const JobFileFacts* b) { return a->first < b->first; });
  Ps128 gap = 0;  // the longest stretch between the files seen so far ending and the next one starting
  Ps128 reach = w.empty() ? 0 : w.front()->last;
  for (size_t k = 1; k < w.size(); ++k) {
    if (w[k]->first > reach) gap = std::max(gap, w[k]->first - reach);
    reach = std::max(reach, w[k]->last);
  }
  if (gap == 0 && without_info < torch.size()) return {};  // some say their rank, and they ran together
  std::string why;
  if (without_info > 0)
    why = fmt::format("{} of the {} PyTorch traces record no distributedInfo (torch.distributed's rank and world size)",
                      without_info, torch.size());
  if (gap > 0)
    why += fmt::format(
        "{}their time windows do not overlap (one ends {:.3f} s before the next begins): they were not "
        "recorded at the same time",
        why.empty() ? "" : ", and ", static_cast<double>(gap) / 1e12);
  return {fmt::format(
      "these {} traces are not known to be one job: {}; cross-rank figures (collectives, stragglers) compare them "
      "as ranks of one job. If they are separate runs, compare them with `mlprof diff A B` or `mlprof compare A B "
      "...`; to read them as one job, profile with torch.distributed initialised",
      torch.size(), why)};
}

std::string FileOrderRankNote(const std::vector<std::pair<std::string, int64_t>>& numbered, size_t files) {
  if (files < 2 || numbered.empty()) return "";
  std::string listed;
  constexpr size_t kShown = 8;
  for (size_t i = 0; i < numbered.size() && i < kShown; ++i)
    listed += fmt::format("{}rank {} = {}", i ? ", " : "", numbered[i].second, numbered[i].first);
  if (numbered.size() > kShown) listed += fmt::format(" and {} more", numbered.size() - kShown);
  return fmt::format(
      "{} of the {} files record{} no rank (Kineto's distributedInfo.rank, an MPI rank in an Nsight Systems export's "
      "environment): numbered in file order: {}",
      numbered.size(), files, numbered.size() == 1 ? "s" : "", listed);
}

StatusOr<RankProfile> LoadTraceBytes(std::string_view bytes, const std::string& name) {
  return LoadTraceBytes(bytes, name, ReadOptions{});
}

StatusOr<RankProfile> LoadTraceBytes(std::string_view bytes, const std::string& name, const ReadOptions& options) {
  ASSIGN_OR_RETURN(LoadedFile f, LoadBytes(bytes, name));
  RankProfile p;
  RETURN_IF_ERROR(ReadOne(f, options, &p));
  return p;
}

}  // namespace mlprof
