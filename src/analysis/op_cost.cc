#include "analysis/op_cost.h"

#include <cctype>

namespace mlprof {

namespace {

double Product(const std::vector<int64_t>& d, size_t from, size_t to) {
  double p = 1;
  for (size_t i = from; i < to && i < d.size(); ++i) p *= static_cast<double>(d[i]);
  return p;
}

// A cursor over "[item, item, ...]" text (items are parsed by the caller).
struct ListScan {
  std::string_view s;
  size_t i = 0;
  void Skip() {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  }
  bool Open() {  // the opening bracket
    Skip();
    if (i >= s.size() || s[i] != '[') return false;
    return ++i, true;
  }
  bool Close() {  // the closing bracket, if it is next
    Skip();
    if (i >= s.size() || s[i] != ']') return false;
    return ++i, true;
  }
  void Comma() {
    Skip();
    if (i < s.size() && s[i] == ',') ++i;
  }
};

}  // namespace

bool ParseDimsList(std::string_view text, std::vector<std::vector<int64_t>>* out) {
  out->clear();
  ListScan l{text};
  if (!l.Open()) return false;
  while (!l.Close()) {
    if (!l.Open()) return false;
    std::vector<int64_t> dims;
    while (!l.Close()) {
      int64_t v = 0;
      const size_t start = l.i;
      while (l.i < text.size() && text[l.i] >= '0' && text[l.i] <= '9') {
        if (v > (INT64_MAX - 9) / 10) return false;
        v = v * 10 + (text[l.i++] - '0');
      }
      if (l.i == start) return false;
      dims.push_back(v);
      l.Comma();
    }
    out->push_back(std::move(dims));
    l.Comma();
  }
  return true;
}

bool ParseTypeList(std::string_view text, std::vector<std::string>* out) {
  out->clear();
  ListScan l{text};
  if (!l.Open()) return false;
  while (!l.Close()) {
    if (l.i >= text.size() || (text[l.i] != '"' && text[l.i] != '\'')) return false;
    const char q = text[l.i++];
    const size_t start = l.i;
    while (l.i < text.size() && text[l.i] != q) ++l.i;
    if (l.i >= text.size()) return false;
    out->emplace_back(text.substr(start, l.i - start));
    ++l.i;
    l.Comma();
  }
  return true;
}

int DtypeBytes(std::string_view n) {
  if (n == "float" || n == "int" || n == "c10::complex<c10::Half>" || n == "unsigned int") return 4;
  if (n == "double" || n == "long int" || n == "long" || n == "int64_t" || n == "c10::complex<float>") return 8;
  if (n == "c10::BFloat16" || n == "c10::Half" || n == "short int" || n == "short") return 2;
  if (n == "c10::Float8_e4m3fn" || n == "c10::Float8_e5m2" || n == "c10::Float8_e4m3fnuz" ||
      n == "c10::Float8_e5m2fnuz" || n == "signed char" || n == "unsigned char" || n == "bool")
    return 1;
  return 0;
}

bool PeakDtypeOf(std::string_view n, hw::DType* out) {
  if (n == "float") return *out = hw::DType::kFp32, true;
  if (n == "c10::BFloat16") return *out = hw::DType::kBf16, true;
  if (n == "c10::Half") return *out = hw::DType::kFp16, true;
  if (n.substr(0, 11) == "c10::Float8") return *out = hw::DType::kFp8, true;
  if (n == "signed char" || n == "unsigned char") return *out = hw::DType::kInt8, true;
  return false;
}

std::optional<OpCost> GemmCost(std::string_view op, std::string_view input_dims, std::string_view input_types) {
  std::vector<std::vector<int64_t>> d;
  std::vector<std::string> t;
  if (!ParseDimsList(input_dims, &d) || !ParseTypeList(input_types, &t)) return std::nullopt;
  OpCost c;
  c.kind = "gemm";
  size_t a = 0, b = 1, bias = SIZE_MAX;  // positions of A, B and the bias among the inputs
  bool b_transposed = false;             // linear: weight is [N, K]
  if (op == "aten::mm" || op == "aten::matmul" || op == "aten::bmm") {
    a = 0, b = 1;
  } else if (op == "aten::addmm" || op == "aten::baddbmm") {
    bias = 0, a = 1, b = 2;
  } else if (op == "aten::linear") {
    a = 0, b = 1, b_transposed = true;
    if (d.size() > 2 && !d[2].empty()) bias = 2;
  } else {
    return std::nullopt;
  }
  if (d.size() <= b || (bias != SIZE_MAX && d.size() <= bias)) return std::nullopt;
  const auto& A = d[a];
  const auto& B = d[b];
  if (A.size() < 2 || B.size() < 2) return std::nullopt;
  // Products of leading dims as doubles first: an absurd shape is refused,
  // not wrapped around in an int64.
  constexpr double kMaxElements = 9007199254740992.0;  // 2^53
  if (b_transposed) {  // x[..., K] @ W[N, K]^T: every leading dim of x is M
    if (B.size() != 2 || A.back() != B[1]) return std::nullopt;
    const double m = Product(A, 0, A.size() - 1);
    if (m > kMaxElements) return std::nullopt;
    c.k = A.back(), c.n = B[0], c.m = static_cast<int64_t>(m);
  } else {
    if (A.size() != B.size() || A.back() != B[B.size() - 2]) return std::nullopt;
    const double batch = Product(A, 0, A.size() - 2);
    if (batch > kMaxElements) return std::nullopt;
    c.m = A[A.size() - 2], c.k = A.back(), c.n = B.back(), c.batch = static_cast<int64_t>(batch);
  }
  c.elem_bytes = a < t.size() ? DtypeBytes(t[a]) : 0;
  if (c.elem_bytes == 0) return std::nullopt;
  c.dtype = t[a];
  const double batch = static_cast<double>(c.batch), m = static_cast<double>(c.m), n = static_cast<double>(c.n),
               k = static_cast<double>(c.k);
  c.bias = bias != SIZE_MAX;
  double bias_elems = c.bias ? Product(d[bias], 0, d[bias].size()) : 0;
  c.flops = 2 * batch * m * n * k + (c.bias ? batch * m * n : 0);
  c.bytes = (batch * (m * k + k * n + m * n) + bias_elems) * c.elem_bytes;
  return c;
}

}  // namespace mlprof
