# Learns the causal model's byte-level BPE from pre-tokenized Brown training words (bpe_words.mjs)
# and writes it as Hugging Face files: tokenizer.json (what @huggingface/tokenizers and
# transformers' GPT2TokenizerFast load), vocab.json + merges.txt (GPT2Tokenizer's slow files).
# Ids: the 256 byte symbols in GPT-2's bytes_to_unicode order, then one id per merge in merge
# order, then <|endoftext|> last (as GPT-2 does). Deterministic: each step merges the most
# frequent adjacent pair; ties go to the smallest (left, right) in code-point order.
import heapq
import json
import os
import sys
import time
from collections import defaultdict

EOT = "<|endoftext|>"


def bytes_to_unicode():
    """GPT-2's table: byte → a visible character (printable Latin-1 bytes map to themselves)."""
    printable = list(range(0x21, 0x7f)) + list(range(0xa1, 0xad)) + list(range(0xae, 0x100))
    table, extra = {}, 0
    for b in range(256):
        if b in printable:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return table


def base_symbols():
    """The 256 byte symbols in GPT-2's id order: printable bytes first, then the remapped ones."""
    table = bytes_to_unicode()
    printable = [b for b in range(256) if table[b] == chr(b)]
    return [table[b] for b in printable] + [table[b] for b in range(256) if table[b] != chr(b)]


def learn(word_counts, num_merges, min_count=2):
    """word_counts: {byte-level word: count} → list of (left, right) merges in order."""
    words = [list(w) for w in word_counts]
    counts = list(word_counts.values())
    pair_count = defaultdict(int)
    pair_words = defaultdict(set)  # pair → indices of words that (may) contain it
    for i, w in enumerate(words):
        for a, b in zip(w, w[1:]):
            pair_count[(a, b)] += counts[i]
            pair_words[(a, b)].add(i)
    heap = [(-c, a, b) for (a, b), c in pair_count.items()]
    heapq.heapify(heap)
    merges = []
    while len(merges) < num_merges and heap:
        neg, a, b = heapq.heappop(heap)
        if pair_count.get((a, b), 0) != -neg:
            continue  # stale entry: the count changed since it was pushed
        if -neg < min_count:
            break
        merges.append((a, b))
        merged = a + b
        changed = set()
        for i in pair_words.pop((a, b)):
            w = words[i]
            if len(w) < 2:
                continue
            for p in zip(w, w[1:]):  # take the word's old pairs out ...
                pair_count[p] -= counts[i]
                changed.add(p)
            out, j = [], 0
            while j < len(w):
                if j + 1 < len(w) and w[j] == a and w[j + 1] == b:
                    out.append(merged)
                    j += 2
                else:
                    out.append(w[j])
                    j += 1
            words[i] = out
            for p in zip(out, out[1:]):  # ... and its new pairs in
                pair_count[p] += counts[i]
                pair_words[p].add(i)
                changed.add(p)
        pair_count.pop((a, b), None)
        for p in changed:
            c = pair_count.get(p, 0)
            if c > 0:
                heapq.heappush(heap, (-c, p[0], p[1]))
            else:
                pair_count.pop(p, None)
    return merges


def vocabulary(merges):
    vocab = {}
    for s in base_symbols():
        vocab[s] = len(vocab)
    for a, b in merges:
        if a + b in vocab:
            raise ValueError(f"merge {a} {b} makes an existing token")
        vocab[a + b] = len(vocab)
    vocab[EOT] = len(vocab)
    return vocab


def tokenizer_json(vocab, merges):
    """As transformers' GPT2TokenizerFast saves GPT-2's tokenizer.json."""
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": vocab[EOT], "content": EOT, "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": True, "special": True}],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False,
                  "vocab": vocab, "merges": [f"{a} {b}" for a, b in merges]},
    }


def tokenizer_config(max_len):
    return {"add_prefix_space": False, "bos_token": EOT, "eos_token": EOT, "unk_token": EOT,
            "model_max_length": max_len, "tokenizer_class": "GPT2Tokenizer",
            "clean_up_tokenization_spaces": False}


def write(out_dir, vocab, merges, max_len):
    os.makedirs(out_dir, exist_ok=True)

    def dump(name, obj, indent=None):
        with open(os.path.join(out_dir, name), "w", encoding="utf-8") as f:
            json.dump(obj, f, ensure_ascii=False, indent=indent)
            f.write("\n")
    dump("tokenizer.json", tokenizer_json(vocab, merges))
    dump("vocab.json", vocab)
    dump("tokenizer_config.json", tokenizer_config(max_len), indent=2)
    with open(os.path.join(out_dir, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n")
        for a, b in merges:
            f.write(f"{a} {b}\n")


def main():
    words_path, out_dir, vocab_size = sys.argv[1], sys.argv[2], int(sys.argv[3])
    max_len = int(sys.argv[4]) if len(sys.argv) > 4 else 256
    with open(words_path, encoding="utf-8") as f:
        word_counts = json.load(f)
    t0 = time.time()
    merges = learn(word_counts, vocab_size - 256 - 1)
    vocab = vocabulary(merges)
    write(out_dir, vocab, merges, max_len)
    print(f"bpe: {len(merges)} merges, vocabulary {len(vocab)} in {time.time() - t0:.1f} s; "
          f"first merges {merges[:5]}, last {merges[-3:]}")


if __name__ == "__main__":
    main()
