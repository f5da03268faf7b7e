#!/usr/bin/env python3
"""Checks every #include in src/, python/, bench/ and fuzz/ against the layer
table of docs/ARCHITECTURE.md: a file includes its own layer and the layers
its layer depends on (directly or through another), and a third-party header
only where the table names that library for its layer.

Unit tests (src/<layer>/*_test.cc) follow the same rule, with the exceptions
ARCHITECTURE.md documents (TEST_EXCEPTIONS below). Exit 1 with one line per
offending include (file:line: what and why); 0 when all are in order.

  scripts/check_layers.py [ROOT]
"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
ARCH = os.path.join(ROOT, "docs", "ARCHITECTURE.md")

# Third-party headers by the name the layer table gives the library.
THIRD_PARTY = {
    "simdjson.h": "simdjson",
    "sqlite3.h": "SQLite",
    "xlsxwriter.h": "libxlsxwriter",
    "toml++/": "toml++",
    "absl/": "Abseil",
    "CLI/": "CLI11",
    "mpi.h": "OpenMPI",
    "pybind11/": "pybind11",
    "zlib.h": "zlib",
    "zstd.h": "zstd",
    "libdeflate.h": "libdeflate",
    "benchmark/": "Google Benchmark",
}

# What unit tests may include beyond their layer's own reach, and why (each
# listed in ARCHITECTURE.md, "Tests"):
TEST_EXCEPTIONS = {
    # Analyses' and reports' tests build their input profiles from JSON text
    # through the Chrome reader, as Perfetto's importer tests do.
    "tests/test_util.h": "test input built from trace JSON",
    # Corpus location and protobuf bytes: nothing of mlprof's.
    "tests/corpus_util.h": "corpus location",
    "tests/xspace_util.h": "XSpace bytes for tests",
    # The deterministic trace generators (bench/) make larger test inputs.
    "trace_synth.h": "generated Kineto traces",
    "xla_synth.h": "generated XSpaces and HLO",
}
# Layers a unit test may reach beyond its own layer's:
TEST_LAYERS = {
    # Every layer's tests may read their inputs through the readers (a trace
    # literal or a corpus file is the clearest fixture).
    "*": {"io"},
    # A reader's tests check what the analyses make of its output, against
    # the numbers of the format's own tool (msprof, nsys stats, TraceLens).
    "io": {"analysis"},
    # An analysis's tests may check the typed table its result feeds.
    "analysis": {"report"},
}
# Third-party libraries tests may use to check mlprof's outputs
# independently (read back a database, a JSON document, a compressed file).
TEST_THIRD_PARTY = {"SQLite", "simdjson", "zlib", "zstd"}


def parse_table():
    """Layer name -> (folder, direct dependencies, third-party names)."""
    layers = {}
    in_table = False
    for line in open(ARCH, encoding="utf-8"):
        if line.startswith("| layer | folder |"):
            in_table = True
            continue
        if in_table:
            if not line.startswith("|"):
                break
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if set(cells[0]) <= set("-"):
                continue
            name, folder, _lib, deps, third = cells[:5]
            folder = folder.strip("`").rstrip("/")
            layers[name] = (folder, deps, third)
    if not layers:
        sys.exit(f"check_layers: no layer table in {ARCH}")
    out = {}
    for name, (folder, deps, third) in layers.items():
        direct = {w for w in re.findall(r"[a-z]+", re.sub(r"\([^)]*\)", "", deps)) if w in layers}
        libs = {lib for lib in set(THIRD_PARTY.values()) if lib in third}
        out[name] = (folder, direct, libs)
    return out


def closure(layers):
    reach = {}
    for name in layers:
        seen, todo = set(), [name]
        while todo:
            x = todo.pop()
            for d in layers[x][1]:
                if d not in seen:
                    seen.add(d)
                    todo.append(d)
        reach[name] = seen
    return reach


def main():
    layers = parse_table()
    reach = closure(layers)
    folder_to_layer = {v[0]: k for k, v in layers.items()}
    problems = []
    checked = 0
    for top in ("src", "python", "bench", "fuzz"):
        for dirpath, _dirs, files in os.walk(os.path.join(ROOT, top)):
            rel_dir = os.path.relpath(dirpath, ROOT)
            if "node_modules" in rel_dir or "/tests" in rel_dir or "seeds" in rel_dir or rel_dir == "src":
                continue
            layer = None
            for folder, name in folder_to_layer.items():
                if rel_dir == folder or rel_dir.startswith(folder + "/"):
                    layer = name
            if layer is None:
                problems.append(f"{rel_dir}: a folder the layer table of docs/ARCHITECTURE.md does not name")
                continue
            for f in sorted(files):
                if not f.endswith((".cc", ".h")):
                    continue
                path = os.path.join(rel_dir, f)
                is_test = f.endswith("_test.cc")
                allowed = reach[layer] | {layer}
                if is_test:
                    allowed = allowed | TEST_LAYERS["*"] | TEST_LAYERS.get(layer, set())
                for no, line in enumerate(open(os.path.join(ROOT, path), encoding="utf-8"), 1):
                    m = re.match(r'\s*#\s*include\s*([<"])([^>"]+)[>"]', line)
                    if not m:
                        continue
                    checked += 1
                    kind, inc = m.groups()
                    if kind == "<":
                        lib = next((v for k, v in THIRD_PARTY.items() if inc == k or (k.endswith("/") and inc.startswith(k))), None)
                        if lib is None:
                            continue  # the standard library, POSIX, fmt (base's public dependency)
                        ok = lib in layers[layer][2]
                        if not ok and is_test and lib in TEST_THIRD_PARTY:
                            ok = True
                        if not ok:
                            problems.append(f"{path}:{no}: includes <{inc}> ({lib}), which the table does not give layer {layer}")
                        continue
                    norm = inc
                    if inc.startswith("../"):
                        # Relative to the file, or to src/ (an include root).
                        base = rel_dir if os.path.exists(os.path.join(dirpath, inc)) else "src"
                        norm = os.path.relpath(os.path.normpath(os.path.join(base, inc)), ".")
                    if norm in TEST_EXCEPTIONS or os.path.basename(norm) in TEST_EXCEPTIONS:
                        key = norm if norm in TEST_EXCEPTIONS else os.path.basename(norm)
                        if is_test or layer == "bench" and key in ("trace_synth.h", "xla_synth.h"):
                            continue
                        problems.append(f"{path}:{no}: includes {inc}, a test helper, outside a test")
                        continue
                    first = norm.split("/")[0]
                    if first not in layers:
                        if os.path.exists(os.path.join(dirpath, inc)):
                            continue  # a file beside it
                        problems.append(f"{path}:{no}: includes \"{inc}\", in no layer of the table")
                        continue
                    if first not in allowed:
                        problems.append(
                            f"{path}:{no}: layer {layer} includes {inc} (layer {first}); {layer} depends on "
                            f"{', '.join(sorted(reach[layer])) or 'nothing'}")
    for p in problems:
        print(p)
    print(f"check_layers: {checked} includes in {len(layers)} layers, {len(problems)} against the table")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
