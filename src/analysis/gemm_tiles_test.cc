#include "analysis/gemm_tiles.h"

#include <gtest/gtest.h>

#include "../../tests/test_util.h"

namespace mlprof {
namespace {

TEST(GemmTiles, TileFromKernelNames) {
  auto t = ParseGemmTile(
      "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT256x32x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->form, "tensile");
  EXPECT_EQ(t->m, 256);
  EXPECT_EQ(t->n, 32);
  EXPECT_EQ(t->k, 64);
  t = ParseGemmTile("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_kernel");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->form, "cublas");
  EXPECT_EQ(t->m * 1000 + t->n, 128128);
  t = ParseGemmTile(
      "void "
      "cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4>(cutlass_80_tensorop_s1688gemm_256x64_16x4_"
      "nn_align4::Params)");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->form, "cutlass");
  EXPECT_EQ(t->m, 256);
  EXPECT_EQ(t->n, 64);
  EXPECT_EQ(t->k, 16);
  t = ParseGemmTile("nvjet_tst_64x64_64x16_2x1_v_bz_TNT");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->form, "nvjet");
  EXPECT_EQ(t->m, 64);
  EXPECT_EQ(t->n, 64);
  EXPECT_EQ(t->k, 64);
  // No tile: elementwise kernels, Triton names, a lone "MT" elsewhere.
  // cuBLAS's architecture-named kernels, SIMT and tensor-core: no k in the name.
  t = ParseGemmTile("volta_sgemm_128x64_nn");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->m, 128);
  EXPECT_EQ(t->n, 64);
  EXPECT_EQ(t->k, 0);
  EXPECT_EQ(t->form, "cublas");
  t = ParseGemmTile("ampere_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->m, 128);
  EXPECT_EQ(t->n, 128);
  t = ParseGemmTile("turing_fp16_s1688gemm_fp16_256x128_ldg8_f2f_tn");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->m, 256);
  EXPECT_EQ(t->n, 128);
  EXPECT_FALSE(ParseGemmTile("volta_sgemm_largek_lds64"));
  EXPECT_FALSE(ParseGemmTile("void at::native::vectorized_elementwise_kernel<4, ...>"));
  EXPECT_FALSE(ParseGemmTile("_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1"));
  EXPECT_FALSE(ParseGemmTile("some_MT256x32x64_kernel"));  // Tensile names start Cijk_
  EXPECT_FALSE(ParseGemmTile("sm90_xmma_gemm_tilesize128x"));
  EXPECT_FALSE(ParseGemmTile("sm90_tilesize99999999999x1x1"));
}

TEST(GemmTiles, TileEfficiencyByHand) {
  // 32 x 24576 in 32 x 256 tiles: exact. 32 rows in 256-row tiles: 1/8.
  EXPECT_DOUBLE_EQ(TileEfficiency(32, 24576, 32, 256), 1.0);
  EXPECT_DOUBLE_EQ(TileEfficiency(32, 24576, 256, 32), 0.125);
  // 8944 x 1024 in 128 x 128: 70 x 8 tiles, 8960 x 1024 computed.
  EXPECT_DOUBLE_EQ(TileEfficiency(8944, 1024, 128, 128), 8944.0 / 8960.0);
  EXPECT_DOUBLE_EQ(TileEfficiency(0, 10, 8, 8), 0.0);
}

// aten::mm [[200,64],[64,300]] (M 200, N 300, K 64) on a GPU of 10 SMs,
// two kernels:
//  * cuBLAS tilesize128x64, grid [3,4,1] = 12 CTAs. Tiles: 128 along M:
//    2 x 5 = 10 (200x300 / 256x320 = 0.732); along N: 3 x 4 = 12
//    (200x300 / 256x384 ... no: 64 along M, 128 along N: 4 x 3 = 12,
//    200x300 / (256 x 384) = 0.610). The grid is 12 = the swapped count and
//    not a multiple of 10, so the swapped orientation: tile_eff 0.610, 12
//    CTAs, 2 waves, wave_eff 12/20 = 0.6.
//  * CUTLASS 64x64_32x3 with no grid: 4 x 5 = 20 tiles either way, 200x300 /
//    (256 x 320) = 0.732; 2 waves, full: wave_eff 1.
const char* kGemmTrace = R"J({"deviceProperties":[{"id":0,"name":"Test GPU","numSms":10}],"traceEvents":[
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":0,"dur":10,"args":{"External id":1,"Input Dims":[[200,64],[64,300]],"Input type":["float","float"]}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":1,"dur":2,"args":{"External id":1,"correlation":1}},
 {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":20,"dur":10,"args":{"External id":2,"Input Dims":[[200,64],[64,300]],"Input type":["float","float"]}},
 {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":21,"dur":2,"args":{"External id":2,"correlation":2}},
 {"ph":"X","cat":"kernel","name":"sm80_xmma_gemm_f32f32_tilesize128x64x8_kernel","pid":0,"tid":7,"ts":10,"dur":5,"args":{"stream":7,"device":0,"correlation":1,"grid":[3,4,1]}},
 {"ph":"X","cat":"kernel","name":"cutlass_80_simt_sgemm_64x64_32x3_nn_align1","pid":0,"tid":7,"ts":30,"dur":4,"args":{"stream":7,"device":0,"correlation":2}}
]})J";

TEST(GemmTiles, HandWorkedShapes) {
  Profile p = testing::ProfileFromJson(kGemmTrace);
  std::vector<GemmTileRow> rows = ComputeGemmTiles(BuildProfileView(p, {}));
  ASSERT_EQ(rows.size(), 2u);
  const GemmTileRow& a = rows[0];  // 5 us
  EXPECT_EQ(a.tile.form, "cublas");
  EXPECT_EQ(a.m, 200);
  EXPECT_EQ(a.n, 300);
  EXPECT_EQ(a.k, 64);
  EXPECT_TRUE(a.swapped);
  EXPECT_TRUE(a.grid_confirms);
  EXPECT_EQ(a.tiles, 12);
  EXPECT_EQ(a.ctas, 12);
  EXPECT_DOUBLE_EQ(a.tile_eff, 200.0 * 300 / (256.0 * 384));
  EXPECT_EQ(a.sms, 10);
  EXPECT_EQ(a.waves, 2);
  EXPECT_DOUBLE_EQ(a.wave_eff, 0.6);
  EXPECT_DOUBLE_EQ(a.shape_eff, a.tile_eff * 0.6);
  const GemmTileRow& b = rows[1];
  EXPECT_EQ(b.tile.form, "cutlass");
  EXPECT_FALSE(b.grid_confirms);
  EXPECT_EQ(b.tiles, 20);
  EXPECT_DOUBLE_EQ(b.tile_eff, 200.0 * 300 / (256.0 * 320));
  EXPECT_EQ(b.waves, 2);
  EXPECT_DOUBLE_EQ(b.wave_eff, 1.0);
}

}  // namespace
}  // namespace mlprof
