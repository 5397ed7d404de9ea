# Learns the uncased WordPiece vocabulary from the training split only, the way Hugging Face's
# WordPieceTrainer does: BPE-style merges of the most frequent adjacent pair, where pieces that do
# not start a word carry the "##" prefix. Writes vocab.txt (one token per line, id = line number).
import heapq
import string
from collections import Counter, defaultdict

from brown import surface
from wordpiece import PREFIX, SPECIALS, basic_tokenize


def word_counts(sentences):
    """Pre-tokenized word frequencies. Tokenizing Brown word by word gives the same words as
    tokenizing the detokenized text (see brown.detokenize)."""
    counts = Counter()
    for sent in sentences:
        for word, _tag in sent:
            counts.update(basic_tokenize(surface(word)))
    return counts


def _initial_alphabet(counts):
    chars = set()
    for w in counts:
        chars.update(w)
    # Every printable ASCII character, lowercased, so that user text with a character Brown never
    # uses (e.g. '@', '~') still tokenizes instead of turning the whole word into [UNK].
    chars.update(c for c in string.printable.lower() if not c.isspace())
    singles = sorted(chars)
    return singles + [PREFIX + c for c in singles]


def learn(counts, vocab_size, min_pair_count=2):
    vocab = list(SPECIALS) + _initial_alphabet(counts)
    known = set(vocab)
    words = [[w[0]] + [PREFIX + c for c in w[1:]] for w in counts]
    freqs = list(counts.values())

    pair_count = Counter()
    where = defaultdict(set)  # pair → indices of words containing it
    for i, symbols in enumerate(words):
        for pair in zip(symbols, symbols[1:]):
            pair_count[pair] += freqs[i]
            where[pair].add(i)
    # Max-heap with lazy invalidation: a popped entry is used only if its count is still current.
    # Ties break on the pair's text, so the result is deterministic.
    heap = [(-c, p) for p, c in pair_count.items()]
    heapq.heapify(heap)

    while len(vocab) < vocab_size and heap:
        neg, pair = heapq.heappop(heap)
        if pair_count.get(pair, 0) != -neg:
            continue
        if -neg < min_pair_count:
            break
        a, b = pair
        merged = a + b[len(PREFIX):]
        if merged not in known:
            vocab.append(merged)
            known.add(merged)
        changed = set()
        for i in list(where[pair]):
            symbols, f = words[i], freqs[i]
            for p in zip(symbols, symbols[1:]):
                pair_count[p] -= f
                changed.add(p)
            out, j = [], 0
            while j < len(symbols):
                if j + 1 < len(symbols) and symbols[j] == a and symbols[j + 1] == b:
                    out.append(merged)
                    j += 2
                else:
                    out.append(symbols[j])
                    j += 1
            words[i] = out
            for p in zip(out, out[1:]):
                pair_count[p] += f
                where[p].add(i)
                changed.add(p)
        del pair_count[pair]
        where.pop(pair, None)
        for p in changed:
            c = pair_count.get(p, 0)
            if c > 0:
                heapq.heappush(heap, (-c, p))
            else:
                pair_count.pop(p, None)
    return vocab


def write_vocab(vocab, path):
    with open(path, "w", encoding="utf-8") as f:
        for token in vocab:
            f.write(token + "\n")
