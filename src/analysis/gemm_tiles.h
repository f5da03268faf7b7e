// GEMM shape efficiency from kernel names: whether a GEMM far from its
// roofline is held back by its shape. Kernel libraries name the output tile
// a CTA computes:
//   Tensile / hipBLASLt  "Cijk_..._MT256x32x64_MI16x16x1_..."   MT<m>x<n>x<k>
//   cuBLAS (sm80, sm90)  "sm90_xmma_gemm_..._tilesize128x128x64_..."
//   CUTLASS              "cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4"
//                        (<m>x<n>_<k>x<stages>)
//   cuBLAS nvjet         "nvjet_tst_64x64_64x16_2x1_v_bz_TNT" (the same form)
//   cuBLAS by arch       "volta_sgemm_128x64_nn", "ampere_s16816gemm_fp16_128x128_ldg8_..."
//                        (the first <m>x<n> after "gemm_"; SIMT and tensor-core)
// For a GEMM op whose shapes give M, N, K (analysis/op_cost.h) and a kernel
// with a tile:
//   tiles          = batch x ceil(M / tm) x ceil(N / tn) in the orientation
//                    used (below)
//   tile_eff       = M x N / (ceil(M / tm) tm x ceil(N / tn) tn): the share of
//                    the computed tiles that is the output, not padding
//   ctas           = the kernel's grid (x*y*z) where it is the tiles times a
//                    split-K factor (<= 64), else the tiles
//   waves          = ceil(ctas / SMs) (SMs / CUs from deviceProperties; one
//                    CTA per SM at a time)
//   wave_eff       = ctas / (waves x SMs): how full the waves are
//   shape_eff      = tile_eff x wave_eff
// Orientation: BLAS libraries are column-major, so a row-major PyTorch GEMM
// may run with M and N swapped; the orientation whose tile count (times the
// split-K factor) equals the kernel's grid is taken, else the one with less
// padding. Persistent kernels (grid = SM count) and split-K reshape the
// waves; the figure is the shape's, not a simulation of the scheduler.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/view.h"

namespace mlprof {

struct GemmTile {
  int64_t m = 0, n = 0, k = 0;  // k: 0 when the name gives none
  std::string form;             // "tensile", "cublas", "cutlass"
};
std::optional<GemmTile> ParseGemmTile(std::string_view kernel);

// Output-tile efficiency of an M x N output in tm x tn tiles.
double TileEfficiency(int64_t m, int64_t n, int64_t tm, int64_t tn);

struct GemmTileRow {
  int64_t rank = 0;
  std::string op, input_dims, kernel;
  int64_t count = 0;
  Ps gpu = 0;
  int64_t m = 0, n = 0, k = 0, batch = 1;
  GemmTile tile;
  bool swapped = false;  // the tile's first dimension runs along N
  bool grid_confirms = false;
  int64_t tiles = 0;
  int64_t ctas = 0;  // the grid where it confirms the tiles (x split-K), else the tiles
  double tile_eff = 0;
  int64_t sms = -1;  // -1: the trace does not say
  int64_t waves = -1;
  double wave_eff = -1, shape_eff = -1;
};

// Per (op, shapes, kernel), heaviest first.
std::vector<GemmTileRow> ComputeGemmTiles(const ProfileView& view);

}  // namespace mlprof
