#include "io/merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "model/builder.h"

namespace mlprof {
namespace {

constexpr int64_t kLow32 = 0xFFFFFFFF;

// Replays one input's ops (those `keep` selects) into the builder, shifted
// by `shift` ps, re-interning its strings.
class Replay {
 public:
  Replay(const RankProfile& in, ProfileBuilder& b, Ps128 shift) : in_(in), b_(b), shift_(shift) {}

  StringId S(StringId id) { return id ? b_.strings().Intern(in_.str(id)) : 0; }
  int64_t Id(int64_t v) { return v >= kStringIdBase ? kStringIdBase + S(static_cast<StringId>(v - kStringIdBase)) : v; }

  template <typename Keep>
  void Ops(Keep keep, bool low32_correlation) {
    const OpTable& o = in_.ops;
    std::vector<ArgValue> args;
    std::vector<bool> named(in_.tracks.size(), false);
    for (size_t i = 0; i < o.size(); ++i) {
      if (!keep(i)) continue;
      const Track& t = in_.tracks[o.track[i]];
      EventRecord e;
      e.ph = 'X';
      e.name = S(o.name[i]);
      e.cat = S(o.cat[i]);
      e.has_cat = o.cat[i] != 0;
      e.kind = o.kind[i];
      e.ts = in_.origin_abs_ps + o.ts[i] + shift_;
      e.dur = o.dur[i];
      e.has_ts = e.has_dur = true;
      e.pid = Id(t.pid);
      e.tid = Id(t.tid);
      e.stream = t.kind == TrackKind::kGpuStream ? t.stream : -1;
      e.device = t.kind == TrackKind::kGpuStream ? t.device : -1;
      e.correlation = o.correlation[i] >= 0 && low32_correlation ? (o.correlation[i] & kLow32) : o.correlation[i];
      e.external_id = o.external_id_of(i);
      e.input_dims = S(o.input_dims_of(i));
      e.input_types = S(o.input_types_of(i));
      e.concrete_inputs = S(o.concrete_inputs_of(i));
      e.comm = S(o.comm_of(i));
      e.grid = S(o.grid_of(i));
      e.block = o.block.empty() ? 0 : S(o.block[i]);
      e.bytes = o.bytes_of(i);
      e.stack = S(o.stack_of(i));
      e.blocks_per_sm = o.blocks_per_sm_of(i);
      e.occupancy = o.occupancy_of(i);
      e.offset = o.offset[i];
      args.clear();
      for (const Arg& a : in_.args.Of(ArgOwner::kOp, static_cast<uint32_t>(i))) {
        ArgValue v = a.value;
        v.key = S(v.key);
        if (v.type == ArgType::kString) v.s = S(v.s);
        args.push_back(v);
      }
      e.args = args.data();
      e.arg_count = static_cast<uint32_t>(args.size());
      b_.AddEvent(e);
      if (!named[o.track[i]]) {
        named[o.track[i]] = true;
        if (t.name) b_.SetThreadName(e.pid, e.tid, S(t.name));
        if (t.process_name) b_.SetProcessName(e.pid, S(t.process_name));
      }
    }
  }

  void Counters() {
    for (const CounterSample& c : in_.counters) {
      const Track& t = in_.tracks[c.track];
      EventRecord e;
      e.name = S(c.name);
      e.pid = Id(t.pid);
      e.tid = Id(t.tid);
      e.ts = in_.origin_abs_ps + c.ts + shift_;
      e.has_ts = true;
      b_.AddCounter(e, S(c.series), c.value);
      if (t.device >= 0) b_.SetTrackDevice(e.pid, e.tid, t.device);
    }
  }

  void Flows() {
    for (const Flow& f : in_.flows) {
      const Track& t = in_.tracks[f.track];
      EventRecord e;
      e.ph = f.phase;
      e.cat = S(f.cat);
      e.has_cat = f.cat != 0;
      e.id = f.id;
      e.has_id = true;
      e.pid = Id(t.pid);
      e.tid = Id(t.tid);
      e.ts = in_.origin_abs_ps + f.ts + shift_;
      e.has_ts = true;
      b_.AddEvent(e);
    }
  }

 private:
  const RankProfile& in_;
  ProfileBuilder& b_;
  Ps128 shift_;
};

// Launch calls by correlation's low 32 bits: absolute start (first kept),
// of the process `high` (the correlation's high 32 bits; -1: any).
std::unordered_map<int64_t, Ps128> Launches(const RankProfile& r, int64_t high = -1) {
  std::unordered_map<int64_t, Ps128> out;
  for (size_t i = 0; i < r.ops.size(); ++i)
    if (IsLaunchOp(r.ops.kind[i]) && r.ops.correlation[i] >= 0 && (high < 0 || (r.ops.correlation[i] >> 32) == high))
      out.emplace(r.ops.correlation[i] & kLow32, r.origin_abs_ps + r.ops.ts[i]);
  return out;
}

}  // namespace

StatusOr<RankProfile> MergeHostAndDevice(std::vector<RankProfile> inputs, const MergeOptions& options,
                                         std::vector<std::string>* notes) {
  if (inputs.size() < 2)
    return InvalidArgument("--merge needs a host-side trace and at least one device profile (2 or more inputs)");
  const RankProfile& host = inputs[0];
  const std::unordered_map<int64_t, Ps128> host_launches = Launches(host);
  if (options.offset_us && !(std::isfinite(*options.offset_us) && std::abs(*options.offset_us) <= 1e12))
    return InvalidArgument(
        fmt::format("--merge-offset-us {}: expected a finite offset within +-10^12 us", *options.offset_us));
  // Each device input's shift onto the host clock, and the process whose
  // GPU work it gives (the correlation's high 32 bits: nsys keeps the
  // process there; -1: all).
  std::vector<Ps128> shifts(inputs.size(), 0);
  std::vector<int64_t> process(inputs.size(), -1);
  for (size_t k = 1; k < inputs.size(); ++k) {
    const RankProfile& dev = inputs[k];
    // A device input of several processes: the one whose launch calls match
    // the host's most (the others' ids would collide in their low 32 bits).
    std::unordered_map<int64_t, size_t> matches;
    for (size_t i = 0; i < dev.ops.size(); ++i)
      if (IsLaunchOp(dev.ops.kind[i]) && dev.ops.correlation[i] >= 0 &&
          host_launches.count(dev.ops.correlation[i] & kLow32))
        ++matches[dev.ops.correlation[i] >> 32];
    if (matches.size() > 1) {
      size_t best = 0;
      for (const auto& [high, n] : matches)
        if (n > best || (n == best && high < process[k])) best = n, process[k] = high;
      notes->push_back(
          fmt::format("--merge: {} holds the launch calls of {} processes; the GPU work of the one "
                      "matching {} ({} calls) is kept",
                      dev.path, matches.size(), host.path, best));
    }
    if (options.offset_us) {
      shifts[k] = static_cast<Ps128>(std::llround(*options.offset_us * 1e6));
      notes->push_back(fmt::format("--merge: {} moved by the given {:.3f} us onto {}'s clock", dev.path,
                                   *options.offset_us, host.path));
      continue;
    }
    std::vector<Ps128> diffs;
    for (const auto& [corr, ts] : Launches(dev, process[k])) {
      auto it = host_launches.find(corr);
      if (it != host_launches.end()) diffs.push_back(it->second - ts);
    }
    if (diffs.empty())
      return InvalidArgument(fmt::format(
          "--merge: {} and {} record no launch calls with a common correlation id, so their clocks cannot be "
          "aligned; give the offset (device clock + offset = host clock) with --merge-offset-us",
          host.path, dev.path));
    std::sort(diffs.begin(), diffs.end());
    const Ps128 median = diffs[diffs.size() / 2];
    std::vector<Ps128> residual;
    for (Ps128 d : diffs) residual.push_back(d > median ? d - median : median - d);
    std::sort(residual.begin(), residual.end());
    shifts[k] = median;
    notes->push_back(fmt::format(
        "--merge: {} moved by {:.3f} us onto {}'s clock: the median over {} launch calls both record (correlation "
        "ids); residual median {:.3f} us, largest {:.3f} us",
        dev.path, static_cast<double>(median) / kPsPerUs, host.path, diffs.size(),
        static_cast<double>(residual[residual.size() / 2]) / kPsPerUs,
        static_cast<double>(residual.back()) / kPsPerUs));
  }
  RankProfile out;
  out.path = host.path;
  out.format = TraceFormat::kMerged;
  out.compression = host.compression;
  for (const RankProfile& r : inputs) out.file_bytes += r.file_bytes, out.decoded_bytes += r.decoded_bytes;
  ProfileBuilder b(&out);
  b.meta() = host.meta;
  b.meta().devices.clear();
  {
    Replay host_replay(host, b, 0);
    host_replay.Ops([&](size_t i) { return !IsGpuOp(host.ops.kind[i]); }, /*low32_correlation=*/true);
    host_replay.Counters();
    host_replay.Flows();
  }
  for (size_t k = 1; k < inputs.size(); ++k) {
    const RankProfile& dev = inputs[k];
    const int64_t high = process[k];
    Replay r(dev, b, shifts[k]);
    r.Ops(
        [&](size_t i) {
          return IsGpuOp(dev.ops.kind[i]) &&
                 (high < 0 || dev.ops.correlation[i] < 0 || (dev.ops.correlation[i] >> 32) == high);
        },
        /*low32_correlation=*/true);
    r.Counters();  // the device's own counters (nsys GPU metrics)
  }
  // Devices: the device inputs' (the host's when they name none).
  for (size_t k = 1; k < inputs.size(); ++k)
    for (const DeviceProperties& d : inputs[k].meta.devices) b.meta().devices.push_back(d);
  if (b.meta().devices.empty()) b.meta().devices = host.meta.devices;
  RETURN_IF_ERROR(b.Finish());
  // The inputs' reading problems (warnings; the informational counts, such
  // as GPU ops without a launch, are the merged profile's own): the host's
  // under its name, a device input's in a note naming it.
  for (size_t i = 0; i < inputs.size(); ++i)
    for (size_t k = 0; k < kImportStatCount; ++k) {
      const RankProfile& r = inputs[i];
      const ImportStatInfo& info = GetImportStatInfo(static_cast<ImportStat>(k));
      if (!r.stats.count[k] || info.severity < Severity::kWarning) continue;
      if (i > 0) {
        notes->push_back(fmt::format("{}: {} x {} (first at byte {}): {}", r.path, r.stats.count[k], info.name,
                                     r.stats.first_offset[k], info.help));
        continue;
      }
      if (!out.stats.count[k]) out.stats.first_offset[k] = r.stats.first_offset[k];
      out.stats.count[k] += r.stats.count[k];
    }
  return out;
}

}  // namespace mlprof
