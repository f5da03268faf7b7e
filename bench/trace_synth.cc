#include "trace_synth.h"

#include <fmt/format.h>

#include <algorithm>

namespace mlprof::synth {

namespace {

// Small deterministic generator (splitmix64).
struct Rng {
  uint64_t s;
  uint64_t Next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi] nanoseconds.
  int64_t Range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }
};

class Writer {
 public:
  Writer(const SynthOptions& o) : o_(o), rng_{o.seed * 1000003 + static_cast<uint64_t>(o.rank)} {}

  std::string Build(SynthStats* stats) {
    out_.reserve(o_.target_bytes ? o_.target_bytes + (1 << 20) : 1 << 20);
    out_ += fmt::format(
        "{{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{{\"id\": {0}, \"name\": \"NVIDIA H100 80GB HBM3\", "
        "\"totalGlobalMem\": 85029158912, \"computeMajor\": 9, \"computeMinor\": 0, \"numSms\": 132}}],\n"
        "  \"distributedInfo\": {{\"backend\": \"nccl\", \"rank\": {0}, \"world_size\": {1}}},\n"
        "  \"record_shapes\": 1,\n  \"traceEvents\": [\n",
        o_.rank, o_.world_size);
    Meta();
    cpu_ = 1'000'000;  // ns
    gpu_ = comm_ = cpu_;
    int step = 0;
    for (;; ++step) {
      if (o_.target_bytes ? out_.size() >= o_.target_bytes : step >= o_.steps) break;
      Step(step);
    }
    // Kineto's own span over the whole trace.
    Event(
        fmt::format("\"ph\": \"X\", \"cat\": \"Trace\", \"name\": \"PyTorch Profiler (0)\", \"pid\": \"Spans\", "
                    "\"tid\": \"PyTorch Profiler\", \"ts\": {}, \"dur\": {}, \"args\": {{\"Op count\": 0}}",
                    Us(1'000'000), Us(std::max(cpu_, std::max(gpu_, comm_)) - 1'000'000)));
    out_ +=
        "\n  ],\n  \"traceName\": \"synthetic\",\n  \"displayTimeUnit\": \"ms\",\n"
        "  \"baseTimeNanoseconds\": 1700000000000000000\n}\n";
    if (stats) stats->events = events_, stats->steps = step;
    return std::move(out_);
  }

 private:
  static constexpr int kPid = 4242;
  static constexpr int kMainTid = 4242;
  static constexpr int kBwdTid = 4250;
  static constexpr int kStream = 7;
  static constexpr int kCommStream = 20;

  // ns -> "us.fff" (ns resolution, as Kineto writes since 2024)
  static std::string Us(int64_t ns) { return fmt::format("{}.{:03d}", ns / 1000, ns % 1000); }

  void Event(const std::string& body) {
    if (events_++) out_ += ",\n";
    out_ += "  {" + body + "}";
  }

  void Meta() {
    Event(
        fmt::format("\"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": {}, \"tid\": 0, "
                    "\"args\": {{\"name\": \"python3\"}}",
                    kPid));
    Event(
        fmt::format("\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": {}, \"tid\": {}, "
                    "\"args\": {{\"name\": \"thread {} (python3)\"}}",
                    kPid, kMainTid, kMainTid));
    Event(
        fmt::format("\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": {}, \"tid\": {}, "
                    "\"args\": {{\"name\": \"thread {} (pt_autograd_0)\"}}",
                    kPid, kBwdTid, kBwdTid));
    for (int s : {kStream, kCommStream})
      Event(
          fmt::format("\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0, \"pid\": {}, \"tid\": {}, "
                      "\"args\": {{\"name\": \"stream {} \"}}",
                      o_.rank, s, s));
  }

  // A host op; returns its external id.
  int64_t CpuOp(const char* cat, const std::string& name, int64_t ts, int64_t dur, int tid,
                const std::string& extra_args = "") {
    int64_t ext = ++ext_id_;
    Event(
        fmt::format("\"ph\": \"X\", \"cat\": \"{}\", \"name\": \"{}\", \"pid\": {}, \"tid\": {}, \"ts\": {}, "
                    "\"dur\": {}, \"args\": {{\"External id\": {}{}}}",
                    cat, name, kPid, tid, Us(ts), Us(dur), ext, extra_args));
    return ext;
  }

  // Launch call on the host at cpu_ + GPU op on `stream`; advances cursors.
  void Launch(const char* api, const char* gpu_cat, const std::string& name, int64_t gpu_dur, int stream, int tid,
              int64_t ext, const std::string& gpu_args = "") {
    int64_t corr = ++corr_;
    int64_t call = rng_.Range(3'000, 7'000);
    int64_t& cursor = stream == kCommStream ? comm_ : gpu_;
    // Two draws, in a fixed order (as function arguments their order was
    // the compiler's: GCC drew the second first, clang the first, so the
    // clang-built generator did not reproduce the example).
    const int64_t launch_gap = rng_.Range(2'000, 6'000);
    const int64_t queue_gap = rng_.Range(1'000, 3'000);
    int64_t start = std::max(cursor + queue_gap, cpu_ + call + launch_gap);
    Event(
        fmt::format("\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"{}\", \"pid\": {}, \"tid\": {}, "
                    "\"ts\": {}, \"dur\": {}, \"args\": {{\"External id\": {}, \"cbid\": 211, \"correlation\": {}}}",
                    api, kPid, tid, Us(cpu_), Us(call), ext, corr));
    Event(
        fmt::format("\"ph\": \"s\", \"id\": {}, \"pid\": {}, \"tid\": {}, \"ts\": {}, \"cat\": \"ac2g\", "
                    "\"name\": \"ac2g\"",
                    corr, kPid, tid, Us(cpu_)));
    Event(
        fmt::format("\"ph\": \"X\", \"cat\": \"{}\", \"name\": \"{}\", \"pid\": {}, \"tid\": {}, \"ts\": {}, "
                    "\"dur\": {}, \"args\": {{\"External id\": {}, \"device\": {}, \"stream\": {}, "
                    "\"correlation\": {}{}}}",
                    gpu_cat, name, o_.rank, stream, Us(start), Us(gpu_dur), ext, o_.rank, stream, corr, gpu_args));
    Event(
        fmt::format("\"ph\": \"f\", \"id\": {}, \"pid\": {}, \"tid\": {}, \"ts\": {}, \"cat\": \"ac2g\", "
                    "\"name\": \"ac2g\", \"bp\": \"e\"",
                    corr, o_.rank, stream, Us(start)));
    cpu_ += call;
    cursor = start + gpu_dur;
  }

  // cpu_op wrapping one kernel launch.
  void Op(const std::string& op, const std::string& dims, const std::string& types, const std::string& kernel,
          int64_t gpu_lo, int64_t gpu_hi, int tid, const std::string& concrete = "") {
    int64_t t0 = cpu_;
    cpu_ += rng_.Range(2'000, 5'000);
    int64_t ext = ++ext_id_;
    int64_t k = rng_.Range(gpu_lo, gpu_hi);
    Launch("cudaLaunchKernel", "kernel", kernel, k, kStream, tid, ext,
           ", \"grid\": [132, 1, 1], \"block\": [256, 1, 1]");
    cpu_ += rng_.Range(1'000, 3'000);
    Event(
        fmt::format("\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"{}\", \"pid\": {}, \"tid\": {}, \"ts\": {}, "
                    "\"dur\": {}, \"args\": {{\"External id\": {}, \"Input Dims\": {}, \"Input type\": {}{}}}",
                    op, kPid, tid, Us(t0), Us(cpu_ - t0), ext, dims, types,
                    concrete.empty() ? "" : ", \"Concrete Inputs\": " + concrete));
  }

  void Layer(int l, bool backward) {
    const int tid = backward ? kBwdTid : kMainTid;
    const std::string bf = "[\"c10::BFloat16\", \"c10::BFloat16\"]";
    const char* gemm =
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_"
        "segment_k_off_kernel__5x_cublas";
    const std::string elementwise = "void at::native::vectorized_elementwise_kernel<4, at::native::";
    // y = x [8192, k] . W [k, n] forward; backward dX = dY . W^T and
    // dW = x^T . dY: the same FLOPs each, at 640-690 TFLOP/s (~65-70 % of
    // the H100's bf16 peak).
    auto linear = [&](int64_t k, int64_t n) {
      const int64_t lo = 2 * 8192 * k * n / 690'000, hi = lo * 108 / 100;  // ns: 690 down to 640 TFLOP/s
      if (!backward) {
        Op("aten::mm", fmt::format("[[8192, {}], [{}, {}]]", k, k, n), bf, gemm, lo, hi, tid);
      } else {
        Op("aten::mm", fmt::format("[[8192, {}], [{}, {}]]", n, n, k), bf, gemm, lo, hi, tid);
        Op("aten::mm", fmt::format("[[{}, 8192], [8192, {}]]", k, n), bf, gemm, lo, hi, tid);
      }
    };
    if (!backward) {
      // aten::layer_norm(input, normalized_shape, weight, bias, eps, cudnn_enable)
      Op("aten::layer_norm", "[[8, 1024, 4096], [], [4096], [4096], [], []]",
         "[\"c10::BFloat16\", \"ScalarList\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", \"Scalar\"]",
         "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>(int, float, "
         "c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, float*, float*, c10::BFloat16*)",
         48'000, 55'000, tid, "[\"\", \"[4096]\", \"\", \"\", \"1e-05\", \"True\"]");
      linear(4096, 12288);  // QKV
      Op("aten::_scaled_dot_product_flash_attention", "[[8, 32, 1024, 128], [8, 32, 1024, 128], [8, 32, 1024, 128]]",
         "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\"]",
         "flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>>", 290'000,
         320'000, tid);
      linear(4096, 4096);  // attention output
      Op("aten::add", "[[8, 1024, 4096], [8, 1024, 4096], []]", "[\"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\"]",
         elementwise +
             "CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3> >(int, "
             "at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3>)",
         70'000, 80'000, tid);
      linear(4096, 16384);  // MLP up
      Op("aten::gelu", "[[8, 1024, 16384]]", "[\"c10::BFloat16\"]",
         elementwise +
             "GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() "
             "const::{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}, at::detail::Array<char*, 2> "
             ">(int, c10::BFloat16, at::detail::Array<char*, 2>)",
         190'000, 210'000, tid);
      linear(16384, 4096);  // MLP down
      return;
    }
    linear(16384, 4096);
    Op("aten::gelu_backward", "[[8, 1024, 16384], [8, 1024, 16384], []]",
       "[\"c10::BFloat16\", \"c10::BFloat16\", \"\"]",
       elementwise +
           "GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}, "
           "at::detail::Array<char*, 3> >(int, c10::BFloat16, at::detail::Array<char*, 3>)",
       290'000, 310'000, tid, "[\"\", \"\", \"'none'\"]");
    linear(4096, 16384);
    linear(4096, 4096);
    // Backward of flash attention: 2.5x the forward FLOPs at ~380 TFLOP/s.
    Op("aten::_scaled_dot_product_flash_attention_backward",
       "[[8, 32, 1024, 128], [8, 32, 1024, 128], [8, 32, 1024, 128], [8, 32, 1024, 128], [8, 32, 1024, 128], "
       "[8, 32, 1024], [], [], [], [], [], [], [], []]",
       "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"float\", "
       "\"\", \"\", \"\", \"\", \"Scalar\", \"Scalar\", \"\", \"\"]",
       "flash_bwd_kernel<Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t>>",
       860'000, 950'000, tid,
       "[\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"1024\", \"1024\", \"0.\", \"False\", \"\", \"\"]");
    linear(4096, 12288);
    // native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask)
    Op("aten::native_layer_norm_backward",
       "[[8, 1024, 4096], [8, 1024, 4096], [], [8, 1024, 1], [8, 1024, 1], [4096], [4096], []]",
       "[\"c10::BFloat16\", \"c10::BFloat16\", \"ScalarList\", \"float\", \"float\", \"c10::BFloat16\", "
       "\"c10::BFloat16\", \"ScalarList\"]",
       "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_vectorized<c10::BFloat16, float>("
       "c10::BFloat16 const*, c10::BFloat16 const*, float const*, float const*, c10::BFloat16 const*, "
       "c10::BFloat16*, int)",
       80'000, 90'000, tid, "[\"\", \"\", \"[4096]\", \"\", \"\", \"\", \"\", \"[True, True, True]\"]");
    if (backward && l % 2 == 1) {
      // Gradient bucket all-reduce on the communication stream.
      int64_t t0 = cpu_;
      int64_t ext = ++ext_id_;
      cpu_ += rng_.Range(5'000, 9'000);
      Launch("cudaLaunchKernel", "kernel", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
             rng_.Range(700'000, 900'000), kCommStream, tid, ext,
             fmt::format(", \"Collective name\": \"allreduce\", \"In msg nelems\": 50331648, \"Out msg nelems\": "
                         "50331648, \"Group size\": {}, \"dtype\": \"BFloat16\"",
                         o_.world_size));
      Event(
          fmt::format("\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"pid\": {}, \"tid\": {}, "
                      "\"ts\": {}, \"dur\": {}, \"args\": {{\"External id\": {}, \"Collective name\": \"allreduce\", "
                      "\"In msg nelems\": 50331648, \"Out msg nelems\": 50331648, \"Group size\": {}, "
                      "\"dtype\": \"BFloat16\"}}",
                      kPid, tid, Us(t0), Us(cpu_ - t0), ext, o_.world_size));
    }
  }

  void Step(int step) {
    int64_t t0 = cpu_;
    cpu_ += rng_.Range(20'000, 40'000);
    // The data loader runs on the host while the GPU waits (host-bound gap);
    // the first step also pays for warm-up.
    int64_t load = rng_.Range(800'000, 1'600'000) + (step == 0 ? 4'000'000 : 0);
    CpuOp("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", cpu_, load, kMainTid);
    cpu_ += load + rng_.Range(5'000, 10'000);
    // Input batch to the device.
    int64_t ext = ++ext_id_;
    Launch("cudaMemcpyAsync", "gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", rng_.Range(5'000, 8'000), kStream,
           kMainTid, ext, ", \"bytes\": 65536, \"memory bandwidth (GB/s)\": 10.1");
    ext = ++ext_id_;
    Launch("cudaMemsetAsync", "gpu_memset", "Memset (Device)", rng_.Range(2'000, 4'000), kStream, kMainTid, ext,
           ", \"bytes\": 4096, \"memory bandwidth (GB/s)\": 1.5");
    for (int l = 0; l < o_.layers; ++l) Layer(l, false);
    // Loss, then the backward pass on the autograd thread; the host may run
    // ahead of the GPU, so make the GPU the bottleneck in steady state.
    for (int l = o_.layers - 1; l >= 0; --l) Layer(l, true);
    Op("Optimizer.step#AdamW.step", "[]", "[]",
       "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::"
       "TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<c10::BFloat16, 4>>",
       300'000, 360'000, kMainTid);
    // Synchronize at the end of the step: the host waits for the GPU.
    int64_t sync_start = cpu_;
    cpu_ = std::max(cpu_, std::max(gpu_, comm_)) + rng_.Range(5'000, 10'000);
    Event(
        fmt::format("\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaDeviceSynchronize\", \"pid\": {}, "
                    "\"tid\": {}, \"ts\": {}, \"dur\": {}, \"args\": {{\"External id\": {}, \"correlation\": {}}}",
                    kPid, kMainTid, Us(sync_start), Us(cpu_ - sync_start), ++ext_id_, ++corr_));
    cpu_ += rng_.Range(10'000, 20'000);
    CpuOp("user_annotation", fmt::format("ProfilerStep#{}", step + 1), t0, cpu_ - t0, kMainTid);
    cpu_ += rng_.Range(5'000, 15'000);
  }

  SynthOptions o_;
  Rng rng_;
  std::string out_;
  uint64_t events_ = 0;
  int64_t cpu_ = 0, gpu_ = 0, comm_ = 0;
  int64_t ext_id_ = 0, corr_ = 0;
};

}  // namespace

std::string MakeKinetoTrace(const SynthOptions& opt, SynthStats* stats) { return Writer(opt).Build(stats); }

}  // namespace mlprof::synth
