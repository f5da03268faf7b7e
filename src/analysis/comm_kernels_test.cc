// The communication predicates against the tools' own definitions, on names
// where the tools disagree (values worked out from each tool's rule).
#include "analysis/comm_kernels.h"

#include <gtest/gtest.h>

#include "base/ascii.h"

namespace mlprof {
namespace {

TEST(CommKernels, EachAsItsToolDefinesIt) {
  const std::string_view nccl = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
  const std::string_view hccl = "hcclAllReduce";
  const std::string_view rccl = "void rcclKernel<AllReduce>(...)";  // RCCL under its own name
  const std::string_view deepep = "void deep_ep::intranode::dispatch<8, 768>(...)";
  const std::string_view symm = "c10d::symmetric_memory::one_shot_all_reduce_kernel<float>";
  const std::string_view gemm = "sm90_xmma_gemm_bf16bf16_bf16f32";
  // HTA's typing: ^nccl | ^hip | ^hccl | ^hcom_ | .*ncclKernel.*
  EXPECT_TRUE(IsHtaCommKernel(nccl));
  EXPECT_TRUE(IsHtaCommKernel(hccl));
  EXPECT_TRUE(IsHtaCommKernel("hipMemcpyWithStream"));  // HTA's ^hip
  EXPECT_FALSE(IsHtaCommKernel(rccl));
  EXPECT_FALSE(IsHtaCommKernel(deepep));
  EXPECT_FALSE(IsHtaCommKernel(gemm));
  // mlprof's libraries beside HTA's typing.
  EXPECT_EQ(CommLibraryOf(deepep), "DeepEP");
  EXPECT_EQ(CommLibraryOf(symm), "symmetric memory");
  EXPECT_EQ(CommLibraryOf(nccl), "");
  // HTA's critical path: ^nccl or gloo:, so not hccl.
  EXPECT_TRUE(IsHtaCriticalPathCommKernel(nccl));
  EXPECT_TRUE(IsHtaCriticalPathCommKernel("gloo:all_reduce"));
  EXPECT_FALSE(IsHtaCriticalPathCommKernel(hccl));
  EXPECT_FALSE(IsHtaCriticalPathCommKernel(deepep));
  // TraceLens: nccl / rccl / cross_device_reduce anywhere, any case; plus
  // torch's symmetric-memory all-reduces.
  EXPECT_TRUE(IsTraceLensCollectiveKernel(nccl));
  EXPECT_TRUE(IsTraceLensCollectiveKernel(rccl));
  EXPECT_TRUE(IsTraceLensCollectiveKernel("CROSS_DEVICE_REDUCE_2stage"));
  EXPECT_TRUE(IsTraceLensCollectiveKernel(symm));
  EXPECT_FALSE(IsTraceLensCollectiveKernel(hccl));
  EXPECT_FALSE(IsTraceLensCollectiveKernel(gemm));
}

TEST(Ascii, ContainsNoCase) {
  EXPECT_TRUE(ContainsNoCase("ncclKernel", "kernel"));
  EXPECT_TRUE(ContainsNoCase("RCCL", "rccl"));
  EXPECT_FALSE(ContainsNoCase("rcc", "rccl"));
  EXPECT_TRUE(ContainsNoCase("anything", ""));
  EXPECT_FALSE(ContainsNoCase("", "x"));
}

}  // namespace
}  // namespace mlprof
