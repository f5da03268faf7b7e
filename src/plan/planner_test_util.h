// Models, chips and runs the planner's tests share (planner_test.cc,
// planner_terms_test.cc).
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "hw/chip.h"
#include "plan/planner.h"

namespace mlprof::plan::test {

inline ModelSpec Preset(const char* id) {
  auto m = BuiltInModel(id);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return *m;
}

// A made-up chip: bf16 peak, HBM size and bandwidth, a scale-up link (all
// links, per direction) and 50 GB/s of node egress per chip.
inline std::string fmt_chip(double tflops, double hbm_gb, double hbm_tb_s, double link_gb_s) {
  return fmt::format(
      R"({{"id":"t","name":"T","kind":"gpu","peak_tflops":{{"bf16":{}}},"hbm_bytes":{},"hbm_bytes_per_s":{},)"
      R"("interconnect":[{{"name":"NVLink","scope":"scale-up","links":1,"bytes_per_s_per_dir_per_link":{}}},)"
      R"({{"name":"node egress","scope":"scale-out","links":1,"bytes_per_s_per_dir_per_link":5e10}}]}})",
      tflops, hbm_gb * 1e9, hbm_tb_s * 1e12, link_gb_s * 1e9);
}

inline hw::Chip Chip(double tflops, double hbm_gb, double hbm_tb_s, double link_gb_s) {
  auto c = hw::ParseChipJson(fmt_chip(tflops, hbm_gb, hbm_tb_s, link_gb_s), "t.json");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return *c;
}

// A dense Llama-2-7B-shaped model (MHA, SwiGLU 11008, 32 k vocabulary)
// built in code, so its size is known exactly.
// 8 sequences of 2048 tokens, Megatron's 2 + 4 + 12 bytes per parameter.
inline TrainSpec EightSequencesOf2048() {
  TrainSpec t;
  t.global_batch = 8, t.seq = 2048;
  EXPECT_TRUE(ParseMemoryConvention("megatron", &t.memory));
  return t;
}

inline ModelSpec Toy7B() {
  ModelSpec m;
  m.id = m.name = "toy";
  m.layers = 32, m.hidden = 4096, m.heads = 32, m.kv_heads = 32, m.head_dim = 128, m.ffn = 11008, m.vocab = 32000;
  m.seq_len = 2048;
  m.groups.push_back({32, false, 0, 0});
  return m;
}

}  // namespace mlprof::plan::test
