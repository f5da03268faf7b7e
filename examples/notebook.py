# %% [markdown]
# # mlprof in a notebook
# Cells for Jupyter or VS Code (`# %%`); also runs as a script:
#     python3 examples/notebook.py [TRACE_OR_DIR]
# After `scripts/quickstart.sh`, `import mlprof` works (it registers build/python with python3).
# Every table is a pandas DataFrame of raw values: times in picoseconds, bytes, FLOPs.

# %%
import sys

import mlprof

path = sys.argv[1] if len(sys.argv) > 1 else "examples/two_rank"
p = mlprof.load(path)  # read once; every analysis below reuses it
print(p, "ranks:", p.ranks, "import problems:", p.warnings)

# %% Where the GPU time goes, per rank (HTA's temporal breakdown), in ms.
s = p.summary()
t = s["temporal"].set_index("rank")
print((t.filter(like="_ps") / 1e9).round(3).rename(columns=lambda c: c.replace("_ps", "_ms")))

# %% The heaviest kernels over all ranks: a groupby over the raw table.
k = p.kernels()["kernels"]
top = k.groupby("name")["sum_ps"].sum().sort_values(ascending=False).head(5) / 1e9
print(top.rename("ms").to_string())

# %% Each column's unit and meaning travel with the frame.
print(k.attrs["units"]["sum_ps"], "-", k.attrs["descriptions"]["sum_ps"])

# %% What to fix first, with the estimated saving.
d = p.diagnose()
for tid, df in d.items():
    print(tid, len(df), "rows")

# %% SQL over the trace (Perfetto's table names; ts and dur in ns).
print(p.sql("select name, count(*) as n, sum(dur) / 1e6 as ms from slice group by name order by ms desc limit 5"))

# %% Commands that read no profile are functions: the planner, the chip database, the MFU calculator.
plans = mlprof.plan(model="llama3-8b", chip="h100-sxm", chips=8, global_batch=8, top=3)["plans"]
print(plans[["tp", "dp", "pp", "fsdp", "remat", "micro_batch", "step_ps", "mfu_pct"]])

# %% Errors are exceptions with the CLI's message, the file and the byte offset where known.
try:
    mlprof.load("no/such/trace.json")
except mlprof.Error as e:
    print("error:", e.code, e.path, "-", e)
