#include "report/render.h"

namespace mlprof {

const std::vector<Renderer>& Renderers() {
  static const std::vector<Renderer> kRenderers = {
      {"text", false, [](const Report& r, const RenderOptions& o) { return RenderText(r, o.width); }},
      {"json", false, [](const Report& r, const RenderOptions&) { return RenderJson(r); }},
      {"csv", false, [](const Report& r, const RenderOptions&) { return RenderCsv(r); }},
  };
  return kRenderers;
}

const Renderer* FindRenderer(std::string_view name) {
  for (const Renderer& r : Renderers())
    if (name == r.name) return &r;
  return nullptr;
}

std::vector<std::string> RendererNames() {
  std::vector<std::string> names;
  for (const Renderer& r : Renderers()) names.push_back(r.name);
  return names;
}

}  // namespace mlprof
