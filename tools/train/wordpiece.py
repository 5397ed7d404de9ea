# BERT tokenization in Python, as Hugging Face's BertNormalizer → BertPreTokenizer → WordPiece do
# it (uncased: clean text, pad CJK ideographs, strip accents, lowercase; split on whitespace and
# punctuation; greedy longest-match WordPiece). Used for training data, evaluation and fixtures.
# It is checked against @huggingface/tokenizers by tools/train/check_tokenizer.mjs.
import re
import unicodedata

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
PREFIX = "##"
MAX_CHARS_PER_WORD = 100


def _is_control(ch):
    if ch in "\t\n\r":
        return False
    return unicodedata.category(ch) in ("Cc", "Cf")


def _is_whitespace(ch):
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def _is_punctuation(ch):
    cp = ord(ch)
    # BERT treats every non-alphanumeric ASCII character as punctuation ($, ^, ` included).
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp):
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF
            or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def normalize(text):
    """BertNormalizer(clean_text, handle_chinese_chars, strip_accents=lowercase=True)."""
    out = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or _is_control(ch):
            continue
        if _is_whitespace(ch):
            out.append(" ")
        elif _is_cjk(cp):
            out.append(f" {ch} ")
        else:
            out.append(ch)
    text = unicodedata.normalize("NFD", "".join(out))
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Mn")
    return text.lower()


def pre_tokenize(normalized):
    """BertPreTokenizer: split on whitespace, each punctuation character its own word."""
    words, current = [], []
    for ch in normalized:
        if _is_whitespace(ch):
            if current:
                words.append("".join(current))
                current = []
        elif _is_punctuation(ch):
            if current:
                words.append("".join(current))
                current = []
            words.append(ch)
        else:
            current.append(ch)
    if current:
        words.append("".join(current))
    return words


def basic_tokenize(text):
    return pre_tokenize(normalize(text))


class WordPiece:
    """Greedy longest-match-first WordPiece over a vocab list (id = index)."""

    def __init__(self, vocab):
        self.vocab = list(vocab)
        self.ids = {t: i for i, t in enumerate(self.vocab)}
        self.unk_id = self.ids["[UNK]"]
        self._cache = {}

    @classmethod
    def from_file(cls, path):
        with open(path, encoding="utf-8") as f:
            return cls([line.rstrip("\n") for line in f])

    def word_ids(self, word):
        """Ids of one pre-tokenized word; a word with any unmatched piece becomes one [UNK]."""
        cached = self._cache.get(word)
        if cached is not None:
            return cached
        if len(word) > MAX_CHARS_PER_WORD:
            result = [self.unk_id]
        else:
            result, start = [], 0
            while start < len(word):
                end, found = len(word), None
                while end > start:
                    piece = word[start:end] if start == 0 else PREFIX + word[start:end]
                    found = self.ids.get(piece)
                    if found is not None:
                        break
                    end -= 1
                if found is None:
                    result = [self.unk_id]
                    break
                result.append(found)
                start = end
        self._cache[word] = result
        return result

    _SPECIAL_RE = re.compile("(" + "|".join(re.escape(t) for t in SPECIALS) + ")")

    def encode_words(self, text):
        """Ids for raw text, without [CLS]/[SEP]. Special tokens written in the text (exactly,
        e.g. "[MASK]") are split out first and kept whole, as HF's added tokens are."""
        ids = []
        for i, part in enumerate(self._SPECIAL_RE.split(text)):
            if i % 2 == 1:
                ids.append(self.ids[part])
                continue
            for w in basic_tokenize(part):
                ids.extend(self.word_ids(w))
        return ids

    def encode(self, text, pair=None):
        """[CLS] A [SEP] (B [SEP]) → (ids, token_type_ids), like HF's BERT template."""
        cls, sep = self.ids["[CLS]"], self.ids["[SEP]"]
        a = self.encode_words(text)
        ids, types = [cls] + a + [sep], [0] * (len(a) + 2)
        if pair is not None:
            b = self.encode_words(pair)
            ids += b + [sep]
            types += [1] * (len(b) + 1)
        return ids, types
