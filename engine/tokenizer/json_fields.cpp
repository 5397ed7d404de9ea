// Field readers for Hugging Face tokenizer files; see json_fields.h.
#include "tokenizer/json_fields.h"

#include "build_features.h"
#include "error.h"
#include "json_reader.h"

namespace attnscope::tok::json_fields {
namespace {

TemplatePiece parse_template_piece(const json& v, const json& specials, const std::string& where,
                                   bool allow_b) {
  if (!v.is_object() || v.size() != 1) fail(where + " must be {\"SpecialToken\": ...} or {\"Sequence\": ...}");
  TemplatePiece piece;
  if (auto s = v.find("Sequence"); s != v.end()) {
    const std::string id = get_string(*s, "id", "", where + ".Sequence");
    if (id == "A") piece.sequence = 0;
    else if (id == "B" && allow_b) piece.sequence = 1;
    else fail(where + ".Sequence.id '" + id + "' is not allowed here");
    piece.type_id = static_cast<int32_t>(get_int(s->value("type_id", json(0)), where + ".type_id", 0, 1 << 20));
    return piece;
  }
  if (auto s = v.find("SpecialToken"); s != v.end()) {
    const std::string id = get_string(*s, "id", "", where + ".SpecialToken");
    piece.type_id = static_cast<int32_t>(get_int(s->value("type_id", json(0)), where + ".type_id", 0, 1 << 20));
    auto def = specials.find(id);
    if (def == specials.end()) fail(where + ": special token '" + id + "' is not defined in special_tokens");
    const json& ids = def->value("ids", json::array());
    const json& tokens = def->value("tokens", json::array());
    if (!ids.is_array() || !tokens.is_array() || ids.size() != tokens.size() || ids.empty()) {
      fail("special_tokens['" + id + "'] needs matching non-empty ids and tokens");
    }
    for (size_t i = 0; i < ids.size(); ++i) {
      if (!tokens[i].is_string()) fail("special_tokens['" + id + "'].tokens must be strings");
      piece.special.emplace_back(tokens[i].get<std::string>(),
                                 static_cast<int32_t>(get_int(ids[i], "special_tokens['" + id + "'].ids", 0, kMaxVocab)));
    }
    return piece;
  }
  fail(where + " must be {\"SpecialToken\": ...} or {\"Sequence\": ...}");
}

}  // namespace

std::vector<TemplatePiece> parse_template(const json& post, const char* key, bool allow_b) {
  auto it = post.find(key);
  if (it == post.end() || !it->is_array()) fail(std::string("post_processor.") + key + " must be an array");
  const json specials = post.value("special_tokens", json::object());
  std::vector<TemplatePiece> pieces;
  bool has_a = false, has_b = false;
  for (size_t i = 0; i < it->size(); ++i) {
    pieces.push_back(parse_template_piece((*it)[i], specials,
                                          std::string("post_processor.") + key + "[" + std::to_string(i) + "]",
                                          allow_b));
    has_a |= pieces.back().sequence == 0;
    has_b |= pieces.back().sequence == 1;
  }
  if (!has_a || (allow_b && !has_b)) fail(std::string("post_processor.") + key + " must contain the sequence(s)");
  return pieces;
}

[[noreturn]] void fail(const std::string& message) { throw Error("E_TOKENIZER", message); }

json parse_json(std::string_view text, const char* file) {
  try {
    return read_json(text);
  } catch (const JsonTooDeep& e) {
    fail(std::string(file) + " " + e.what());
  } catch (const json::exception& e) {
    fail(std::string(file) + " is not valid JSON: " + e.what());
  }
}

bool get_bool(const json& obj, const char* key, bool fallback, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) fail(where + "." + key + " must be true or false");
  return it->get<bool>();
}

std::optional<bool> get_optional_bool(const json& obj, const char* key, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  if (!it->is_boolean()) fail(where + "." + key + " must be true, false or null");
  return it->get<bool>();
}

std::string get_string(const json& obj, const char* key, const std::string& fallback,
                       const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return fallback;
  if (!it->is_string()) fail(where + "." + key + " must be a string");
  return it->get<std::string>();
}

int64_t get_int(const json& v, const std::string& where, int64_t lo, int64_t hi) {
  if (!v.is_number_integer() && !v.is_number_unsigned()) fail(where + " must be an integer");
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(hi)) {
    fail(where + " is out of range");
  }
  const int64_t n = v.get<int64_t>();
  if (n < lo || n > hi) fail(where + " is out of range (" + std::to_string(n) + ")");
  return n;
}

const json& member(const json& obj, const char* key) {
  static const json null_value;
  if (!obj.is_object()) return null_value;
  auto it = obj.find(key);
  return it == obj.end() ? null_value : *it;
}

json parse_config(std::string_view text) {
  if (text.empty()) return json::object();
  json config = parse_json(text, "tokenizer_config.json");
  if (!config.is_object()) fail("tokenizer_config.json must be a JSON object");
  return config;
}

bool class_is(std::string name, std::initializer_list<const char*> classes) {
  const std::string fast = "Fast";
  if (name.size() > fast.size() && name.compare(name.size() - fast.size(), fast.size(), fast) == 0) {
    name.resize(name.size() - fast.size());
  }
  for (const char* known : classes) {
    if (name == known) return true;
  }
  return false;
}

std::string special_token_name(const json& config, const char* key, const std::string& fallback) {
  auto it = config.find(key);
  if (it == config.end() || it->is_null()) return fallback;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_object()) return get_string(*it, "content", fallback, std::string("tokenizer_config.") + key);
  fail(std::string("tokenizer_config.") + key + " must be a string or an object with \"content\"");
}

AddedToken parse_added_token(const json& v, int32_t id, const std::string& where) {
  if (!v.is_object()) fail(where + " must be an object");
  AddedToken t;
  t.content = get_string(v, "content", "", where);
  if (t.content.empty()) fail(where + ".content must be a non-empty string");
  t.id = id;
  t.special = get_bool(v, "special", false, where);
  t.single_word = get_bool(v, "single_word", false, where);
  t.lstrip = get_bool(v, "lstrip", false, where);
  t.rstrip = get_bool(v, "rstrip", false, where);
  t.normalized = get_bool(v, "normalized", !t.special, where);
  return t;
}

void add_unique(std::vector<AddedToken>& tokens, const AddedToken& t) {
  for (AddedToken& existing : tokens) {
    if (existing.content == t.content) { existing = t; return; }
  }
  tokens.push_back(t);
}

void parse_added_tokens(const json& doc, std::vector<AddedToken>& tokens) {
  auto it = doc.find("added_tokens");
  if (it == doc.end() || it->is_null()) return;
  if (!it->is_array()) fail("added_tokens must be an array");
  for (size_t i = 0; i < it->size(); ++i) {
    const std::string where = "added_tokens[" + std::to_string(i) + "]";
    const json& v = (*it)[i];
    if (!v.is_object() || !v.contains("id")) fail(where + " needs an id");
    const auto id = static_cast<int32_t>(get_int(v.at("id"), where + ".id", 0, kMaxVocab));
    add_unique(tokens, parse_added_token(v, id, where));
  }
}

void parse_added_tokens_decoder(const json& config, std::vector<AddedToken>& tokens) {
  auto it = config.find("added_tokens_decoder");
  if (it == config.end() || it->is_null()) return;
  if (!it->is_object()) fail("tokenizer_config.added_tokens_decoder must be an object");
  for (const auto& [id, value] : it->items()) {
    int64_t n = -1;
    try { n = std::stoll(id); } catch (...) { fail("added_tokens_decoder key '" + id + "' is not an id"); }
    if (n < 0 || n > kMaxVocab) fail("added_tokens_decoder id " + id + " is out of range");
    add_unique(tokens, parse_added_token(value, static_cast<int32_t>(n), "added_tokens_decoder." + id));
  }
}

std::pair<std::string, int32_t> parse_token_pair(const json& post, const char* key) {
  const json v = post.value(key, json());
  if (!v.is_array() || v.size() != 2 || !v[0].is_string()) fail(std::string("post_processor.") + key + " must be [token, id]");
  return {v[0].get<std::string>(), static_cast<int32_t>(get_int(v[1], std::string("post_processor.") + key, 0, kMaxVocab))};
}

namespace {

void flatten(const json& section, const char* list_key, const char* where, int depth, std::vector<json>& out) {
  if (section.is_null()) return;
  if (!section.is_object() || get_string(section, "type", "", where) != "Sequence") {
    out.push_back(section);
    return;
  }
  if (depth > 8) fail(std::string(where) + " Sequence nested too deeply");
  auto list = section.find(list_key);
  if (list == section.end() || !list->is_array()) fail(std::string(where) + " Sequence needs a \"" + list_key + "\" array");
  for (const json& member : *list) flatten(member, list_key, where, depth + 1, out);
}

}  // namespace

std::vector<json> sequence_members(const json& section, const char* list_key, const char* where) {
  std::vector<json> out;
  flatten(section, list_key, where, 0, out);
  return out;
}

Regex parse_pattern(const json& pattern, const std::string& where) {
  if (pattern.is_object() && pattern.size() == 1) {
    if (pattern.contains("Regex")) {
      // The encoder build has no regex compiler: WordPiece tokenizers split without one.
      if constexpr (kBuildHasWordPieceOnly) throw_not_in_build("a Regex pattern (" + where + ")");
      else return Regex::compile(get_string(pattern, "Regex", "", where));
    }
    if (pattern.contains("String")) {
      std::u32string text;
      for (const SpannedChar& c : decode_utf8(get_string(pattern, "String", "", where))) text += c.cp;
      return Regex::literal(text);
    }
  }
  fail(where + " must be {\"String\": ...} or {\"Regex\": ...}");
}

void check_dense_ids(size_t table_size, size_t tokens, const std::string& where) {
  if (table_size > 2 * tokens + 1'000'000) {
    fail(where + " has ids up to " + std::to_string(table_size - 1) + " for only " + std::to_string(tokens) +
         " tokens: refusing so sparse a vocabulary");
  }
}

std::string type_name(const json& component, const char* where) {
  const std::string type = component.is_object() ? get_string(component, "type", "", where) : "";
  if (!type.empty()) return type.size() > 80 ? type.substr(0, 80) + "..." : type;
  // Without a type, say what it is without printing a whole (possibly huge) value.
  if (component.is_object()) return "an object without \"type\"";
  if (component.is_array()) return "an array";
  return json_brief(component);
}

}  // namespace attnscope::tok::json_fields
