// The regex parser: recursive descent over the pattern's code points into regex_program.h's
// node tree, refusing (E_TOKENIZER, naming it) every construct the matcher does not implement.
#include "error.h"
#include "tokenizer/regex_program.h"

namespace attnscope::tok {
namespace {

[[noreturn]] void fail(const std::string& message) { throw Error("E_TOKENIZER", message); }

constexpr int kMaxNesting = 100;
constexpr int kMaxRepeat = 100000;

// General categories by their one- or two-letter names.
uint32_t category_mask(const std::string& name) {
  static const char* names[] = {"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe",
                                "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn"};
  uint32_t mask = 0;
  for (unsigned i = 0; i < 30; ++i) {
    const std::string n = names[i];
    if (n == name || (name.size() == 1 && n[0] == name[0])) mask |= 1u << i;
  }
  if (name == "L&" || name == "LC") mask = category_bit(Category::Lu) | category_bit(Category::Ll) | category_bit(Category::Lt);
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

}  // namespace

void parse_regex(std::u32string pattern, RegexProgram& program) {
  program.root = Parser(std::move(pattern), program.nodes).parse();
}

}  // namespace attnscope::tok
