#include "io/memory_timeline.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <array>
#include <cstdint>
#include <vector>

#include "io/readers.h"
#include "model/builder.h"

namespace mlprof {

bool LooksLikeMemoryTimeline(std::string_view b) {
  size_t i = 0;
  auto skip = [&] {
    while (i < b.size() && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t')) ++i;
  };
  skip();
  if (i >= b.size() || b[i++] != '[') return false;
  skip();
  if (i >= b.size() || b[i++] != '[') return false;
  // The first event: exactly four integers, an action 1-4 and a category
  // 0-7 (torch's other export, [[times...], [[sizes]...]], starts "[[" too).
  int64_t v[5] = {};
  int n = 0;
  while (n < 5) {
    skip();
    bool neg = false;
    if (i < b.size() && b[i] == '-') neg = true, ++i;
    if (i >= b.size() || b[i] < '0' || b[i] > '9') return false;
    int64_t x = 0;
    for (int digits = 0; i < b.size() && b[i] >= '0' && b[i] <= '9'; ++i)
      if (++digits <= 18) x = x * 10 + (b[i] - '0');
    v[n++] = neg ? -x : x;
    skip();
    if (i < b.size() && b[i] == ',') {
      ++i;
      continue;
    }
    if (i < b.size() && b[i] == ']') break;
    return false;
  }
  return n == 4 && v[1] >= 1 && v[1] <= 4 && v[3] >= 0 && v[3] <= 7;
}

Status ReadMemoryTimeline(LoadedFile& file, const ReadOptions& options, RankProfile* out) {
  DescribeFile(file, TraceFormat::kTorchMemoryTimeline, out);
  RETURN_IF_ERROR(RefuseTruncated(file));
  simdjson::dom::parser parser;
  simdjson::dom::array events;
  if (auto err = parser.parse(file.bytes.data(), file.bytes.size(), false).get(events))
    return DataLoss(fmt::format("{}: not a JSON array of memory events: {}", file.path, simdjson::error_message(err)));
  // Each event: [ts, action, bytes, category], all integers.
  struct Event {
    int64_t ts, action, bytes, category;
  };
  std::vector<Event> ev;
  size_t index = 0;
  int64_t t_min = -1;
  for (simdjson::dom::element e : events) {
    simdjson::dom::array a;
    Event x{};
    int64_t* fields[] = {&x.ts, &x.action, &x.bytes, &x.category};
    size_t k = 0;
    bool ok = e.get(a) == simdjson::SUCCESS;
    if (ok)
      for (simdjson::dom::element v : a) {
        if (k >= 4 || v.get(*fields[k]) != simdjson::SUCCESS) {
          ok = false;
          break;
        }
        ++k;
      }
    ok = ok && k == 4 && x.action >= 1 && x.action <= 4 && x.category >= 0 && x.category < 8 && x.ts >= -1 &&
         x.bytes > -(int64_t{1} << 50) && x.bytes < (int64_t{1} << 50);
    if (!ok)
      return DataLoss(fmt::format(
          "{}: memory event {} is not [timestamp ns >= -1, action 1-4, bytes, category 0-7] (torch's raw memory "
          "timeline)",
          file.path, index));
    if (t_min == -1 || (x.ts < t_min && x.ts > 0)) t_min = x.ts;
    ev.push_back(x);
    ++index;
  }
  ProfileBuilder b(out);
  const StringId name = b.strings().Intern("memory by category");
  std::array<StringId, 9> series{};
  for (size_t c = 0; c < 8; ++c) series[c] = b.strings().Intern(kMemoryCategories[c]);
  series[8] = b.strings().Intern("Total");
  b.SetThreadName(0, 0, b.strings().Intern("memory timeline"));
  if (t_min == -1) t_min = 0;  // every event before the profile
  std::array<int64_t, 8> sizes{};
  // Sums held at the int64 limits instead of overflowing.
  auto add = [](int64_t a, int64_t b) {
    int64_t r = 0;
    if (!__builtin_add_overflow(a, b, &r)) return r;
    return b > 0 ? INT64_MAX : INT64_MIN;
  };
  auto emit = [&](int64_t ts, uint64_t at) {
    EventRecord e;
    e.name = name;
    e.pid = 0, e.tid = 0;
    e.ts = static_cast<Ps128>(ts < 0 ? t_min : ts) * 1000;
    e.has_ts = true;
    e.offset = at;
    int64_t total = 0;
    for (size_t c = 0; c < 8; ++c) {
      b.AddCounter(e, series[c], static_cast<double>(sizes[c]));
      total = add(total, sizes[c]);
    }
    b.AddCounter(e, series[8], static_cast<double>(total));
  };
  for (size_t i = 0; i < ev.size(); ++i) {
    int64_t& size = sizes[static_cast<size_t>(ev[i].category)];
    size = add(size, ev[i].bytes);
    if (i + 1 == ev.size() || ev[i + 1].ts != ev[i].ts) emit(ev[i].ts, i);
  }
  if (options.progress) options.progress(file.bytes.size(), file.bytes.size());
  return b.Finish();
}

}  // namespace mlprof
