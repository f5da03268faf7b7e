// Framework-op costs against TraceLens's committed reference outputs
// (corpus/tracelens/**/GEMM.csv): for every aten::mm, aten::addmm and
// aten::bmm row, the FLOPs and bytes mlprof computes from the row's own
// Input Dims and Input type must be TraceLens's GFLOPS and Data Moved.
// (vLLM/aiter custom GEMM ops in those files carry their shapes in other
// args and are not compared.)
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "analysis/op_cost.h"
#include "test_util.h"

namespace mlprof {
namespace {

// RFC 4180: quoted fields may hold commas, doubled quotes and newlines.
std::vector<std::vector<std::string>> ReadCsv(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string s = ss.str();
  std::vector<std::vector<std::string>> rows(1);
  std::string cell;
  bool quoted = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quoted) {
      if (c == '"' && i + 1 < s.size() && s[i + 1] == '"') cell += '"', ++i;
      else if (c == '"') quoted = false;
      else cell += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(std::move(cell)), cell.clear();
    } else if (c == '\n') {
      rows.back().push_back(std::move(cell)), cell.clear();
      rows.emplace_back();
    } else if (c != '\r') {
      cell += c;
    }
  }
  if (!cell.empty() || !rows.back().empty()) rows.back().push_back(cell);
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

TEST(TraceLensGolden, GemmFlopsAndBytes) {
  MLPROF_CORPUS_FILE(dir, "tracelens/tests/traces");
  int compared = 0, files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.path().filename() != "GEMM.csv") continue;
    ++files;
    auto rows = ReadCsv(e.path().string());
    ASSERT_FALSE(rows.empty());
    std::map<std::string, size_t> col;
    for (size_t i = 0; i < rows[0].size(); ++i) col[rows[0][i]] = i;
    for (const char* need : {"name", "GFLOPS_first", "Data Moved (MB)_first", "Input Dims_first", "Input type_first"})
      ASSERT_TRUE(col.count(need)) << e.path() << " lacks " << need;
    for (size_t r = 1; r < rows.size(); ++r) {
      const auto& row = rows[r];
      ASSERT_EQ(row.size(), rows[0].size()) << e.path() << " row " << r;
      const std::string& name = row[col["name"]];
      if (name != "aten::mm" && name != "aten::addmm" && name != "aten::bmm") continue;
      auto c = GemmCost(name, row[col["Input Dims_first"]], row[col["Input type_first"]]);
      ASSERT_TRUE(c.has_value()) << e.path() << " row " << r << ": " << row[col["Input Dims_first"]];
      const double want_flops = std::stod(row[col["GFLOPS_first"]]) * 1e9;
      const double want_bytes = std::stod(row[col["Data Moved (MB)_first"]]) * 1048576.0;
      EXPECT_NEAR(c->flops, want_flops, 1e-9 * want_flops + 1) << e.path() << " row " << r << " " << name;
      EXPECT_NEAR(c->bytes, want_bytes, 1e-9 * want_bytes + 1) << e.path() << " row " << r << " " << name;
      ++compared;
    }
  }
  EXPECT_EQ(files, 11);
  EXPECT_EQ(compared, 52);  // 28 addmm + 18 mm + 6 bmm rows
}

}  // namespace
}  // namespace mlprof
