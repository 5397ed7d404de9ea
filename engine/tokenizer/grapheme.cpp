// Grapheme cluster boundaries: UAX #29's rules GB3–GB13 between each pair of code points.
#include "tokenizer/grapheme.h"

#include <algorithm>

namespace attnscope::tok {

GraphemeBreak grapheme_break(char32_t cp) {
  const GraphemeRange* end = kGraphemeRanges + kGraphemeRangeCount;
  const GraphemeRange* it = std::upper_bound(kGraphemeRanges, end, cp,
                                             [](char32_t c, const GraphemeRange& r) { return c < r.first; });
  if (it == kGraphemeRanges) return GraphemeBreak::Other;
  --it;
  return cp <= it->last ? it->value : GraphemeBreak::Other;
}

size_t grapheme_end(const char32_t* text, size_t begin, size_t size) {
  using B = GraphemeBreak;
  B prev = grapheme_break(text[begin]);
  bool pictographic_then_extends = prev == B::ExtendedPictographic;  // GB11's ExtPict Extend*
  size_t regional_run = prev == B::RegionalIndicator ? 1 : 0;
  size_t i = begin + 1;
  for (; i < size; ++i) {
    const B cur = grapheme_break(text[i]);
    bool join;
    if (prev == B::CR && cur == B::LF) join = true;                                               // GB3
    else if (prev == B::CR || prev == B::LF || prev == B::Control) join = false;                  // GB4
    else if (cur == B::CR || cur == B::LF || cur == B::Control) join = false;                     // GB5
    else if (prev == B::L && (cur == B::L || cur == B::V || cur == B::LV || cur == B::LVT)) join = true;  // GB6
    else if ((prev == B::LV || prev == B::V) && (cur == B::V || cur == B::T)) join = true;        // GB7
    else if ((prev == B::LVT || prev == B::T) && cur == B::T) join = true;                        // GB8
    else if (cur == B::Extend || cur == B::ZWJ || cur == B::SpacingMark) join = true;             // GB9, GB9a
    else if (prev == B::Prepend) join = true;                                                      // GB9b
    else if (prev == B::ZWJ && cur == B::ExtendedPictographic && pictographic_then_extends) join = true;  // GB11
    else if (prev == B::RegionalIndicator && cur == B::RegionalIndicator) join = regional_run % 2 == 1;  // GB12/13
    else join = false;                                                                             // GB999
    if (!join) break;
    // GB11's state: an ExtPict followed by Extends only, then possibly one ZWJ.
    if (cur == B::ExtendedPictographic) pictographic_then_extends = true;
    else if (cur != B::Extend && !(cur == B::ZWJ && prev != B::ZWJ)) pictographic_then_extends = false;
    if (prev == B::ZWJ && cur != B::ExtendedPictographic) pictographic_then_extends = false;
    regional_run = cur == B::RegionalIndicator ? regional_run + 1 : 0;
    prev = cur;
  }
  return i;
}

}  // namespace attnscope::tok
