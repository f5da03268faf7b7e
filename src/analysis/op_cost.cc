#include "analysis/op_cost.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <string>

#include "base/collective.h"

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
    std::string item;
    while (l.i < text.size() && text[l.i] != q) {
      if (text[l.i] == '\\' && l.i + 1 < text.size()) ++l.i;  // an escaped quote or backslash
      item += text[l.i++];
    }
    if (l.i >= text.size()) return false;
    out->push_back(std::move(item));
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
  if (b_transposed) {                                  // x[..., K] @ W[N, K]^T: every leading dim of x is M
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

// ---------------------------------------------------------------------------
// The other framework ops. Shapes are "Input Dims", dtypes "Input type",
// scalar arguments "Concrete Inputs" (strings: "[1, 1]", "True", "4", "").

namespace {

constexpr double kMaxElements = 9007199254740992.0;  // 2^53: larger counts are refused

struct Args {
  std::vector<std::vector<int64_t>> d;
  std::vector<std::string> t;
  std::vector<std::string> c;
  const std::vector<int64_t>* dims(size_t i) const { return i < d.size() ? &d[i] : nullptr; }
  bool tensor(size_t i) const { return i < d.size() && !d[i].empty(); }
  std::string_view type(size_t i) const { return i < t.size() ? std::string_view(t[i]) : std::string_view(); }
  std::string_view conc(size_t i) const { return i < c.size() ? std::string_view(c[i]) : std::string_view(); }
};

double Numel(const std::vector<int64_t>& d) { return Product(d, 0, d.size()); }

// "[1, 2]" or "3" -> {1, 2} / {3}; "" or "[]" -> {}. False if not integers.
bool IntList(std::string_view s, std::vector<int64_t>* out) {
  out->clear();
  size_t i = 0;
  auto skip = [&] {
    while (i < s.size() &&
           (std::isspace(static_cast<unsigned char>(s[i])) || s[i] == ',' || s[i] == '[' || s[i] == ']'))
      ++i;
  };
  skip();
  while (i < s.size()) {
    bool neg = false;
    if (s[i] == '-') neg = true, ++i;
    const size_t start = i;
    int64_t v = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (v > (INT64_MAX - 9) / 10) return false;
      v = v * 10 + (s[i++] - '0');
    }
    if (i == start) return false;
    out->push_back(neg ? -v : v);
    skip();
  }
  return true;
}

// "True" / "False" (Python) or "true" / "false"; `dflt` for anything else.
bool Bool(std::string_view s, bool dflt) {
  if (s == "True" || s == "true" || s == "1") return true;
  if (s == "False" || s == "false" || s == "0") return false;
  return dflt;
}

// "[True, False, True]" -> {1, 0, 1}; missing entries are true.
std::array<bool, 3> Mask(std::string_view s) {
  std::array<bool, 3> m{true, true, true};
  size_t k = 0;
  for (size_t i = 0; i < s.size() && k < 3; ++i) {
    if (s.substr(i, 4) == "True")
      m[k++] = true, i += 3;
    else if (s.substr(i, 5) == "False")
      m[k++] = false, i += 4;
  }
  return m;
}

OpCost Make(const char* kind, double flops, double bytes, int elem_bytes, std::string_view dtype) {
  OpCost c;
  c.kind = kind;
  c.flops = flops;
  c.bytes = bytes;
  c.elem_bytes = elem_bytes;
  c.dtype = std::string(dtype);
  return c;
}

// ---- convolution (PyTorch's flop_counter conventions, as TraceLens) -------
struct ConvGeom {
  std::vector<int64_t> x, w, out;
  bool transposed = false;
};

// stride, padding, dilation, transposed, output_padding, groups at
// concrete[first..first+5]; x and w given.
bool ConvShape(const Args& a, size_t first, ConvGeom* g) {
  const size_t nd = g->x.size() - 2;
  if (g->x.size() < 3 || g->w.size() != g->x.size()) return false;
  std::vector<int64_t> p[4];  // stride, padding, dilation, output_padding
  const size_t at[4] = {first, first + 1, first + 2, first + 4};
  const int64_t dflt[4] = {1, 0, 1, 0};
  for (int k = 0; k < 4; ++k) {
    // Stride, padding and dilation not recorded (torch 1.13 writes "", and a
    // trace without Concrete Inputs has none): the geometry is unknown, and
    // assuming stride 1 / padding 0 would be wrong by up to 4x.
    if (k < 3 && a.conc(at[k]).empty()) return false;
    if (!IntList(a.conc(at[k]), &p[k])) return false;
    if (p[k].empty()) p[k].assign(nd, dflt[k]);
    if (p[k].size() == 1) p[k].assign(nd, p[k][0]);
    if (p[k].size() != nd) return false;
  }
  g->transposed = Bool(a.conc(first + 3), false);
  std::vector<int64_t> groups;
  if (!IntList(a.conc(first + 5), &groups)) return false;
  const int64_t ngroups = groups.empty() ? 1 : groups[0];
  if (ngroups <= 0) return false;
  g->out = {g->x[0], g->transposed ? g->w[1] * ngroups : g->w[0]};
  for (size_t i = 0; i < nd; ++i) {
    const int64_t in = g->x[i + 2], k = g->w[i + 2], s = p[0][i], pad = p[1][i], dil = p[2][i];
    if (s <= 0 || dil <= 0) return false;
    int64_t o = g->transposed ? (in - 1) * s - 2 * pad + dil * (k - 1) + p[3][i] + 1
                              : (in + 2 * pad - dil * (k - 1) - 1) / s + 1;
    if (o <= 0) return false;
    g->out.push_back(o);
  }
  return true;
}

// FLOPs of the convolution proper: 2 x (elements of the side the filter
// slides over) x (filter elements per output channel).
double ConvFlops(const ConvGeom& g) { return 2 * Numel(g.transposed ? g.x : g.out) * Product(g.w, 1, g.w.size()); }

std::optional<OpCost> Conv(const Args& a) {  // aten::convolution / _convolution
  if (!a.tensor(0) || !a.tensor(1)) return std::nullopt;
  ConvGeom g{a.d[0], a.d[1], {}};
  if (!ConvShape(a, 3, &g)) return std::nullopt;
  const int bpe = DtypeBytes(a.type(0));
  if (bpe == 0) return std::nullopt;
  const bool bias = a.tensor(2);
  const double out = Numel(g.out);
  double flops = ConvFlops(g) + (bias ? out : 0);
  double bytes = (Numel(g.x) + Numel(g.w) + out + (bias ? static_cast<double>(g.out[1]) : 0)) * bpe;
  return Make("conv_fwd", flops, bytes, bpe, a.type(0));
}

std::optional<OpCost> ConvBackward(const Args& a) {  // aten::convolution_backward
  if (!a.tensor(0) || !a.tensor(1) || !a.tensor(2)) return std::nullopt;
  ConvGeom g{a.d[1], a.d[2], {}};
  if (!ConvShape(a, 4, &g)) return std::nullopt;
  const int bpe = DtypeBytes(a.type(1));
  if (bpe == 0) return std::nullopt;
  const auto mask = Mask(a.conc(10));  // grad input, grad weight, grad bias
  const double x = Numel(g.x), w = Numel(g.w), out = Numel(a.d[0]);
  const double conv = ConvFlops(g);
  double flops = 0, elems = 0;
  if (mask[0]) flops += conv, elems += out + w + x;                         // read dy, w; write dx
  if (mask[1]) flops += conv, elems += out + x + w;                         // read dy, x; write dw
  if (mask[2]) flops += out, elems += out + static_cast<double>(g.out[1]);  // reduce dy
  return Make("conv_bwd", flops, elems * bpe, bpe, a.type(1));
}

// ---- attention -------------------------------------------------------------
struct Attn {
  double b = 0, hq = 0, hkv = 0, nq = 0, nkv = 0, dqk = 0, dv = 0;
  bool causal = false;
  bool bottom_right = false;  // flash-attn aligns the causal mask to the end
};

// q, k, v in [B, H, N, d] (bhnd) or [B, N, H, d].
bool AttnShape(const Args& a, size_t q, bool bhnd, Attn* t) {
  const auto *Q = a.dims(q), *K = a.dims(q + 1), *V = a.dims(q + 2);
  if (!Q || !K || !V || Q->size() != 4 || K->size() != 4 || V->size() != 4) return false;
  const int h = bhnd ? 1 : 2, n = bhnd ? 2 : 1;
  t->b = static_cast<double>((*Q)[0]);
  t->hq = static_cast<double>((*Q)[h]), t->nq = static_cast<double>((*Q)[n]), t->dqk = static_cast<double>((*Q)[3]);
  t->hkv = static_cast<double>((*K)[h]), t->nkv = static_cast<double>((*K)[n]);
  t->dv = static_cast<double>((*V)[3]);
  if ((*K)[0] != (*Q)[0] || (*V)[0] != (*Q)[0] || (*K)[3] != (*Q)[3] || (*V)[h] != (*K)[h] || (*V)[n] != (*K)[n])
    return false;
  if (t->hkv <= 0 || std::fmod(t->hq, t->hkv) != 0) return false;  // GQA: query heads a multiple of KV heads
  return true;
}

// Fraction of the Nq x Nkv score matrix a causal mask keeps. Nq == Nkv: 1/2
// (the FlashAttention benchmark convention TraceLens uses); otherwise the
// exact count for the mask's alignment.
double CausalFraction(const Attn& t) {
  if (!t.causal) return 1;
  if (t.nq == t.nkv) return 0.5;
  // Row i keeps clamp(i + 1 + shift, 0, Nkv) keys; S(x) sums min(j, Nkv)
  // over j = 1..x.
  const double shift = t.bottom_right ? t.nkv - t.nq : 0, n = t.nkv;
  auto S = [n](double x) { return x <= 0 ? 0 : x <= n ? x * (x + 1) / 2 : n * (n + 1) / 2 + (x - n) * n; };
  const double kept = S(t.nq + shift) - S(shift);
  return t.nq * t.nkv > 0 ? kept / (t.nq * t.nkv) : 0;
}

double AttnBytes(const Attn& t, bool backward) {
  const double q = t.b * t.nq * t.hq * t.dqk, k = t.b * t.nkv * t.hkv * t.dqk, v = t.b * t.nkv * t.hkv * t.dv,
               o = t.b * t.nq * t.hq * t.dv;
  return backward ? 2 * (q + k + v) + o : q + k + v + o;  // bwd: read q, k, v, dO; write dq, dk, dv
}

std::optional<OpCost> AttnCost(const Args& a, const Attn& t, size_t q, bool backward) {
  const int bpe = DtypeBytes(a.type(q));
  if (bpe == 0 || t.b * t.hq * t.nq * t.nkv > kMaxElements) return std::nullopt;
  const double s = t.b * t.hq * t.nq * t.nkv;  // score elements
  double flops;
  if (!backward) {
    flops = 2 * s * t.dqk + 2 * s * t.dv;  // S = QK^T, O = PV
  } else {
    // Recompute S = QK^T, then dV = P^T dO, dP = dO V^T, dQ = dS K, dK = dS^T Q;
    // with GQA, dK and dV are summed over the query heads sharing a KV head.
    const double gqa = t.hq / t.hkv - 1;
    flops = 2 * s * t.dqk + 2 * s * t.dv + t.b * t.nkv * t.dv * gqa + 2 * s * t.dv + 2 * s * t.dqk + 2 * s * t.dqk +
            t.b * t.nkv * t.dqk * gqa;
  }
  flops *= CausalFraction(t);
  OpCost c = Make(backward ? "attention_bwd" : "attention_fwd", flops, AttnBytes(t, backward) * bpe, bpe, a.type(q));
  c.batch = static_cast<int64_t>(t.b);
  return c;
}

// Where each attention op keeps q and is_causal (native_functions.yaml; the
// flash-attn package's ops take [B, N, H, d]).
struct AttnOp {
  std::string_view name;
  size_t q, causal;
  bool bhnd, backward, bottom_right;
};
constexpr AttnOp kAttnOps[] = {
    {"aten::scaled_dot_product_attention", 0, 5, true, false, false},
    {"aten::_scaled_dot_product_flash_attention", 0, 4, true, false, false},
    {"aten::_scaled_dot_product_efficient_attention", 0, 6, true, false, false},
    {"aten::_scaled_dot_product_cudnn_attention", 0, 6, true, false, false},
    {"aten::_scaled_dot_product_flash_attention_backward", 1, 11, true, true, false},
    {"aten::_scaled_dot_product_efficient_attention_backward", 1, 11, true, true, false},
    {"aten::_scaled_dot_product_cudnn_attention_backward", 1, 14, true, true, false},
    {"flash_attn::_flash_attn_forward", 0, 5, false, false, true},
};

// ---- elementwise (TraceLens: one FLOP per output element) -----------------
constexpr std::string_view kUnary[] = {
    "aten::copy",    "aten::copy_",  "aten::clamp_min", "aten::clamp_min_", "aten::clamp_max", "aten::clamp_max_",
    "aten::sigmoid", "aten::rsqrt",  "aten::silu",      "aten::neg",        "aten::pow",       "aten::relu",
    "aten::relu_",   "aten::gelu",   "aten::tanh",      "aten::exp",        "aten::log",       "aten::sqrt",
    "aten::abs",     "aten::silu_",  "aten::sigmoid_",  "aten::reciprocal", "aten::erf",       "aten::sin",
    "aten::cos",     "aten::clamp",  "aten::clamp_",    "aten::gelu_",      "aten::tanh_",     "aten::exp_",
    "aten::neg_",    "aten::rsqrt_", "aten::sqrt_",
};
constexpr std::string_view kBinary[] = {
    "aten::div",
    "aten::div_",
    "aten::mul",
    "aten::mul_",
    "aten::add",
    "aten::add_",
    "aten::sub",
    "aten::sub_",
    "aten::sigmoid_backward",
    "aten::threshold_backward",
    "aten::gelu_backward",
    "aten::silu_backward",
    "aten::tanh_backward",
    "aten::maximum",
    "aten::minimum",
};

template <size_t N>
bool In(const std::string_view (&list)[N], std::string_view s) {
  for (std::string_view x : list)
    if (x == s) return true;
  return false;
}

// A Python number argument ("Scalar") is passed to the kernel by value:
// not a tensor read. Other empty dims are 0-dim tensors of one element.
bool IsScalarArg(const Args& a, size_t i) { return a.type(i) == "Scalar"; }

std::optional<OpCost> Unary(const Args& a) {
  if (!a.dims(0) || IsScalarArg(a, 0)) return std::nullopt;
  const int in = DtypeBytes(a.type(0));
  const int out = a.tensor(1) ? DtypeBytes(a.type(1)) : in;  // copy_(self, src): src's dtype
  if (in == 0 || out == 0) return std::nullopt;
  const double n = Numel(a.d[0]);
  return Make("elementwise", n, n * in + n * out, in, a.type(0));
}

std::optional<OpCost> Binary(const Args& a) {
  const auto *x = a.dims(0), *y = a.dims(1);
  if (!x || !y || IsScalarArg(a, 0)) return std::nullopt;
  const bool y_scalar = IsScalarArg(a, 1);
  const int b1 = DtypeBytes(a.type(0)), b2 = y_scalar ? 0 : DtypeBytes(a.type(1));
  if (b1 == 0 || (b2 == 0 && !y_scalar)) return std::nullopt;
  // Broadcast shape, aligned right.
  const size_t nd = std::max(x->size(), y->size());
  double out_n = 1;
  for (size_t i = 0; i < nd; ++i) {
    const int64_t dx = i < nd - x->size() ? 1 : (*x)[i - (nd - x->size())];
    const int64_t dy = i < nd - y->size() ? 1 : (*y)[i - (nd - y->size())];
    if (dx != dy && dx != 1 && dy != 1) return std::nullopt;
    out_n *= static_cast<double>(std::max(dx, dy));
  }
  int bo;
  if (a.tensor(2))
    bo = DtypeBytes(a.type(2));  // an out= tensor
  else if (!x->empty() && !y->empty())
    bo = std::max(b1, b2);
  else
    bo = b1;
  if (bo == 0) return std::nullopt;
  const double bytes = Numel(*x) * b1 + (y_scalar ? 0 : Numel(*y) * b2) + out_n * bo;
  return Make("elementwise", out_n, bytes, b1, a.type(0));
}

// ---- softmax -----------------------------------------------------------------
std::optional<OpCost> Softmax(const Args& a, bool backward) {
  // _softmax(self, dim, half_to_float); _softmax_backward_data(grad_output,
  // output, dim, input_dtype).
  if (!a.tensor(0)) return std::nullopt;
  const int bpe = DtypeBytes(a.type(0));
  if (bpe == 0) return std::nullopt;
  const double n = Numel(a.d[0]);
  // Forward: exp, sum, divide per element (TraceLens's 3); backward: y * (g
  // - sum(g * y)) is a multiply, an add, a subtract and a multiply per element,
  // reading g and y and writing the gradient.
  if (!backward) return Make("softmax_fwd", 3 * n, 2 * n * bpe, bpe, a.type(0));
  return Make("softmax_bwd", 4 * n, 3 * n * bpe, bpe, a.type(0));
}

// ---- normalization (TraceLens's model) ----------------------------------------
// Forward: per element 2 FLOPs (scale and shift), plus 3 for the statistics
// when they come from the batch; 6 per normalized channel. Bytes: the input
// read and the output written once, plus channel-sized tensors (mean, var,
// weight, bias; and with batch statistics, the two written back).
OpCost NormFwd(double n, double c, bool training, int bpe, std::string_view dtype) {
  const double flops = c * 3 + (training ? n * 3 : 0) + c * 3 + 2 * n;
  const double weights = 2 + 1 + 1 + (training ? 2 : 0);
  return Make("norm_fwd", flops, 2 * n * bpe + weights * c * bpe, bpe, dtype);
}
// Backward: 4 FLOPs per element for the dot products, 5 more for the input
// gradient with batch statistics (2 with running ones, when no input
// gradient is asked for); 3 per channel to invert the running variance.
OpCost NormBwd(double n, double c, bool training, bool grad_input, bool affine, bool bias, int bpe,
               std::string_view dtype) {
  const double e = n / c;
  double per_channel = (training ? 0 : 3) + 4 * e;
  if (grad_input)
    per_channel += training ? 5 * e : 0;
  else
    per_channel += 2 * e;
  double bytes = n * bpe + n * bpe * (grad_input && training ? 2 : 1);
  if (training) bytes += c * bpe;
  if (affine) bytes += c * bpe + (training ? c * bpe * (bias ? 2 : 1) : 0);
  return Make("norm_bwd", c * per_channel, bytes, bpe, dtype);
}

std::optional<OpCost> Norm(std::string_view op, const Args& a) {
  auto channels_of = [&](size_t at, double* c) {  // prod(normalized_shape) from concrete[at]
    std::vector<int64_t> ns;
    if (!IntList(a.conc(at), &ns) || ns.empty()) return false;
    *c = Product(ns, 0, ns.size());
    return *c > 0;
  };
  auto need = [&](size_t i, int* bpe) {
    if (!a.tensor(i)) return false;
    *bpe = DtypeBytes(a.type(i));
    return *bpe > 0;
  };
  int bpe = 0;
  double c = 0;
  if (op == "aten::layer_norm" || op == "aten::native_layer_norm") {
    if (!need(0, &bpe) || !channels_of(1, &c)) return std::nullopt;
    return NormFwd(Numel(a.d[0]), c, true, bpe, a.type(0));
  }
  if (op == "aten::batch_norm" || op == "aten::native_batch_norm" || op == "aten::cudnn_batch_norm" ||
      op == "aten::miopen_batch_norm" || op == "aten::instance_norm") {
    if (!need(0, &bpe) || a.d[0].size() < 2) return std::nullopt;
    return NormFwd(Numel(a.d[0]), static_cast<double>(a.d[0][1]), Bool(a.conc(5), true), bpe, a.type(0));
  }
  if (op == "aten::group_norm" || op == "aten::native_group_norm") {
    if (!need(0, &bpe) || a.d[0].size() < 2) return std::nullopt;
    return NormFwd(Numel(a.d[0]), static_cast<double>(a.d[0][1]), true, bpe, a.type(0));
  }
  if (op == "aten::native_layer_norm_backward") {
    // (grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask)
    if (!need(1, &bpe) || !channels_of(2, &c)) return std::nullopt;
    const auto m = Mask(a.conc(7));
    return NormBwd(Numel(a.d[1]), c, true, m[0], m[1], m[2], bpe, a.type(1));
  }
  if (op == "aten::native_batch_norm_backward") {
    // (grad_out, input, weight, running_mean, running_var, save_mean,
    // save_invstd, train, eps, output_mask)
    if (!need(1, &bpe) || a.d[1].size() < 2) return std::nullopt;
    return NormBwd(Numel(a.d[1]), static_cast<double>(a.d[1][1]), Bool(a.conc(7), true), true, true, true, bpe,
                   a.type(1));
  }
  if (op == "aten::cudnn_batch_norm_backward" || op == "aten::miopen_batch_norm_backward") {
    // (input, grad_output, weight, running_mean, running_var, save_mean,
    // save_var, eps[, reserve]): batch statistics, all three gradients.
    if (!need(0, &bpe) || a.d[0].size() < 2) return std::nullopt;
    return NormBwd(Numel(a.d[0]), static_cast<double>(a.d[0][1]), true, true, true, true, bpe, a.type(0));
  }
  if (op == "aten::native_group_norm_backward") {
    // (grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask)
    std::vector<int64_t> groups;
    if (!need(1, &bpe) || a.d[1].size() < 2 || !IntList(a.conc(8), &groups) || groups.size() != 1 || groups[0] <= 0)
      return std::nullopt;
    return NormBwd(Numel(a.d[1]), static_cast<double>(a.d[1][1]) / static_cast<double>(groups[0]), true, true, true,
                   true, bpe, a.type(1));
  }
  if (op == "aten::_fused_rms_norm" || op == "aten::rms_norm") {
    // (input, normalized_shape, weight, eps): rsqrt(mean(x^2)) per row (2c +
    // 2 FLOPs), then one multiply per element, two with a weight.
    if (!need(0, &bpe) || !channels_of(1, &c)) return std::nullopt;
    const double n = Numel(a.d[0]);
    const bool affine = true;  // TraceLens counts the weight whether or not the trace shows it
    const double flops = n / c * (2 * c + 2) + n * (affine ? 2 : 1);
    return Make("norm_fwd", flops, 2 * n * bpe + (affine ? c * bpe : 0), bpe, a.type(0));
  }
  if (op == "aten::_fused_rms_norm_backward") {
    // (grad_out, input, normalized_shape, rstd, weight, output_mask)
    if (!need(1, &bpe) || !channels_of(2, &c)) return std::nullopt;
    const double n = Numel(a.d[1]);
    const auto m = Mask(a.conc(5));
    double flops = n + n;  // weight x grad_out, x_hat
    if (m[0]) flops += 6 * n;
    if (m[1]) flops += n + (n / c > 1 ? n : 0);
    return Make("norm_bwd", flops, 3 * n * bpe + 2 * c * bpe, bpe, a.type(1));
  }
  return std::nullopt;
}

// ---- reductions --------------------------------------------------------------
std::optional<OpCost> Reduce(std::string_view op, const Args& a) {
  if (!a.dims(0) || IsScalarArg(a, 0)) return std::nullopt;
  const int bpe = DtypeBytes(a.type(0));
  if (bpe == 0) return std::nullopt;
  const auto& x = a.d[0];
  const double n = Numel(x);
  double out = 1;
  if (op == "aten::cumsum" || op == "aten::cumprod") {
    out = n;
  } else {
    // The dims are the second argument (an int or an int list); none, or an
    // empty list, reduces everything.
    std::vector<int64_t> dims;
    if (!IntList(a.conc(1), &dims)) dims.clear();
    if (!dims.empty()) {
      std::vector<bool> reduced(x.size(), false);
      const auto nd = static_cast<int64_t>(x.size());
      for (int64_t dim : dims) {
        if (dim < -nd || dim >= nd) return std::nullopt;
        reduced[static_cast<size_t>(dim < 0 ? dim + nd : dim)] = true;
      }
      for (size_t i = 0; i < x.size(); ++i)
        if (!reduced[i]) out *= static_cast<double>(x[i]);
    }
  }
  return Make("reduce", n, n * bpe + out * bpe, bpe, a.type(0));
}

// ---- embedding -----------------------------------------------------------------
std::optional<OpCost> Embedding(const Args& a, bool backward) {
  if (!backward) {
    // embedding(weight, indices, ...): gather one row per index.
    if (!a.tensor(0) || !a.dims(1) || a.d[0].size() != 2) return std::nullopt;
    const int bpe = DtypeBytes(a.type(0)), ib = DtypeBytes(a.type(1));
    if (bpe == 0 || ib == 0) return std::nullopt;
    const double idx = Numel(a.d[1]), rows = idx * static_cast<double>(a.d[0][1]);
    return Make("embedding_fwd", 0, idx * ib + 2 * rows * bpe, bpe, a.type(0));
  }
  // embedding_dense_backward(grad_output, indices, num_weights, ...): the
  // gradient rows are summed into a zeroed [num_weights, D] table.
  if (!a.tensor(0) || !a.dims(1)) return std::nullopt;
  const int bpe = DtypeBytes(a.type(0)), ib = DtypeBytes(a.type(1));
  std::vector<int64_t> nw;
  if (bpe == 0 || ib == 0 || !IntList(a.conc(2), &nw) || nw.size() != 1 || nw[0] <= 0) return std::nullopt;
  const double g = Numel(a.d[0]), d = static_cast<double>(a.d[0].back());
  return Make("embedding_bwd", g, g * bpe + Numel(a.d[1]) * ib + static_cast<double>(nw[0]) * d * bpe, bpe, a.type(0));
}

constexpr std::string_view kGemmOps[] = {"aten::mm",      "aten::addmm",  "aten::bmm",
                                         "aten::baddbmm", "aten::linear", "aten::matmul"};
constexpr std::string_view kNormOps[] = {
    "aten::layer_norm",
    "aten::native_layer_norm",
    "aten::batch_norm",
    "aten::native_batch_norm",
    "aten::cudnn_batch_norm",
    "aten::miopen_batch_norm",
    "aten::instance_norm",
    "aten::group_norm",
    "aten::native_group_norm",
    "aten::native_layer_norm_backward",
    "aten::native_batch_norm_backward",
    "aten::cudnn_batch_norm_backward",
    "aten::miopen_batch_norm_backward",
    "aten::native_group_norm_backward",
    "aten::_fused_rms_norm",
    "aten::rms_norm",
    "aten::_fused_rms_norm_backward",
};
constexpr std::string_view kReduceOps[] = {"aten::sum",    "aten::mean",   "aten::max",  "aten::min",
                                           "aten::amax",   "aten::amin",   "aten::norm", "aten::linalg_vector_norm",
                                           "aten::cumsum", "aten::cumprod"};

}  // namespace

bool HasCostModel(std::string_view op) {
  for (const AttnOp& a : kAttnOps)
    if (a.name == op) return true;
  return In(kGemmOps, op) || In(kUnary, op) || In(kBinary, op) || In(kNormOps, op) || In(kReduceOps, op) ||
         op == "aten::convolution" || op == "aten::_convolution" || op == "aten::convolution_backward" ||
         op == "aten::_softmax" || op == "aten::_log_softmax" || op == "aten::_softmax_backward_data" ||
         op == "aten::_log_softmax_backward_data" || op == "aten::embedding" || op == "aten::embedding_dense_backward";
}

OpCategory CategoryOfCostableOp(std::string_view op) {
  for (const AttnOp& a : kAttnOps)
    if (a.name == op) return OpCategory::kAttention;
  if (In(kGemmOps, op) || op == "aten::convolution" || op == "aten::_convolution" || op == "aten::convolution_backward")
    return OpCategory::kMatmul;
  return OpCategory::kOther;
}

bool ConvStrideUnknown(std::string_view op, std::string_view input_dims, std::string_view concrete_inputs) {
  size_t first = 0;
  if (op == "aten::convolution" || op == "aten::_convolution")
    first = 3;
  else if (op == "aten::convolution_backward")
    first = 4;
  else
    return false;
  Args a;
  if (input_dims.empty() || !ParseDimsList(input_dims, &a.d)) return false;  // no shapes: another problem
  if (!concrete_inputs.empty() && !ParseTypeList(concrete_inputs, &a.c)) return false;
  return a.conc(first).empty() || a.conc(first + 1).empty() || a.conc(first + 2).empty();
}

std::optional<OpCost> FrameworkOpCost(std::string_view op, std::string_view input_dims, std::string_view input_types,
                                      std::string_view concrete_inputs) {
  if (In(kGemmOps, op)) return GemmCost(op, input_dims, input_types);
  if (!HasCostModel(op)) return std::nullopt;
  Args a;
  if (!ParseDimsList(input_dims, &a.d) || !ParseTypeList(input_types, &a.t)) return std::nullopt;
  if (!concrete_inputs.empty() && !ParseTypeList(concrete_inputs, &a.c)) return std::nullopt;
  for (const auto& d : a.d) {
    for (int64_t v : d)
      if (v < 0) return std::nullopt;
    if (Numel(d) > kMaxElements) return std::nullopt;
  }
  std::optional<OpCost> c;
  for (const AttnOp& k : kAttnOps) {
    if (k.name != op) continue;
    Attn t;
    if (!AttnShape(a, k.q, k.bhnd, &t)) return std::nullopt;
    t.causal = Bool(a.conc(k.causal), false);
    t.bottom_right = k.bottom_right;
    c = AttnCost(a, t, k.q, k.backward);
    break;
  }
  if (!c) {
    if (op == "aten::convolution" || op == "aten::_convolution")
      c = Conv(a);
    else if (op == "aten::convolution_backward")
      c = ConvBackward(a);
    else if (In(kUnary, op))
      c = Unary(a);
    else if (In(kBinary, op))
      c = Binary(a);
    else if (op == "aten::_softmax" || op == "aten::_log_softmax")
      c = Softmax(a, false);
    else if (op == "aten::_softmax_backward_data" || op == "aten::_log_softmax_backward_data")
      c = Softmax(a, true);
    else if (In(kNormOps, op))
      c = Norm(op, a);
    else if (In(kReduceOps, op))
      c = Reduce(op, a);
    else if (op == "aten::embedding")
      c = Embedding(a, false);
    else if (op == "aten::embedding_dense_backward")
      c = Embedding(a, true);
  }
  if (c && (!std::isfinite(c->flops) || !std::isfinite(c->bytes) || c->flops > 1e30 || c->bytes > 1e30))
    return std::nullopt;
  return c;
}

// c10d dtype names ("Float", "BFloat16"...) as the comm args write them.
int CommDtypeBytes(std::string_view d) {
  if (d == "Float" || d == "Int") return 4;
  if (d == "Double" || d == "Long") return 8;
  if (d == "BFloat16" || d == "Half" || d == "Short") return 2;
  if (d == "Byte" || d == "Char" || d == "Bool" || d.substr(0, 6) == "Float8") return 1;
  return 0;
}

bool ParseCommArgs(std::string_view comm, CommArgs* c) {
  // The text mixes strings and numbers; read the two strings and the three
  // numbers between them.
  ListScan l{comm};
  if (!l.Open()) return false;
  auto str = [&](std::string* out) {
    l.Skip();
    if (l.i >= comm.size() || comm[l.i] != '"') return false;
    ++l.i;
    while (l.i < comm.size() && comm[l.i] != '"') {
      if (comm[l.i] == '\\' && l.i + 1 < comm.size()) ++l.i;
      out->push_back(comm[l.i++]);
    }
    if (l.i >= comm.size()) return false;
    ++l.i;
    l.Comma();
    return true;
  };
  auto num = [&](int64_t* out) {
    l.Skip();
    bool neg = false;
    if (l.i < comm.size() && comm[l.i] == '-') neg = true, ++l.i;
    const size_t start = l.i;
    int64_t v = 0;
    while (l.i < comm.size() && comm[l.i] >= '0' && comm[l.i] <= '9') {
      if (v > (INT64_MAX - 9) / 10) return false;
      v = v * 10 + (comm[l.i++] - '0');
    }
    if (l.i == start) return false;
    *out = neg ? -v : v;
    l.Comma();
    return true;
  };
  return str(&c->name) && num(&c->in) && num(&c->out) && num(&c->group) && str(&c->dtype) && l.Close();
}

std::optional<OpCost> CollectiveOpCost(std::string_view comm) {
  CommArgs a;
  if (!ParseCommArgs(comm, &a)) return std::nullopt;
  const std::string& name = a.name;
  const std::string& dtype = a.dtype;
  const int64_t in = a.in, out = a.out, group = a.group;
  const int bpe = CommDtypeBytes(dtype);
  const std::optional<CollectiveKind> kind = CollectiveFromC10dName(name);
  const double factor = kind ? RingWireFactor(*kind, group) : -1;
  if (bpe == 0 || !kind || factor < 0 || in < 0 || out < 0) return std::nullopt;
  // The buffer the factor applies to: the gathered output for all-gather,
  // the input otherwise.
  const double buffer = static_cast<double>(*kind == CollectiveKind::kAllGather ? out : in) * bpe;
  if (buffer > 1e30) return std::nullopt;
  OpCost c = Make("collective", 0, factor * buffer, bpe, dtype);
  c.batch = group;
  c.collective = std::string(CollectiveKindName(*kind));
  return c;
}

OpCategory CostCategory(std::string_view kind) {
  if (kind == "collective") return OpCategory::kCollective;
  if (kind == "gemm" || kind == "conv_fwd" || kind == "conv_bwd") return OpCategory::kMatmul;
  if (kind == "attention_fwd" || kind == "attention_bwd") return OpCategory::kAttention;
  if (kind == "elementwise") return OpCategory::kElementwise;
  if (kind == "norm_fwd" || kind == "norm_bwd" || kind == "softmax_fwd" || kind == "softmax_bwd")
    return OpCategory::kNormalization;
  if (kind == "reduce") return OpCategory::kReduction;
  if (kind == "embedding_fwd" || kind == "embedding_bwd") return OpCategory::kEmbedding;
  return OpCategory::kOther;
}

}  // namespace mlprof
