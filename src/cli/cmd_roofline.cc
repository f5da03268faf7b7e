// mlprof roofline: ops and categories against the chip's roofline; --svg
// writes the plot.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>

#include "app/commands.h"
#include "cli/command.h"

namespace mlprof::cli {
namespace {

class RooflineCommand : public ProfileCommand {
  void AddOwnOptions(CLI::App* app) override {
    app->add_option("--chip", o_.chip, "the chip (default: detected from the profile)");
    app->add_option("--chip-file", o_.chip_files, "add or replace chips from JSON files");
    dtype_ =
        app->add_option("--dtype", o_.dtype, "peak of this data type (default bf16; PyTorch ops: each op's own dtype)");
    app->add_option("--svg", svg_path_, "also write the roofline plot to this SVG file");
    app->add_option("--ici-axes", o_.ici_axes,
                    "XLA collectives: the torus axes, innermost first (4x4x4): time all-reduce, all-gather "
                    "and reduce-scatter axis by axis (default: a ring on one axis)");
  }
  StatusOr<Report> Analyse(const app::Session& s) override {
    o_.top = top();
    o_.dtype_given = dtype_->count() > 0;
    o_.want_svg = !svg_path_.empty();
    ASSIGN_OR_RETURN(app::RooflineOutput out, app::Roofline(s, o_));
    if (o_.want_svg) {
      std::FILE* f = std::fopen(svg_path_.c_str(), "wb");
      const bool ok = f && std::fwrite(out.svg.data(), 1, out.svg.size(), f) == out.svg.size();
      if (f) std::fclose(f);
      if (!ok) return NotFound(fmt::format("{}: cannot write the SVG file", svg_path_));
    }
    return std::move(out.report);
  }
  std::optional<app::Sharded> Sharded() override {
    o_.top = top();
    o_.dtype_given = dtype_->count() > 0;
    return app::RooflineSharded(o_);
  }
  Status CheckMpiOptions() override {
    if (!svg_path_.empty())
      return InvalidArgument("--svg plots the first rank alone: run roofline --svg as one process, without mpirun");
    return OkStatus();
  }
  app::RooflineOptions o_;
  CLI::Option* dtype_ = nullptr;
  std::string svg_path_;
};

}  // namespace
std::unique_ptr<Command> MakeRooflineCommand() { return std::make_unique<RooflineCommand>(); }
}  // namespace mlprof::cli
