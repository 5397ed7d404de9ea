// The regex matcher of regex.h: a recursive-descent parser into a node tree, and a backtracking
// matcher with continuations. A quantified single character (the \p{L}+ and \s+ of every real
// pre-tokenizer pattern) is matched by a loop, not recursion, so long words cost no stack.
#include "tokenizer/regex.h"

#include <algorithm>

#include "error.h"
#include "tokenizer/unicode_tables.h"

namespace attnscope::tok {
namespace {

[[noreturn]] void fail(const std::string& message) { throw Error("E_TOKENIZER", message); }

constexpr size_t kMaxPatternChars = 2000;   // real pre-tokenizer patterns are a few hundred
constexpr int kMaxNesting = 100;
constexpr int kMaxRepeat = 100000;
constexpr size_t kMaxDepth = 2000;  // nested calls while matching: bounds the stack

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

uint32_t bit(Category c) { return 1u << static_cast<unsigned>(c); }

// Oniguruma's case folding for the letters tokenizer patterns use: the simple lowercase, plus the
// characters that fold to ASCII (long s, Kelvin sign) and the Angstrom sign.
char32_t fold(char32_t cp) {
  if (cp == 0x17F) return 's';
  if (cp == 0x212A) return 'k';
  if (cp == 0x212B) return 0xE5;
  char32_t lower[kMaxLowercase];
  return to_lowercase(cp, lower) == 1 ? lower[0] : cp;
}

bool item_matches(const ClassItem& item, char32_t cp) {
  bool in = false;
  switch (item.kind) {
    case ClassItem::Kind::Range: in = cp >= item.lo && cp <= item.hi; break;
    case ClassItem::Kind::Categories: in = (item.categories & bit(general_category(cp))) != 0; break;
    case ClassItem::Kind::Space: in = is_white_space(cp); break;
    case ClassItem::Kind::Digit: in = general_category(cp) == Category::Nd; break;
    case ClassItem::Kind::Word: {
      const uint32_t word = bit(Category::Lu) | bit(Category::Ll) | bit(Category::Lt) | bit(Category::Lm) |
                            bit(Category::Lo) | bit(Category::Mn) | bit(Category::Mc) | bit(Category::Me) |
                            bit(Category::Nd) | bit(Category::Pc);
      in = (word & bit(general_category(cp))) != 0;
      break;
    }
  }
  return in != item.negated;
}

bool set_matches(const CharSet& set, char32_t cp) {
  if (set.any_but_newline) return cp != '\n';
  bool in = false;
  for (const ClassItem& item : set.items) {
    if (item_matches(item, cp) || (set.ignore_case && item.kind == ClassItem::Kind::Range &&
                                   (item_matches(item, fold(cp)) || fold(item.lo) == fold(cp)))) {
      in = true;
      break;
    }
  }
  return in != set.negated;
}

// General categories by their one- or two-letter names.
uint32_t category_mask(const std::string& name) {
  static const char* names[] = {"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe",
                                "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn"};
  uint32_t mask = 0;
  for (unsigned i = 0; i < 30; ++i) {
    const std::string n = names[i];
    if (n == name || (name.size() == 1 && n[0] == name[0])) mask |= 1u << i;
  }
  if (name == "L&" || name == "LC") mask = bit(Category::Lu) | bit(Category::Ll) | bit(Category::Lt);
  static const std::pair<const char*, const char*> long_names[] = {
      {"Letter", "L"}, {"Mark", "M"}, {"Number", "N"}, {"Punctuation", "P"}, {"Symbol", "S"},
      {"Separator", "Z"}, {"Other", "C"}, {"Uppercase_Letter", "Lu"}, {"Lowercase_Letter", "Ll"},
      {"Decimal_Number", "Nd"}};
  for (const auto& [full, short_name] : long_names) {
    if (name == full) return category_mask(short_name);
  }
  return mask;
}

class Parser {
 public:
  Parser(std::u32string pattern, std::vector<Node>& nodes) : p_(std::move(pattern)), nodes_(nodes) {}

  int parse() {
    const int root = alternation(false, 0);
    if (i_ < p_.size()) fail(where() + "unmatched ')'");
    return root;
  }

 private:
  std::string where() const { return "Split/Replace regex at character " + std::to_string(i_) + ": "; }
  bool more() const { return i_ < p_.size(); }
  char32_t peek() const { return p_[i_]; }

  int add(Node n) {
    nodes_.push_back(std::move(n));
    return static_cast<int>(nodes_.size() - 1);
  }

  int alternation(bool ignore_case, int depth) {
    if (depth > kMaxNesting) fail(where() + "groups nested deeper than " + std::to_string(kMaxNesting));
    std::vector<int> branches{concatenation(ignore_case, depth)};
    while (more() && peek() == '|') {
      ++i_;
      branches.push_back(concatenation(ignore_case, depth));
    }
    if (branches.size() == 1) return branches[0];
    Node n;
    n.kind = NodeKind::Alt;
    n.children = std::move(branches);
    return add(std::move(n));
  }

  int concatenation(bool ignore_case, int depth) {
    Node n;
    n.kind = NodeKind::Concat;
    while (more() && peek() != '|' && peek() != ')') {
      // (?i) switches case folding on for the rest of the enclosing group.
      if (p_.compare(i_, 4, U"(?i)") == 0) {
        i_ += 4;
        ignore_case = true;
        continue;
      }
      int atom_node = atom(ignore_case, depth);
      atom_node = quantified(atom_node);
      n.children.push_back(atom_node);
    }
    if (n.children.size() == 1) return n.children[0];
    return add(std::move(n));
  }

  int quantified(int atom_node) {
    while (more()) {
      int min = 0, max = -1;
      const size_t start = i_;
      const char32_t c = peek();
      if (c == '?') { min = 0; max = 1; ++i_; }
      else if (c == '*') { min = 0; max = -1; ++i_; }
      else if (c == '+') { min = 1; max = -1; ++i_; }
      else if (c == '{') {
        if (!bounds(min, max)) { i_ = start; return atom_node; }  // a literal '{', as Oniguruma reads it
      } else {
        return atom_node;
      }
      const NodeKind kind = nodes_[static_cast<size_t>(atom_node)].kind;
      if (kind == NodeKind::Start || kind == NodeKind::End || kind == NodeKind::LookAhead) {
        fail(where() + "a quantifier after an anchor or lookahead is not supported");
      }
      bool greedy = true;
      if (more() && peek() == '?') { greedy = false; ++i_; }
      else if (more() && peek() == '+') fail(where() + "possessive quantifiers are not supported");
      Node n;
      n.kind = NodeKind::Repeat;
      n.children = {atom_node};
      n.min = min;
      n.max = max;
      n.greedy = greedy;
      atom_node = add(std::move(n));
    }
    return atom_node;
  }

  // {m}, {m,}, {m,n}, {,n}; false (nothing consumed) when the braces are not a quantifier.
  bool bounds(int& min, int& max) {
    size_t j = i_ + 1;
    auto number = [&](int& out) {
      const size_t from = j;
      int64_t v = 0;
      while (j < p_.size() && p_[j] >= '0' && p_[j] <= '9') {
        v = v * 10 + (p_[j] - '0');
        if (v > kMaxRepeat) fail(where() + "repetition count above " + std::to_string(kMaxRepeat));
        ++j;
      }
      out = static_cast<int>(v);
      return j > from;
    };
    // Ruby syntax (Oniguruma's default): {m}, {m,}, {m,n} and {,n} (0 to n).
    const bool has_min = number(min);
    if (!has_min) min = 0;
    max = min;
    if (j < p_.size() && p_[j] == ',') {
      ++j;
      if (!number(max)) {
        if (!has_min) return false;  // "{,}" is literal text
        max = -1;
      }
    } else if (!has_min) {
      return false;
    }
    if (j >= p_.size() || p_[j] != '}') return false;
    if (max >= 0 && max < min) fail(where() + "repetition {m,n} with n < m");
    i_ = j + 1;
    return true;
  }

  int atom(bool ignore_case, int depth) {
    const char32_t c = p_[i_];
    if (c == '(') return group(ignore_case, depth);
    if (c == '[') return add(set_node(char_class(ignore_case, depth)));
    if (c == '^' || c == '$') {
      ++i_;
      Node n;
      n.kind = c == '^' ? NodeKind::Start : NodeKind::End;
      return add(std::move(n));
    }
    if (c == '.') {
      ++i_;
      CharSet s;
      s.any_but_newline = true;
      return add(set_node(s));
    }
    if (c == '*' || c == '+' || c == '?') fail(where() + "a quantifier with nothing to repeat");
    CharSet s;
    s.ignore_case = ignore_case;
    if (c == '\\') {
      ++i_;
      if (!more()) fail(where() + "the pattern ends with a backslash");
      const char32_t e = peek();
      if (e == 'A' || e == 'z') {
        ++i_;
        Node n;
        n.kind = e == 'A' ? NodeKind::Start : NodeKind::End;
        return add(std::move(n));
      }
      s.items.push_back(escape());
    } else {
      ++i_;
      s.items.push_back(ClassItem{ClassItem::Kind::Range, false, c, c, 0});
    }
    return add(set_node(s));
  }

  static Node set_node(const CharSet& s) {
    Node n;
    n.kind = NodeKind::Set;
    n.set = s;
    return n;
  }

  int group(bool ignore_case, int depth) {
    ++i_;  // (
    bool look = false, negative = false;
    if (more() && peek() == '?') {
      ++i_;
      if (!more()) fail(where() + "unterminated group");
      const char32_t k = peek();
      if (k == ':') { ++i_; }
      else if (k == '=' || k == '!') { look = true; negative = k == '!'; ++i_; }
      else if (k == 'i' && i_ + 1 < p_.size() && p_[i_ + 1] == ':') { ignore_case = true; i_ += 2; }
      else if (k == '<' && i_ + 1 < p_.size() && (p_[i_ + 1] == '=' || p_[i_ + 1] == '!')) {
        fail(where() + "lookbehind (?<" + std::string(1, static_cast<char>(p_[i_ + 1])) + " is not supported");
      } else {
        fail(where() + "group syntax (?" + std::string(1, k < 128 ? static_cast<char>(k) : '?') + " is not supported");
      }
    }
    const int inner = alternation(ignore_case, depth + 1);
    if (!more() || peek() != ')') fail(where() + "missing ')'");
    ++i_;
    if (!look) return inner;
    Node n;
    n.kind = NodeKind::LookAhead;
    n.children = {inner};
    n.negative = negative;
    return add(std::move(n));
  }

  CharSet char_class(bool ignore_case, int depth) {
    ++i_;  // [
    CharSet s;
    s.ignore_case = ignore_case;
    if (more() && peek() == '^') { s.negated = true; ++i_; }
    bool first = true;
    while (true) {
      if (!more()) fail(where() + "missing ']'");
      const char32_t c = peek();
      if (c == ']' && !first) { ++i_; break; }
      first = false;
      if (c == '[') fail(where() + "nested character classes are not supported");
      if (c == '&' && i_ + 1 < p_.size() && p_[i_ + 1] == '&') fail(where() + "class intersection && is not supported");
      ClassItem item;
      if (c == '\\') {
        ++i_;
        if (!more()) fail(where() + "missing ']'");
        item = escape();
      } else {
        ++i_;
        item = ClassItem{ClassItem::Kind::Range, false, c, c, 0};
      }
      // a-b: a range between two single characters.
      if (item.kind == ClassItem::Kind::Range && item.lo == item.hi && i_ + 1 < p_.size() && peek() == '-' &&
          p_[i_ + 1] != ']') {
        ++i_;
        ClassItem hi;
        if (peek() == '\\') {
          ++i_;
          if (!more()) fail(where() + "missing ']'");
          hi = escape();
        } else {
          hi = ClassItem{ClassItem::Kind::Range, false, peek(), peek(), 0};
          ++i_;
        }
        if (hi.kind != ClassItem::Kind::Range || hi.lo != hi.hi) fail(where() + "a range must end in a single character");
        if (hi.lo < item.lo) fail(where() + "a range whose end is before its start");
        item.hi = hi.lo;
      }
      s.items.push_back(item);
    }
    (void)depth;
    return s;
  }

  // After the backslash: one escape as a class item.
  ClassItem escape() {
    const char32_t e = p_[i_++];
    auto single = [](char32_t cp) { return ClassItem{ClassItem::Kind::Range, false, cp, cp, 0}; };
    switch (e) {
      case 'r': return single('\r');
      case 'n': return single('\n');
      case 't': return single('\t');
      case 'f': return single('\f');
      case 'v': return single('\v');
      case 'a': return single('\a');
      case 'e': return single(0x1B);
      case '0': return single(0);
      case 's': case 'S': return ClassItem{ClassItem::Kind::Space, e == 'S', 0, 0, 0};
      case 'd': case 'D': return ClassItem{ClassItem::Kind::Digit, e == 'D', 0, 0, 0};
      case 'w': case 'W': return ClassItem{ClassItem::Kind::Word, e == 'W', 0, 0, 0};
      case 'p': case 'P': return property(e == 'P');
      case 'x': return single(hex_escape());
      case 'u': return single(hex_digits(4, 4));
      default: break;
    }
    if (e < 128 && !((e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (e >= '0' && e <= '9'))) return single(e);
    if (e >= 128) return single(e);
    fail(where() + "escape \\" + std::string(1, static_cast<char>(e)) + " is not supported");
  }

  char32_t hex_escape() {
    if (more() && peek() == '{') {
      ++i_;
      const char32_t cp = hex_digits(1, 8);
      if (!more() || peek() != '}') fail(where() + "missing '}' in \\x{...}");
      ++i_;
      return cp;
    }
    return hex_digits(1, 2);
  }

  char32_t hex_digits(size_t least, size_t most) {
    uint32_t v = 0;
    size_t n = 0;
    while (n < most && more()) {
      const char32_t h = peek();
      int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
      if (d < 0) break;
      v = v * 16 + static_cast<uint32_t>(d);
      ++i_;
      ++n;
    }
    if (n < least || v > 0x10FFFF) fail(where() + "bad hexadecimal escape");
    return v;
  }

  ClassItem property(bool negated) {
    std::string name;
    if (more() && peek() == '{') {
      ++i_;
      while (more() && peek() != '}') {
        if (peek() >= 128 || name.size() > 40) fail(where() + "bad \\p{...} name");
        name += static_cast<char>(peek());
        ++i_;
      }
      if (!more()) fail(where() + "missing '}' in \\p{...}");
      ++i_;
    } else if (more() && peek() < 128) {
      name = std::string(1, static_cast<char>(peek()));
      ++i_;
    }
    if (!name.empty() && name[0] == '^') {
      negated = !negated;
      name.erase(0, 1);
    }
    const uint32_t mask = category_mask(name);
    if (mask == 0) fail(where() + "Unicode property \\p{" + name + "} is not supported (general categories only)");
    return ClassItem{ClassItem::Kind::Categories, negated, 0, 0, mask};
  }

  std::u32string p_;
  std::vector<Node>& nodes_;
  size_t i_ = 0;
};

// A non-owning callable: the continuation "what must match after this node".
struct Cont {
  const void* object;
  bool (*call)(const void*, size_t);
  bool operator()(size_t pos) const { return call(object, pos); }
};
template <class F>
Cont cont(const F& f) {
  return Cont{&f, [](const void* o, size_t pos) { return (*static_cast<const F*>(o))(pos); }};
}

}  // namespace

struct RegexProgram {
  std::vector<Node> nodes;
  int root = 0;
};

namespace {

class Matcher {
 public:
  Matcher(const RegexProgram& program, const char32_t* text, size_t n)
      : nodes_(program.nodes), text_(text), n_(n), budget_(1'000'000 + 2000 * static_cast<uint64_t>(n)) {}

  bool match(int id, size_t pos, Cont k) {
    count_step();
    if (++depth_ > kMaxDepth) fail("a Split/Replace regex nests deeper than " + std::to_string(kMaxDepth) + " calls on this input");
    struct DepthGuard { size_t& d; ~DepthGuard() { --d; } } guard{depth_};
    const Node& node = nodes_[static_cast<size_t>(id)];
    switch (node.kind) {
      case NodeKind::Empty: return k(pos);
      case NodeKind::Set: return pos < n_ && set_matches(node.set, text_[pos]) && k(pos + 1);
      case NodeKind::Concat: return sequence(node, 0, pos, k);
      case NodeKind::Alt:
        for (int child : node.children) {
          if (match(child, pos, k)) return true;
        }
        return false;
      case NodeKind::Start: return pos == 0 && k(pos);
      case NodeKind::End: return pos == n_ && k(pos);
      case NodeKind::LookAhead: {
        const auto accept = [](size_t) { return true; };
        const bool found = match(node.children[0], pos, cont(accept));
        return found != node.negative && k(pos);
      }
      case NodeKind::Repeat: {
        const Node& body = nodes_[static_cast<size_t>(node.children[0])];
        if (body.kind == NodeKind::Set) return repeat_set(node, body.set, pos, k);
        return repeat(node, 0, pos, k);
      }
    }
    return false;
  }

 private:
  void count_step() {
    if (++steps_ > budget_) {
      fail("a Split/Replace regex backtracks too much on this input (more than " + std::to_string(budget_) + " steps)");
    }
  }

  bool sequence(const Node& node, size_t i, size_t pos, Cont k) {
    if (i == node.children.size()) return k(pos);
    const auto rest = [&](size_t p) { return sequence(node, i + 1, p, k); };
    return match(node.children[i], pos, cont(rest));
  }

  // A repeated single character: count the run once, then hand each length to k.
  bool repeat_set(const Node& node, const CharSet& set, size_t pos, Cont k) {
    const size_t limit = node.max < 0 ? n_ - pos : std::min(n_ - pos, static_cast<size_t>(node.max));
    size_t run = 0;
    while (run < limit && set_matches(set, text_[pos + run])) ++run;
    steps_ += run;
    const auto min = static_cast<size_t>(node.min);
    if (run < min) return false;
    if (node.greedy) {
      for (size_t c = run + 1; c-- > min;) {
        count_step();
        if (k(pos + c)) return true;
      }
    } else {
      for (size_t c = min; c <= run; ++c) {
        count_step();
        if (k(pos + c)) return true;
      }
    }
    return false;
  }

  // A repeated group: one iteration at a time; an iteration that matched nothing ends the loop.
  bool repeat(const Node& node, int count, size_t pos, Cont k) {
    const bool can_more = node.max < 0 || count < node.max;
    const auto again = [&](size_t p) { return p != pos && repeat(node, count + 1, p, k); };
    if (node.greedy) {
      if (can_more && match(node.children[0], pos, cont(again))) return true;
      return count >= node.min && k(pos);
    }
    if (count >= node.min && k(pos)) return true;
    return can_more && match(node.children[0], pos, cont(again));
  }

  const std::vector<Node>& nodes_;
  const char32_t* text_;
  size_t n_;
  uint64_t steps_ = 0;
  uint64_t budget_;
  size_t depth_ = 0;
};

}  // namespace

Regex Regex::compile(std::string_view pattern) {
  std::u32string cps;
  size_t i = 0;
  // The pattern is UTF-8 from JSON; decode it (invalid bytes cannot occur in parsed JSON).
  while (i < pattern.size()) {
    const auto b = static_cast<uint8_t>(pattern[i]);
    const size_t len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    char32_t cp = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
    for (size_t k = 1; k < len && i + k < pattern.size(); ++k) cp = (cp << 6) | (static_cast<uint8_t>(pattern[i + k]) & 0x3F);
    cps += cp;
    i += len;
  }
  if (cps.size() > kMaxPatternChars) fail("a Split/Replace regex longer than " + std::to_string(kMaxPatternChars) + " characters");
  auto program = std::make_shared<RegexProgram>();
  program->root = Parser(std::move(cps), program->nodes).parse();
  Regex r;
  r.program_ = std::move(program);
  return r;
}

Regex Regex::literal(const std::u32string& text) {
  auto program = std::make_shared<RegexProgram>();
  Node concat;
  concat.kind = NodeKind::Concat;
  for (char32_t cp : text) {
    Node n;
    n.kind = NodeKind::Set;
    n.set.items.push_back(ClassItem{ClassItem::Kind::Range, false, cp, cp, 0});
    program->nodes.push_back(std::move(n));
    concat.children.push_back(static_cast<int>(program->nodes.size() - 1));
  }
  program->nodes.push_back(std::move(concat));
  program->root = static_cast<int>(program->nodes.size() - 1);
  Regex r;
  r.program_ = std::move(program);
  return r;
}

std::vector<std::pair<size_t, size_t>> Regex::find_all(const char32_t* text, size_t n) const {
  std::vector<std::pair<size_t, size_t>> out;
  if (!program_) return out;
  Matcher matcher(*program_, text, n);
  size_t start = 0;
  while (start < n) {
    size_t end = 0;
    bool found = false;
    size_t s = start;
    for (; s < n; ++s) {
      const auto accept = [&](size_t p) { end = p; return true; };
      if (matcher.match(program_->root, s, cont(accept))) { found = true; break; }
    }
    if (!found) break;
    if (end == s) {  // an empty match: Oniguruma moves on one character
      start = s + 1;
      continue;
    }
    out.emplace_back(s, end);
    start = end;
  }
  return out;
}

}  // namespace attnscope::tok
