#include "report/memory_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "model/steps.h"
#include "report/columns.h"
#include "report/tables_common.h"

namespace mlprof {

Table MemoryTable(const std::vector<DeviceMemory>& m) {
  Table t("memory", "Memory per device (PyTorch allocator events; MB = 10^6 bytes)");
  auto mb = [](const char* name, const char* description) {
    return Measure(name, Unit::kBytes, description).Show(std::string(name) + "_mb", 1e6, 1);
  };
  t.Add(RankKey())
      .Add(Key("device", Unit::kText, "the allocator's device"))
      .Add(Count("events", "allocator events"))
      .Add(Count("allocs", "allocations"))
      .Add(Count("frees", "frees"))
      .Add(mb("peak", "highest Total Allocated"))
      .Add(TimeMs("peak_at", "when it was first reached, from the rank's origin"))
      .Add(Measure("peak_step", Unit::kId, "the step it fell in"))
      .Add(mb("peak_reserved", "highest Total Reserved (the caching allocator's pool)"))
      .Add(mb("before_trace", "allocated before the first event"))
      .Add(mb("end", "Total Allocated after the last event"))
      .Add(mb("peak_net", "highest running sum of Bytes from the first event (old traces: no totals)"))
      .Add(mb("allocated", "sum of allocations"))
      .Add(mb("freed", "sum of frees"))
      .Add(Count("mismatches", "events where the running sum of Bytes differs from Total Allocated"));
  for (const DeviceMemory& d : m) {
    auto bytes = [](int64_t b) { return b < 0 ? Cell::Null() : Cell::Int(b); };
    t.rows.push_back({Cell::Int(d.rank), Cell::Text(d.device), Cell::Int(d.events), Cell::Int(d.allocs),
                      Cell::Int(d.frees), bytes(d.peak), d.has_totals ? Cell::Int(d.peak_ts) : Cell::Null(),
                      d.peak_step < 0 ? Cell::Null() : Cell::Int(d.peak_step), bytes(d.peak_reserved),
                      bytes(d.before_trace), bytes(d.end_allocated), Cell::Int(d.peak_net),
                      Cell::Int(d.allocated_bytes), Cell::Int(d.freed_bytes),
                      d.has_totals ? Cell::Int(d.mismatches) : Cell::Null()});
    if (d.skipped && (t.rows.size() == 1 || m[t.rows.size() - 2].rank != d.rank))
      t.notes.push_back(fmt::format("rank {}: {} allocator events skipped: Bytes missing, not a number or over 2^50",
                                    d.rank, d.skipped));
    if (d.mismatches && d.op_file)
      t.notes.push_back(fmt::format(
          "rank {} {}: the allocations come from a per-op file (operator_memory.csv), which leaves out allocations "
          "no op made: the running sum of Bytes differs from the file's Total Allocated at {} of {} events",
          d.rank, d.device, d.mismatches, d.events));
    else if (d.mismatches)
      t.notes.push_back(fmt::format(
          "rank {} {}: at {} of {} events the running sum of Bytes differs from the trace's Total Allocated (first at "
          "{:.3f} ms): allocator events were lost or reordered; the sum restarted from the trace's total",
          d.rank, d.device, d.mismatches, d.events, static_cast<double>(d.first_mismatch_ts) / kPsPerMs));
  }
  if (m.empty())
    t.notes.push_back(
        "No allocator events: record with torch.profiler.profile(profile_memory=True) (Kineto [memory] events).");
  return t;
}

Table MemoryCategoriesTable(const std::vector<CategoryMemory>& m) {
  Table t("memory_categories", "Memory by category (torch.profiler's memory timeline, as HTA's MemoryAnalysis; MB)");
  auto mb = [](const char* name, const char* description) {
    return Measure(name, Unit::kBytes, description).Show(std::string(name) + "_mb", 1e6, 1);
  };
  t.Add(RankKey())
      .Add(Key("category", Unit::kText, "what the memory holds, as torch's memory profiler classes it"))
      .Add(mb("at_peak", "bytes when the total peaked"))
      .Add(Pct("pct_of_peak", "share of the peak", 1))
      .Add(mb("max", "the category's own largest"))
      .Add(mb("end", "at the last event"));
  for (const CategoryMemory& c : m) {
    for (const CategoryMemory::Category& x : c.categories)
      t.rows.push_back(
          {Cell::Int(c.rank), Cell::Text(x.name), Cell::Int(x.at_peak),
           c.peak > 0 ? Cell::Real(100.0 * static_cast<double>(x.at_peak) / static_cast<double>(c.peak)) : Cell::Null(),
           Cell::Int(x.max), Cell::Int(x.end)});
    t.notes.push_back(fmt::format(
        "rank {}: the total peaks at {:.1f} MB, at {:.3f} ms (from the whole microsecond before the first event)",
        c.rank, static_cast<double>(c.peak) / 1e6, static_cast<double>(c.peak_ts) / kPsPerMs));
  }
  return t;
}

Table MemorySitesTable(const std::vector<DeviceMemory>& m, bool at_peak, int top, size_t* hidden) {
  Table t(at_peak ? "memory_at_peak" : "memory_allocators",
          at_peak ? "Blocks alive at each device's peak, by the op that allocated them (MB)"
                  : "Allocations by op over the whole trace (MB)");
  t.Add(RankKey())
      .Add(Key("device", Unit::kText, "the allocator's device"))
      .Add(Measure("bytes", Unit::kBytes, at_peak ? "bytes alive at the peak" : "bytes allocated").Show("mb", 1e6, 3))
      .Add(Pct("pct", at_peak ? "of the peak" : "of all bytes allocated on the device", 1))
      .Add(Count("blocks", at_peak ? "blocks alive" : "allocations"))
      .Add(Key("op", Unit::kText, "the outermost cpu_op around the allocation").Symbol())
      .Add(Text("inner", "the innermost cpu_op (the most common in the group)"));
  *hidden = 0;
  for (const DeviceMemory& d : m) {
    const std::vector<MemorySite>& sites = at_peak ? d.alive_at_peak : d.allocators;
    const double whole = static_cast<double>(at_peak ? d.peak : d.allocated_bytes);
    for (size_t i = 0; i < sites.size(); ++i) {
      if (top > 0 && static_cast<int>(i) >= top) {
        *hidden += sites.size() - i;
        break;
      }
      const MemorySite& s = sites[i];
      t.rows.push_back({Cell::Int(d.rank), Cell::Text(d.device), Cell::Int(s.bytes),
                        whole > 0 ? Cell::Real(100.0 * static_cast<double>(s.bytes) / whole) : Cell::Null(),
                        Cell::Int(s.count), Cell::Text(s.op), Cell::Text(s.inner)});
    }
    if (at_peak && d.has_totals && d.peak >= 0)
      t.notes.push_back(fmt::format(
          "rank {} {}: of the {:.1f} MB peak, {:.1f} MB were allocated before the trace began "
          "or without an address (not placed)",
          d.rank, d.device, static_cast<double>(d.peak) / 1e6, static_cast<double>(d.peak - d.alive_known) / 1e6));
  }
  return t;
}

}  // namespace mlprof
