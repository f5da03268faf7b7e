#include "hlo/attrs.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <numeric>

namespace mlprof::hlo {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Reads an integer at *pos (optional '-'); false if none.
bool ReadInt(std::string_view s, size_t* pos, int64_t* v) {
  size_t i = *pos;
  bool neg = false;
  if (i < s.size() && s[i] == '-') neg = true, ++i;
  size_t start = i;
  int64_t x = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    if (x > (INT64_MAX - 9) / 10) return false;
    x = x * 10 + (s[i] - '0');
    ++i;
  }
  if (i == start) return false;
  *v = neg ? -x : x;
  *pos = i;
  return true;
}

// "[a,b,c]" at *pos.
bool ReadBracketList(std::string_view s, size_t* pos, std::vector<int64_t>* out) {
  size_t i = *pos;
  if (i >= s.size() || s[i] != '[') return false;
  ++i;
  out->clear();
  if (i < s.size() && s[i] == ']') {
    *pos = i + 1;
    return true;
  }
  for (;;) {
    int64_t v;
    if (!ReadInt(s, &i, &v)) return false;
    out->push_back(v);
    if (i < s.size() && s[i] == ']') break;
    if (i >= s.size() || s[i] != ',') return false;
    ++i;
  }
  *pos = i + 1;
  return true;
}

// "AxBxC" -> {A, B, C}; parts may be "lo_hi" pairs for pad (read by caller).
std::vector<std::string_view> SplitX(std::string_view s) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == 'x') parts.push_back(s.substr(start, i - start)), start = i + 1;
  return parts;
}

bool ToInt(std::string_view s, int64_t* v) {
  size_t p = 0;
  return ReadInt(s, &p, v) && p == s.size();
}

// mesh['x'=4,'y'=2] {'x'}: devices numbered row-major over the mesh; a group
// is every device that differs only along the listed axes.
bool ParseMeshGroups(std::string_view text, ReplicaGroups* out) {
  size_t close = text.find(']');
  if (close == std::string_view::npos) return false;
  std::vector<std::string> names;
  std::vector<int64_t> sizes;
  std::string_view axes = text.substr(5, close - 5);
  size_t i = 0;
  while (i < axes.size()) {
    size_t q1 = axes.find('\'', i), q2 = q1 == std::string_view::npos ? q1 : axes.find('\'', q1 + 1);
    if (q2 == std::string_view::npos || q2 + 1 >= axes.size() || axes[q2 + 1] != '=') return false;
    names.emplace_back(axes.substr(q1 + 1, q2 - q1 - 1));
    size_t p = q2 + 2;
    int64_t v;
    if (!ReadInt(axes, &p, &v) || v <= 0 || v > 65536) return false;
    sizes.push_back(v);
    i = p;
    if (i < axes.size() && axes[i] == ',') ++i;
  }
  std::string_view sel = Trim(text.substr(close + 1));
  if (sel.size() < 2 || sel.front() != '{' || sel.back() != '}') return false;
  std::vector<bool> in_group(names.size(), false);
  for (size_t a = 0; a < names.size(); ++a)
    if (sel.find("'" + names[a] + "'") != std::string_view::npos) in_group[a] = true;
  int64_t total = 1;
  for (int64_t s : sizes) {
    if (total > (int64_t{1} << 24) / s) return false;
    total *= s;
  }
  // Key of a device = its coordinates on the axes outside the group.
  std::vector<int64_t> coord(sizes.size());
  std::vector<std::pair<int64_t, int64_t>> keyed;  // (key, device)
  for (int64_t d = 0; d < total; ++d) {
    int64_t r = d, key = 0;
    for (size_t a = sizes.size(); a-- > 0;) coord[a] = r % sizes[a], r /= sizes[a];
    for (size_t a = 0; a < sizes.size(); ++a)
      if (!in_group[a]) key = key * sizes[a] + coord[a];
    keyed.emplace_back(key, d);
  }
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  for (size_t k = 0; k < keyed.size(); ++k) {
    if (k == 0 || keyed[k].first != keyed[k - 1].first) out->groups.emplace_back();
    out->groups.back().push_back(keyed[k].second);
  }
  return true;
}

}  // namespace

bool ParseIntList(std::string_view text, std::vector<int64_t>* out) {
  text = Trim(text);
  if (text.size() >= 2 && text.front() == '{' && text.back() == '}') text = text.substr(1, text.size() - 2);
  out->clear();
  text = Trim(text);
  if (text.empty()) return true;
  size_t i = 0;
  for (;;) {
    while (i < text.size() && text[i] == ' ') ++i;
    int64_t v;
    if (!ReadInt(text, &i, &v)) return false;
    out->push_back(v);
    while (i < text.size() && text[i] == ' ') ++i;
    if (i == text.size()) return true;
    if (text[i] != ',') return false;
    ++i;
  }
}

bool ParseAliasing(std::string_view text, std::vector<Aliasing>* out) {
  out->clear();
  text = Trim(text);
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') return false;
  text = Trim(text.substr(1, text.size() - 2));
  size_t i = 0;
  auto skip = [&] {
    while (i < text.size() && text[i] == ' ') ++i;
  };
  auto braced = [&](std::vector<int64_t>* v) {
    skip();
    if (i >= text.size() || text[i] != '{') return false;
    size_t end = text.find('}', i);
    if (end == std::string_view::npos) return false;
    if (!ParseIntList(text.substr(i, end - i + 1), v)) return false;
    i = end + 1;
    return true;
  };
  while (true) {
    skip();
    if (i == text.size()) return true;
    Aliasing a;
    if (!braced(&a.output_index)) return false;
    skip();
    if (i >= text.size() || text[i] != ':') return false;
    ++i;
    skip();
    if (i >= text.size() || text[i] != '(') return false;
    ++i;
    skip();
    if (!ReadInt(text, &i, &a.operand) || a.operand < 0) return false;
    skip();
    if (i >= text.size() || text[i] != ',') return false;
    ++i;
    if (!braced(&a.operand_index)) return false;
    skip();
    if (i >= text.size() || text[i] != ')') return false;
    ++i;
    out->push_back(std::move(a));
    skip();
    if (i < text.size() && text[i] == ',') ++i;
  }
}

std::vector<int64_t> IntListAttr(const Instruction& in, std::string_view key) {
  std::vector<int64_t> v;
  if (const std::string_view* t = in.Attr(key)) ParseIntList(*t, &v);
  return v;
}

int64_t Instruction::IntAttr(std::string_view key, int64_t def) const {
  int64_t v = 0;
  const std::string_view* t = Attr(key);
  return t && ToInt(*t, &v) ? v : def;
}

int64_t ReplicaGroups::max_group_size() const {
  size_t m = 0;
  for (const auto& g : groups) m = std::max(m, g.size());
  return static_cast<int64_t>(m);
}

int64_t ReplicaGroups::stride() const {
  int64_t step = 0;
  for (const auto& g : groups) {
    if (g.size() < 2) continue;
    int64_t d = g[1] - g[0];
    for (size_t i = 2; i < g.size(); ++i)
      if (g[i] - g[i - 1] != d) return 0;
    if (step == 0) step = d;
    if (d != step) return 0;
  }
  return step;
}

bool ExpandIota(const std::vector<int64_t>& reshape, const std::vector<int64_t>& perm, std::vector<int64_t>* out) {
  const size_t rank = reshape.size();
  int64_t total = 1;
  for (int64_t d : reshape) {
    if (d <= 0 || d > (int64_t{1} << 24) || total > (int64_t{1} << 24) / d) return false;
    total *= d;
  }
  std::vector<int64_t> p = perm;
  if (p.empty()) {
    p.resize(rank);
    std::iota(p.begin(), p.end(), 0);
  }
  if (p.size() != rank) return false;
  std::vector<bool> seen(rank, false);
  for (int64_t x : p) {
    if (x < 0 || static_cast<size_t>(x) >= rank || seen[static_cast<size_t>(x)]) return false;
    seen[static_cast<size_t>(x)] = true;
  }
  // Row-major strides of the reshaped iota; the transposed array's dim k is
  // the original dim p[k].
  std::vector<int64_t> stride(rank, 1);
  for (size_t i = rank; i-- > 1;) stride[i - 1] = stride[i] * reshape[i];
  std::vector<int64_t> tdims(rank), tstride(rank);
  for (size_t k = 0; k < rank; ++k) {
    tdims[k] = reshape[static_cast<size_t>(p[k])];
    tstride[k] = stride[static_cast<size_t>(p[k])];
  }
  out->clear();
  out->reserve(static_cast<size_t>(total));
  std::vector<int64_t> idx(rank, 0);
  for (int64_t n = 0; n < total; ++n) {
    int64_t v = 0;
    for (size_t k = 0; k < rank; ++k) v += idx[k] * tstride[k];
    out->push_back(v);
    for (size_t k = rank; k-- > 0;) {
      if (++idx[k] < tdims[k]) break;
      idx[k] = 0;
    }
  }
  return true;
}

bool ParseReplicaGroups(std::string_view text, ReplicaGroups* out) {
  *out = ReplicaGroups{};
  text = Trim(text);
  if (text.empty()) return false;
  if (text.front() == '[') {  // iota form
    out->iota = true;
    size_t i = 0;
    std::vector<int64_t> shape, reshape, perm;
    if (!ReadBracketList(text, &i, &shape) || shape.size() != 2) return false;
    if (text.substr(i, 2) != "<=") return false;
    i += 2;
    if (!ReadBracketList(text, &i, &reshape)) return false;
    if (i < text.size() && text[i] == 'T') {
      ++i;
      if (i >= text.size() || text[i] != '(') return false;
      size_t close = text.find(')', i);
      if (close == std::string_view::npos) return false;
      if (!ParseIntList(text.substr(i + 1, close - i - 1), &perm)) return false;
      i = close + 1;
    }
    if (i != text.size()) return false;
    std::vector<int64_t> ids;
    if (!ExpandIota(reshape, perm, &ids)) return false;
    // Divide rather than multiply: absurd sizes must not overflow.
    const auto n = static_cast<int64_t>(ids.size());
    if (shape[0] <= 0 || shape[1] <= 0 || shape[0] > n || n / shape[0] != shape[1] || n % shape[0] != 0) return false;
    for (int64_t g = 0; g < shape[0]; ++g)
      out->groups.emplace_back(ids.begin() + g * shape[1], ids.begin() + (g + 1) * shape[1]);
    return true;
  }
  if (text.substr(0, 5) == "mesh[") return ParseMeshGroups(text, out);
  if (text.front() != '{' || text.back() != '}') return false;
  std::string_view inner = Trim(text.substr(1, text.size() - 2));
  if (inner.empty()) {
    out->all = true;
    return true;
  }
  size_t i = 0;
  while (i < inner.size()) {
    while (i < inner.size() && (inner[i] == ' ' || inner[i] == ',')) ++i;
    if (i >= inner.size()) break;
    if (inner[i] != '{') return false;
    size_t close = inner.find('}', i);
    if (close == std::string_view::npos) return false;
    std::vector<int64_t> g;
    if (!ParseIntList(inner.substr(i + 1, close - i - 1), &g)) return false;
    out->groups.push_back(std::move(g));
    i = close + 1;
  }
  return !out->groups.empty();
}

bool ParseWindow(std::string_view text, std::vector<WindowDim>* out) {
  text = Trim(text);
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') return false;
  text = text.substr(1, text.size() - 2);
  out->clear();
  size_t i = 0;
  auto ensure = [&](size_t n) {
    if (out->size() < n) out->resize(n);
  };
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    if (i >= text.size()) break;
    size_t eq = text.find('=', i);
    if (eq == std::string_view::npos) return false;
    std::string_view key = text.substr(i, eq - i);
    size_t end = text.find(' ', eq);
    if (end == std::string_view::npos) end = text.size();
    std::string_view val = text.substr(eq + 1, end - eq - 1);
    i = end;
    std::vector<std::string_view> parts = SplitX(val);
    ensure(parts.size());
    if (out->size() != parts.size()) return false;
    for (size_t d = 0; d < parts.size(); ++d) {
      WindowDim& w = (*out)[d];
      if (key == "pad") {
        size_t us = parts[d].find('_');
        if (us == std::string_view::npos) return false;
        if (!ToInt(parts[d].substr(0, us), &w.pad_lo) || !ToInt(parts[d].substr(us + 1), &w.pad_hi)) return false;
        continue;
      }
      int64_t v;
      if (!ToInt(parts[d], &v)) return false;
      if (key == "size")
        w.size = v;
      else if (key == "stride")
        w.stride = v;
      else if (key == "lhs_dilate")
        w.base_dilation = v;
      else if (key == "rhs_dilate")
        w.window_dilation = v;
      // rhs_reversal and unknown keys do not change costs
    }
  }
  for (const auto& w : *out)
    if (w.size < 1 || w.stride < 1 || w.base_dilation < 1 || w.window_dilation < 1) return false;
  return true;
}

bool ParseConvDimLabels(std::string_view text, ConvDims* out) {
  *out = ConvDims{};
  text = Trim(text);
  size_t u = text.find('_'), arrow = text.find("->");
  if (u == std::string_view::npos || arrow == std::string_view::npos || arrow < u) return false;
  std::string_view in = text.substr(0, u), ker = text.substr(u + 1, arrow - u - 1), o = text.substr(arrow + 2);
  auto spatial = [](std::string_view labels, std::vector<int64_t>* sp) {
    // Digit k at position p: spatial dim k is dimension p.
    std::vector<std::pair<int, int64_t>> found;
    for (size_t p = 0; p < labels.size(); ++p)
      if (labels[p] >= '0' && labels[p] <= '9') found.emplace_back(labels[p] - '0', static_cast<int64_t>(p));
    std::sort(found.begin(), found.end());
    for (size_t k = 0; k < found.size(); ++k) {
      if (found[k].first != static_cast<int>(k)) return false;
      sp->push_back(found[k].second);
    }
    return true;
  };
  for (size_t p = 0; p < in.size(); ++p) {
    if (in[p] == 'b') out->input_batch = static_cast<int64_t>(p);
    if (in[p] == 'f') out->input_feature = static_cast<int64_t>(p);
  }
  for (size_t p = 0; p < ker.size(); ++p) {
    if (ker[p] == 'i') out->kernel_input_feature = static_cast<int64_t>(p);
    if (ker[p] == 'o') out->kernel_output_feature = static_cast<int64_t>(p);
  }
  for (size_t p = 0; p < o.size(); ++p) {
    if (o[p] == 'b') out->output_batch = static_cast<int64_t>(p);
    if (o[p] == 'f') out->output_feature = static_cast<int64_t>(p);
  }
  if (!spatial(in, &out->input_spatial) || !spatial(ker, &out->kernel_spatial) || !spatial(o, &out->output_spatial))
    return false;
  return out->input_batch >= 0 && out->input_feature >= 0 && out->kernel_input_feature >= 0 &&
         out->kernel_output_feature >= 0 && out->output_batch >= 0 && out->output_feature >= 0 &&
         out->input_spatial.size() == out->kernel_spatial.size() &&
         out->input_spatial.size() == out->output_spatial.size();
}

bool Unquote(std::string_view text, std::string* out) {
  out->clear();
  if (text.size() < 2 || text.front() != '"' || text.back() != '"') return false;
  // Runs without escapes are copied whole.
  const std::string_view inner = text.substr(1, text.size() - 2);
  if (std::memchr(inner.data(), '\\', inner.size()) == nullptr) {
    out->assign(inner);
    return true;
  }
  out->reserve(inner.size());
  for (size_t i = 1; i + 1 < text.size(); ++i) {
    char c = text[i];
    if (c != '\\') {
      out->push_back(c);
      continue;
    }
    if (++i + 1 > text.size() - 1) return false;
    switch (text[i]) {
      case 'n':
        out->push_back('\n');
        break;
      case 't':
        out->push_back('\t');
        break;
      case 'r':
        out->push_back('\r');
        break;
      case '0':
      case '1':
      case '2':
      case '3': {  // octal \ooo
        int v = 0, k = 0;
        while (k < 3 && i + 1 < text.size() && text[i] >= '0' && text[i] <= '7') v = v * 8 + (text[i++] - '0'), ++k;
        --i;
        out->push_back(static_cast<char>(v));
        break;
      }
      case 'x': {
        int v = 0, k = 0;
        while (k < 2 && i + 2 < text.size() && std::isxdigit(static_cast<unsigned char>(text[i + 1]))) {
          char h = text[++i];
          v = v * 16 + (h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
          ++k;
        }
        out->push_back(static_cast<char>(v));
        break;
      }
      default:
        out->push_back(text[i]);  // \" \\ \'
    }
  }
  return true;
}

bool UnquoteInto(std::string_view text, StringArena* arena, std::string_view* out) {
  if (text.size() < 2 || text.front() != '"' || text.back() != '"') return false;
  const std::string_view inner = text.substr(1, text.size() - 2);
  if (std::memchr(inner.data(), '\\', inner.size()) == nullptr) {
    *out = inner;  // no escapes: a view of the text itself
    return true;
  }
  std::string decoded;
  if (!Unquote(text, &decoded)) return false;
  *out = arena->Copy(decoded);
  return true;
}

bool ParseMetadata(std::string_view text, StringArena* arena, OpMetadata* out) {
  *out = OpMetadata{};
  text = Trim(text);
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') return false;
  text = text.substr(1, text.size() - 2);
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    if (i >= text.size()) break;
    size_t eq = text.find('=', i);
    if (eq == std::string_view::npos) return false;
    std::string_view key = text.substr(i, eq - i);
    size_t v = eq + 1, end = v;
    if (v < text.size() && text[v] == '"') {
      end = v + 1;
      while (end < text.size() && text[end] != '"') end += text[end] == '\\' ? 2 : 1;
      if (end >= text.size()) return false;
      ++end;
    } else if (v < text.size() && text[v] == '{') {  // profile_type={...}
      int depth = 0;
      for (; end < text.size(); ++end) {
        if (text[end] == '{') ++depth;
        if (text[end] == '}' && --depth == 0) break;
      }
      if (end >= text.size()) return false;
      ++end;
    } else {
      while (end < text.size() && text[end] != ' ') ++end;
    }
    std::string_view val = text.substr(v, end - v);
    i = end;
    if (key == "op_type") {
      if (!UnquoteInto(val, arena, &out->op_type)) return false;
    } else if (key == "op_name") {
      if (!UnquoteInto(val, arena, &out->op_name)) return false;
    } else if (key == "source_file") {
      if (!UnquoteInto(val, arena, &out->source_file)) return false;
    } else if (key == "source_line") {
      if (!ToInt(val, &out->source_line)) return false;
    }
  }
  return true;
}

}  // namespace mlprof::hlo
