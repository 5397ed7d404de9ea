// read_json(): nlohmann's own parser and DOM builder, driven through its SAX interface with a
// depth count, so one instantiation of the parser serves every JSON file the engine reads.
#include "json_reader.h"

#include <cstdio>
#include <cstdlib>

namespace attnscope {

namespace {

using json = nlohmann::json;
using DomBuilder = nlohmann::detail::json_sax_dom_parser<json>;
using Parser = nlohmann::detail::parser<json, nlohmann::detail::iterator_input_adapter<const char*>>;

// nlohmann's DOM builder, refusing to open a container past kMaxJsonDepth. The parser is a
// template over its handler and calls these by name, so hiding the base's members suffices.
class DepthLimitedDom : public DomBuilder {
 public:
  explicit DepthLimitedDom(json& root) : DomBuilder(root, /*allow_exceptions=*/true) {}
  bool start_object(std::size_t len) { return enter() && DomBuilder::start_object(len); }
  bool start_array(std::size_t len) { return enter() && DomBuilder::start_array(len); }
  bool end_object() { --depth_; return DomBuilder::end_object(); }
  bool end_array() { --depth_; return DomBuilder::end_array(); }

 private:
  bool enter() {
    if (++depth_ > kMaxJsonDepth) throw JsonTooDeep();
    return true;
  }
  int depth_ = 0;
};

}  // namespace

JsonTooDeep::JsonTooDeep()
    : exception(0, ("nests deeper than " + std::to_string(kMaxJsonDepth) + " levels").c_str()) {}

json read_json(std::string_view text) {
  json result;
  DepthLimitedDom dom(result);
  Parser parser(nlohmann::detail::input_adapter(text.data(), text.data() + text.size()));
  parser.sax_parse(&dom, /*strict=*/true);   // throws on the first error (allow_exceptions)
  return result;
}

std::string json_brief(const json& value) {
  std::string text;
  switch (value.type()) {
    case json::value_t::object: return "an object";
    case json::value_t::array:
      // A short array whole, as a shape is shown ("[2,3]"); a long one cut.
      text = "[";
      for (const auto& item : value) {
        if (text.size() > 80) break;
        text += (text.size() > 1 ? "," : "") + json_brief(item);
      }
      text += "]";
      break;
    case json::value_t::string: text = '"' + value.get_ref<const std::string&>() + '"'; break;
    case json::value_t::boolean: return value.get<bool>() ? "true" : "false";
    case json::value_t::number_integer: return std::to_string(value.get<int64_t>());
    case json::value_t::number_unsigned: return std::to_string(value.get<uint64_t>());
    case json::value_t::number_float: {
      // The shortest form that reads back as the same double, as nlohmann's dump() writes it.
      const double x = value.get<double>();
      char buffer[32];
      for (int digits = 1; digits <= 17; ++digits) {
        std::snprintf(buffer, sizeof buffer, "%.*g", digits, x);
        if (std::strtod(buffer, nullptr) == x) break;
      }
      // 768.0 stays a float on screen ("must be an integer, got 768.0").
      const std::string shortest = buffer;
      return shortest.find_first_of(".e") == std::string::npos ? shortest + ".0" : shortest;
    }
    default: return "null";
  }
  return text.size() > 80 ? text.substr(0, 80) + "..." : text;
}

}  // namespace attnscope
