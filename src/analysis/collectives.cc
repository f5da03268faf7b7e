#include "analysis/collectives.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "analysis/attribution.h"
#include "analysis/comm_kernels.h"
#include "analysis/op_cost.h"
#include "analysis/stats.h"
#include "base/ascii.h"
#include "base/collective.h"

namespace mlprof {
namespace {

// The kind from a c10d name; all_to_allv is an all-to-all that is not
// implicitly synchronising (TraceLens).
std::optional<CollectiveKind> KindOf(std::string_view name) {
  if (name == "all_to_allv" || name == "alltoallv") return CollectiveKind::kAllToAll;
  return CollectiveFromC10dName(name);
}

bool ImplicitSync(std::string_view name) {
  auto k = KindOf(name);
  if (!k || name == "all_to_allv" || name == "alltoallv") return false;
  return *k == CollectiveKind::kAllReduce || *k == CollectiveKind::kAllGather || *k == CollectiveKind::kReduceScatter ||
         *k == CollectiveKind::kAllToAll;
}

// A kernel with no collective args: the c10d name its kernel name implies
// (ncclKernel_AllReduce_..., ncclDevKernel_AllGather_..., SendRecv), "" if
// none. TraceLens takes only cross_device_reduce (allreduce).
std::string NameFromKernel(std::string_view k) {
  if (ContainsNoCase(k, "cross_device_reduce") || ContainsNoCase(k, "allreduce") || ContainsNoCase(k, "all_reduce"))
    return "allreduce";
  if (ContainsNoCase(k, "allgather")) return "allgather";
  if (ContainsNoCase(k, "reducescatter")) return "reduce_scatter";
  if (ContainsNoCase(k, "alltoall")) return "all_to_all";
  if (ContainsNoCase(k, "broadcast")) return "broadcast";
  if (ContainsNoCase(k, "sendrecv")) return "sendrecv";
  return {};
}

// A torch dtype as Kineto's Input type writes it ("float", "long int") in
// c10d's spelling ("Float", "Long"); "" if unknown.
std::string C10dDtype(std::string_view t) {
  static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"float", "Float"},      {"double", "Double"},      {"c10::Half", "Half"}, {"c10::BFloat16", "BFloat16"},
      {"long int", "Long"},    {"long", "Long"},          {"int", "Int"},        {"short int", "Short"},
      {"signed char", "Char"}, {"unsigned char", "Byte"}, {"bool", "Bool"},
  };
  for (const auto& [k, v] : kNames)
    if (t == k) return std::string(v);
  return {};
}

// A kernel with no collective args, described by the op or annotation it was
// launched under: c10d's record_function ranges ("nccl:all_to_all",
// "gloo:all_reduce") or its ops ("c10d::alltoall_base_"), innermost first;
// the buffer from that op's first input (Input Dims, Input type), the group
// from the rank's world size. NCCL runs an all-to-all as SendRecv kernels:
// the op says what the kernel name cannot.
bool DescribeFromLaunchingOp(const RankProfile& p, uint32_t g, std::string* name, std::string* dtype, int64_t* in,
                             int64_t* group) {
  const OpTable& o = p.ops;
  bool found = false;
  ForEachLaunchAncestor(p, g, [&](size_t q) {
    std::string_view n = p.str(o.name[q]);
    bool prefixed = false;
    for (std::string_view prefix : {"nccl:", "gloo:", "ucc:", "c10d::"})
      if (n.starts_with(prefix)) n.remove_prefix(prefix.size()), prefixed = true;
    if (!prefixed) return true;
    while (!n.empty() && n.back() == '_') n.remove_suffix(1);
    if (!KindOf(n)) return true;
    *name = std::string(n);
    std::vector<std::vector<int64_t>> dims;
    std::vector<std::string> types;
    if (ParseDimsList(p.str(o.input_dims_of(q)), &dims) && ParseTypeList(p.str(o.input_types_of(q)), &types) &&
        !dims.empty() && !dims[0].empty() && !types.empty()) {
      int64_t elems = 1;
      for (int64_t d : dims[0]) elems *= d;
      *in = elems;
      *dtype = C10dDtype(types[0]);
    }
    *group = std::max<int64_t>(0, p.meta.world_size);
    found = true;
    return false;
  });
  return found;
}

// "[0, 1, 2]" -> {0, 1, 2}; false when not a list of integers.
bool ParseRanks(std::string_view s, std::vector<int64_t>* out) {
  out->clear();
  size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  if (i >= s.size() || s[i] != '[') return false;
  ++i;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == ',')) ++i;
    if (i < s.size() && s[i] == ']') return true;
    int64_t v = 0;
    const size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i - start < 15) v = v * 10 + (s[i++] - '0');
    if (i == start) return false;
    out->push_back(v);
  }
  return false;
}

struct Rec {
  int64_t rank;
  Ps128 ts, end;
  Ps dur;
  std::string group, group_ranks, name, dtype, in_split, out_split;
  int64_t in = -1, out = -1, group_size = -1, stream = -1;
  bool described = false;
};

}  // namespace

CollectiveReport ComputeCollectives(const ProfileView& view, const CollectiveOptions& opt) {
  CollectiveReport rep;
  // GPUs per node: given, else the first rank's deviceProperties (TraceLens), else 8.
  rep.gpus_per_node = opt.gpus_per_node > 0 ? opt.gpus_per_node : 8;
  if (opt.gpus_per_node <= 0 && !view.ranks.empty() && !view.ranks[0].profile->meta.devices.empty())
    rep.gpus_per_node = static_cast<int>(view.ranks[0].profile->meta.devices.size());
  for (const RankView& rv : view.ranks) rep.world_size = std::max(rep.world_size, rv.profile->meta.world_size);
  rep.ranks = static_cast<int64_t>(view.ranks.size());
  std::vector<Rec> recs;
  Ps128 origin = 0;
  bool have_origin = false;
  std::map<int64_t, std::set<int64_t>> streams_of_rank;
  bool any_group = false;
  for (const RankView& rv : view.ranks) {
    const RankProfile& p = *rv.profile;
    const OpTable& o = p.ops;
    const StringId k_name = p.strings.Find("Process Group Name"), k_ranks = p.strings.Find("Process Group Ranks"),
                   k_in_split = p.strings.Find("In split size"), k_out_split = p.strings.Find("Out split size");
    auto arg = [&](size_t op, StringId key) -> std::string {
      if (key == 0) return {};
      const ArgValue* a = p.args.Find(ArgOwner::kOp, static_cast<uint32_t>(op), key);
      if (!a) return {};
      if (a->type == ArgType::kString) return std::string(p.str(a->s));
      if (a->type == ArgType::kInt) return std::to_string(a->i);
      return {};
    };
    if (!have_origin || p.origin_abs_ps < origin) origin = p.origin_abs_ps, have_origin = true;
    // Decided once per kernel name.
    std::vector<int8_t> collective_name(p.strings.size(), -1);
    for (const GpuOpRef& g : rv.gpu) {
      if (o.kind[g.op] != OpKind::kKernel) continue;
      int8_t& is = collective_name[o.name[g.op]];
      if (is < 0) is = IsTraceLensCollectiveKernel(p.str(o.name[g.op])) ? 1 : 0;
      if (!is) continue;
      ++rep.kernels;
      Rec r;
      r.rank = rv.rank;
      r.ts = p.origin_abs_ps + g.ts;
      r.end = p.origin_abs_ps + g.end;
      r.dur = g.end - g.ts;
      r.stream = p.tracks[g.track].stream;
      // The kernel's own description, else its launching op's (record_param_comms).
      int32_t desc = o.comm_of(g.op) ? static_cast<int32_t>(g.op) : -1;
      if (desc < 0)
        ForEachLaunchAncestor(p, g.op, [&](size_t q) {
          if (!o.comm_of(q)) return true;
          desc = static_cast<int32_t>(q);
          return false;
        });
      CommArgs c;
      if (desc >= 0 && ParseCommArgs(p.str(o.comm_of(static_cast<size_t>(desc))), &c)) {
        r.described = true;
        r.name = c.name, r.dtype = c.dtype, r.in = c.in, r.out = c.out, r.group_size = c.group;
        const auto d = static_cast<size_t>(desc);
        r.group = arg(d, k_name);
        r.group_ranks = arg(d, k_ranks);
        r.in_split = arg(d, k_in_split);
        r.out_split = arg(d, k_out_split);
      } else if (DescribeFromLaunchingOp(p, g.op, &r.name, &r.dtype, &r.in, &r.group_size)) {
        r.out = r.in;
        r.described = true;
        ++rep.kernels_by_op_name;
      } else {
        ++rep.kernels_without_args;
        r.name = NameFromKernel(p.str(o.name[g.op]));
      }
      any_group = any_group || !r.group.empty();
      streams_of_rank[r.rank].insert(r.stream);
      recs.push_back(std::move(r));
    }
  }
  if (recs.empty()) return rep;
  // Matching: the i-th collective of a group on each rank (TraceLens's
  // index_in_group); with no group names and one collective stream per
  // rank, the i-th collective of the rank.
  bool simplified = !any_group;
  for (const auto& [rank, streams] : streams_of_rank) simplified = simplified && streams.size() <= 1;
  // Without group names on several streams: per stream (TraceLens puts them
  // all in one "Unknown_Group", mixing the streams' orders).
  for (Rec& r : recs)
    if (simplified)
      r.group = "all";
    else if (r.group.empty())
      r.group = "stream " + std::to_string(r.stream);
  std::vector<size_t> order(recs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (recs[a].group != recs[b].group) return recs[a].group < recs[b].group;
    if (recs[a].rank != recs[b].rank) return recs[a].rank < recs[b].rank;
    return recs[a].ts < recs[b].ts;
  });
  // (group, index) -> records
  std::map<std::pair<std::string, int64_t>, std::vector<size_t>> inst;
  {
    std::string g;
    int64_t rank = INT64_MIN, idx = 0;
    for (size_t i : order) {
      if (recs[i].group != g || recs[i].rank != rank) g = recs[i].group, rank = recs[i].rank, idx = 0;
      inst[{g, idx++}].push_back(i);
    }
  }
  auto node_span = [&](const std::string& ranks_text) -> std::string {
    std::vector<int64_t> ranks;
    if (!ParseRanks(ranks_text, &ranks) || ranks.empty()) return "unknown";
    std::set<int64_t> nodes;
    for (int64_t r : ranks) nodes.insert(r / rep.gpus_per_node);
    return nodes.size() == 1 ? "intra_node" : "inter_node";
  };
  // Per-instance figures.
  struct Agg {
    CollectiveSummaryRow row;
    std::vector<double> comm, skew_s, skew_e, algo, bus;
  };
  std::map<std::tuple<std::string, std::string, std::string, int64_t, int64_t>, Agg> agg;
  std::map<std::pair<std::string, int64_t>, LastArrivalRow> last;
  std::map<std::tuple<std::string, int64_t, int64_t>, int64_t> a2a;
  for (const auto& [key, members] : inst) {
    const Rec& ref = recs[members.front()];
    CollectiveInstance ci;
    ci.group = key.first;
    ci.index = key.second;
    ci.name = ref.name;
    ci.dtype = ref.dtype;
    ci.group_size = ref.group_size;
    ci.ranks = static_cast<int64_t>(members.size());
    const auto kind = KindOf(ref.name);
    ci.kind = kind                     ? std::string(CollectiveKindName(*kind))
              : ref.name == "sendrecv" ? std::string("send/recv")
              : ref.name.empty()       ? std::string("unknown")
                                       : ref.name;
    // TraceLens's simplified mode counts unnamed kernels as synchronising.
    ci.implicit_sync = ImplicitSync(ref.name) || (simplified && ref.name.empty());
    for (size_t m : members) {
      const Rec& r = recs[m];
      if (r.name != ref.name || r.in != ref.in || r.out != ref.out || r.dtype != ref.dtype ||
          r.group_size != ref.group_size) {
        ++rep.mismatched;
        break;
      }
    }
    const int bpe = CommDtypeBytes(ref.dtype);
    if (bpe > 0 && ref.in >= 0) ci.bytes = (kind && *kind == CollectiveKind::kAllGather ? ref.out : ref.in) * bpe;
    Ps128 max_ts = recs[members[0]].ts, min_ts = max_ts, max_end = recs[members[0]].end, min_end = max_end;
    Ps min_dur = recs[members[0]].dur;
    for (size_t m : members) {
      const Rec& r = recs[m];
      max_ts = std::max(max_ts, r.ts), min_ts = std::min(min_ts, r.ts);
      max_end = std::max(max_end, r.end), min_end = std::min(min_end, r.end);
      min_dur = std::min(min_dur, r.dur);
    }
    ci.first_arrival = static_cast<Ps>(min_ts - origin);
    ci.comm = min_dur;
    ci.skew_start = static_cast<Ps>(max_ts - min_ts);
    ci.skew_end = static_cast<Ps>(max_end - min_end);
    Ps128 wait_sum = 0;
    // Last: the latest start (ties: the lower rank); first: the earliest
    // (ties: the higher rank, TraceLens's earliest arrival).
    const Rec* last_rec = nullptr;
    const Rec* first_rec = nullptr;
    for (size_t m : members) {
      const Rec& r = recs[m];
      wait_sum += max_ts - r.ts;
      if (!last_rec || r.ts > last_rec->ts || (r.ts == last_rec->ts && r.rank < last_rec->rank)) last_rec = &r;
      if (!first_rec || r.ts < first_rec->ts || (r.ts == first_rec->ts && r.rank > first_rec->rank)) first_rec = &r;
    }
    ci.mean_wait = static_cast<Ps>(wait_sum / static_cast<Ps128>(members.size()));
    ci.last_rank = last_rec->rank;
    ci.first_rank = first_rec->rank;
    if (ci.bytes >= 0 && ci.comm > 0) {
      ci.algo_bw = static_cast<double>(ci.bytes) / (static_cast<double>(ci.comm) * 1e-12);
      const double f = kind ? RingWireFactor(*kind, ref.group_size) : -1;
      if (f >= 0) ci.bus_bw = ci.algo_bw * f;
    }
    if (ci.implicit_sync && members.size() > 1) {
      for (size_t m : members) {
        const Rec& r = recs[m];
        LastArrivalRow& l = last[{ci.group, r.rank}];
        l.group = ci.group;
        l.rank = r.rank;
        l.instances++;
        l.wait += static_cast<Ps>(max_ts - r.ts);
        if (r.end > max_ts) l.after += static_cast<Ps>(r.end - max_ts);
        if (&r == last_rec) {
          l.last++;
          l.held += static_cast<Ps>(wait_sum);
        }
      }
    }
    if (ci.implicit_sync) {
      Agg& a = agg[{ci.group, ref.name, ref.dtype, ref.in, ref.group_size}];
      CollectiveSummaryRow& s = a.row;
      if (s.count == 0) {
        s.group = ci.group, s.name = ref.name, s.dtype = ref.dtype, s.kind = ci.kind;
        s.in_nelems = ref.in, s.group_size = ref.group_size, s.bytes = ci.bytes;
        s.span = node_span(ref.group_ranks);
      }
      s.count++;
      s.comm_total += ci.comm;
      a.comm.push_back(static_cast<double>(ci.comm));
      a.skew_s.push_back(static_cast<double>(ci.skew_start));
      a.skew_e.push_back(static_cast<double>(ci.skew_end));
      if (ci.algo_bw >= 0) a.algo.push_back(ci.algo_bw);
      if (ci.bus_bw >= 0) a.bus.push_back(ci.bus_bw);
    }
    // All-to-all(v): bytes from each rank to each, from its splits (empty:
    // equal splits of the input).
    if (kind && *kind == CollectiveKind::kAllToAll && bpe > 0) {
      for (size_t m : members) {
        const Rec& r = recs[m];
        std::vector<int64_t> split, ranks;
        const bool ranks_ok = ParseRanks(r.group_ranks, &ranks) && !ranks.empty();
        const int64_t n = ranks_ok ? static_cast<int64_t>(ranks.size()) : r.group_size;
        if (n <= 0) continue;
        if (!ParseRanks(r.in_split, &split) || split.empty()) split.assign(static_cast<size_t>(n), r.in / n);
        if (static_cast<int64_t>(split.size()) != n) continue;
        for (int64_t j = 0; j < n; ++j) {
          const int64_t dst = ranks_ok ? ranks[static_cast<size_t>(j)] : j;
          a2a[{ci.group, r.rank, dst}] += split[static_cast<size_t>(j)] * bpe;
        }
      }
    }
    rep.instances.push_back(std::move(ci));
  }
  std::sort(rep.instances.begin(), rep.instances.end(), [](const CollectiveInstance& a, const CollectiveInstance& b) {
    return a.first_arrival != b.first_arrival ? a.first_arrival < b.first_arrival
                                              : std::tie(a.group, a.index) < std::tie(b.group, b.index);
  });
  auto mean = [](const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? -1 : s / static_cast<double>(v.size());
  };
  auto maxv = [](const std::vector<double>& v) { return v.empty() ? -1 : *std::max_element(v.begin(), v.end()); };
  for (auto& [key, a] : agg) {
    CollectiveSummaryRow& s = a.row;
    s.comm_mean = mean(a.comm);
    s.comm_median = Median(a.comm);
    s.comm_min = *std::min_element(a.comm.begin(), a.comm.end());
    s.comm_max = maxv(a.comm);
    s.skew_start_mean = mean(a.skew_s);
    s.skew_start_max = maxv(a.skew_s);
    s.skew_end_mean = mean(a.skew_e);
    s.skew_end_max = maxv(a.skew_e);
    if (!a.algo.empty()) s.algo_bw_mean = mean(a.algo), s.algo_bw_median = Median(a.algo);
    if (!a.bus.empty()) s.bus_bw_mean = mean(a.bus), s.bus_bw_median = Median(a.bus);
    rep.summary.push_back(s);
  }
  std::sort(rep.summary.begin(), rep.summary.end(), [](const CollectiveSummaryRow& a, const CollectiveSummaryRow& b) {
    return a.comm_total != b.comm_total
               ? a.comm_total > b.comm_total
               : std::tie(a.group, a.name, a.in_nelems) < std::tie(b.group, b.name, b.in_nelems);
  });
  for (auto& [key, l] : last) rep.last_arrival.push_back(l);
  std::sort(rep.last_arrival.begin(), rep.last_arrival.end(), [](const LastArrivalRow& a, const LastArrivalRow& b) {
    if (a.group != b.group) return a.group < b.group;
    return a.last != b.last ? a.last > b.last : a.rank < b.rank;
  });
  // TraceLens's long table: per rank and description, the kernels' durations.
  std::map<std::tuple<int64_t, std::string, std::string, std::string, int64_t, std::string, int64_t, int64_t,
                      std::string, std::string, int64_t>,
           std::vector<double>>
      by_desc;
  for (const Rec& r : recs) {
    if (!r.described) continue;
    by_desc[{r.rank, r.group, r.group_ranks, r.name, r.group_size, r.dtype, r.in, r.out, r.in_split, r.out_split,
             r.stream}]
        .push_back(static_cast<double>(r.dur));
  }
  for (const auto& [k, durs] : by_desc) {
    CollectiveLongRow l;
    std::tie(l.rank, l.group, l.group_ranks, l.name, l.group_size, l.dtype, l.in_nelems, l.out_nelems, l.in_split,
             l.out_split, l.stream) = k;
    l.count = static_cast<int64_t>(durs.size());
    double sum = 0;
    for (double d : durs) sum += d;
    l.dur_sum = sum;
    l.dur_mean = sum / static_cast<double>(durs.size());
    double ss = 0;
    for (double d : durs) ss += (d - l.dur_mean) * (d - l.dur_mean);
    l.dur_std = durs.size() > 1 ? std::sqrt(ss / static_cast<double>(durs.size() - 1)) : std::nan("");
    l.dur_min = *std::min_element(durs.begin(), durs.end());
    l.dur_max = *std::max_element(durs.begin(), durs.end());
    l.node = l.rank / rep.gpus_per_node;
    l.span = node_span(l.group_ranks);
    rep.long_rows.push_back(std::move(l));
  }
  std::sort(rep.long_rows.begin(), rep.long_rows.end(), [](const CollectiveLongRow& a, const CollectiveLongRow& b) {
    return a.dur_sum != b.dur_sum ? a.dur_sum > b.dur_sum : a.rank < b.rank;
  });
  for (const auto& [k, bytes] : a2a) rep.alltoall.push_back({std::get<0>(k), std::get<1>(k), std::get<2>(k), bytes});
  return rep;
}

}  // namespace mlprof
