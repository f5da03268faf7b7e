#include "io/readers.h"

#include <fmt/format.h>

#include "hlo/proto_reader.h"
#include "hlo/text_parser.h"
#include "io/ascend_files.h"
#include "io/chrome_json.h"
#include "io/memory_timeline.h"
#include "io/nsys.h"
#include "io/xplane.h"

namespace mlprof {

namespace {

bool CpuHasAvx2() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
#else
  return false;
#endif
}

Status ReadChromeJson(LoadedFile& f, const ReadOptions& o, RankProfile* out) {
  if (ChromeJsonNeedsAvx2() && !CpuHasAvx2())
    return Unimplemented(
        fmt::format("{}: this build of mlprof parses JSON with AVX2/BMI2 instructions, which this CPU lacks; "
                    "rebuild with cmake -DMLPROF_JSON_HASWELL=OFF",
                    f.path));
  return ReadChromeTrace(f, o, out);
}

// The HloProtos an XPlane's /host:metadata plane carries.
StatusOr<std::vector<hlo::Module>> ReadXPlaneHlo(LoadedFile& f, const ReadOptions& o) {
  RankProfile r;
  RETURN_IF_ERROR(ReadXPlane(f, o, &r));
  std::vector<hlo::Module> out;
  for (const auto& blob : r.hlo_protos) {
    ASSIGN_OR_RETURN(hlo::Module m, hlo::ReadHloProto(blob.bytes, f.path + " [" + blob.key + "]"));
    out.push_back(std::move(m));
  }
  if (out.empty())
    return NotFound(
        fmt::format("{}: this XPlane carries no HloProtos (no /host:metadata plane); dump HLO with "
                    "XLA_FLAGS=--xla_dump_to=DIR and pass the files",
                    f.path));
  return out;
}

StatusOr<std::vector<hlo::Module>> ReadHloProtoFile(LoadedFile& f, const ReadOptions&) {
  std::vector<hlo::Module> out;
  ASSIGN_OR_RETURN(hlo::Module m, hlo::ReadHloProto(f.bytes.view(), f.path));
  out.push_back(std::move(m));
  return out;
}

StatusOr<std::vector<hlo::Module>> ReadHloTextFile(LoadedFile& f, const ReadOptions&) {
  return hlo::ParseHloText(f.bytes.view(), f.path);
}

// A proprietary Nsight Systems report: only nsys itself reads it.
Status RefuseNsysReport(LoadedFile& f, const ReadOptions&, RankProfile*) {
  return Unimplemented(fmt::format(
      "{}: an Nsight Systems report (.nsys-rep), which only nsys reads; export it with `nsys export --type sqlite "
      "{}` (or `nsys stats`, which writes the .sqlite too) and pass the .sqlite file",
      f.path, f.path));
}

}  // namespace

void DescribeFile(const LoadedFile& file, TraceFormat format, RankProfile* out) {
  out->path = file.path;
  out->format = format;
  out->compression = CompressionName(file.compression);
  out->file_bytes = file.file_size;
  out->decoded_bytes = file.bytes.size();
}

Status RefuseTruncated(const LoadedFile& file) {
  if (!file.truncated) return OkStatus();
  return DataLoss(fmt::format("{}: the {} stream ends early at compressed byte {}", file.path,
                              CompressionName(file.compression), file.truncated_at));
}

const std::vector<Reader>& Readers() {
  static const std::vector<Reader> kReaders = {
      {"torch-memory-timeline",
       "torch.profiler's raw memory timeline",
       [](std::string_view b) { return LooksLikeMemoryTimeline(b.substr(0, 256)); },
       {},
       ReadMemoryTimeline,
       nullptr},
      {"chrome-json",
       "Chrome/Kineto trace JSON",
       // JSON allows any amount of leading whitespace: look past it.
       [](std::string_view b) { return LooksLikeChromeJson(b); },
       {},
       ReadChromeJson,
       nullptr},
      {"xplane",
       "an XPlane profile (XSpace)",
       [](std::string_view b) { return LooksLikeXSpace(b.substr(0, 64)); },
       {},
       ReadXPlane,
       ReadXPlaneHlo},
      {"hlo-proto",
       "an HloProto",
       [](std::string_view b) { return hlo::LooksLikeHloProto(b.substr(0, 64)); },
       {},
       nullptr,
       ReadHloProtoFile},
      {"nsys",
       "an Nsight Systems SQLite export",
       [](std::string_view b) { return LooksLikeSqlite(b); },
       {},
       ReadNsysSqlite,
       nullptr},
      {"ascend-kernel-details",
       "torch_npu's kernel_details.csv",
       [](std::string_view b) { return LooksLikeAscendKernelDetails(b); },
       {},
       ReadAscendKernelDetails,
       nullptr},
      {"nsys-rep",
       "an Nsight Systems report",
       [](std::string_view b) { return LooksLikeNsysReport(b); },
       {},
       RefuseNsysReport,
       nullptr},
      {"hlo-text",
       "HLO text",
       [](std::string_view b) { return hlo::LooksLikeHloText(b.substr(0, 1 << 16)); },
       {".hlo", ".txt"},
       nullptr,
       ReadHloTextFile},
  };
  return kReaders;
}

const Reader* SniffReader(const LoadedFile& file, ReadFor want) {
  for (const Reader& r : Readers())
    if (r.sniff(file.bytes.view())) return &r;
  for (const Reader& r : Readers()) {
    if (want == ReadFor::kTrace ? !r.read_trace : !r.read_hlo) continue;
    for (std::string_view ext : r.extensions)
      if (std::string_view(file.path).ends_with(ext)) return &r;
  }
  return nullptr;
}

}  // namespace mlprof
