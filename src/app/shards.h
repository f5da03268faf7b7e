// Commands built from shards, so that they can run over MPI (summary,
// diagnose). A shard is the command's results over some of the job's ranks:
// the report's tables with those ranks' rows, plus hidden tables (ids
// starting with '_') carrying what cross-rank tables are computed from.
// Combine turns the shards, in process order, into the command's report.
// One process runs the same two steps over one shard (all ranks), so that
// the MPI output is byte-identical to it by construction; only results cross
// the network, never the ranks' ops.
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include "app/session.h"
#include "base/status.h"
#include "report/table.h"

namespace mlprof::app {

struct Sharded {
  std::function<StatusOr<Report>(const Session&)> shard;
  std::function<StatusOr<Report>(std::vector<Report>)> combine;  // shards in process order
  // The shard needs the engines' window over the whole job
  // (JobFacts::engine_window): one more exchange, of 16 bytes, before it.
  bool needs_engine_window = false;
};

// A command over two profiles (diff): the shard sees this process's share
// of each side's ranks.
struct PairSharded {
  std::function<StatusOr<Report>(const Session& base, const Session& neu)> shard;
  std::function<StatusOr<Report>(std::vector<Report>)> combine;  // shards in process order
};

// shard then combine, in one process.
StatusOr<Report> RunSharded(const Session& s, const Sharded& c);
// The same for a command whose one-process run cannot fail (one shard
// always combines): its report, empty if it ever did.
Report RunShardedReport(const Session& s, const Sharded& c);
StatusOr<Report> RunSharded(const Session& base, const Session& neu, const PairSharded& c);

// --- building blocks ------------------------------------------------------------
// The shard's import warnings (and --hta-rounding refusals), in a hidden
// table that CombineWarnings orders as one process orders them.
// `id`: the hidden table's id (a command over two profiles keeps two).
// Without `with_rounding`: only the import warnings (ImportWarnings' words).
Table WarningsShard(const Session& s, std::string id = "_warnings", bool with_rounding = true);
// Extra warnings about a rank (XLA problems), after the import warnings.
void AddRankWarning(Table& warnings, int64_t rank, std::string text);
std::vector<std::string> CombineWarnings(const std::vector<Report>& shards, std::string_view id = "_warnings");

// The table `id` of each shard that has it (nullptr where none has).
std::vector<const Table*> TablesWithId(const std::vector<Report>& shards, std::string_view id);
// One table from the shards' tables `id`, rows in rank order (the first
// column is the rank; a shard's rows of one rank stay in their order),
// notes in first-seen order. An error when shards disagree on its columns.
StatusOr<Table> ConcatByRank(const std::vector<Report>& shards, std::string_view id);
// A table with a row per device (second column "device") where some
// shard's ranks drive several devices: the other shards' rows get a null
// device, and the per-device note comes first. The "N more rows (--top 0
// for all)" notes are summed into one.
//
// The ids of the shown tables (not '_'), in the order one process gives
// them: a table some shards leave out goes after the one before it where
// it appears.
std::vector<std::string> ShownTableIds(const std::vector<Report>& shards);

// A command whose every shown table is per rank (first column the rank, its
// rows computed from that rank alone) and whose warnings are the import
// warnings: the shard is the command's report over the process's ranks; the
// combine concatenates each table by rank (ConcatByRank), then `finish`
// (when given) fixes what depends on every rank, from the hidden tables the
// command added.
//
// Warnings: the shard's are the import warnings, plus those about one rank
// that `analyse` puts in a hidden `_rank_warnings` table (rank, text); the
// combine orders them as one process orders them. An error from `analyse`
// fails the run (the first process's, in process order).
Sharded PerRankSharded(std::function<StatusOr<Report>(const Session&)> analyse,
                       std::function<Status(Report&, const std::vector<Report>&)> finish = {});
// In a PerRankSharded shard: tables [first, first + count) are rank's own
// (one table per rank under one id: a rank's CUPTI counters, its scope
// tree): the combine puts every shard's groups in rank order where the
// first shard's groups are (after the shown table before them).
void MarkRankGroup(Report& shard, int64_t rank, size_t first, size_t count);

// The integer cell (0 when null or not an integer).
int64_t IntAt(const std::vector<Cell>& row, size_t col);
double RealAt(const std::vector<Cell>& row, size_t col);
const std::string& TextAt(const std::vector<Cell>& row, size_t col);

}  // namespace mlprof::app
