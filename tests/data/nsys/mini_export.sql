-- A small Nsight Systems export, by hand: two kernels launched by
-- cudaLaunchKernel_v7000 calls (correlation 1, 2; pid 1 from globalPid
-- 1 << 24), an HtoD copy of pageable memory whose call is missing, a context
-- sync (stream 2^32 - 1: device-wide), a push/pop NVTX range "ProfilerStep#1"
-- (a step), a start/end range and a range never closed. Read by
-- src/io/nsys_test.cc (Nsys.HandMadeExport) and the fuzz target's seed
-- (scripts/fuzz.sh).
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
INSERT INTO StringIds VALUES (1,'gemm'),(2,'cudaLaunchKernel_v7000'),(3,'ProfilerStep#1'),(4,'main');
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER, gridX INTEGER, gridY INTEGER,
  gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000,2000,0,7,1,16777216,1,1,1,1,1,128,1,1),(3000,3500,0,7,2,16777216,1,1,2,1,1,64,1,1);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, globalTid INTEGER, correlationId INTEGER, nameId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (900,950,16777217,1,2),(2900,2950,16777217,2,2);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,
  correlationId INTEGER, globalPid INTEGER, bytes INTEGER, copyKind INTEGER, srcKind INTEGER, dstKind INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (2100,2200,0,7,3,16777216,4096,1,0,2);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,
  correlationId INTEGER, globalPid INTEGER, syncType INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (3600,3700,0,4294967295,4,16777216,4);
CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, text TEXT, textId INTEGER, globalTid INTEGER);
INSERT INTO NVTX_EVENTS VALUES (800,4000,59,NULL,3,16777217),(850,3900,60,'range',NULL,16777217),(900,NULL,59,'open',NULL,16777217);
CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT, totalMemory INTEGER, smCount INTEGER);
INSERT INTO TARGET_INFO_GPU VALUES (0,'NVIDIA H100',80000000000,132);
CREATE TABLE ThreadNames (nameId INTEGER, globalTid INTEGER);
INSERT INTO ThreadNames VALUES (4,16777217);
