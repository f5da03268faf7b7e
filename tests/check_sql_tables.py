#!/usr/bin/env python3
"""Compares mlprof's own tables in a SQLite file (mlprof_<id>) with mlprof's JSON output.

Usage: check_sql_tables.py FILE.sqlite OUTPUT.json [OUTPUT.json ...]
For every table in the JSON files, the SQLite table mlprof_<id> must have the
columns the CSV output names (with their units: sum_ps), in order, the same
number of rows, and the same cells row by row: integers exactly, other
numbers exactly (SQLite stores the double), text as text, null as NULL; and
mlprof_tables must describe each column with the JSON schema's unit and
description. Exit 0 when all match, 1 otherwise.
"""
import json
import sqlite3
import sys


def main():
    db = sqlite3.connect(sys.argv[1])
    failures = tables = 0
    for path in sys.argv[2:]:
        with open(path) as f:
            doc, _ = json.JSONDecoder().raw_decode(f.read())
        for tid, rows in doc["tables"].items():
            if tid == "grade":
                continue  # every command's JSON carries the grade; the report shows it where something is wrong
            tables += 1
            name = "mlprof_" + tid
            try:
                cur = db.execute(f'select * from "{name}"')
            except sqlite3.Error as e:
                print(f"{tid}: {e}")
                failures += 1
                continue
            header = [d[0] for d in cur.description]
            got_rows = cur.fetchall()
            cols = doc["schema"][tid]["columns"]
            if len(header) != len(cols) or any(not h.startswith(c["name"]) for h, c in zip(header, cols)):
                print(f"{tid}: columns {header} are not {[c['name'] for c in cols]}")
                failures += 1
                continue
            catalog = db.execute("select column_name, unit, description from mlprof_tables where table_name = ?",
                                 (name,)).fetchall()
            if [(u, d) for _, u, d in catalog] != [(c["unit"], c["description"]) for c in cols]:
                print(f"{tid}: mlprof_tables does not describe its columns as the JSON schema does")
                failures += 1
            if len(got_rows) != len(rows):
                print(f"{tid}: {len(got_rows)} rows in SQLite, {len(rows)} in the JSON")
                failures += 1
                continue
            for i, (want, got) in enumerate(zip(rows, got_rows)):
                for c, g in zip(cols, got):
                    w = want[c["name"]]
                    if isinstance(w, bool):
                        ok = g == int(w)
                    elif isinstance(w, (int, float)):
                        ok = isinstance(g, (int, float)) and g == w
                    else:
                        ok = g == w
                    if not ok:
                        print(f"{tid} row {i + 1} column {c['name']}: SQLite {g!r}, JSON {w!r}")
                        failures += 1
                        break
    print(f"check_sql_tables: {tables} tables compared, {failures} differ")
    return 1 if failures or tables == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
