#include "hw/chip.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <sstream>

#include "base/file_loader.h"

namespace mlprof::hw {

extern const char* const kBuiltInChipFiles[][2];  // generated: {file name, JSON}
extern const size_t kBuiltInChipCount;

namespace {

constexpr const char* kDTypeNames[] = {"fp32", "tf32", "bf16", "fp16", "fp8", "int8"};

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Reads the fields of one chip object; `at` names the file in errors.
class ChipReader {
 public:
  explicit ChipReader(std::string_view path) : path_(path) {}

  StatusOr<Chip> Read(simdjson::dom::element root) {
    Chip c;
    simdjson::dom::object o;
    if (root.get(o)) return Err("", "a JSON object");
    RETURN_IF_ERROR(Str(o, "id", &c.id, true));
    RETURN_IF_ERROR(Str(o, "name", &c.name, true));
    RETURN_IF_ERROR(Str(o, "vendor", &c.vendor, false));
    RETURN_IF_ERROR(Str(o, "kind", &c.kind, false));
    RETURN_IF_ERROR(Str(o, "notes", &c.notes, false));
    RETURN_IF_ERROR(Strings(o, "match", &c.match));
    RETURN_IF_ERROR(Str(o, "family", &c.family, false));
    bool fam_default = false;
    if (auto e = o["family_default"].get(fam_default); e && e != simdjson::NO_SUCH_FIELD)
      return Err("family_default", "true or false");
    c.family_default = fam_default;
    simdjson::dom::array sigs;
    if (auto e = o["signatures"].get(sigs); e && e != simdjson::NO_SUCH_FIELD)
      return Err("signatures", "an array of {\"vendor\", \"compute_capability\": [major, minor], ...}");
    else if (!e) {
      for (auto x : sigs) {
        simdjson::dom::object so;
        if (x.get(so)) return Err("signatures", "objects {\"vendor\", \"compute_capability\", ...}");
        DeviceSignature s;
        const char* pre = "signatures[].";
        RETURN_IF_ERROR(Str(so, "vendor", &s.vendor, true, pre));
        simdjson::dom::array cc;
        int64_t major = -1, minor = -1;
        if (so["compute_capability"].get(cc) || cc.size() != 2 || cc.at(0).get(major) || cc.at(1).get(minor) ||
            major < 0 || minor < 0 || major > 100 || minor > 100)
          return Err("signatures[].compute_capability", "[major, minor]");
        s.major = static_cast<int>(major), s.minor = static_cast<int>(minor);
        double cores = -1, clock = -1;
        RETURN_IF_ERROR(Num(so, "cores", &cores, false, 1, 1e6, pre));
        RETURN_IF_ERROR(Num(so, "clock_mhz", &clock, false, 1, 1e5, pre));
        s.cores = static_cast<int>(cores), s.clock_mhz = static_cast<int>(clock);
        c.signatures.push_back(std::move(s));
      }
    }
    RETURN_IF_ERROR(Strings(o, "sources", &c.sources));
    double cores = 1;
    RETURN_IF_ERROR(Num(o, "cores_per_chip", &cores, false, 1, 1024));
    c.cores_per_chip = static_cast<int>(cores);
    // Present figures must be possible: a chip with no HBM leaves the fields
    // out (0 would give a ridge point of 0 and a roofline of nothing).
    RETURN_IF_ERROR(Num(o, "hbm_bytes", &c.hbm_bytes, false, 1e6, 1e15));
    RETURN_IF_ERROR(Num(o, "hbm_bytes_per_s", &c.hbm_bytes_per_s, false, 1e9, 1e15));
    simdjson::dom::object peaks;
    auto pe = o["peak_tflops"].get(peaks);
    if (pe == simdjson::NO_SUCH_FIELD) return Err("peak_tflops", "an object of peak TFLOP/s per data type");
    if (pe) return Err("peak_tflops", "an object such as {\"bf16\": 989}");
    bool any = false;
    for (auto [key, value] : peaks) {
      DType t;
      if (!ParseDType(key, &t))
        return Err(fmt::format("peak_tflops.{}", std::string_view(key)),
                   "a data type: fp32, tf32, bf16, fp16, fp8 or int8");
      double tf = 0;
      if (value.get(tf) || !(tf > 0) || tf > 1e6)
        return Err(fmt::format("peak_tflops.{}", std::string_view(key)),
                   "a number of TFLOP/s above 0 and at most 1e+06 (a million TFLOP/s)");
      c.peak_flops[static_cast<int>(t)] = tf * 1e12;
      any = true;
    }
    if (!any) return Err("peak_tflops", "at least one data type");
    simdjson::dom::array arr;
    if (!o["on_chip"].get(arr)) {
      for (auto e : arr) {
        simdjson::dom::object m;
        if (e.get(m)) return Err("on_chip", "objects {\"name\", \"bytes\"}");
        Memory mem;
        RETURN_IF_ERROR(Str(m, "name", &mem.name, true, "on_chip[]."));
        RETURN_IF_ERROR(Num(m, "bytes", &mem.bytes, true, 1, 1e15, "on_chip[]."));
        c.on_chip.push_back(std::move(mem));
      }
    }
    if (!o["interconnect"].get(arr)) {
      for (auto e : arr) {
        simdjson::dom::object m;
        if (e.get(m)) return Err("interconnect", "objects {\"name\", \"scope\", ...}");
        Link l;
        const char* pre = "interconnect[].";
        double links = 0;
        RETURN_IF_ERROR(Str(m, "name", &l.name, true, pre));
        RETURN_IF_ERROR(Str(m, "scope", &l.scope, false, pre));
        RETURN_IF_ERROR(Str(m, "note", &l.note, false, pre));
        RETURN_IF_ERROR(Num(m, "links", &links, false, 0, 1e6, pre));
        l.links = static_cast<int>(links);
        RETURN_IF_ERROR(Num(m, "bytes_per_s_per_dir_per_link", &l.bytes_per_s_per_dir_per_link, false, 0, 1e15, pre));
        RETURN_IF_ERROR(Num(m, "bytes_per_s_per_dir_per_axis", &l.bytes_per_s_per_dir_per_axis, false, 0, 1e15, pre));
        RETURN_IF_ERROR(Num(m, "bytes_per_s_per_chip_bidir", &l.bytes_per_s_per_chip_bidir, false, 0, 1e16, pre));
        c.interconnect.push_back(std::move(l));
      }
    }
    return c;
  }

 private:
  Status Err(std::string_view field, std::string_view expected) const {
    if (field.empty()) return DataLoss(fmt::format("{}: chip file: expected {}", path_, expected));
    return DataLoss(fmt::format("{}: chip file, field '{}': expected {}", path_, field, expected));
  }
  Status Str(simdjson::dom::object o, const char* key, std::string* out, bool required, const char* pre = "") {
    std::string_view v;
    auto e = o[key].get(v);
    if (e == simdjson::NO_SUCH_FIELD) return required ? Err(fmt::format("{}{}", pre, key), "a string") : OkStatus();
    if (e || (required && v.empty())) return Err(fmt::format("{}{}", pre, key), "a non-empty string");
    *out = std::string(v);
    return OkStatus();
  }
  Status Strings(simdjson::dom::object o, const char* key, std::vector<std::string>* out) {
    simdjson::dom::array a;
    auto e = o[key].get(a);
    if (e == simdjson::NO_SUCH_FIELD) return OkStatus();
    if (e) return Err(key, "an array of strings");
    for (auto x : a) {
      std::string_view v;
      if (x.get(v)) return Err(key, "an array of strings");
      out->emplace_back(v);
    }
    return OkStatus();
  }
  Status Num(simdjson::dom::object o, const char* key, double* out, bool required, double lo, double hi,
             const char* pre = "") {
    simdjson::dom::element x;
    auto e = o[key].get(x);
    if (e == simdjson::NO_SUCH_FIELD) return required ? Err(fmt::format("{}{}", pre, key), "a number") : OkStatus();
    double v = 0;
    if (x.get(v) || !(v >= lo && v <= hi))
      return Err(fmt::format("{}{}", pre, key), fmt::format("a number from {:g} to {:g}", lo, hi));
    *out = v;
    return OkStatus();
  }
  std::string_view path_;
};

}  // namespace

const char* DTypeName(DType t) {
  const int i = static_cast<int>(t);
  return i >= 0 && i < static_cast<int>(DType::kCount) ? kDTypeNames[i] : "?";
}

bool ParseDType(std::string_view s, DType* out) {
  const std::string l = Lower(s);
  struct Alias {
    const char* name;
    DType t;
  };
  static constexpr Alias kAliases[] = {
      {"fp32", DType::kFp32},    {"f32", DType::kFp32},   {"float32", DType::kFp32},  {"float", DType::kFp32},
      {"tf32", DType::kTf32},    {"bf16", DType::kBf16},  {"bfloat16", DType::kBf16}, {"fp16", DType::kFp16},
      {"f16", DType::kFp16},     {"half", DType::kFp16},  {"float16", DType::kFp16},  {"fp8", DType::kFp8},
      {"f8e4m3fn", DType::kFp8}, {"f8e5m2", DType::kFp8}, {"int8", DType::kInt8},     {"s8", DType::kInt8},
      {"i8", DType::kInt8},
  };
  for (const auto& a : kAliases)
    if (l == a.name) return *out = a.t, true;
  return false;
}

double Link::bytes_per_s_per_dir() const {
  if (bytes_per_s_per_dir_per_link > 0 && links > 0) return bytes_per_s_per_dir_per_link * links;
  if (bytes_per_s_per_chip_bidir > 0) return bytes_per_s_per_chip_bidir / 2;
  return 0;
}

double Chip::ridge(DType t) const { return peak(t) > 0 && hbm_bytes_per_s > 0 ? peak(t) / hbm_bytes_per_s : 0; }

namespace {
// Where a JSON text stops being JSON, as " at byte N" ("" when not found):
// the DOM parser says only what went wrong, so the text is walked again with
// the on-demand parser, which knows where it stands.
simdjson::error_code Walk(simdjson::ondemand::value v, int depth) {
  if (depth > 64) return simdjson::DEPTH_ERROR;
  simdjson::ondemand::json_type t;
  if (auto e = v.type().get(t)) return e;
  if (t == simdjson::ondemand::json_type::object) {
    simdjson::ondemand::object o;
    if (auto e = v.get_object().get(o)) return e;
    for (auto f : o) {
      simdjson::ondemand::field fl;
      if (auto e = std::move(f).get(fl)) return e;
      if (auto e = Walk(fl.value(), depth + 1)) return e;
    }
    return simdjson::SUCCESS;
  }
  if (t == simdjson::ondemand::json_type::array) {
    simdjson::ondemand::array a;
    if (auto e = v.get_array().get(a)) return e;
    for (auto x : a) {
      simdjson::ondemand::value xv;
      if (auto e = std::move(x).get(xv)) return e;
      if (auto e = Walk(xv, depth + 1)) return e;
    }
    return simdjson::SUCCESS;
  }
  std::string_view raw = v.raw_json_token();
  if (t == simdjson::ondemand::json_type::string) {
    std::string_view s;
    return v.get_string().get(s);
  }
  if (t == simdjson::ondemand::json_type::number) {
    double d;
    return v.get_double().get(d);
  }
  return raw.empty() ? simdjson::TAPE_ERROR : simdjson::SUCCESS;
}

std::string SyntaxErrorAt(const simdjson::padded_string& text) {
  simdjson::ondemand::parser p;
  simdjson::ondemand::document doc;
  if (p.iterate(text).get(doc)) return "";
  simdjson::ondemand::value v;
  simdjson::error_code e = doc.get_value().get(v);
  if (!e) e = Walk(v, 0);
  const char* loc = nullptr;
  if (!e || doc.current_location().get(loc) || !loc) return "";
  return fmt::format(" at byte {}", loc - text.data());
}
}  // namespace

StatusOr<Chip> ParseChipJson(std::string_view text, std::string_view path) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // UTF-8 BOM
  const simdjson::padded_string padded(text);
  if (auto e = parser.parse(padded).get(root))
    return DataLoss(
        fmt::format("{}: chip file is not valid JSON{}: {}", path, SyntaxErrorAt(padded), simdjson::error_message(e)));
  ChipReader r(path);
  return r.Read(root);
}

const ChipDb& ChipDb::BuiltIn() {
  static const ChipDb db = [] {
    ChipDb d;
    for (size_t i = 0; i < kBuiltInChipCount; ++i) {
      auto c = ParseChipJson(kBuiltInChipFiles[i][1], kBuiltInChipFiles[i][0]);
      // The files are tested (chip_test.cc); a bad one is a build defect.
      if (!c.ok()) {
        std::fprintf(stderr, "mlprof: internal error: %s\n", c.status().message().c_str());
        std::abort();
      }
      c->origin = "built-in";
      d.chips_.push_back(std::move(c).value());
    }
    std::sort(d.chips_.begin(), d.chips_.end(), [](const Chip& a, const Chip& b) { return a.id < b.id; });
    return d;
  }();
  return db;
}

StatusOr<ChipDb> ChipDb::WithFiles(const std::vector<std::string>& files) {
  ChipDb d = BuiltIn();
  for (const std::string& f : files) {
    // As every input: gzip or zstd compressed or not.
    auto file = LoadFile(f);
    if (!file.ok()) return Status(file.status().code(), "cannot open the chip file: " + file.status().message());
    if (file->truncated)
      return DataLoss(fmt::format("{}: chip file: the {} stream ends early (compressed byte {})", f,
                                  CompressionName(file->compression), file->truncated_at));
    ASSIGN_OR_RETURN(Chip c, ParseChipJson(std::string_view(file->bytes.data(), file->bytes.size()), f));
    c.origin = f;
    auto same = std::find_if(d.chips_.begin(), d.chips_.end(), [&](const Chip& x) { return x.id == c.id; });
    if (same != d.chips_.end())
      *same = std::move(c);
    else
      d.chips_.push_back(std::move(c));
  }
  return d;
}

const Chip* ChipDb::Find(std::string_view key) const {
  const std::string k = Lower(key);
  for (const Chip& c : chips_)
    if (Lower(c.id) == k || Lower(c.name) == k) return &c;
  for (const Chip& c : chips_)
    for (const auto& m : c.match)
      if (Lower(m) == k) return &c;
  return nullptr;
}

std::vector<const Chip*> ChipDb::Family(std::string_view key) const {
  const std::string k = Lower(key);
  std::vector<const Chip*> out;
  for (const Chip& c : chips_)
    if (!c.family.empty() && Lower(c.family) == k) out.insert(c.family_default ? out.begin() : out.end(), &c);
  return out;
}

const Chip* ChipDb::DetectSignature(std::string_view vendor, int major, int minor, int cores, int64_t clock_khz) const {
  const std::string v = Lower(vendor);
  for (const Chip& c : chips_)
    for (const DeviceSignature& s : c.signatures) {
      if (Lower(s.vendor) != v || s.major != major || s.minor != minor) continue;
      if (s.cores > 0 && s.cores != cores) continue;
      if (s.clock_mhz > 0 &&
          (clock_khz <= 0 || std::abs(static_cast<double>(clock_khz) / 1e3 - s.clock_mhz) > 0.02 * s.clock_mhz))
        continue;
      return &c;
    }
  return nullptr;
}

const Chip* ChipDb::Detect(std::string_view device_name) const {
  const std::string n = Lower(device_name);
  const Chip* best = nullptr;
  size_t best_len = 0;
  for (const Chip& c : chips_)
    for (const auto& m : c.match)
      if (m.size() > best_len && n.find(Lower(m)) != std::string::npos) best = &c, best_len = m.size();
  return best;
}

const Chip* ChipDb::Closest(std::string_view device_name) const {
  // Vendor and brand words say nothing of the part.
  auto model = [](std::string_view text) {
    std::string t = Lower(text);
    for (const char* w : {"nvidia", "amd", "tesla", "geforce", "instinct", "radeon", "graphics"})
      for (size_t at; (at = t.find(w)) != std::string::npos;) t.erase(at, std::char_traits<char>::length(w));
    std::string out;
    for (char ch : t)
      if (std::isalnum(static_cast<unsigned char>(ch))) out += ch;
    return out;
  };
  auto common = [](const std::string& a, const std::string& b) {  // longest common substring with a digit
    size_t best = 0;
    for (size_t i = 0; i < a.size(); ++i)
      for (size_t j = 0; j < b.size(); ++j) {
        size_t k = 0;
        bool digit = false;
        while (i + k < a.size() && j + k < b.size() && a[i + k] == b[j + k])
          digit |= std::isdigit(static_cast<unsigned char>(a[i + k])) != 0, ++k;
        if (digit && k > best) best = k;
      }
    return best;
  };
  const std::string n = model(device_name);
  const Chip* best = nullptr;
  // At least four characters in common, a digit among them; of equals, a
  // family's default (its SXM part).
  size_t best_score = 2 * 3 + 1;
  for (const Chip& c : chips_)
    for (const std::string& m : c.match)
      if (const size_t score = 2 * common(n, model(m)) + (c.family_default ? 1 : 0); score > best_score)
        best = &c, best_score = score;
  return best;
}

}  // namespace mlprof::hw
