// The one chip-detection rule and the chip option values, on hand-made
// device lists.
#include "app/chip.h"

#include <gtest/gtest.h>

#include "../../tests/corpus_util.h"
#include "io/load.h"

namespace mlprof::app {
namespace {

DeviceProperties Named(const char* name) {
  DeviceProperties d;
  d.name = name;
  return d;
}

// "--chip H100" is the part the profile ran on, else the SXM part.
TEST(FindChip, FamilyNamesFollowTheProfile) {
  const hw::ChipDb& db = hw::ChipDb::BuiltIn();
  auto sxm = FindChip(db, "H100");
  ASSERT_TRUE(sxm.ok());
  EXPECT_EQ((*sxm)->id, "h100-sxm");
  auto pcie = FindChip(db, "h100", {Named("NVIDIA H100 PCIe")});
  ASSERT_TRUE(pcie.ok());
  EXPECT_EQ((*pcie)->id, "h100-pcie");
  auto other = FindChip(db, "H100", {Named("NVIDIA A100-SXM4-80GB")});  // not a member: the default
  ASSERT_TRUE(other.ok());
  EXPECT_EQ((*other)->id, "h100-sxm");
  auto ci = FindChipOrDevice(db, "MI300X");
  ASSERT_TRUE(ci.ok());
  EXPECT_EQ((*ci)->id, "mi300x");
  auto unknown = FindChip(db, "tpu-v9");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("unknown chip 'tpu-v9'; known chips: a100-40gb"), std::string::npos);
  EXPECT_NE(unknown.status().message().find("--chip-file"), std::string::npos);
}

// Names first; then the first unnamed device whose signature fits.
TEST(DetectChip, NamesThenSignatures) {
  const hw::ChipDb& db = hw::ChipDb::BuiltIn();
  DeviceProperties plane;
  plane.name = "/device:GPU:0";
  plane.vendor = "AMD";
  plane.compute_major = 9, plane.compute_minor = 4, plane.num_sms = 304, plane.clock_khz = 2100000;
  DetectedChip d = DetectChip(db, {plane});
  ASSERT_NE(d.chip, nullptr);
  EXPECT_EQ(d.chip->id, "mi300x");
  EXPECT_EQ(d.device_name, "AMD compute capability 9.4, 304 cores");
  d = DetectChip(db, {plane, Named("NVIDIA H200")});  // a name wins over a signature
  ASSERT_NE(d.chip, nullptr);
  EXPECT_EQ(d.chip->id, "h200");
  plane.compute_minor = 0;
  EXPECT_EQ(DetectChip(db, {plane}).chip, nullptr);
}

// torch_npu's database names its device (NPU_INFO: "Ascend910B"): the chip
// database's Ascend 910B, so roofline, MFU and compare find its peaks.
TEST(DetectChip, AscendDatabaseDevice) {
  MLPROF_CORPUS_FILE(dir, "ascend/msinsight_2rank/db/level1/rank0_ascend_pt");
  auto p = LoadProfile({dir}, {});
  ASSERT_TRUE(p.ok()) << p.status().message();
  const DetectedChip d = DetectChip(hw::ChipDb::BuiltIn(), p->AllDevices());
  ASSERT_NE(d.chip, nullptr);
  EXPECT_EQ(d.chip->id, "ascend-910b");
}

}  // namespace
}  // namespace mlprof::app
