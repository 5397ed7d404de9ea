// The regex matcher of regex.h: backtracking over regex_program.h's node tree with
// continuations. A quantified single character (the \p{L}+ and \s+ of every real pre-tokenizer
// pattern) is matched by a loop, not recursion, so long words cost no stack.
#include "tokenizer/regex.h"

#include <algorithm>

#include "error.h"
#include "tokenizer/regex_program.h"

namespace attnscope::tok {
namespace {

[[noreturn]] void fail(const std::string& message) { throw Error("E_TOKENIZER", message); }

constexpr size_t kMaxPatternChars = 2000;   // real pre-tokenizer patterns are a few hundred
constexpr size_t kMaxDepth = 2000;  // nested calls while matching: bounds the stack

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
    case ClassItem::Kind::Categories: in = (item.categories & category_bit(general_category(cp))) != 0; break;
    case ClassItem::Kind::Space: in = is_white_space(cp); break;
    case ClassItem::Kind::Digit: in = general_category(cp) == Category::Nd; break;
    case ClassItem::Kind::Word: {
      const uint32_t word = category_bit(Category::Lu) | category_bit(Category::Ll) | category_bit(Category::Lt) | category_bit(Category::Lm) |
                            category_bit(Category::Lo) | category_bit(Category::Mn) | category_bit(Category::Mc) | category_bit(Category::Me) |
                            category_bit(Category::Nd) | category_bit(Category::Pc);
      in = (word & category_bit(general_category(cp))) != 0;
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

class Matcher {
 public:
  Matcher(const RegexProgram& program, const char32_t* text, size_t n)
      : nodes_(program.nodes), text_(text), n_(n), budget_(100'000 + 1000 * static_cast<uint64_t>(n)) {}

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
  parse_regex(std::move(cps), *program);
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

namespace {

bool white_space_only(const CharSet& set) {
  if (set.negated || set.any_but_newline) return false;
  for (const ClassItem& item : set.items) {
    if (item.negated) return false;
    if (item.kind == ClassItem::Kind::Space) continue;
    if (item.kind != ClassItem::Kind::Range || item.hi - item.lo > 64) return false;
    for (char32_t c = item.lo; c <= item.hi; ++c) {
      if (!is_white_space(c)) return false;
    }
  }
  return true;
}

bool white_space_only(const RegexProgram& program, int node) {
  const Node& n = program.nodes[static_cast<size_t>(node)];
  switch (n.kind) {
    case NodeKind::Empty: return true;
    case NodeKind::Set: return white_space_only(n.set);
    case NodeKind::Concat:
    case NodeKind::Alt:
    case NodeKind::Repeat:
      return std::all_of(n.children.begin(), n.children.end(), [&](int c) { return white_space_only(program, c); });
    case NodeKind::LookAhead:
    case NodeKind::Start:
    case NodeKind::End:
      return false;
  }
  return false;
}

}  // namespace

bool Regex::matches_only_white_space() const { return program_ && white_space_only(*program_, program_->root); }

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
