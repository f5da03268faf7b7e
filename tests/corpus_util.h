// Test helpers that need nothing of mlprof's: the corpus location (with a
// loud skip when it is absent outside CI) and protobuf bytes for hand-built
// XPlane and HloProto inputs. Any layer's tests may include it.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace mlprof::testing {

// A protobuf varint, for hand-built XPlane and HloProto test inputs.
inline std::string EncodeVarint(uint64_t v) {
  std::string s;
  while (v >= 0x80) s += static_cast<char>((v & 0x7f) | 0x80), v >>= 7;
  return s + static_cast<char>(v);
}

inline std::string CorpusDir() {
  const char* env = std::getenv("MLPROF_CORPUS");
  if (env) return env;
  return std::string(MLPROF_SOURCE_DIR) + "/../shared/corpus";
}

// Returns the path of a corpus file; when the corpus is missing, fails under
// CI=true and otherwise marks the test skipped with a loud message.
#define MLPROF_CORPUS_FILE(var, rel)                                                                   \
  std::string var = ::mlprof::testing::CorpusDir() + "/" + (rel);                                      \
  if (!std::filesystem::exists(var)) {                                                                 \
    const char* ci = std::getenv("CI");                                                                \
    if (ci && std::string(ci) == "true") FAIL() << "corpus file missing under CI: " << var;            \
    GTEST_SKIP() << "SKIPPED: corpus not found (" << var << "); set MLPROF_CORPUS or clone ../shared"; \
  }

// A whole file's bytes ("" when it cannot be read).
inline std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline constexpr double kUs = 1e6;  // ps per us, as double

}  // namespace mlprof::testing
