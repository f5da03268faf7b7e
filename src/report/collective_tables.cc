#include "report/collective_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "model/steps.h"
#include "report/columns.h"
#include "report/tables_common.h"

namespace mlprof {

Table HcclOpsTable(const std::vector<HcclOpRow>& rows) {
  Table t("hccl_ops", "Communication ops as HCCL measured them (torch_npu communication.json or analysis.db; us)");
  t.Add(RankKey())
      .Add(Measure("step", Unit::kId, "the step the file files it under"))
      .Add(Text("kind", "collective or p2p"))
      .Add(TimeUs("start", "start, from the rank's origin"))
      .Add(TimeUs("elapse", "the op's time (= transit + wait + idle)"))
      .Add(TimeUs("transit", "moving data"))
      .Add(TimeUs("wait", "waiting for the peers (notify waits)"))
      .Add(TimeUs("sync", "the first wait: the peers arriving late"))
      .Add(TimeUs("idle", "neither"))
      .Add(Measure("wait_ratio", Unit::kRatio, "wait / (wait + transit)").Show("wait_ratio", 1, 4))
      .Add(Measure("sync_ratio", Unit::kRatio, "sync / (sync + transit)").Show("sync_ratio", 1, 4))
      .Add(TimeUs("trace_dur", "the op's duration on the trace (empty: no op of that name and start)"))
      .Add(Key("op", Unit::kText, "the op").Symbol());
  for (const HcclOpRow& r : rows) {
    auto time = [](Ps x) { return x < 0 ? Cell::Null() : Cell::Int(x); };
    t.rows.push_back({Cell::Int(r.rank), r.step < 0 ? Cell::Null() : Cell::Int(r.step), Cell::Text(r.kind),
                      r.has_start ? Cell::Int(r.start) : Cell::Null(), time(r.elapse), time(r.transit), time(r.wait),
                      time(r.sync), time(r.idle), Known(r.wait_ratio), Known(r.sync_ratio), time(r.trace_dur),
                      Cell::Text(r.name)});
  }
  t.notes.push_back(
      "A high wait ratio means the op mostly waited for other ranks: look at the slowest rank before the link.");
  return t;
}

Table HcclLinksTable(const std::vector<HcclLinkRow>& rows) {
  Table t("hccl_links",
          "Bytes per transport: each op's totals (communication.json) and each rank pair "
          "(communication_matrix.json)");
  t.Add(RankKey())
      .Add(Measure("step", Unit::kId, "the step the file files it under"))
      .Add(Text("source", "op: an op's total per transport; matrix: one link between two ranks"))
      .Add(Key("group", Unit::kText, "the op (op rows) or the matrix's group"))
      .Add(Measure("src", Unit::kId, "sending rank (matrix rows)"))
      .Add(Measure("dst", Unit::kId, "receiving rank (matrix rows)"))
      .Add(Key("transport", Unit::kText, "HCCS, RDMA, SDMA, PCIE, SIO, LOCAL"))
      .Add(Measure("bytes", Unit::kBytes, "bytes moved (the file's MB x 10^6)").Show("mb", 1e6, 3))
      .Add(TimeMs("time", "transit time"))
      .Add(Measure("bandwidth", Unit::kByteRate, "bytes / transit time").Show("gbps", 1e9, 4))
      .Add(Measure("reported", Unit::kByteRate, "the file's own Bandwidth(GB/s)").Show("reported_gbps", 1e9, 4))
      .Add(Text("op", "the op the matrix names"));
  for (const HcclLinkRow& r : rows)
    t.rows.push_back({Cell::Int(r.rank), r.step < 0 ? Cell::Null() : Cell::Int(r.step), Cell::Text(r.source),
                      Cell::Text(r.group), r.src < 0 ? Cell::Null() : Cell::Int(r.src),
                      r.dst < 0 ? Cell::Null() : Cell::Int(r.dst), Cell::Text(r.transport),
                      Cell::Int(std::llround(r.megabytes * 1e6)), Cell::Int(r.time),
                      r.gbps < 0 ? Cell::Null() : Cell::Real(r.gbps * 1e9),
                      r.reported_gbps < 0 ? Cell::Null() : Cell::Real(r.reported_gbps * 1e9), Cell::Text(r.op)});
  return t;
}

namespace {
Column GbS(const char* name, const char* description) {
  return Measure(name, Unit::kByteRate, description).Show(std::string(name) + "_gb_s", 1e9, 3);
}
Cell KnownRate(double v) { return v >= 0 ? Cell::Real(v) : Cell::Null(); }
}  // namespace

Table CollectiveSummaryTable(const CollectiveReport& c, int top, size_t* hidden) {
  Table t("collectives", "Collectives across ranks, per process group and kind (TraceLens's implicit-sync summary)");
  t.Add(Key("group", Unit::kText, "process group name (all: matched by call order per rank)").Symbol())
      .Add(Key("collective", Unit::kText, "Collective name as written"))
      .Add(Key("dtype", Unit::kText, "element type"))
      .Add(Key("in_nelems", Unit::kCount, "In msg nelems"))
      .Add(Count("group_size", "ranks in the group"))
      .Add(Measure("bytes", Unit::kBytes, "the message: all-gather's output, the others' input").Show("mb", 1e6, 3))
      .Add(Count("count", "instances matched across ranks"))
      .Add(TimeUs("comm_mean", "communication time: the instance's shortest kernel (all ranks there), mean"))
      .Add(TimeUs("comm_median", "median"))
      .Add(TimeUs("comm_max", "largest"))
      .Add(TimeUs("skew_start_mean", "last arrival - first arrival (kernel starts), mean"))
      .Add(TimeUs("skew_start_max", "largest"))
      .Add(TimeUs("skew_end_mean", "last end - first end, mean"))
      .Add(GbS("algo_bw_mean", "bytes / communication time, mean over instances"))
      .Add(GbS("bus_bw_mean", "algo bw x 2(n-1)/n (all-reduce) or (n-1)/n, mean"))
      .Add(TimeMs("comm_total", "communication time summed"))
      .Add(Text("span", "intra_node or inter_node (the group's ranks / --gpus-per-node), unknown"));
  LimitedRows(t, c.summary, top, hidden, [](const CollectiveSummaryRow& r) -> std::vector<Cell> {
    auto ps = [](double v) { return v >= 0 ? TimeCell(v) : Cell::Null(); };
    return {Cell::Text(r.group),
            Cell::Text(r.name),
            Cell::Text(r.dtype),
            r.in_nelems >= 0 ? Cell::Int(r.in_nelems) : Cell::Null(),
            r.group_size >= 0 ? Cell::Int(r.group_size) : Cell::Null(),
            r.bytes >= 0 ? Cell::Int(r.bytes) : Cell::Null(),
            Cell::Int(r.count),
            ps(r.comm_mean),
            ps(r.comm_median),
            ps(r.comm_max),
            ps(r.skew_start_mean),
            ps(r.skew_start_max),
            ps(r.skew_end_mean),
            KnownRate(r.algo_bw_mean),
            KnownRate(r.bus_bw_mean),
            Time(r.comm_total),
            Cell::Text(r.span)};
  });
  t.notes.push_back(
      "Matched by process group and call order in it; a rank's collective kernels: names with nccl, rccl, "
      "cross_device_reduce or a symmetric-memory all-reduce. Implicitly synchronising kinds only (all-reduce, "
      "all-gather, reduce-scatter, all-to-all).");
  return t;
}

Table LastArrivalTable(const CollectiveReport& c, int top, size_t* hidden) {
  Table t("last_arrival", "Who arrives last: per process group and rank");
  t.Add(Key("group", Unit::kText, "process group name").Symbol())
      .Add(Key("rank", Unit::kId, "the rank"))
      .Add(Count("instances", "implicitly synchronising instances it took part in"))
      .Add(Count("last", "of them, it arrived last (latest kernel start; ties: the lower rank)"))
      .Add(TimeUs("wait", "its own waits for the last arrival, summed"))
      .Add(TimeUs("held", "when it was last: the other ranks' waits for it, summed"))
      .Add(TimeUs("after_last", "its kernels' time after the last arrival (the transfer once all are there), summed"));
  LimitedRows(t, c.last_arrival, top, hidden, [](const LastArrivalRow& r) -> std::vector<Cell> {
    return {Cell::Text(r.group), Cell::Int(r.rank), Cell::Int(r.instances), Cell::Int(r.last),
            Time(r.wait),        Time(r.held),      Time(r.after)};
  });
  return t;
}

Table CollectiveInstanceTable(const CollectiveReport& c, int top, size_t* hidden) {
  Table t("collective_instances", "Each collective matched across ranks, in time order");
  t.Add(Key("group", Unit::kText, "process group name").Symbol())
      .Add(Key("index", Unit::kId, "its position among the group's collectives"))
      .Add(Text("collective", "Collective name"))
      .Add(Text("kind", "all-reduce, all-gather, ..."))
      .Add(Count("ranks", "ranks that recorded it"))
      .Add(Measure("bytes", Unit::kBytes, "the message").Show("mb", 1e6, 3))
      .Add(Measure("first_arrival", Unit::kTime, "first kernel start, from the earliest trace origin").Ms())
      .Add(TimeUs("comm", "the shortest kernel"))
      .Add(TimeUs("skew_start", "last arrival - first arrival (implicitly synchronising kinds, 2+ ranks)"))
      .Add(TimeUs("skew_end", "last end - first end"))
      .Add(TimeUs("mean_wait", "mean over ranks of (last arrival - its arrival)"))
      .Add(Count("last_rank", "the rank that arrived last"))
      .Add(GbS("algo_bw", "bytes / comm"))
      .Add(GbS("bus_bw", "algo bw x the collective's factor"));
  LimitedRows(t, c.instances, top, hidden, [](const CollectiveInstance& r) -> std::vector<Cell> {
    // Arrival skew only where every rank waits for the others, and with two
    // ranks or more to compare.
    const bool sync = r.implicit_sync && r.ranks > 1;
    return {Cell::Text(r.group),
            Cell::Int(r.index),
            Cell::Text(r.name),
            Cell::Text(r.kind),
            Cell::Int(r.ranks),
            r.bytes >= 0 ? Cell::Int(r.bytes) : Cell::Null(),
            Time(r.first_arrival),
            Time(r.comm),
            sync ? Time(r.skew_start) : Cell::Null(),
            sync ? Time(r.skew_end) : Cell::Null(),
            sync ? Time(r.mean_wait) : Cell::Null(),
            sync ? Cell::Int(r.last_rank) : Cell::Null(),
            KnownRate(r.algo_bw),
            KnownRate(r.bus_bw)};
  });
  return t;
}

Table CollectiveLongTable(const CollectiveReport& c, int top, size_t* hidden) {
  Table t("collective_kernels", "Collective kernel time per rank and description (TraceLens's long table)");
  t.Add(RankKey())
      .Add(Key("group", Unit::kText, "Process Group Name").Symbol())
      .Add(Key("collective", Unit::kText, "Collective name"))
      .Add(Key("dtype", Unit::kText, "dtype"))
      .Add(Key("in_nelems", Unit::kCount, "In msg nelems"))
      .Add(Key("out_nelems", Unit::kCount, "Out msg nelems"))
      .Add(Key("stream", Unit::kId, "the GPU stream"))
      .Add(Count("group_size", "Group size"))
      .Add(Text("group_ranks", "Process Group Ranks"))
      .Add(Count("count", "kernels"))
      .Add(TimeUs("dur_sum", "their durations summed"))
      .Add(TimeUs("dur_mean", "mean"))
      .Add(TimeUs("dur_std", "sample standard deviation"))
      .Add(TimeUs("dur_min", "shortest"))
      .Add(TimeUs("dur_max", "longest"))
      .Add(Count("node", "rank / gpus per node"))
      .Add(Text("span", "intra_node or inter_node group"));
  LimitedRows(t, c.long_rows, top, hidden, [](const CollectiveLongRow& r) -> std::vector<Cell> {
    return {Cell::Int(r.rank),
            Cell::Text(r.group),
            Cell::Text(r.name),
            Cell::Text(r.dtype),
            r.in_nelems >= 0 ? Cell::Int(r.in_nelems) : Cell::Null(),
            r.out_nelems >= 0 ? Cell::Int(r.out_nelems) : Cell::Null(),
            Cell::Int(r.stream),
            r.group_size >= 0 ? Cell::Int(r.group_size) : Cell::Null(),
            Cell::Text(r.group_ranks),
            Cell::Int(r.count),
            TimeCell(r.dur_sum),
            TimeCell(r.dur_mean),
            TimeCell(r.dur_std),
            TimeCell(r.dur_min),
            TimeCell(r.dur_max),
            Cell::Int(r.node),
            Cell::Text(r.span)};
  });
  return t;
}

Table AllToAllTable(const CollectiveReport& c) {
  Table t("alltoall_bytes", "All-to-all bytes from each rank to each (from the split sizes)");
  t.Add(Key("group", Unit::kText, "process group").Symbol())
      .Add(Key("src", Unit::kId, "sending rank"))
      .Add(Key("dst", Unit::kId, "receiving rank"))
      .Add(Measure("bytes", Unit::kBytes, "summed over the group's all-to-alls").Show("mb", 1e6, 3));
  for (const AllToAllCell& a : c.alltoall)
    t.rows.push_back({Cell::Text(a.group), Cell::Int(a.src), Cell::Int(a.dst), Cell::Int(a.bytes)});
  return t;
}

}  // namespace mlprof
