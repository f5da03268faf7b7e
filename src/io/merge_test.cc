// --merge (io/merge.h) on hand-made inputs: a host trace with three launch
// calls at 10, 20 and 30 us, a device profile on a clock 1000 us ahead whose
// copies of those calls sit at 1010.5, 1020 and 1031 us (so the differences
// are -1000.5, -1000 and -1001 us: median -1000.5, residuals 0, 0.5 and
// 0.5 us) and whose kernels (correlation 1-3, in the high 32 bits the
// process, as nsys keeps it) start 2 us after each call.
#include "io/merge.h"

#include <gtest/gtest.h>

#include "io/load.h"

namespace mlprof {
namespace {

TEST(Merge, OffsetFromLaunchCallsAndResidual) {
  auto host = LoadTraceBytes(R"J({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 5, "dur": 40},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 1, "args": {"correlation": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 20, "dur": 1, "args": {"correlation": 2}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 30, "dur": 1, "args": {"correlation": 3}}]})J",
                             "host.json");
  ASSERT_TRUE(host.ok()) << host.status().message();
  auto dev = LoadTraceBytes(R"J({"traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": 9, "ts": 1010.5, "dur": 1, "args": {"correlation": 4294967297}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": 9, "ts": 1020, "dur": 1, "args": {"correlation": 4294967298}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": 9, "ts": 1031, "dur": 1, "args": {"correlation": 4294967299}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1012.5, "dur": 3, "args": {"stream": 7, "device": 0, "correlation": 4294967297}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1022, "dur": 3, "args": {"stream": 7, "device": 0, "correlation": 4294967298}},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1033, "dur": 3, "args": {"stream": 7, "device": 0, "correlation": 4294967299}}]})J",
                            "dev.json");
  ASSERT_TRUE(dev.ok()) << dev.status().message();
  std::vector<RankProfile> in;
  in.push_back(std::move(*host));
  in.push_back(std::move(*dev));
  std::vector<std::string> notes;
  auto m = MergeHostAndDevice(std::move(in), {}, &notes);
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("moved by -1000.500 us"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("over 3 launch calls"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("residual median 0.500 us, largest 0.500 us"), std::string::npos) << notes[0];
  const RankProfile& r = *m;
  // Host: aten::mm and 3 calls; device: 3 kernels (its own calls left out).
  ASSERT_EQ(r.ops.size(), 7u);
  int kernels = 0;
  for (size_t i = 0; i < r.ops.size(); ++i) {
    if (r.ops.kind[i] != OpKind::kKernel) continue;
    ++kernels;
    ASSERT_GE(r.ops.launch[i], 0);  // linked to the host's call by the correlation's low 32 bits
    const size_t l = static_cast<size_t>(r.ops.launch[i]);
    // 2 us after the device's copy of the call = 2 us after the host's call, less that call's residual.
    const Ps gap = r.ops.ts[i] - r.ops.ts[l];
    EXPECT_TRUE(gap == 2 * kPsPerUs || gap == 2 * kPsPerUs + kPsPerUs / 2 || gap == 2 * kPsPerUs - kPsPerUs / 2) << gap;
  }
  EXPECT_EQ(kernels, 3);
}

// A device input of two processes (correlation high bits 1 and 2, as nsys
// keeps them) whose low 32 bits collide: the GPU work of the process whose
// launch calls match the host's (process 1: same clock, within 0 us) is
// kept, the other's (process 2: 500 us off) left out.
TEST(Merge, SeveralDeviceProcessesKeepTheMatchingOne) {
  auto host = LoadTraceBytes(R"J({"traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 1, "args": {"correlation": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 20, "dur": 1, "args": {"correlation": 2}}]})J",
                             "host.json");
  auto dev = LoadTraceBytes(R"J({"traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": 9, "ts": 10, "dur": 1, "args": {"correlation": 4294967297}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": 9, "ts": 20, "dur": 1, "args": {"correlation": 4294967298}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 8, "tid": 8, "ts": 510, "dur": 1, "args": {"correlation": 8589934593}},
    {"ph": "X", "cat": "kernel", "name": "mine", "pid": 0, "tid": 7, "ts": 12, "dur": 3, "args": {"stream": 7, "device": 0, "correlation": 4294967297}},
    {"ph": "X", "cat": "kernel", "name": "mine", "pid": 0, "tid": 7, "ts": 22, "dur": 3, "args": {"stream": 7, "device": 0, "correlation": 4294967298}},
    {"ph": "X", "cat": "kernel", "name": "theirs", "pid": 1, "tid": 7, "ts": 512, "dur": 3, "args": {"stream": 7, "device": 1, "correlation": 8589934593}}]})J",
                            "dev.json");
  ASSERT_TRUE(host.ok() && dev.ok());
  std::vector<RankProfile> in;
  in.push_back(std::move(*host));
  in.push_back(std::move(*dev));
  std::vector<std::string> notes;
  auto m = MergeHostAndDevice(std::move(in), {}, &notes);
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("holds the launch calls of 2 processes"), std::string::npos) << notes[0];
  EXPECT_NE(notes[1].find("moved by 0.000 us"), std::string::npos) << notes[1];
  EXPECT_NE(notes[1].find("over 2 launch calls"), std::string::npos) << notes[1];
  int mine = 0, theirs = 0;
  for (size_t i = 0; i < m->ops.size(); ++i) {
    mine += m->str(m->ops.name[i]) == "mine";
    theirs += m->str(m->ops.name[i]) == "theirs";
  }
  EXPECT_EQ(mine, 2);
  EXPECT_EQ(theirs, 0);
}

TEST(Merge, NoCommonLaunchesNeedsAnOffset) {
  auto a = LoadTraceBytes(
      R"J({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "x", "pid": 1, "tid": 1, "ts": 1, "dur": 1}]})J",
      "a.json");
  auto b = LoadTraceBytes(
      R"J({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 1, "args": {"stream": 7}}]})J",
      "b.json");
  ASSERT_TRUE(a.ok() && b.ok());
  std::vector<RankProfile> in;
  in.push_back(std::move(*a));
  in.push_back(std::move(*b));
  std::vector<std::string> notes;
  auto m = MergeHostAndDevice(std::move(in), {}, &notes);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("--merge-offset-us"), std::string::npos);
}

}  // namespace
}  // namespace mlprof
