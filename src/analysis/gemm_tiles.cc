#include "analysis/gemm_tiles.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/attribution.h"
#include "analysis/op_cost.h"

namespace mlprof {
namespace {

// Digits at s[i..]: the number and where they end; false when none.
bool Digits(std::string_view s, size_t& i, int64_t& v) {
  const size_t start = i;
  v = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i - start < 9) v = v * 10 + (s[i++] - '0');
  return i > start && !(i < s.size() && s[i] >= '0' && s[i] <= '9');
}

// "<a>x<b>" at s[i..] (and "x<c>" after it when `third`).
bool Dims(std::string_view s, size_t i, int64_t& a, int64_t& b, int64_t* c) {
  if (!Digits(s, i, a) || i >= s.size() || s[i] != 'x') return false;
  ++i;
  if (!Digits(s, i, b)) return false;
  if (c != nullptr) {
    if (i >= s.size() || s[i] != 'x') return false;
    ++i;
    if (!Digits(s, i, *c)) return false;
  }
  return a > 0 && b > 0;
}

}  // namespace

std::optional<GemmTile> ParseGemmTile(std::string_view name) {
  GemmTile t;
  // Tensile: "_MT256x32x64_" (Cijk_ kernels).
  if (name.find("Cijk_") != std::string_view::npos)
    for (size_t p = name.find("_MT"); p != std::string_view::npos; p = name.find("_MT", p + 1))
      if (Dims(name, p + 3, t.m, t.n, &t.k)) {
        t.form = "tensile";
        return t;
      }
  // cuBLAS: "tilesize128x128x64".
  if (size_t p = name.find("tilesize"); p != std::string_view::npos && Dims(name, p + 8, t.m, t.n, &t.k)) {
    t.form = "cublas";
    return t;
  }
  // CUTLASS: "cutlass_..._<m>x<n>_<k>x<stages>_"; cuBLAS's nvjet kernels
  // (Blackwell, Hopper): "nvjet_tst_64x64_64x16_...", the same form.
  const bool nvjet = name.find("nvjet") != std::string_view::npos;
  if (name.find("cutlass") != std::string_view::npos || nvjet) {
    for (size_t p = name.find('_'); p != std::string_view::npos; p = name.find('_', p + 1)) {
      int64_t m = 0, n = 0, k = 0, stages = 0;
      size_t i = p + 1;
      if (!Dims(name, i, m, n, nullptr)) continue;
      // The tile must be followed by "_<k>x<stages>".
      size_t q = name.find('_', i);
      if (q == std::string_view::npos || !Dims(name, q + 1, k, stages, nullptr)) continue;
      t.m = m, t.n = n, t.k = k;
      t.form = nvjet ? "nvjet" : "cutlass";
      return t;
    }
  }
  // cuBLAS's and cuDNN's architecture-named kernels: "volta_sgemm_128x64_nn",
  // "ampere_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn",
  // "turing_fp16_s1688gemm_fp16_256x128_ldg8_f2f_tn": the first "_<m>x<n>_"
  // after "gemm" (SIMT sgemm/dgemm and tensor-core hNNN/sNNNN alike).
  static constexpr std::string_view kArch[] = {"maxwell_", "pascal_", "volta_", "turing_",
                                               "ampere_",  "ada_",    "hopper_"};
  bool arch = false;
  for (std::string_view a : kArch) arch = arch || name.starts_with(a);
  if (size_t g = name.find("gemm_"); arch && g != std::string_view::npos) {
    for (size_t p = name.find('_', g); p != std::string_view::npos; p = name.find('_', p + 1)) {
      size_t i = p + 1;
      int64_t m = 0, n = 0;
      if (!Digits(name, i, m) || i >= name.size() || name[i] != 'x') continue;
      ++i;
      if (!Digits(name, i, n) || m <= 0 || n <= 0 || (i < name.size() && name[i] != '_')) continue;
      t.m = m, t.n = n, t.k = 0;
      t.form = "cublas";
      return t;
    }
  }
  return std::nullopt;
}

double TileEfficiency(int64_t m, int64_t n, int64_t tm, int64_t tn) {
  if (m <= 0 || n <= 0 || tm <= 0 || tn <= 0) return 0;
  const double pm = static_cast<double>((m + tm - 1) / tm * tm), pn = static_cast<double>((n + tn - 1) / tn * tn);
  return static_cast<double>(m) * static_cast<double>(n) / (pm * pn);
}

std::vector<GemmTileRow> ComputeGemmTiles(const ProfileView& view) {
  std::vector<GemmTileRow> out;
  for (const RankView& rv : view.ranks) {
    const RankProfile& p = *rv.profile;
    const OpTable& o = p.ops;
    struct Key {
      StringId op, dims, types, kernel;
      bool operator<(const Key& b) const {
        return std::tie(op, dims, types, kernel) < std::tie(b.op, b.dims, b.types, b.kernel);
      }
    };
    struct Acc {
      int64_t count = 0;
      Ps gpu = 0;
      int64_t grid = -1;  // the first launch's grid blocks
      int32_t device = -1;
    };
    std::map<Key, Acc> acc;
    std::unordered_map<StringId, bool> tiled;  // kernel name has a tile
    for (const GpuOpRef& g : rv.gpu) {
      if (o.kind[g.op] != OpKind::kKernel) continue;
      auto [it, fresh] = tiled.emplace(o.name[g.op], false);
      if (fresh) it->second = ParseGemmTile(p.str(o.name[g.op])).has_value();
      if (!it->second) continue;
      int32_t owner = -1;
      ForEachLaunchAncestor(p, g.op, [&](size_t q) {
        if (!p.IsFrameworkOp(q)) return true;
        owner = static_cast<int32_t>(q);
        return false;
      });
      if (owner < 0) continue;
      const auto w = static_cast<size_t>(owner);
      Acc& a = acc[{o.name[w], o.input_dims_of(w), o.input_types_of(w), o.name[g.op]}];
      a.count++;
      a.gpu += g.end - g.ts;
      if (a.grid < 0) {
        std::vector<std::vector<int64_t>> grid;
        if (ParseDimsList("[" + std::string(p.str(o.grid_of(g.op))) + "]", &grid) && grid.size() == 1 &&
            !grid[0].empty()) {
          int64_t prod = 1;
          for (int64_t v : grid[0]) prod *= std::max<int64_t>(v, 1);
          a.grid = prod;
        }
        a.device = p.tracks[g.track].device;
      }
    }
    std::vector<GemmTileRow> rows;
    for (const auto& [key, a] : acc) {
      auto cost = GemmCost(p.str(key.op), p.str(key.dims), p.str(key.types));
      if (!cost) continue;
      GemmTileRow r;
      r.rank = rv.rank;
      r.op = std::string(p.str(key.op));
      r.input_dims = std::string(p.str(key.dims));
      r.kernel = std::string(p.str(key.kernel));
      r.count = a.count;
      r.gpu = a.gpu;
      r.m = cost->m, r.n = cost->n, r.k = cost->k, r.batch = std::max<int64_t>(cost->batch, 1);
      r.tile = *ParseGemmTile(r.kernel);
      auto tiles_of = [&](bool swap) {
        const int64_t tm = swap ? r.tile.n : r.tile.m, tn = swap ? r.tile.m : r.tile.n;
        return r.batch * ((r.m + tm - 1) / tm) * ((r.n + tn - 1) / tn);
      };
      const int64_t t0 = tiles_of(false), t1 = tiles_of(true);
      const double e0 = TileEfficiency(r.m, r.n, r.tile.m, r.tile.n), e1 = TileEfficiency(r.m, r.n, r.tile.n, r.tile.m);
      // The grid confirms an orientation when it is that many tiles (or a
      // multiple: split-K) and not the other's.
      const int64_t grid = a.grid;  // (clang: a structured binding cannot be captured)
      auto fits = [grid](int64_t t) { return grid > 0 && t > 0 && grid % t == 0 && grid / t <= 64; };
      if (fits(t0) != fits(t1)) {
        r.swapped = fits(t1);
        r.grid_confirms = true;
      } else {
        r.swapped = e1 > e0;
        r.grid_confirms = fits(t0) && t0 == t1;
      }
      r.tiles = r.swapped ? t1 : t0;
      r.tile_eff = r.swapped ? e1 : e0;
      for (const DeviceProperties& d : p.meta.devices)
        if (d.id == a.device && d.num_sms > 0) r.sms = d.num_sms;
      if (r.sms < 0 && p.meta.devices.size() == 1 && p.meta.devices[0].num_sms > 0) r.sms = p.meta.devices[0].num_sms;
      // CTAs: the grid where it is the tiles times a split-K factor, else the tiles.
      r.ctas = r.grid_confirms ? grid : r.tiles;
      if (r.sms > 0) {
        r.waves = (r.ctas + r.sms - 1) / r.sms;
        r.wave_eff = static_cast<double>(r.ctas) / static_cast<double>(r.waves * r.sms);
        r.shape_eff = r.tile_eff * r.wave_eff;
      }
      rows.push_back(std::move(r));
    }
    std::sort(rows.begin(), rows.end(), [](const GemmTileRow& a, const GemmTileRow& b) {
      return a.gpu != b.gpu ? a.gpu > b.gpu
                            : std::tie(a.op, a.input_dims, a.kernel) < std::tie(b.op, b.input_dims, b.kernel);
    });
    for (auto& r : rows) out.push_back(std::move(r));
  }
  return out;
}

}  // namespace mlprof
