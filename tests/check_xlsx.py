#!/usr/bin/env python3
"""Compares the sheets of an mlprof report.xlsx with mlprof's JSON output.

Usage: check_xlsx.py REPORT.xlsx OUTPUT.json [OUTPUT.json ...]
For every table in the JSON files, the sheet of the same name must hold the
same header (the column names with units, as CSV writes them: compared by
position and name prefix) and the same cells, row by row: integers exactly, other numbers to 15 significant
digits (what Excel keeps, and what the file stores), text as text, null and
empty text as an empty cell. Needs openpyxl (Debian
python3-openpyxl). Exit 0 when all match, 1 otherwise, 77 without openpyxl.
"""
import json
import sys

try:
    import openpyxl
except ImportError:
    print("check_xlsx: openpyxl is not installed (Debian: python3-openpyxl)")
    sys.exit(77)


def main():
    wb = openpyxl.load_workbook(sys.argv[1], read_only=True)
    failures = 0
    tables = 0
    for path in sys.argv[2:]:
        with open(path) as f:
            doc, _ = json.JSONDecoder().raw_decode(f.read())
        for tid, rows in doc["tables"].items():
            if tid == "grade":
                continue  # every command's JSON carries the grade; the report shows it where something is wrong
            tables += 1
            if tid not in wb.sheetnames:
                print(f"{path}: table {tid}: no sheet of that name")
                failures += 1
                continue
            sheet = list(wb[tid].iter_rows(values_only=True))
            cols = [c["name"] for c in doc["schema"][tid]["columns"]]
            header = list(sheet[0]) if sheet else []
            if len(header) != len(cols) or any(not str(h).startswith(c) for h, c in zip(header, cols)):
                print(f"{tid}: header {header} is not the columns {cols}")
                failures += 1
                continue
            if len(sheet) - 1 != len(rows):
                print(f"{tid}: {len(sheet) - 1} rows in the sheet, {len(rows)} in the JSON")
                failures += 1
                continue
            for i, (want, got) in enumerate(zip(rows, sheet[1:])):
                for c, g in zip(cols, got):
                    w = want[c]
                    if isinstance(w, int) and not isinstance(w, bool):
                        ok = isinstance(g, (int, float)) and float(g) == float(w)
                    elif isinstance(w, float):
                        ok = isinstance(g, (int, float)) and abs(g - w) <= 1e-14 * max(abs(w), 1e-300)
                    elif w is None or w == "":
                        ok = g is None or g == ""
                    else:
                        ok = g == w
                    if not ok:
                        print(f"{tid} row {i + 1} column {c}: sheet {g!r}, JSON {w!r}")
                        failures += 1
                        break
    print(f"check_xlsx: {tables} tables compared, {failures} differ")
    return 1 if failures or tables == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
