#include "flow_js.h"

#include <string>

#include "convert.h"

namespace attnscope::bindings {

namespace {

void set_attention(emscripten::val& out, const AttentionFlow& a, const std::string& prefix) {
  // camelCase with the prefix: tokens → crossTokens
  auto name = [&](const char* base) {
    std::string n = base;
    if (prefix.empty()) return n;
    n[0] = static_cast<char>(n[0] - 'a' + 'A');
    return prefix + n;
  };
  out.set(name("tokens"), to_float32_array(a.tokens));
  out.set(name("residual"), to_float32_array(a.residual));
  out.set(name("bias"), to_float32_array(a.bias));
  out.set(name("heads"), to_float32_array(a.heads));
  out.set(name("headsResidual"), to_float32_array(a.heads_residual));
  out.set(name("headsBias"), to_float32_array(a.heads_bias));
}

}  // namespace

emscripten::val flow_to_js(const StackFlow& flow) {
  emscripten::val out = emscripten::val::object();
  out.set("layers", flow.layers);
  out.set("headCount", flow.heads);
  out.set("queries", flow.tokens);
  out.set("keys", flow.self.keys);
  set_attention(out, flow.self, "");
  if (!flow.cross.tokens.empty()) {
    out.set("crossKeys", flow.cross.keys);
    set_attention(out, flow.cross, "cross");
  }
  out.set("mlp", to_float32_array(flow.mlp));
  out.set("mlpResidual", to_float32_array(flow.mlp_residual));
  return out;
}

}  // namespace attnscope::bindings
