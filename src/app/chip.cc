#include "app/chip.h"

#include <fmt/format.h>

namespace mlprof::app {

DetectedChip DetectChip(const hw::ChipDb& db, const std::vector<std::string>& device_names) {
  DetectedChip d;
  for (const std::string& n : device_names) {
    if (n.empty()) continue;
    d.seen.push_back(n);
    if (d.chip) continue;
    if ((d.chip = db.Detect(n))) d.device_name = n;
  }
  return d;
}

std::string DetectedChip::ClosestHint(const hw::ChipDb& db) const {
  if (chip) return "";
  for (const std::string& n : seen)
    if (const hw::Chip* c = db.Closest(n))
      return fmt::format(" (the closest the chip database knows: {}, {}; pass --chip {} only if its peaks are yours)",
                         c->id, c->name, c->id);
  return "";
}

namespace {
DetectedChip DetectByNames(const hw::ChipDb& db, const std::vector<DeviceProperties>& devices) {
  std::vector<std::string> names;
  for (const auto& dev : devices) {
    names.push_back(dev.device_type);
    names.push_back(dev.name);
  }
  return DetectChip(db, names);
}
}  // namespace

DetectedChip DetectChip(const hw::ChipDb& db, const std::vector<DeviceProperties>& devices) {
  DetectedChip d = DetectByNames(db, devices);
  if (d.chip) return d;
  // Devices with no name the database knows (XPlane GPU planes): by vendor,
  // compute capability, cores and clock.
  for (const auto& dev : devices) {
    if (dev.vendor.empty() || dev.compute_major < 0) continue;
    if (const hw::Chip* c =
            db.DetectSignature(dev.vendor, static_cast<int>(dev.compute_major), static_cast<int>(dev.compute_minor),
                               static_cast<int>(dev.num_sms), dev.clock_khz)) {
      d.chip = c;
      d.device_name = fmt::format("{} compute capability {}.{}, {} cores", dev.vendor, dev.compute_major,
                                  dev.compute_minor, dev.num_sms);
      return d;
    }
  }
  return d;
}

StatusOr<const hw::Chip*> FindChip(const hw::ChipDb& db, const std::string& id,
                                   const std::vector<DeviceProperties>& profile_devices) {
  if (const hw::Chip* c = db.Find(id)) return c;
  // A family name ("H100"): the member the profile ran on, else the
  // family's default (the SXM part).
  const std::vector<const hw::Chip*> family = db.Family(id);
  if (!family.empty()) {
    const hw::Chip* seen = DetectChip(db, profile_devices).chip;
    for (const hw::Chip* c : family)
      if (c == seen) return c;
    return family.front();
  }
  std::string ids;
  for (const hw::Chip& c : db.chips()) ids += (ids.empty() ? "" : ", ") + c.id;
  return InvalidArgument(
      fmt::format("unknown chip '{}'; known chips: {} (or describe yours in a JSON file and pass "
                  "--chip-file; `mlprof chips` lists them)",
                  id, ids));
}

StatusOr<const hw::Chip*> FindChipOrDevice(const hw::ChipDb& db, const std::string& id_or_device,
                                           const std::vector<DeviceProperties>& profile_devices) {
  if (const hw::Chip* c = db.Find(id_or_device)) return c;
  if (db.Family(id_or_device).empty())
    if (const hw::Chip* d = db.Detect(id_or_device)) return d;  // a device name as a profile writes it
  return FindChip(db, id_or_device, profile_devices);
}

hw::DType DefaultPeakDtype(const hw::Chip& chip) {
  for (hw::DType d : {hw::DType::kBf16, hw::DType::kFp16, hw::DType::kTf32, hw::DType::kFp32})
    if (chip.peak(d) > 0) return d;
  return hw::DType::kBf16;
}

StatusOr<hw::DType> ParseDTypeOption(const std::string& name) {
  hw::DType d;
  if (!hw::ParseDType(name, &d))
    return InvalidArgument(fmt::format("--dtype: unknown data type '{}' (fp32, tf32, bf16, fp16, fp8, int8)", name));
  return d;
}

StatusOr<std::vector<int64_t>> ParseAxes(const std::string& text, const std::string& option) {
  std::vector<int64_t> axes;
  size_t i = 0;
  while (i <= text.size()) {
    const size_t x = std::min(text.find('x', i), text.size());
    const std::string part = text.substr(i, x - i);
    bool ok = !part.empty() && part.size() <= 6;
    for (char ch : part) ok = ok && ch >= '0' && ch <= '9';
    const int64_t v = ok ? std::stoll(part) : 0;
    if (!ok || v < 1)
      return InvalidArgument(
          fmt::format("{}: '{}' is not a list of axis sizes like 4x4x4 (each 1 to 999999)", option, text));
    axes.push_back(v);
    i = x + 1;
  }
  return axes;
}

}  // namespace mlprof::app
