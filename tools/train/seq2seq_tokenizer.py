# The encoder-decoder's tokenizer and encoded examples. One uncased WordPiece vocabulary, learned on
# the training split's words (learn_vocab.learn, as the bundled BERT's), shared by source and target
# so a copied word keeps its ids; written as a Hugging Face tokenizer.json the engine reads
# (BertNormalizer, BertPreTokenizer, WordPiece, TemplateProcessing "$A </s>"), with T5's special
# tokens: <pad> = 0 (also decoder_start_token_id), </s> = 1, <unk> = 2.
#
# Token alignment: a Brown word tokenizes to the same pieces in source and target, so target piece k
# of word j comes from source piece k of word perm[j]; the target's </s> comes from the source's.
# Indices count the source tokens as `attnscope tokenize` gives them (the trailing </s> included).
#   python3 seq2seq_tokenizer.py WORK [VOCAB_SIZE]  (reads WORK/{train,held_out}_words.jsonl and
#   the training-only WORK/train_{windows,unmoved,substituted}_words.jsonl from seq2seq_data.py; writes
#   WORK/tokenizer/tokenizer.json, WORK/{train,held_out}.jsonl; the vocabulary comes from the whole
#   training sentences where the rule moved something, as it did before the training-only files existed)
import json
import os
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(__file__))
import brown  # noqa: E402
import learn_vocab  # noqa: E402
from wordpiece import SPECIALS, WordPiece, basic_tokenize  # noqa: E402

T5_SPECIALS = ["<pad>", "</s>", "<unk>"]
PAD, EOS, UNK = 0, 1, 2
MAX_SOURCE_TOKENS = 64  # with </s>


class SharedWordPiece(WordPiece):
    def __init__(self, vocab):
        self.vocab = list(vocab)
        self.ids = {t: i for i, t in enumerate(self.vocab)}
        self.unk_id = UNK
        self._cache = {}

    def word_pieces(self, brown_word):
        """Ids of one Brown word (it may be several pre-tokenized words: "don't" → don ' t)."""
        return [i for w in basic_tokenize(brown.surface(brown_word)) for i in self.word_ids(w)]

    def encode_text(self, text):
        """As the tokenizer.json does it: pieces of the text, then </s>."""
        return [i for w in basic_tokenize(text) for i in self.word_ids(w)] + [EOS]


def learn(train_examples, vocab_size):
    counts = Counter()
    for e in train_examples:
        for w in e["words"]:
            counts.update(basic_tokenize(brown.surface(w)))
    learned = learn_vocab.learn(counts, vocab_size + len(SPECIALS) - len(T5_SPECIALS))
    assert learned[:len(SPECIALS)] == SPECIALS
    return T5_SPECIALS + learned[len(SPECIALS):]


def tokenizer_json(vocab):
    added = [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for i, t in enumerate(T5_SPECIALS)]
    seq = {"Sequence": {"id": "A", "type_id": 0}}
    eos = {"SpecialToken": {"id": "</s>", "type_id": 0}}
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {"type": "TemplateProcessing", "single": [seq, eos],
                           "pair": [seq, eos, {"Sequence": {"id": "B", "type_id": 0}}, eos],
                           "special_tokens": {"</s>": {"id": "</s>", "ids": [EOS], "tokens": ["</s>"]}}},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "<unk>", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": {t: i for i, t in enumerate(vocab)}},
    }


def encode(e, wp):
    """{"source", "target", "alignment", "src_ids", "tgt_ids"} or None when the text does not
    tokenize back into the word-by-word pieces or is too long."""
    pieces = [wp.word_pieces(w) for w in e["words"]]
    starts, at = [], 0
    for p in pieces:
        starts.append(at)
        at += len(p)
    src_ids = [i for p in pieces for i in p] + [EOS]
    tgt_ids, alignment = [], []
    for j in e["perm"]:
        tgt_ids += pieces[j]
        alignment += [starts[j] + k for k in range(len(pieces[j]))]
    tgt_ids.append(EOS)
    alignment.append(len(src_ids) - 1)
    source = brown.detokenize(e["words"])
    target = brown.detokenize([e["words"][j] for j in e["perm"]])
    if wp.encode_text(source) != src_ids or wp.encode_text(target) != tgt_ids or len(src_ids) > MAX_SOURCE_TOKENS:
        return None
    return {"source": source, "target": target, "alignment": alignment, "src_ids": src_ids, "tgt_ids": tgt_ids}


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


TRAINING_ONLY = ("train_windows_words", "train_unmoved_words", "train_substituted_words")  # seq2seq_data.py's extra training pairs


def main():
    work = sys.argv[1]
    vocab_size = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
    train = read_jsonl(os.path.join(work, "train_words.jsonl"))
    vocab = learn(train, vocab_size)
    os.makedirs(os.path.join(work, "tokenizer"), exist_ok=True)
    with open(os.path.join(work, "tokenizer", "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer_json(vocab), f, ensure_ascii=False)
    with open(os.path.join(work, "tokenizer", "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump({"tokenizer_class": "PreTrainedTokenizerFast", "do_lower_case": True, "model_max_length": 512,
                   "pad_token": "<pad>", "eos_token": "</s>", "unk_token": "<unk>"}, f, indent=2)
    wp = SharedWordPiece(vocab)
    for split in ("train", "held_out"):
        exs = read_jsonl(os.path.join(work, f"{split}_words.jsonl"))
        if split == "train":
            for extra in TRAINING_ONLY:
                path = os.path.join(work, f"{extra}.jsonl")
                if os.path.exists(path):
                    exs += read_jsonl(path)
        enc = [x for x in (encode(e, wp) for e in exs) if x is not None]
        n_src = sum(len(x["src_ids"]) for x in enc)
        unk = sum(x["src_ids"].count(UNK) for x in enc)
        diag = sum(a == i for x in enc for i, a in enumerate(x["alignment"]))
        n_tgt = sum(len(x["alignment"]) for x in enc)
        print(f"{split}: {len(enc)} of {len(exs)} sentences encoded, {n_src} source tokens ({unk} <unk>), "
              f"{n_src / len(enc):.1f} per sentence; {diag / n_tgt:.1%} of target tokens on the diagonal")
        with open(os.path.join(work, f"{split}.jsonl"), "w", encoding="utf-8") as f:
            for x in enc:
                f.write(json.dumps(x, ensure_ascii=False) + "\n")
    print(f"vocabulary {len(vocab)} → {os.path.join(work, 'tokenizer', 'tokenizer.json')}")


if __name__ == "__main__":
    main()
