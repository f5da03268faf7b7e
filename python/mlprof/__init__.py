"""mlprof from Python: load profiles once, get every command's tables as pandas DataFrames.

    import mlprof
    p = mlprof.load("examples/two_rank")          # files or directories of per-rank traces
    r = p.summary()                               # a Result: {table id: DataFrame}
    r["temporal"]                                 # one table; r.warnings: import problems
    p.ops(by_name=True, top=5)["ops"]             # options as the CLI spells them, '-' -> '_'
    p.sql("select name, dur from slice limit 5")  # a DataFrame
    mlprof.plan(model="llama3-70b", chip="h100-sxm", chips=64, global_batch=64)

Each profile command of the CLI (`mlprof --help`) is a method of Profile; the others (plan, chips,
hlo, mfu, shape, diff, compare) are functions here; `mlprof.run("CMD", *args, **options)` runs any
of them as the command line would. Options are the CLI's, with the same checks and defaults:
`flag=True` gives `--flag`, a list repeats the option. Tables keep every row unless `top` is given
(as the CLI's JSON output does).

Columns hold the raw values of the CLI's JSON and CSV output: times in picoseconds, bytes, FLOPs
(integers where the CLI's are). Column names carry the unit as CSV headers do (`idle_ps`,
`hbm_bytes`); `df.attrs` has the table's id, title, notes and, per column, its unit, whether it is
a key, its description and its name in the JSON output.

Errors are raised as mlprof.Error with the CLI's message, a `code` (invalid_argument, not_found,
data_loss, wrong_format, unimplemented, internal) and, where the message names them, the input's
`path` and the byte `offset`. Reading and analysing release the GIL.
"""

import os as _os
import re as _re

from . import _native

__all__ = ["Error", "Profile", "Result", "load", "run", "commands", "version"]  # and each command below

version = _native.version


class Error(Exception):
    """An mlprof error: the message the CLI prints, its code, and the input file and byte offset when known.

    `offset` is the byte the message names (in the file, or in its decompressed bytes where the
    message says "decompressed byte")."""

    def __init__(self, message, code="internal"):
        super().__init__(message)
        self.message = message
        self.code = code
        self.path = None
        self.offset = None
        self._find_offset(0)

    def _find_offset(self, after):
        m = _re.search(r"\bbyte (\d+)", self.message[after:])
        self.offset = int(m.group(1)) if m else None

    def __str__(self):
        return self.message

    def __repr__(self):
        return f"mlprof.Error({self.message!r}, code={self.code!r})"


_native.set_error_class(Error)


def _with_path(err, paths):
    """Fills err.path when the message starts with one of the inputs (or a file under one)."""
    for p in sorted(paths, key=len, reverse=True):
        if p and err.message.startswith(p):
            end = err.message.find(": ", len(p))
            err.path = err.message[:end] if end >= 0 else p
            err._find_offset(len(err.path))  # not a number inside the path
            break
    return err


# The CLI's input options: given to load(), not to a command on a loaded profile.
_INPUT_OPTIONS = {"rank", "hta_rounding", "all_steps", "threads", "max_input_gb", "all_args", "merge", "comm_kernel", "steps_from",
                  "merge_offset_us", "capture"}


def _path_text(p, what="path"):
    if isinstance(p, (str, bytes)) or hasattr(p, "__fspath__"):
        return _os.fsdecode(p)
    raise TypeError(f"{what}: expected a path (str, bytes or os.PathLike), got {type(p).__name__}")


def _args(options):
    """CLI arguments from keyword options: top=5 -> --top 5, by_name=True -> --by-name."""
    out = []
    for key, value in options.items():
        if value is None or value is False:
            continue
        flag = "--" + key.rstrip("_").replace("_", "-")
        if value is True:
            out.append(flag)
        elif isinstance(value, (list, tuple)):
            for v in value:
                out += [flag, str(v)]
        else:
            out += [flag, str(value)]
    return out


# Units whose cells are whole numbers when a column has no value to tell.
_INTEGER_UNITS = {"id", "count", "ps", "bytes"}


def _series(unit, values):
    import pandas as pd

    kinds = {type(v) for v in values if v is not None}
    if unit == "text" or str in kinds:
        return pd.Series(values, dtype="object")
    if kinds == {int} or (not kinds and unit in _INTEGER_UNITS):
        # Integers stay exact (picoseconds overflow a float's 53 bits after 2.5 h).
        return pd.Series(values, dtype="Int64" if None in values else "int64")
    return pd.Series([float("nan") if v is None else float(v) for v in values], dtype="float64")


def _merged(tables):
    """Tables repeating an id (one per rank) with the same columns become one; others get "_2" (as the JSON)."""
    out = []
    for t in tables:
        sig = [(c["name"], c["unit"]) for c in t["columns"]]
        same = [g for g in out if g["base"] == t["id"]]
        joined = next((g for g in same if g["sig"] == sig), None)
        if joined:
            joined["parts"].append(t)
        else:
            out.append({"base": t["id"], "id": f"{t['id']}_{len(same) + 1}" if same else t["id"], "sig": sig,
                        "parts": [t]})
    return out


def _frame(group):
    import pandas as pd

    first = group["parts"][0]
    cols = first["columns"]
    columns = []
    for i, col in enumerate(cols):
        values = [v for part in group["parts"] for v in part["data"][i]]
        columns.append(_series(col["unit"], values))
    # Positional columns: a SQL result may repeat a name (t.name, s.name).
    df = pd.DataFrame({i: c for i, c in enumerate(columns)}) if columns else pd.DataFrame()
    df.columns = [c["header"] for c in cols]
    table = {"id": group["id"], "title": first["title"],
             "notes": list(dict.fromkeys(n for part in group["parts"] for n in part["notes"]))}
    df.attrs = {
        "id": table["id"],
        "title": table["title"],
        "notes": list(table["notes"]),
        "units": {c["header"]: c["unit"] for c in cols},
        "keys": [c["header"] for c in cols if c["key"]],
        "descriptions": {c["header"]: c["description"] for c in cols},
        "json_names": {c["header"]: c["name"] for c in cols},
    }
    return df


class Result(dict):
    """A command's tables by id (DataFrames, in the CLI's order), with .warnings and .gate_failed."""

    def __init__(self, report):
        super().__init__((g["id"], _frame(g)) for g in _merged(report["tables"]))
        self.warnings = list(report["warnings"])
        self.gate_failed = bool(report["gate_failed"])

    @property
    def df(self):
        """The only table besides the profile's grade (an error naming them when there are several)."""
        ids = [k for k in self if k != "grade"] or list(self)
        if len(ids) != 1:
            raise KeyError(f"{len(ids)} tables: {', '.join(ids)}; pick one by id")
        return self[ids[0]]

    def __repr__(self):
        parts = [f"{k}: {len(v)} rows x {len(v.columns)} columns" for k, v in self.items()]
        w = f", {len(self.warnings)} warnings" if self.warnings else ""
        return f"<mlprof.Result {{{'; '.join(parts)}}}{w}>"


def _call(fn, paths=()):
    try:
        return fn()
    except Error as e:
        raise _with_path(e, list(paths)) from None


class Profile:
    """Loaded profiles (one per rank). Methods: every profile command of the CLI, returning a Result."""

    def __init__(self, session, paths):
        self._s = session
        self.paths = list(paths)

    ranks = property(lambda self: list(self._s.ranks), doc="rank ids, in order")
    files = property(lambda self: list(self._s.files), doc="the trace file of each rank")
    warnings = property(lambda self: list(self._s.warnings), doc="import problems (counted, data kept)")
    load_seconds = property(lambda self: self._s.load_seconds)
    decoded_bytes = property(lambda self: self._s.decoded_bytes)
    ops_loaded = property(lambda self: self._s.ops, doc="ops read, all ranks")

    def analyse(self, command, *args, **options):
        """Runs a profile command (`summary`, `critical-path`, ...) with the CLI's options."""
        given = sorted(_INPUT_OPTIONS & set(options))
        if given:
            raise Error(f"{', '.join(given)}: input options, given to mlprof.load(...) when the profile is read "
                        "(this profile was read already)", "invalid_argument")
        report = _call(lambda: self._s.analyse(command, [str(a) for a in args] + _args(options)), self.paths)
        return Result(report)

    def sql(self, query):
        """One SQL query over the trace (Perfetto's table names; `mlprof sql`), as a DataFrame.

        The args table holds every arg only when loaded with load(..., all_args=True)."""
        return self.analyse("sql", query).df

    def __repr__(self):
        return f"<mlprof.Profile {len(self.ranks)} rank(s) from {', '.join(self.paths)}>"


def _profile_method(name, doc):
    def method(self, **options):
        return self.analyse(name, **options)

    method.__name__ = name.replace("-", "_")
    method.__doc__ = doc
    return method


def load(paths, *, rank=None, threads=0, all_steps=False, hta_rounding=False, max_input_gb=None, all_args=False,
         merge=False, merge_offset_us=None, capture=None, comm_kernel=None, steps_from=None):
    """Reads trace files or directories of per-rank traces (every format the CLI reads) into a Profile.

    The options are the CLI's input options (`mlprof summary --help`); comm_kernel is --comm-kernel: a regular
    expression, or a list of them, for kernels to count as communication."""
    if comm_kernel is None:
        comm_kernel = []
    elif isinstance(comm_kernel, str):
        comm_kernel = [comm_kernel]
    else:
        comm_kernel = [str(c) for c in comm_kernel]
    if isinstance(paths, (str, bytes)) or hasattr(paths, "__fspath__"):
        paths = [paths]
    if paths is None or not hasattr(paths, "__iter__"):
        raise TypeError(f"paths: expected a path or a list of paths, got {type(paths).__name__}")
    paths = [_path_text(p) for p in paths]
    if rank is not None and not isinstance(rank, int):
        raise TypeError(f"rank: expected an int, got {type(rank).__name__}")
    if threads < 0:
        raise Error(f"threads = {threads}: expected 0 (one per core) or more", "invalid_argument")
    session = _call(
        lambda: _native.load(paths, -1 if rank is None else int(rank), bool(hta_rounding), bool(all_steps),
                             int(threads), float(max_input_gb or 0), bool(all_args), bool(merge),
                             None if merge_offset_us is None else float(merge_offset_us), capture or "",
                             comm_kernel, steps_from or ""),
        paths)
    return Profile(session, paths)


def _positionals(args):
    """Paths and other positionals: a loaded Profile stands for its paths, a list for its items."""
    out = []
    for a in args:
        if isinstance(a, Profile):
            out += a.paths
        elif isinstance(a, (list, tuple)):
            out += _positionals(a)
        elif isinstance(a, (str, bytes)) or hasattr(a, "__fspath__"):
            out.append(_os.fsdecode(a))
        elif isinstance(a, (int, float)):
            out.append(str(a))
        else:
            raise TypeError(f"expected paths, Profiles or text, got {type(a).__name__}")
    return out


def run(command, *args, **options):
    """Any command as the command line runs it: run("plan", model="llama3-8b", chips=8, global_batch=8)."""
    positionals = _positionals(args)
    argv = [command] + positionals + _args(options)
    return Result(_call(lambda: _native.run(argv), positionals))


def help(command, analysis_only=False):  # noqa: A001 (the CLI's word)
    """The CLI's help text of a command."""
    return _call(lambda: _native.help(command, analysis_only))


def commands():
    """[(name, one-line help, reads profiles)] for every command."""
    return [tuple(c) for c in _native.commands()]


def _module_function(name, doc):
    def fn(*args, **options):
        if name in ("diff", "compare"):
            for a in args:
                if isinstance(a, Profile) and len(a.paths) != 1:
                    raise TypeError(f"{name}: a Profile read from {len(a.paths)} paths; give the paths instead")
        return run(name, *args, **options)

    fn.__name__ = name.replace("-", "_")
    fn.__doc__ = doc
    return fn


for _name, _help, _reads in _native.commands():
    _py = _name.replace("-", "_")
    if _reads and not hasattr(Profile, _py):
        setattr(Profile, _py, _profile_method(_name, _help + "\n\n" + _native.help(_name, True)))
    if not _reads or _name in ("diff", "compare"):
        globals()[_py] = _module_function(_name, _help + "\n\n" + _native.help(_name, False))
        __all__.append(_py)
del _name, _help, _reads, _py
