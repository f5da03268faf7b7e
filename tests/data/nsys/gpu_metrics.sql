-- GPU metrics for tests/data/nsys/mini_export.sql (run after it): samples
-- every 500 ns from 1000 to 3500 ns on GPU 0 (typeId 0x100: its low byte is
-- the GPU) of two metrics. The kernels "gemm" run 1000-2000 and 3000-3500 ns.
--   SMs Active:    80 90 10 0 50 70  -> mean 50, max 90; during gemm (samples
--                  at 1000, 1500, 3000; 3500 is the second's end) 73.33, max 90
--   Tensor Active: 40 60  0 0 20 30  -> mean 25, max 60; during gemm 40, max 60
-- A sample of a metric TARGET_INFO_GPU_METRICS does not name (9) is kept as
-- "(metric 9)" and counted (unknown_string_id).
CREATE TABLE TARGET_INFO_GPU_METRICS (typeId INTEGER, sourceId INTEGER, typeName TEXT, metricId INTEGER,
  metricName TEXT);
INSERT INTO TARGET_INFO_GPU_METRICS VALUES (256,0,'GH100',1,'SMs Active [Throughput %]'),
  (256,0,'GH100',2,'Tensor Active [Throughput %]');
CREATE TABLE GPU_METRICS (timestamp INTEGER, typeId INTEGER, metricId INTEGER, value INTEGER);
INSERT INTO GPU_METRICS VALUES (1000,256,1,80),(1500,256,1,90),(2000,256,1,10),(2500,256,1,0),(3000,256,1,50),
  (3500,256,1,70),(1000,256,2,40),(1500,256,2,60),(2000,256,2,0),(2500,256,2,0),(3000,256,2,20),(3500,256,2,30),
  (1000,256,9,5);
