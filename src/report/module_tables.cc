#include "report/module_tables.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "model/steps.h"
#include "report/columns.h"
#include "report/tables_common.h"

namespace mlprof {

Table ModuleTreeTable(const ModuleReport& m, int top, size_t* hidden) {
  Table t("module_tree", "GPU time up the nn.Module tree (per instance path; us)");
  t.Add(RankKey())
      .Add(Key("module", Unit::kText, "the instance path, outermost first (\" > \" between)").Symbol())
      .Add(Text("class", "the module class"))
      .Add(Count("depth", "0 for a top module"))
      .Add(Count("calls", "frames of this path that launched GPU work"))
      .Add(Count("gpu_ops", "kernels, copies and fills launched under it"))
      .Add(TimeUs("gpu", "their GPU time (inclusive)"))
      .Add(TimeUs("self", "of it, launched with no module inside this one"))
      .Add(Pct("pct", "of the rank's GPU time"));
  LimitedRows(t, m.tree, top, hidden, [](const ModuleNodeRow& r) -> std::vector<Cell> {
    return {Cell::Int(r.rank),    Cell::Text(r.path), Cell::Text(r.cls), Cell::Int(r.depth), Cell::Int(r.calls),
            Cell::Int(r.gpu_ops), Time(r.gpu),        Time(r.self),      Cell::Real(r.pct)};
  });
  return t;
}

Table ModuleClassTable(const ModuleReport& m, int top, size_t* hidden) {
  Table t("module_classes", "GPU time per nn.Module class (us)");
  t.Add(RankKey())
      .Add(Key("class", Unit::kText, "the module class").Symbol())
      .Add(Count("instances", "distinct instances (Cls_N names) that launched GPU work"))
      .Add(Count("calls", "their frames"))
      .Add(TimeUs("gpu", "GPU time launched under the class, once however often it nests"))
      .Add(Pct("pct", "of the rank's GPU time"))
      .Add(Text("parent", "the enclosing class it spends the most time under"))
      .Add(Pct("pct_of_parent", "its GPU time under `parent` / the parent class's GPU time", 1));
  LimitedRows(t, m.classes, top, hidden, [](const ModuleClassRow& r) -> std::vector<Cell> {
    return {Cell::Int(r.rank),
            Cell::Text(r.cls),
            Cell::Int(r.instances),
            Cell::Int(r.calls),
            Time(r.gpu),
            Cell::Real(r.pct),
            Cell::Text(r.parent),
            r.pct_of_parent >= 0 ? Cell::Real(r.pct_of_parent) : Cell::Null()};
  });
  return t;
}

Table AnnotationTable(const ModuleReport& m, int top, size_t* hidden) {
  Table t("annotations", "GPU time per user annotation (record_function on the host, gpu_user_annotation; us)");
  t.Add(RankKey())
      .Add(Key("annotation", Unit::kText, "the range's name (ProfilerStep#N as ProfilerStep*)").Symbol())
      .Add(Key("where", Unit::kText, "host: record_function ranges; gpu: gpu_user_annotation ranges"))
      .Add(Count("calls", "ranges"))
      .Add(TimeUs("span", "their durations summed"))
      .Add(Count("gpu_ops", "host: GPU ops launched inside; gpu: GPU ops of the range's stream inside it"))
      .Add(TimeUs("gpu", "their GPU time (a GPU op counted once however deeply the name nests)"))
      .Add(Pct("pct", "of the rank's GPU time"))
      .Add(Text("parent", "host: the enclosing annotation most of its GPU time is under"));
  LimitedRows(t, m.annotations, top, hidden, [](const AnnotationRow& r) -> std::vector<Cell> {
    return {Cell::Int(r.rank),    Cell::Text(r.name), Cell::Text(r.where), Cell::Int(r.calls),  Time(r.span),
            Cell::Int(r.gpu_ops), Time(r.gpu),        Cell::Real(r.pct),   Cell::Text(r.parent)};
  });
  return t;
}

Table AnnotationStepTable(const ModuleReport& m, int top, size_t* hidden) {
  Table t("annotations_by_step", "GPU time per host annotation and step (us)");
  t.Add(RankKey())
      .Add(Key("annotation", Unit::kText, "the range's name").Symbol())
      .Add(Key("step", Unit::kId, "the step (ProfilerStep#N's N, or the serving step's position)"))
      .Add(Count("gpu_ops", "GPU ops launched inside the annotation in this step"))
      .Add(TimeUs("gpu", "their GPU time"));
  LimitedRows(t, m.annotation_steps, top, hidden, [](const AnnotationStepRow& r) -> std::vector<Cell> {
    return {Cell::Int(r.rank), Cell::Text(r.name), Cell::Int(r.step), Cell::Int(r.gpu_ops), Time(r.gpu)};
  });
  return t;
}

Table KernelLaunchersTable(const ModuleReport& m, int top, size_t* hidden) {
  Table t("kernel_launchers", "Who launches each kernel: ops and modules (us)");
  t.Add(RankKey())
      .Add(Key("kernel", Unit::kText, "the GPU op's name").Symbol())
      .Add(Count("count", "launches"))
      .Add(TimeUs("gpu", "their GPU time"))
      .Add(Pct("pct", "of the rank's GPU time"))
      .Add(Text("top_op", "the launching op (innermost cpu_op) with the most of this kernel's time"))
      .Add(Pct("top_op_pct", "its share of the kernel's time", 1))
      .Add(Count("ops", "distinct launching ops ((no cpu_op) counts)"))
      .Add(Text("top_module", "the innermost module class with the most of its time"))
      .Add(Pct("top_module_pct", "its share", 1))
      .Add(Count("modules", "distinct innermost module classes ((no module) counts)"));
  LimitedRows(t, m.kernels, top, hidden, [](const KernelLauncherRow& r) -> std::vector<Cell> {
    return {Cell::Int(r.rank),        Cell::Text(r.kernel),         Cell::Int(r.count),       Time(r.gpu),
            Cell::Real(r.pct),        Cell::Text(r.top_op),         Cell::Real(r.top_op_pct), Cell::Int(r.ops),
            Cell::Text(r.top_module), Cell::Real(r.top_module_pct), Cell::Int(r.modules)};
  });
  return t;
}

}  // namespace mlprof
