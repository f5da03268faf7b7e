"""Checks an mlprof --format json output against its own schema block: every
table has a schema, every row has exactly the schema's columns in order, every
column has a known unit, a role and a description, and numbers sit only in
numeric columns (text only in text columns). Usage: check_json_schema.py FILE"""
import json
import sys

UNITS = {"text", "id", "count", "ps", "bytes", "flop", "flop/s", "bytes/s", "flop/byte", "percent", "ratio", "per row"}

# A diff-test expectation may have stderr and the exit code after the JSON.
doc, _ = json.JSONDecoder().raw_decode(open(sys.argv[1]).read())
problems = []
if set(doc["tables"]) != set(doc["schema"]):
    problems.append(f"tables {sorted(doc['tables'])} vs schema {sorted(doc['schema'])}")
for tid, rows in doc["tables"].items():
    cols = doc["schema"].get(tid, {}).get("columns", [])
    names = [c["name"] for c in cols]
    for c in cols:
        if c["unit"] not in UNITS:
            problems.append(f"{tid}.{c['name']}: unit {c['unit']!r}")
        if c["role"] not in ("key", "measure"):
            problems.append(f"{tid}.{c['name']}: role {c['role']!r}")
        if not c["description"]:
            problems.append(f"{tid}.{c['name']}: no description")
    for i, row in enumerate(rows):
        if list(row) != names:
            problems.append(f"{tid} row {i}: keys {list(row)} vs {names}")
            continue
        for c in cols:
            v = row[c["name"]]
            if v is None:
                continue
            text = c["unit"] == "text"
            if text != isinstance(v, str):
                problems.append(f"{tid} row {i}: {c['name']} ({c['unit']}) = {v!r}")
for p in problems[:20]:
    print(p)
sys.exit(1 if problems else 0)
