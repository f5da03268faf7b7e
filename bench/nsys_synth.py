#!/usr/bin/env python3
"""Writes a synthetic Nsight Systems SQLite export for timing the nsys reader:
N kernels (200 names, 1 us each on one stream) and N cudaLaunchKernel calls
linked to them, in the schema-3 column layout.

    python3 bench/nsys_synth.py /tmp/big_nsys.sqlite 1000000
    /usr/bin/time -f "%e s %M KB" build/mlprof info /tmp/big_nsys.sqlite -q
"""
import os
import sqlite3
import sys

path, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1000000
if os.path.exists(path):
    os.remove(path)
c = sqlite3.connect(path)
c.executescript("""
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL,
  shortName INTEGER NOT NULL, gridX INTEGER, gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER);
""")
c.executemany("INSERT INTO StringIds VALUES (?,?)",
              [(i, f"kernel_{i}") for i in range(1, 200)] + [(500, "cudaLaunchKernel_v7000")])
pid = 1 << 24
c.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?,?,0,1,7,?,?,?,?,64,1,1,256,1,1)",
              ((i * 2000 + 500, i * 2000 + 1500, i, pid, 1 + i % 199, 1 + i % 199) for i in range(n)))
c.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,1,?,?,500,0)",
              ((i * 2000, i * 2000 + 300, pid + 1, i) for i in range(n)))
c.commit()
c.close()
