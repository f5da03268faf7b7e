// mlprof._native: the Python bindings' C++ half (pybind11). It loads
// profiles into app::Sessions and runs the command table on them
// (cli/embed.h); each Report comes back as plain Python values, column by
// column, which python/mlprof/__init__.py turns into pandas DataFrames.
// The GIL is released while files are read and while analyses run; errors
// are raised as the Python class mlprof.Error (registered at import) with
// the same message the CLI prints and the Status code's name.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "app/commands.h"
#include "app/session.h"
#include "cli/embed.h"
#include "report/table.h"

namespace py = pybind11;

namespace mlprof {
namespace {

// A Status that crosses into Python (translated in PYBIND11_MODULE).
struct StatusError {
  Status status;
};

const char* CodeName(StatusCode c) {
  switch (c) {
    case StatusCode::kOk:
      return "ok";
    case StatusCode::kInvalidArgument:
      return "invalid_argument";
    case StatusCode::kNotFound:
      return "not_found";
    case StatusCode::kDataLoss:
      return "data_loss";
    case StatusCode::kWrongFormat:
      return "wrong_format";
    case StatusCode::kUnimplemented:
      return "unimplemented";
    case StatusCode::kInternal:
      return "internal";
  }
  return "internal";
}

py::object& ErrorClass() {
  static py::object* cls = new py::object();  // leaked: lives as long as the interpreter
  return *cls;
}

template <typename T>
T Take(StatusOr<T> r) {
  if (!r.ok()) throw StatusError{r.status()};
  return std::move(r).value();
}

py::object CellValue(const Cell& c) {
  if (std::holds_alternative<int64_t>(c.value)) return py::int_(std::get<int64_t>(c.value));
  if (std::holds_alternative<double>(c.value)) return py::float_(std::get<double>(c.value));
  if (std::holds_alternative<std::string>(c.value)) {
    const std::string& s = std::get<std::string>(c.value);
    // Names in traces are untrusted bytes: invalid UTF-8 is replaced, never an exception.
    return py::reinterpret_steal<py::object>(
        PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace"));
  }
  return py::none();
}

py::str Text(const std::string& s) {
  return py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace"));
}

// {"tables": [{"id", "title", "notes", "columns": [{"name", "header", "unit",
// "key", "description"}], "data": [column values...]}], "warnings", "gate_failed"}
py::dict ReportToPython(const Report& r) {
  py::list tables;
  for (const Table* tp : TablesWithGrade(r)) {  // as RenderJson: the grade first
    const Table& t = *tp;
    py::list columns, data;
    for (size_t c = 0; c < t.columns.size(); ++c) {
      const Column& col = t.columns[c];
      py::dict d;
      d["name"] = col.name;
      d["header"] = HeaderWithUnit(col);
      d["unit"] = UnitName(col.unit);
      d["key"] = col.role == Role::kKey;
      d["description"] = col.description;
      columns.append(d);
      py::list values(t.rows.size());
      for (size_t i = 0; i < t.rows.size(); ++i)
        values[i] = c < t.rows[i].size() ? CellValue(t.rows[i][c]) : py::none();
      data.append(values);
    }
    py::list notes;
    for (const std::string& n : t.notes) notes.append(Text(n));
    py::dict table;
    table["id"] = t.id;
    table["title"] = Text(t.title);
    table["notes"] = notes;
    table["columns"] = columns;
    table["data"] = data;
    tables.append(table);
  }
  py::list warnings;
  for (const std::string& w : r.warnings) warnings.append(Text(w));
  py::dict out;
  out["tables"] = tables;
  out["warnings"] = warnings;
  out["gate_failed"] = r.gate_failed;
  return out;
}

// A loaded profile (one or more ranks). Analyses of one session run one at
// a time (a lock, taken without the GIL); other sessions and Python run on.
class PySession {
 public:
  explicit PySession(app::Session s) : s_(std::make_shared<Shared>(std::move(s))) {}

  py::dict Analyse(const std::string& command, const std::vector<std::string>& args) const {
    StatusOr<Report> r = Status(StatusCode::kInternal, "not run");
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(s_->mu);
      r = cli::RunOnSession(command, args, s_->session);
    }
    return ReportToPython(Take(std::move(r)));
  }
  // The ranks the analyses see (load(rank=N) selects one).
  std::vector<int64_t> Ranks() const {
    std::vector<int64_t> out;
    const auto& ranks = s_->session.profile.ranks;
    for (size_t i = 0; i < ranks.size(); ++i)
      if (s_->session.Selected(ranks[i])) out.push_back(ranks[i].rank_or(static_cast<int64_t>(i)));
    return out;
  }
  py::list Files() const {
    py::list out;
    for (const RankProfile& r : s_->session.profile.ranks)
      if (s_->session.Selected(r)) out.append(Text(r.path));
    return out;
  }
  py::list Warnings() const {
    py::list out;
    for (const std::string& w : app::WithImportWarnings(s_->session).warnings) out.append(Text(w));
    return out;
  }
  double load_seconds() const { return s_->session.load_seconds; }
  uint64_t decoded_bytes() const { return s_->session.decoded_bytes; }
  uint64_t ops() const { return s_->session.ops; }

 private:
  struct Shared {
    explicit Shared(app::Session s) : session(std::move(s)) {}
    const app::Session session;
    std::mutex mu;
  };
  std::shared_ptr<Shared> s_;
};

PySession Load(const std::vector<std::string>& paths, int64_t rank, bool hta_rounding, bool all_steps, int threads,
               double max_input_gb, bool all_args, bool merge, std::optional<double> merge_offset_us,
               const std::string& capture, const std::vector<std::string>& comm_kernels,
               const std::string& steps_from) {
  app::InputOptions in;
  in.paths = paths;
  in.rank = rank;
  in.hta_rounding = hta_rounding;
  in.all_steps = all_steps;
  in.threads = threads;
  in.max_input_gb = max_input_gb;
  in.all_args = all_args;
  in.merge = merge;
  in.merge_offset_us = merge_offset_us;
  in.capture = capture;
  in.comm_kernels = comm_kernels;
  in.steps_from = steps_from;
  if (paths.empty()) throw StatusError{InvalidArgument("no paths given")};
  StatusOr<app::Session> s = Status(StatusCode::kInternal, "not run");
  {
    py::gil_scoped_release release;
    s = app::OpenSession(in, nullptr);
  }
  return PySession(Take(std::move(s)));
}

py::dict Run(const std::vector<std::string>& args) {
  StatusOr<Report> r = Status(StatusCode::kInternal, "not run");
  {
    py::gil_scoped_release release;
    r = cli::RunCommand(args);
  }
  return ReportToPython(Take(std::move(r)));
}

}  // namespace
}  // namespace mlprof

PYBIND11_MODULE(_native, m) {
  using namespace mlprof;
  m.doc() = "mlprof's C++ core (use the mlprof package, not this module)";
  m.attr("version") = MLPROF_VERSION;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const StatusError& e) {
      py::object cls = ErrorClass() ? ErrorClass() : py::reinterpret_borrow<py::object>(PyExc_RuntimeError);
      PyErr_SetObject(cls.ptr(), py::make_tuple(Text(e.status.message()), CodeName(e.status.code())).ptr());
    }
  });
  m.def("set_error_class", [](py::object cls) { ErrorClass() = std::move(cls); });
  m.def("commands", [] {
    py::list out;
    for (const cli::CommandSummary& c : cli::CommandList()) out.append(py::make_tuple(c.name, c.help, c.profile));
    return out;
  });
  m.def(
      "help", [](const std::string& name, bool analysis_only) { return Take(cli::CommandHelp(name, analysis_only)); },
      py::arg("command"), py::arg("analysis_only") = false);
  m.def("run", &Run, py::arg("args"));
  m.def("load", &Load, py::arg("paths"), py::arg("rank") = -1, py::arg("hta_rounding") = false,
        py::arg("all_steps") = false, py::arg("threads") = 0, py::arg("max_input_gb") = 0.0,
        py::arg("all_args") = false, py::arg("merge") = false, py::arg("merge_offset_us") = std::nullopt,
        py::arg("capture") = std::string(), py::arg("comm_kernels") = std::vector<std::string>(),
        py::arg("steps_from") = std::string());
  py::class_<PySession>(m, "Session")
      .def("analyse", &PySession::Analyse, py::arg("command"), py::arg("args"))
      .def_property_readonly("ranks", &PySession::Ranks)
      .def_property_readonly("files", &PySession::Files)
      .def_property_readonly("warnings", &PySession::Warnings)
      .def_property_readonly("load_seconds", &PySession::load_seconds)
      .def_property_readonly("decoded_bytes", &PySession::decoded_bytes)
      .def_property_readonly("ops", &PySession::ops);
}
