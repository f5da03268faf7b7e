// mlprof mfu: model FLOPs utilisation, as a calculator or from profiles.
#include <CLI/CLI.hpp>

#include "app/commands.h"
#include "cli/command.h"
#include "cli/validators.h"

namespace mlprof::cli {
namespace {

class MfuCommand : public Command {
  void AddOptions(CLI::App* app) override {
    MfuInput& in = o_.input;
    app->add_option("--chip-file", o_.chip_files, "add or replace chips from JSON files (fields as data/chips/*.json)");
    AddFormatOption(app, out_.format);
    AddWidthOption(app, out_.width);
    app->add_option("--chip", o_.chip, "chip id, name or device name (`mlprof chips` lists them)");
    app->add_option("--dtype", o_.dtype,
                    "peak of this data type: fp32, tf32, bf16, fp16, fp8, int8 (default: bf16; fp16 on chips "
                    "without bf16: V100, T4, RTX 20)");
    app->add_option("paths", in_.paths,
                    "profiles (optional): step time, device count, chip and op FLOPs (HFU) come from them");
    app->add_option("--capture", in_.capture,
                    "with profiles of CUDA/HIP graph replays: the capture trace (FILE, or DIR with TraceLens's "
                    "execution_details.json), so the replayed kernels' ops count in HFU");
    app->add_option("--devices", in.devices, "devices (chips; cores with --per-core)")->check(NumberAtLeastZero(true));
    app->add_flag("--per-core", in.per_core, "devices are cores (TPU TensorCores): peak per core");
    app->add_option("--peak-tflops", o_.peak_tflops, "peak TFLOP/s per device (instead of the chip's)")
        ->check(NumberAtLeastZero(true));
    auto opt = [app](const char* flag, std::optional<double>* v, const char* help) {
      app->add_option_function<double>(
             flag, [v](double x) { *v = x; }, help)
          ->check(NumberAtLeastZero(true));
    };
    opt("--step-time", &in.step_seconds, "seconds per step");
    opt("--tokens-per-step", &in.tokens_per_step, "tokens per step (global batch x sequence)");
    opt("--tokens-per-day", &in.tokens_per_day, "tokens per day (instead of step time and tokens per step)");
    opt("--model-flops-per-step", &in.model_flops_per_step, "model FLOPs per step (all devices)");
    opt("--flops-per-token", &in.flops_per_token, "model FLOPs per token (forward + backward)");
    opt("--flops-per-sample", &in.flops_per_sample, "model FLOPs per sample (with --tokens-per-sample)");
    opt("--tokens-per-sample", &in.tokens_per_sample, "tokens per sample (sequence length)");
    opt("--params", &in.params, "parameters N: 6 N FLOPs per token");
    opt("--layers", &in.layers, "layers, for the attention-score term");
    opt("--context", &in.context, "attention context (sequence length), for the attention-score term");
    opt("--d-model", &in.d_model, "model width, for the attention-score term");
    app->add_flag("--causal", in.causal, "halve the attention-score term (causal mask)");
  }
  StatusOr<Report> Run() override {
    if (in_.paths.empty()) return app::Mfu(o_, nullptr);
    ASSIGN_OR_RETURN(app::Session s, OpenWithProgress(in_));
    ASSIGN_OR_RETURN(Report r, app::Mfu(o_, &s));
    r.grade = app::FullGrade(s);
    return r;
  }
  app::MfuOptions o_;
  app::InputOptions in_;
};

}  // namespace
std::unique_ptr<Command> MakeMfuCommand() { return std::make_unique<MfuCommand>(); }
}  // namespace mlprof::cli
