-- A small Nsight Systems export, by hand, for the host-side synchronization
-- records (src/io/nsys_test.cc, Nsys.SyncRecordsAreHostWaits). Process pid 1
-- (globalPid 1 << 24), thread tid 1 (globalTid (1 << 24) + 1), times in ns:
--   NVTX push/pop range "infer"        [1000, 9000]
--     cudaLaunchKernel_v7000 (corr 1)  [1100, 1200] -> kernel "gemm" on device 0, stream 7, [2000, 5000]
--     cudaStreamSynchronize_v3020 (corr 2) [1300, 8000]
--       its sync record: Stream sync (type 3) on device 1, stream 5, [1310, 7990]
--   an Event sync record (type 1, device 1, no stream) [8100, 8200] whose call is not in the export.
-- Device 1 runs nothing: only the sync records name it. The process's
-- environment (META_DATA_CAPTURE) says PMI_RANK="3", PMI_SIZE="4".
-- Hand counts: GPU work 3000 ns (the kernel), all of it launched inside
-- "infer"; one GPU (device 0, stream 7); sync time 6680 + 100 ns.
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
INSERT INTO StringIds VALUES (1,'gemm'),(2,'cudaLaunchKernel_v7000'),(3,'cudaStreamSynchronize_v3020'),(4,'infer');
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (2000,5000,0,7,1,16777216,1,1);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, globalTid INTEGER, correlationId INTEGER, nameId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1100,1200,16777217,1,2),(1300,8000,16777217,2,3);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER,
  streamId INTEGER, correlationId INTEGER, globalPid INTEGER, syncType INTEGER, eventId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (1310,7990,1,1,5,2,16777216,3,4294967295),
  (8100,8200,1,1,4294967295,9,16777216,1,4294967295);
CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, text TEXT, textId INTEGER, globalTid INTEGER);
INSERT INTO NVTX_EVENTS VALUES (1000,9000,59,NULL,4,16777217);
CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT, totalMemory INTEGER, smCount INTEGER);
INSERT INTO TARGET_INFO_GPU VALUES (0,'NVIDIA H100',80000000000,132),(1,'NVIDIA H100',80000000000,132);
CREATE TABLE META_DATA_CAPTURE (name TEXT, value TEXT);
INSERT INTO META_DATA_CAPTURE VALUES ('PROCESS_0:COMMAND','infer'),('PROCESS_0:ENVIRONMENT_VARIABLE','HOME="/root"'),
  ('PROCESS_0:ENVIRONMENT_VARIABLE','PMI_RANK="3"'),('PROCESS_0:ENVIRONMENT_VARIABLE','PMI_SIZE="4"');
