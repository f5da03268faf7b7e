#include "report/diagnose_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "model/steps.h"
#include "report/columns.h"
#include "report/tables_common.h"

namespace mlprof {

Table FindingsTable(const std::vector<Finding>& v) {
  Table t("findings", "What to fix first (largest estimated saving per step first)");
  t.Add(Key("rule", Unit::kText, "the rule that found it (mlprof diagnose --rules lists them)"))
      .Add(Key("rank", Unit::kId, "the rank it is about (null: the job)"))
      .Add(Key("subject", Unit::kText, "what it is about: a rank, a stream"))
      .Add(Text("severity", "info, warning or error"))
      .Add(TimeMs("saving", "estimated saving per step"))
      .Add(Measure("saving_pct", Unit::kPercent, "the saving as a share of the step").Decimals(1))
      .Add(TimeMs("step", "the step it is measured against: steady-state median, or the trace window"))
      .Add(Text("confidence", "low, medium or high: how close the saving is likely to come"))
      .Add(Text("evidence", "the figures behind the finding"))
      .Add(Text("formula", "how the saving was computed, with its numbers").Whole());
  for (const Finding& f : v) {
    const RuleInfo& info = InfoOf(f.rule);
    t.rows.push_back({Cell::Text(info.id), f.rank >= 0 ? Cell::Int(f.rank) : Cell::Null(), Cell::Text(f.subject),
                      Cell::Text(SeverityName(info.severity)), Time(f.saving), Cell::Real(f.saving_pct()), Time(f.step),
                      Cell::Text(ConfidenceName(f.confidence)), Cell::Text(f.evidence), Cell::Text(f.formula)});
  }
  if (v.empty()) t.notes.push_back("No rule found anything worth at least its threshold (--rules lists them).");
  std::set<int64_t> per_trace;
  for (const Finding& f : v)
    if (f.per_trace) per_trace.insert(f.rank);
  for (int64_t rank : per_trace)
    t.notes.push_back(fmt::format(
        "Rank {}: no iterations found (no ProfilerStep#N, Optimizer.step range, iteration annotation or repeating "
        "top-level ops): its savings are per trace, and its step_ms is the whole trace.",
        rank));
  // Every finding per trace: say so in the title and the closing note too.
  const bool all_per_trace =
      !v.empty() && std::all_of(v.begin(), v.end(), [](const Finding& f) { return f.per_trace; });
  if (all_per_trace) t.title = "What to fix first (largest estimated saving per trace first: no steps found)";
  t.notes.push_back(fmt::format("Savings are estimates per {}, each on its own: fixing one changes the others.",
                                all_per_trace       ? "trace"
                                : per_trace.empty() ? "step"
                                                    : "step (per trace where said)"));
  return t;
}

Table RulesTable() {
  Table t("rules", "The rules of mlprof diagnose");
  t.Add(Key("rule", Unit::kText, "the rule's id"))
      .Add(Text("severity", "info, warning or error"))
      .Add(Text("title", "what it finds"))
      .Add(Text("meaning", "what a finding means").Whole())
      .Add(Text("fix", "how to fix it").Whole());
  for (size_t i = 0; i < kRuleCount; ++i) {
    const RuleInfo& r = InfoOf(static_cast<Rule>(i));
    t.rows.push_back({Cell::Text(r.id), Cell::Text(SeverityName(r.severity)), Cell::Text(r.title),
                      Cell::Text(r.meaning), Cell::Text(r.fix)});
  }
  return t;
}

Table GradeTable(const std::vector<GradeItem>& items) {
  Table t("grade", "What the profile holds (mlprof's grade of it; figures that rest on a warning say so)");
  t.Add(RankKey())
      .Add(Key("item", Unit::kText, "what was checked (docs/ANALYSES.md, The grade)"))
      .Add(Text("severity", "info, warning or error"))
      .Add(Measure("value", Unit::kRatio, "the measure behind it: a count, or for attribution the share in percent"));
  // What each item means, with its figures: a note each (wrapped in text).
  for (const GradeItem& g : items) {
    t.rows.push_back(
        {Cell::Int(g.rank), Cell::Text(GradeIdName(g.id)), Cell::Text(SeverityName(g.severity)), Cell::Real(g.value)});
    t.notes.push_back(fmt::format("Rank {} {}: {}.", g.rank, GradeIdName(g.id), g.text));
  }
  return t;
}

}  // namespace mlprof
