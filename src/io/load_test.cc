// Finding the inputs: directories of per-rank traces and TensorBoard log
// directories (listing only; no file is read here).
#include "io/load.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace mlprof {
namespace {

namespace fs = std::filesystem;

void Touch(const fs::path& p) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << "x";
}

// plugins/profile/<run>/: the latest run (names are capture times), its
// XSpace preferred over the trace-viewer export of the same host.
TEST(ExpandTracePaths, TensorBoardLogDirectory) {
  const fs::path dir = fs::path(::testing::TempDir()) / "mlprof_tb_logdir";
  fs::remove_all(dir);
  const fs::path runs = dir / "plugins" / "profile";
  Touch(runs / "2024_01_01_10_00_00" / "old.trace.json.gz");
  Touch(runs / "2024_02_01_10_00_00" / "h.xplane.pb");
  Touch(runs / "2024_02_01_10_00_00" / "h.trace.json.gz");
  Touch(runs / "2024_02_01_10_00_00" / "other.trace.json.gz");
  Touch(runs / "2024_02_01_10_00_00" / "h.memory_profile.json.gz.txt");  // not a trace name
  std::vector<std::string> notes;
  auto files = ExpandTracePaths({dir.string()}, &notes);
  ASSERT_TRUE(files.ok()) << files.status().message();
  ASSERT_EQ(files->size(), 2u);
  EXPECT_EQ(fs::path((*files)[0]).filename(), "h.xplane.pb");
  EXPECT_EQ(fs::path((*files)[1]).filename(), "other.trace.json.gz");
  EXPECT_EQ(fs::path((*files)[0]).parent_path().filename(), "2024_02_01_10_00_00");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("reading run '2024_02_01_10_00_00', the latest of 2 (2 file(s))"), std::string::npos)
      << notes[0];
  // The plugins/profile folder itself works the same.
  auto same = ExpandTracePaths({runs.string()});
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(*same, *files);
  // A run folder named directly is read as any folder.
  auto old = ExpandTracePaths({(runs / "2024_01_01_10_00_00").string()});
  ASSERT_TRUE(old.ok());
  ASSERT_EQ(old->size(), 1u);
  fs::remove_all(dir);
}

TEST(ExpandTracePaths, EmptyDirectorySaysWhatItLookedFor) {
  const fs::path dir = fs::path(::testing::TempDir()) / "mlprof_empty_dir";
  fs::create_directories(dir);
  auto files = ExpandTracePaths({dir.string()});
  ASSERT_FALSE(files.ok());
  EXPECT_EQ(files.status().code(), StatusCode::kNotFound);
  EXPECT_NE(files.status().message().find("nor a TensorBoard plugins/profile/<run>/ folder"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mlprof
