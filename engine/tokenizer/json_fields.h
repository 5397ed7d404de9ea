// Reading Hugging Face tokenizer files (tokenizer.json, tokenizer_config.json) field by field:
// every malformed or unsupported field becomes Error("E_TOKENIZER") naming it. Shared by the
// tokenizer.json stages and the legacy vocab.txt / vocab.json loaders.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tokenizer/added_tokens.h"
#include "tokenizer/post_processor.h"
#include "tokenizer/regex.h"

namespace attnscope::tok::json_fields {

using nlohmann::json;

constexpr int64_t kMaxVocab = 50'000'000;

[[noreturn]] void fail(const std::string& message);
json parse_json(std::string_view text, const char* file);
bool get_bool(const json& obj, const char* key, bool fallback, const std::string& where);
std::optional<bool> get_optional_bool(const json& obj, const char* key, const std::string& where);
std::string get_string(const json& obj, const char* key, const std::string& fallback, const std::string& where);
int64_t get_int(const json& v, const std::string& where, int64_t lo, int64_t hi);

// obj[key] without copying it (tokenizer.json's model section is megabytes): a null when absent
// or when obj is not an object.
const json& member(const json& obj, const char* key);

// tokenizer_config.json as an object ({} when the folder has none).
json parse_config(std::string_view text);
// Whether tokenizer_config.json's tokenizer_class names one of these classes, with or without
// transformers' "Fast" suffix.
bool class_is(std::string name, std::initializer_list<const char*> classes);

// A special token in tokenizer_config.json is a string or a serialized AddedToken {"content": ...}.
std::string special_token_name(const json& config, const char* key, const std::string& fallback);
AddedToken parse_added_token(const json& v, int32_t id, const std::string& where);
// Replaces the token with the same content, else appends.
void add_unique(std::vector<AddedToken>& tokens, const AddedToken& t);
// tokenizer.json's added_tokens array, merged into tokens.
void parse_added_tokens(const json& doc, std::vector<AddedToken>& tokens);
// tokenizer_config.json's added_tokens_decoder {"id": {content, lstrip, ...}}, merged into tokens.
void parse_added_tokens_decoder(const json& config, std::vector<AddedToken>& tokens);

// TemplateProcessing's "single" or "pair" list.
std::vector<TemplatePiece> parse_template(const json& post, const char* key, bool allow_b);
// A [token, id] pair as BertProcessing/RobertaProcessing write "cls" and "sep".
std::pair<std::string, int32_t> parse_token_pair(const json& post, const char* key);

// A stage section as its list of steps: a Sequence's members (nested Sequences flattened, in
// order), a single step as itself, null as none. list_key is "normalizers", "pretokenizers", ...
std::vector<json> sequence_members(const json& section, const char* list_key, const char* where);
// A {"String": ...} or {"Regex": ...} pattern, as Split and Replace write it.
Regex parse_pattern(const json& pattern, const std::string& where);

// Ids index a table of every id up to the largest: refuses a table far larger than the number of
// tokens in it (a stray huge id would otherwise allocate gigabytes).
void check_dense_ids(size_t table_size, size_t tokens, const std::string& where);

// The "type" of a component, or a short description when it has none (for error messages).
std::string type_name(const json& component, const char* where);

}  // namespace attnscope::tok::json_fields
