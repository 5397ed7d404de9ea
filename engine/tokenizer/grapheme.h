// Extended grapheme clusters (Unicode's UAX #29, the rules of Rust's unicode-segmentation that
// tokenizers' Precompiled normalizer walks by): where one user-perceived character ends. The
// Indic conjunct rule GB9c (Unicode 15.1) is not applied: the tables are Unicode 15.0, and a
// cluster it would join is at least 6 bytes, which Precompiled treats character by character.
#pragma once
#include <cstddef>
#include <cstdint>

namespace attnscope::tok {

// Must stay in the order of VALUES in tools/unicode/gen_grapheme_tables.mjs.
enum class GraphemeBreak : uint8_t {
  Other, CR, LF, Control, Extend, ZWJ, RegionalIndicator, Prepend, SpacingMark, L, V, T, LV, LVT,
  ExtendedPictographic
};

struct GraphemeRange {
  char32_t first, last;
  GraphemeBreak value;
};
extern const GraphemeRange kGraphemeRanges[];
extern const size_t kGraphemeRangeCount;

GraphemeBreak grapheme_break(char32_t cp);

// The end of the cluster that starts at text[begin] (begin < size).
size_t grapheme_end(const char32_t* text, size_t begin, size_t size);

}  // namespace attnscope::tok
