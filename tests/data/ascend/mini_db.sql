-- A hand-made torch_npu database (ascend_pytorch_profiler_0.db form), the
-- tables and columns of the corpus' real ones, for io/ascend_db_test.cc and
-- the fuzz seed. Times are ns from 1,000,000,000,000.
-- Kernels on stream 2: MatMul_1 (op MatMulV2, AI_CORE) 100-120 us with a PMU
-- value aic_mac_ratio 0.75; Add_1 (Add, AI_VECTOR_CORE) 130-135 us. A task
-- with no COMPUTE_TASK_INFO row (an HCCL sub-task) stays off the streams.
-- One HCCL op 125-165 us. Host: ProfilerStep#7 0-200 us (PYTORCH_API, with
-- its start and end as text, as torch_npu writes them), aten::mm 90-99 us;
-- a CANN call 95-98 us. Rank 3 on device 0, an Ascend910B.
-- Expected: compute 25 us, communication 40 us of which 5 us (130-135)
-- overlapped, idle from 100 to 165 us: 65 - (20 + 5 + 40 - 5) = 5 us.
CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT);
INSERT INTO STRING_IDS VALUES (1, 'MatMul_1'), (2, 'MatMulV2'), (3, 'AI_CORE'), (4, 'Add_1'), (5, 'Add'),
  (6, 'AI_VECTOR_CORE'), (7, 'aic_mac_ratio'), (8, 'hcom_allReduce__1_0_1'), (9, 'group0'),
  (10, 'ProfilerStep#7'), (11, 'aten::mm'), (12, 'aclnnMm'), (13, '"8,16"');
CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, deviceId INTEGER, connectionId INTEGER, globalTaskId INTEGER,
  globalPid INTEGER, taskType INTEGER, contextId INTEGER, streamId INTEGER, taskId INTEGER, modelId INTEGER,
  depth INTEGER);
INSERT INTO TASK VALUES (1000000100000, 1000000120000, 0, 1, 1, 42, 0, 0, 2, 10, 0, 0),
  (1000000130000, 1000000135000, 0, 2, 2, 42, 0, 0, 2, 11, 0, 0),
  (1000000126000, 1000000127000, 0, 3, 3, 42, 0, 0, 4, 12, 0, 0);
CREATE TABLE COMPUTE_TASK_INFO (name INTEGER, globalTaskId INTEGER, blockDim INTEGER, mixBlockDim INTEGER,
  taskType INTEGER, opType INTEGER, inputFormats INTEGER, inputDataTypes INTEGER, inputShapes INTEGER,
  outputFormats INTEGER, outputDataTypes INTEGER, outputShapes INTEGER, attrInfo INTEGER, waitNs INTEGER);
INSERT INTO COMPUTE_TASK_INFO VALUES (1, 1, 24, 0, 3, 2, NULL, NULL, 13, NULL, NULL, NULL, NULL, 0),
  (4, 2, 8, 0, 6, 5, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0);
CREATE TABLE TASK_PMU_INFO (globalTaskId INTEGER, name INTEGER, value REAL);
INSERT INTO TASK_PMU_INFO VALUES (1, 7, 0.75);
CREATE TABLE COMMUNICATION_OP (opName INTEGER, startNs INTEGER, endNs INTEGER, connectionId INTEGER,
  groupName INTEGER, opId INTEGER, relay INTEGER, retry INTEGER, dataType INTEGER, algType INTEGER,
  count INTEGER, opType INTEGER, waitNs INTEGER);
INSERT INTO COMMUNICATION_OP VALUES (8, 1000000125000, 1000000165000, 4, 9, 1, 0, 0, 0, 0, 1024, 0, 0);
CREATE TABLE PYTORCH_API (startNs TEXT, endNs TEXT, globalTid INTEGER, connectionId INTEGER, name INTEGER,
  sequenceNumber INTEGER, fwdThreadId INTEGER, inputDtypes INTEGER, inputShapes INTEGER, callchainId INTEGER,
  type INTEGER, depth INTEGER);
INSERT INTO PYTORCH_API VALUES ('1000000000000', '1000000200000', 180388626477, 0, 10, NULL, NULL, NULL, NULL,
  NULL, 50002, 0),
  ('1000000090000', '1000000099000', 180388626477, 1, 11, NULL, NULL, NULL, NULL, NULL, 50001, 1);
CREATE TABLE CANN_API (startNs INTEGER, endNs INTEGER, type INTEGER, globalTid INTEGER, connectionId INTEGER,
  name INTEGER, depth INTEGER);
INSERT INTO CANN_API VALUES (1000000095000, 1000000098000, 10000, 180388626477, 1, 12, 0);
CREATE TABLE NPU_INFO (id INTEGER, name TEXT);
INSERT INTO NPU_INFO VALUES (0, 'Ascend910B');
CREATE TABLE RANK_DEVICE_MAP (rankId INTEGER, deviceId INTEGER);
INSERT INTO RANK_DEVICE_MAP VALUES (3, 0);
