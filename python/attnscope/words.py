"""Word-level attention, as js/analysis/words.js computes it for a figure's `words` and `wordAttentions`:
sub-word tokens merged into the words of the text (Clark et al. 2019): attention to a word is the
sum over its pieces' columns, from a word the mean of its pieces' rows. Offsets here are Python
string indices (what a transformers tokenizer's offset_mapping holds); the figure converts them
to UTF-16, the unit the element's JavaScript indexes with.
"""
from array import array

# JavaScript's \s (ECMAScript WhiteSpace and LineTerminator), which js/analysis/words.js splits on; Python's
# str.isspace() differs (it includes U+001C..U+001F, excludes U+FEFF).
_JS_SPACE = set("\t\n\v\f\r \u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff") | {chr(c) for c in range(0x2000, 0x200B)}


def _is_space(char):
    return char is not None and char in _JS_SPACE


def find_words(tokens, token_texts, offsets, special_tokens_mask, text):
    """[{text, start, end, tokens}]: a word is a maximal run of tokens whose spans touch with no
    whitespace between; a special token, or one without a span, is a word of its own."""
    at = lambda i: text[i] if 0 <= i < len(text) else None  # noqa: E731 (js: text[i] is undefined out of range)
    label_of = lambda t: token_texts[t] if token_texts is not None else tokens[t]  # noqa: E731
    words, current = [], None
    for t, (start, end) in enumerate(offsets):
        if special_tokens_mask[t] == 1 or end <= start:
            words.append({"text": label_of(t), "start": start, "end": end, "tokens": [t]})
            current = None
            continue
        if current is not None and start <= current["end"] and not _is_space(at(start)) \
                and not _is_space(at(current["end"] - 1)):
            current["tokens"].append(t)
            current["end"] = max(current["end"], end)
        else:
            current = {"start": start, "end": end, "tokens": [t]}
            words.append(current)
    merged = []
    for word in words:
        if "text" in word:
            merged.append(word)
            continue
        start = word["start"]
        while start < word["end"] and _is_space(at(start)):  # a byte-level token's leading space
            start += 1
        label = text[start:word["end"]] or "".join(label_of(t) for t in word["tokens"])
        merged.append({"text": label, "start": start, "end": word["end"], "tokens": word["tokens"]})
    return merged


def merge_head(matrix, words, T):
    """One head's T*T row-major values as W*W: row a the mean of a's pieces' rows, column b the sum
    of b's pieces' columns. Accumulated in float32, as the JavaScript's Float32Array does, so the
    rounded figure is the same number for number."""
    W = len(words)
    word_of = [0] * T
    for w, word in enumerate(words):
        for t in word["tokens"]:
            word_of[t] = w
    out = array("f", bytes(4 * W * W))
    for a, word in enumerate(words):
        base = a * W
        for i in word["tokens"]:
            for j in range(T):
                out[base + word_of[j]] += matrix[i * T + j]
        for b in range(W):
            out[base + b] /= len(word["tokens"])
    return out.tolist()
