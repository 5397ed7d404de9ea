// The parsed form of a regex.h pattern, shared by its parser (regex_parse.cpp) and its matcher
// (regex.cpp): a tree of nodes over character sets. Internal to the tokenizer's regex; nothing
// else includes it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tokenizer/unicode_tables.h"

namespace attnscope::tok {

// One test inside a character class (or a single literal character).
struct ClassItem {
  enum class Kind : uint8_t { Range, Categories, Space, Word, Digit } kind;
  bool negated = false;  // \S \W \D \P{..}
  char32_t lo = 0, hi = 0;
  uint32_t categories = 0;  // bit per Category
};

struct CharSet {
  std::vector<ClassItem> items;
  bool negated = false;      // [^...]
  bool ignore_case = false;  // inside (?i)
  bool any_but_newline = false;  // .
};

enum class NodeKind : uint8_t { Empty, Set, Concat, Alt, Repeat, LookAhead, Start, End };

struct Node {
  NodeKind kind = NodeKind::Empty;
  CharSet set;                 // Set
  std::vector<int> children;   // Concat, Alt; Repeat and LookAhead have one
  int min = 0, max = 0;        // Repeat; max -1 = unbounded
  bool greedy = true;          // Repeat
  bool negative = false;       // LookAhead
};

struct RegexProgram {
  std::vector<Node> nodes;
  int root = 0;
};

inline uint32_t category_bit(Category c) { return 1u << static_cast<unsigned>(c); }

// Parses a pattern (code points) into program->nodes and sets its root. Throws
// Error("E_TOKENIZER") naming the first construct regex.h does not support.
void parse_regex(std::u32string pattern, RegexProgram& program);

}  // namespace attnscope::tok
