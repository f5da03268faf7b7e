// The chip database: what each accelerator can do at best, for rooflines,
// expected times and MFU. One JSON file per chip in data/chips/ (sources
// cited in each), compiled into the binary and installed beside it; users
// add their own with --chip-file. Figures are per chip (a TPU chip with two
// TensorCores, a GPU package); `cores_per_chip` says how many devices a
// profile may show per chip.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace mlprof::hw {

// Numeric formats with a peak rate of their own.
enum class DType : uint8_t { kFp32, kTf32, kBf16, kFp16, kFp8, kInt8, kCount };
const char* DTypeName(DType t);
// "bf16", "fp8", ... (also "f32", "float32", "half", "s8" and the like);
// false if unknown.
bool ParseDType(std::string_view s, DType* out);

struct Memory {
  std::string name;  // "L2", "VMEM", "CMEM"
  double bytes = 0;
};

struct Link {
  std::string name;                         // "ICI", "NVLink4", "PCIe Gen5 x16", "DCN", "node egress"
  std::string scope;                        // "scale-up", "scale-out", "host"
  int links = 0;                            // links of this kind per chip (0: not stated)
  double bytes_per_s_per_dir_per_link = 0;  // one direction of one link (0: not stated)
  double bytes_per_s_per_dir_per_axis = 0;  // TPU torus axis with wraparound (0: not stated)
  double bytes_per_s_per_chip_bidir = 0;    // the vendor's per-chip total, where only that is published
  std::string note;
  // Per direction, all links together (links x per-link; the bidirectional
  // total / 2 where only that is known; 0 if neither).
  double bytes_per_s_per_dir() const;
};

// What a profile's device plane says of a chip when it gives no name (an
// XPlane GPU plane: vendor, compute capability, core count, clock).
struct DeviceSignature {
  std::string vendor;  // "AMD", "NVIDIA"
  int major = -1, minor = -1;
  int cores = -1;      // -1: any
  int clock_mhz = -1;  // -1: any; else within 2 %
};

struct Chip {
  std::string id;    // "h200"
  std::string name;  // "NVIDIA H200 SXM 141GB"
  std::string vendor;
  std::string kind;                         // "gpu", "tpu", "npu"
  std::vector<std::string> match;           // substrings of device names in profiles
  std::vector<DeviceSignature> signatures;  // unnamed devices this chip is
  // What people call the chip and its siblings ("H100" for the SXM and
  // PCIe parts); the family's default answers a bare family name.
  std::string family;
  bool family_default = false;
  int cores_per_chip = 1;
  double peak_flops[static_cast<int>(DType::kCount)] = {};  // FLOP/s, dense; 0 = none or unknown
  double hbm_bytes = 0;
  double hbm_bytes_per_s = 0;
  std::vector<Memory> on_chip;
  std::vector<Link> interconnect;
  std::vector<std::string> sources;
  std::string notes;
  std::string origin;  // "built-in" or the --chip-file path

  double peak(DType t) const { return peak_flops[static_cast<int>(t)]; }
  // Arithmetic intensity (FLOP per HBM byte) where compute and memory time
  // are equal: peak / HBM bandwidth; 0 if either is unknown.
  double ridge(DType t) const;
};

// Parses one chip file; errors name the file and the field.
StatusOr<Chip> ParseChipJson(std::string_view text, std::string_view path);

class ChipDb {
 public:
  // The chips compiled into mlprof (data/chips/*.json).
  static const ChipDb& BuiltIn();
  // The built-in chips plus those in `files` (a user's chip replaces a
  // built-in one with the same id).
  static StatusOr<ChipDb> WithFiles(const std::vector<std::string>& files);

  const std::vector<Chip>& chips() const { return chips_; }
  // By id, name or a `match` string, case-insensitively; null if none.
  const Chip* Find(std::string_view key) const;
  // The chips of a family ("h100": h100-sxm, h100-pcie), case-insensitively,
  // the family's default first; empty if `key` names no family.
  std::vector<const Chip*> Family(std::string_view key) const;
  // The chip whose signature a device's vendor, compute capability, core
  // count and clock (kHz; <= 0 unknown) fit; null if none.
  const Chip* DetectSignature(std::string_view vendor, int major, int minor, int cores, int64_t clock_khz) const;
  // The chip a profile's device name describes ("NVIDIA H100 80GB HBM3",
  // "TPU v6 Lite"): the longest `match` string contained in it; null if
  // none.
  const Chip* Detect(std::string_view device_name) const;
  // For a device name Detect does not know: the chip whose match strings
  // share the longest run of letters and digits with it (vendor and brand
  // words left out; at least four characters, a digit among them; of equals,
  // a family's default): "NVIDIA GeForce RTX 3070" -> rtx-3080 ("rtx30");
  // null if none. A hint for the
  // user's --chip, never used as the answer.
  const Chip* Closest(std::string_view device_name) const;

 private:
  std::vector<Chip> chips_;
};

}  // namespace mlprof::hw
