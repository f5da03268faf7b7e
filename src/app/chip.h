// Choosing the chip a profile ran on, and the option values the chip-aware
// commands share (data type, torus axes).
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "hw/chip.h"
#include "model/profile.h"

namespace mlprof::app {

struct DetectedChip {
  const hw::Chip* chip = nullptr;  // null: none of the names matched
  std::string device_name;         // the name that matched
  std::vector<std::string> seen;   // every device name looked at, in order
  // No chip: " (the closest the chip database knows: rtx-3080, NVIDIA
  // GeForce RTX 3080 10GB; pass --chip rtx-3080 only if its peaks are
  // yours)" for the first seen name with a close chip; "" otherwise.
  std::string ClosestHint(const hw::ChipDb& db) const;
};
// The first chip the database recognises among the devices' names (device
// type, then name, device by device), else the first device whose vendor,
// compute capability, cores and clock fit a chip's signature (XPlane GPU
// planes carry no name). The one detection rule of mlprof.
DetectedChip DetectChip(const hw::ChipDb& db, const std::vector<DeviceProperties>& devices);
DetectedChip DetectChip(const hw::ChipDb& db, const std::vector<std::string>& device_names);

// A chip by id or name, case-insensitively, or by a family name ("H100":
// the family member the profile's devices are, else the family's default,
// the SXM part); the error lists the known ids.
StatusOr<const hw::Chip*> FindChip(const hw::ChipDb& db, const std::string& id,
                                   const std::vector<DeviceProperties>& profile_devices = {});
// FindChip, or else a device name as profiles write it ("NVIDIA H200").
StatusOr<const hw::Chip*> FindChipOrDevice(const hw::ChipDb& db, const std::string& id_or_device,
                                           const std::vector<DeviceProperties>& profile_devices = {});

// "bf16" -> DType; a usage error naming the option otherwise.
StatusOr<hw::DType> ParseDTypeOption(const std::string& name);

// The dtype whose peak a roofline takes when none is given: bf16, else (a
// chip from before bf16: V100, T4, RTX 20) fp16, else tf32, else fp32.
hw::DType DefaultPeakDtype(const hw::Chip& chip);

// "4x4x4" -> {4, 4, 4} (each 1 to 999999); `option` names the flag in errors.
StatusOr<std::vector<int64_t>> ParseAxes(const std::string& text, const std::string& option = "--ici-axes");

}  // namespace mlprof::app
