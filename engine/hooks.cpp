#include "hooks.h"

#include <algorithm>
#include <cctype>
#include <iterator>

#include "error.h"

namespace attnscope {

namespace {

// Each site's name after "blocks.<l>.", in HookSite order.
constexpr const char* kSiteNames[] = {
    "hook_resid_pre",     "attn.hook_q",          "attn.hook_k",         "attn.hook_v",         "attn.hook_z",          "attn.hook_pattern",   "hook_attn_out",
    "hook_resid_mid",     "cross_attn.hook_z",    "cross_attn.hook_pattern", "hook_cross_attn_out",
    "hook_resid_mid_cross", "hook_mlp_out",       "hook_resid_post",
};
static_assert(std::size(kSiteNames) == static_cast<size_t>(HookSite::kCount));

bool is_cross(HookSite site) {
  return site == HookSite::CrossZ || site == HookSite::CrossPattern || site == HookSite::CrossAttnOut ||
         site == HookSite::ResidMidCross;
}

[[noreturn]] void bad_name(const std::string& name, const std::string& why) {
  throw Error("E_INPUT", "hook \"" + name + "\": " + why);
}

}  // namespace

HookPoint parse_hook_name(const std::string& name) {
  HookPoint point;
  std::string rest = name;
  for (auto [prefix, stack] : {std::pair{"encoder.", HookStack::Encoder}, std::pair{"decoder.", HookStack::Decoder}})
    if (rest.rfind(prefix, 0) == 0) {
      point.stack = stack;
      rest.erase(0, std::string(prefix).size());
    }
  if (rest.rfind("blocks.", 0) != 0) bad_name(name, "names start with blocks.<layer>. (encoder. or decoder. first for encoder–decoders)");
  rest.erase(0, 7);
  size_t digits = 0;
  while (digits < rest.size() && digits < 6 && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
  if (digits == 0 || digits >= rest.size() || rest[digits] != '.') bad_name(name, "blocks.<layer>. needs a layer number");
  point.layer = std::stoi(rest.substr(0, digits));
  rest.erase(0, digits + 1);
  const auto* site = std::find(std::begin(kSiteNames), std::end(kSiteNames), rest);
  if (site == std::end(kSiteNames)) {
    std::string known;
    for (const char* s : kSiteNames) known += (known.empty() ? "" : ", ") + std::string(s);
    bad_name(name, "no hook point \"" + rest + "\" in a block (there are " + known + ")");
  }
  point.site = static_cast<HookSite>(site - std::begin(kSiteNames));
  if (is_cross(point.site) && point.stack != HookStack::Decoder)
    bad_name(name, "cross-attention hooks are an encoder–decoder's decoder's (decoder.blocks.<layer>.…)");
  return point;
}

std::string hook_name(const HookPoint& point) {
  const char* prefix = point.stack == HookStack::Encoder ? "encoder." : point.stack == HookStack::Decoder ? "decoder." : "";
  return std::string(prefix) + "blocks." + std::to_string(point.layer) + "." + kSiteNames[static_cast<size_t>(point.site)];
}

void Hooks::add(const HookPoint& point, HookFn fn, bool writes) {
  if (!fn) throw Error("E_INPUT", "hook " + hook_name(point) + ": no function");
  hooks_.push_back({point, std::move(fn), writes});
}

bool Hooks::has(HookStack stack, HookSite site, int layer) const {
  return std::any_of(hooks_.begin(), hooks_.end(), [&](const Entry& e) {
    return e.point.stack == stack && e.point.site == site && e.point.layer == layer;
  });
}

bool Hooks::writes(HookStack stack, HookSite site, int layer) const {
  return std::any_of(hooks_.begin(), hooks_.end(), [&](const Entry& e) {
    return e.writes && e.point.stack == stack && e.point.site == site && e.point.layer == layer;
  });
}

void Hooks::fire(HookStack stack, HookSite site, int layer, HookTensor t) const {
  for (const Entry& e : hooks_)
    if (e.point.stack == stack && e.point.site == site && e.point.layer == layer) e.fn(e.point, t);
}

}  // namespace attnscope
