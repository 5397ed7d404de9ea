// nextToken's conversions (sampling_js.h): options in, {id, prob, candidates} out.
#include "sampling_js.h"

#include <cmath>
#include <string>

#include "error.h"

namespace attnscope::bindings {

using emscripten::val;

namespace {

// A number option, present and of type number (JavaScript has already checked its range).
double number_option(const val& options, const char* name) {
  const val v = options[name];
  if (!v.isNumber()) throw Error("E_INPUT", std::string("nextToken: ") + name + " must be a number");
  return v.as<double>();
}

int integer_option(const val& options, const char* name) {
  const double v = number_option(options, name);
  if (!(v >= 0 && v <= 2147483647.0) || v != std::floor(v))
    throw Error("E_INPUT", std::string("nextToken: ") + name + " must be an integer >= 0, got " + std::to_string(v));
  return static_cast<int>(v);
}

}  // namespace

val next_token_js(const std::vector<float>& logits, const val& options, SamplingScratch& scratch) {
  if (logits.empty()) throw Error("E_INPUT", "nextToken() before a step: there are no logits to choose from");
  SamplingOptions o;
  o.temperature = number_option(options, "temperature");
  o.top_k = integer_option(options, "topK");
  o.top_p = number_option(options, "topP");
  const int candidates = integer_option(options, "candidates");
  const double u = o.temperature > 0 ? number_option(options, "u") : 0.0;
  if (!(u >= 0 && u < 1)) throw Error("E_INPUT", "nextToken: u must be in [0, 1), got " + std::to_string(u));
  const int n = static_cast<int>(logits.size());
  const int32_t id = sample_token(logits.data(), n, o, u, scratch);
  const LogitSoftmax softmax = logit_softmax(logits.data(), n);
  best_ids(logits.data(), n, candidates, scratch.order);
  val list = val::array();
  for (size_t i = 0; i < scratch.order.size(); ++i) {
    val c = val::object();
    c.set("id", val(scratch.order[i]));
    c.set("prob", val(softmax.probability(logits.data(), scratch.order[i])));
    list.set(i, c);
  }
  val out = val::object();
  out.set("id", val(id));
  out.set("prob", val(softmax.probability(logits.data(), id)));
  out.set("candidates", list);
  return out;
}

}  // namespace attnscope::bindings
