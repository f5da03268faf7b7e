#!/usr/bin/env python3
"""Writes synthetic torch_npu outputs for timing the Ascend readers:
a run folder PATH/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ holding
kernel_details.csv with N kernel rows (200 names, 12 PMU columns, a TAB
inside the quoted start time as torch_npu writes it), and beside it, in
PATH_db/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/, an
ascend_pytorch_profiler_0.db with N kernels (TASK + COMPUTE_TASK_INFO, 4 PMU
values each) and N PyTorch API rows.

    python3 bench/ascend_synth.py /tmp/ascend_big 1000000
    /usr/bin/time -f "%e s %M KB" build/mlprof info /tmp/ascend_big -q
    /usr/bin/time -f "%e s %M KB" build/mlprof info /tmp/ascend_big_db -q
"""
import os
import sqlite3
import sys

root, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1000000
out = os.path.join(root, "rank0_ascend_pt", "ASCEND_PROFILER_OUTPUT")
os.makedirs(out, exist_ok=True)
pmu = ["aicore_time(us)", "aic_total_cycles", "aic_mac_time(us)", "aic_mac_ratio", "aic_scalar_time(us)",
       "aic_scalar_ratio", "aic_mte2_time(us)", "aic_mte2_ratio", "aiv_time(us)", "aiv_vec_ratio", "aiv_mte3_ratio",
       "cube_utilization(%)"]
with open(os.path.join(out, "kernel_details.csv"), "w", newline="") as f:
    f.write("Step Id,Model ID,Task ID,Stream ID,Name,Type,Accelerator Core,Start Time(us),Duration(us),"
            "Wait Time(us),Block Dim,Mix Block Dim,Input Shapes,Input Data Types,Output Shapes,Context ID,"
            + ",".join(pmu) + "\r\n")
    base = 1736408883704643
    for i in range(n):
        f.write(f'1,4294967295,{i},2,kernel_{i % 200},Op{i % 50},AI_CORE,"{base + 2 * i}.{i % 1000:03d}\t",1.25,'
                f'0.5,24,0,"""8,{i % 64}""",FLOAT,"""8,16""",N/A,1.2,2000,0.5,0.41,0.2,0.17,0.9,0.75,0,0,0,0\r\n')
db_out = os.path.join(root + "_db", "rank0_ascend_pt", "ASCEND_PROFILER_OUTPUT")
os.makedirs(db_out, exist_ok=True)
path = os.path.join(db_out, "ascend_pytorch_profiler_0.db")
if os.path.exists(path):
    os.remove(path)
c = sqlite3.connect(path)
c.executescript("""
CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT);
CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER, globalTaskId INTEGER,
  globalPid INTEGER, taskType INTEGER, contextId INTEGER, streamId INTEGER, taskId INTEGER, modelId INTEGER,
  depth INTEGER);
CREATE TABLE COMPUTE_TASK_INFO (name INTEGER, globalTaskId INTEGER, blockDim INTEGER, mixBlockDim INTEGER,
  taskType INTEGER, opType INTEGER, inputFormats INTEGER, inputDataTypes INTEGER, inputShapes INTEGER,
  outputFormats INTEGER, outputDataTypes INTEGER, outputShapes INTEGER, attrInfo INTEGER, waitNs INTEGER);
CREATE TABLE TASK_PMU_INFO (globalTaskId INTEGER, name INTEGER, value REAL);
CREATE TABLE PYTORCH_API (startNs TEXT, endNs TEXT, globalTid INTEGER, connectionId INTEGER, name INTEGER,
  sequenceNumber INTEGER, fwdThreadId INTEGER, inputDtypes INTEGER, inputShapes INTEGER, callchainId INTEGER,
  type INTEGER, depth INTEGER);
""")
c.executemany("INSERT INTO STRING_IDS VALUES (?,?)",
              [(i, f"kernel_{i}") for i in range(200)] + [(200 + i, f"Op{i}") for i in range(50)] +
              [(300, "AI_CORE"), (301, "aic_mac_ratio"), (302, "aic_mte2_ratio"), (303, "aiv_vec_ratio"),
               (304, "aic_scalar_ratio"), (305, "aten::mm")])
t0 = 1736408883704643000
c.executemany("INSERT INTO TASK VALUES (?,?,0,?,?,42,0,0,2,?,0,0)",
              ((t0 + 2000 * i, t0 + 2000 * i + 1250, i, i, i) for i in range(n)))
c.executemany("INSERT INTO COMPUTE_TASK_INFO VALUES (?,?,24,0,300,?,NULL,NULL,NULL,NULL,NULL,NULL,NULL,0)",
              ((i % 200, i, 200 + i % 50) for i in range(n)))
c.executemany("INSERT INTO TASK_PMU_INFO VALUES (?,?,?)",
              ((i, 301 + k, 0.25 * k) for i in range(n) for k in range(4)))
c.executemany("INSERT INTO PYTORCH_API VALUES (?,?,180388626477,?,305,NULL,NULL,NULL,NULL,NULL,50001,0)",
              ((str(t0 + 2000 * i - 1000), str(t0 + 2000 * i - 200), i) for i in range(n)))
c.commit()
c.close()
