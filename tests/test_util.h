// Helpers for tests that build their input profiles from trace text: read a
// trace from a string literal through the Chrome JSON reader (tests of the
// analysis and report layers use it as a fixture, as Perfetto's importer
// tests do), plus everything in corpus_util.h.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "analysis/view.h"
#include "corpus_util.h"
#include "io/load.h"

namespace mlprof::testing {

inline Profile ProfileFromJson(const std::string& json, const std::string& name = "test.json") {
  auto r = LoadTraceBytes(json, name);
  EXPECT_TRUE(r.ok()) << r.status().message();
  Profile p;
  if (r.ok()) p.ranks.push_back(std::move(r).value());
  return p;
}

}  // namespace mlprof::testing
