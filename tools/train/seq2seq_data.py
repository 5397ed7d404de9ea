# The encoder-decoder's task, built from the Brown corpus and its POS tags: English rewritten into
# subject-object-verb order (the order of Korean or Japanese), so each target word comes from a
# known source word and the alignment crosses instead of running down the diagonal.
#
# The rule (deterministic, per clause):
#   1. A sentence is cut into clauses at boundary tokens: punctuation (tags . , : -- ( ) `` '' ')
#      and words that open a new clause (tags cc, cs and the wh-words wdt wps wpo wp$ wql wrb).
#      Boundary tokens stay where they are.
#   2. In each clause, the verb group is the first run of verbal tokens (tags vb*, be*, hv*, do*,
#      md*) that does not start with a gerund (vbg: "in learning work" is a noun phrase), extended
#      to the last verbal token reachable through adverbs (rb*) and "not" (*), so "has not yet
#      been" moves as one piece.
#   3. The verb group moves to the end of its clause when a nominal (nn* np* pp* ex cd) precedes it
#      in the clause (the subject) and a nominal follows it (the object or complement).
#   "The jury said Friday an investigation produced no evidence" → clause cut at nothing, verb
#   group "said" moves to the clause end: "the jury Friday an investigation produced no evidence
#   said" (only the FIRST verb group of a clause moves; "produced" stays).
# A sentence is kept when the rule moved at least one verb group, it has 5-30 words, and its
# detokenized text tokenizes back into the same words (see seq2seq_tokenizer.py).
# The split is brown.split_files(): held-out documents (every 10th file) are never trained on.
# Training also gets windows of the longer training sentences (windows()): the rule is per clause,
# so a run of whole clauses cut after punctuation is rewritten exactly as inside its sentence; they
# add ~40% more pairs and are written apart (train_windows_words.jsonl), so the vocabulary is still
# learned on whole sentences only. So are the training sentences where the rule moves nothing
# (train_unmoved_words.jsonl: target = source): a model that only ever saw moves moved verb groups
# the rule leaves alone ("the streetcar was late": an adjective is no object), in half of such
# held-out sentences.
# And copies of all those pairs whose open-class words are swapped for others the training documents
# tag the same way (substituted()): the rule reads tags only, so each copy's rewrite is exact, and the
# model meets its verbs and nominals in new company (it must read a word's role from its context, not
# remember the sentence) and copies rare words' pieces in every position; some of the swapped-in
# words are made up (made_up()), so it also copies piece sequences no training word has.
import json
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
import brown  # noqa: E402

MIN_WORDS, MAX_WORDS = 5, 30
SUBSTITUTED_COPIES = 3
BOUNDARY_TAGS = {".", ",", ":", "--", "(", ")", "``", "''", "'", "cc", "cs",
                 "wdt", "wps", "wpo", "wp$", "wql", "wrb"}
VERB_PREFIXES = ("vb", "be", "hv", "do", "md")
NOMINAL_PREFIXES = ("nn", "np", "pp", "ex", "cd")


def base_tag(tag):
    """Brown's tag without its -hl/-tl/-nc suffixes: 'nn-tl' → 'nn', 'ber*' stays 'ber*'."""
    if tag in ("--",):
        return tag
    return tag.split("-")[0] if not tag.startswith("-") else tag


def is_verbal(tag):
    t = base_tag(tag).rstrip("*")
    return t.startswith(VERB_PREFIXES)


def is_adverbial(tag):
    t = base_tag(tag)
    return t == "*" or t.startswith("rb")


def is_nominal(tag):
    return base_tag(tag).startswith(NOMINAL_PREFIXES)


def is_boundary(tag):
    return base_tag(tag) in BOUNDARY_TAGS


def clauses(tags):
    """[(start, end)] half-open spans of the clauses between boundary tokens."""
    spans, start = [], 0
    for i, tag in enumerate(tags):
        if is_boundary(tag):
            if i > start:
                spans.append((start, i))
            start = i + 1
    if start < len(tags):
        spans.append((start, len(tags)))
    return spans


def verb_group(tags, start, end):
    """(g0, g1) half-open span of the clause's first verb group, or None."""
    for i in range(start, end):
        if is_verbal(tags[i]) and not base_tag(tags[i]).startswith("vbg"):
            last, j = i, i + 1
            while j < end and (is_verbal(tags[j]) or is_adverbial(tags[j])):
                if is_verbal(tags[j]):
                    last = j
                j += 1
            return i, last + 1
    return None


def reorder(tags):
    """The SOV permutation: perm[j] = the source index of target word j; and how many verb groups
    moved. Boundary tokens keep their positions."""
    perm = list(range(len(tags)))
    moved = 0
    for start, end in clauses(tags):
        g = verb_group(tags, start, end)
        if g is None:
            continue
        g0, g1 = g
        if g1 >= end or not any(is_nominal(t) for t in tags[start:g0]) \
                or not any(is_nominal(t) for t in tags[g1:end]):
            continue
        perm[start:end] = list(range(start, g0)) + list(range(g1, end)) + list(range(g0, g1))
        moved += 1
    return perm, moved


PUNCTUATION_TAGS = {".", ",", ":", "--", ")", "''", "'"}  # a window never ends on an opening quote or bracket


def windows(tags):
    """[(start, end)] spans of a sentence longer than MAX_WORDS, cut after closing punctuation into runs of
    MIN_WORDS-MAX_WORDS words (pieces longer than that on their own are skipped)."""
    cuts = [i + 1 for i, t in enumerate(tags[:-1]) if base_tag(t) in PUNCTUATION_TAGS] + [len(tags)]
    spans, start, prev = [], 0, 0
    for cut in cuts:
        if cut - start > MAX_WORDS:
            if MIN_WORDS <= prev - start:
                spans.append((start, prev))
            start = prev if cut - prev <= MAX_WORDS else cut
        prev = cut
    if MIN_WORDS <= len(tags) - start <= MAX_WORDS:
        spans.append((start, len(tags)))
    return spans


def window_examples(files):
    """Per window of a long sentence where the rule moves something: as examples() gives them."""
    out = []
    for name in files:
        for sent in brown.read_sentences(name):
            if len(sent) <= MAX_WORDS:
                continue
            for start, end in windows([t for _, t in sent]):
                e = rewritten(name, sent[start:end])
                if e["moved"]:
                    out.append(e)
    return out


def rewritten(name, sent):
    """{"doc", "words", "tags", "perm", "moved"} of a (word, tag) list ("moved" 0 where the rule
    moves nothing: perm is then the identity)."""
    tags = [t for _, t in sent]
    perm, moved = reorder(tags)
    return {"doc": name, "words": [w for w, _ in sent], "tags": tags, "perm": perm, "moved": moved}


def examples(files):
    """The sentences of MIN_WORDS-MAX_WORDS words, each {"doc", "words", "tags", "perm", "moved"}:
    (those where the rule moved something, those where it moved nothing, how many were too short or
    too long)."""
    moved, unmoved, wrong_length = [], [], 0
    for name in files:
        for sent in brown.read_sentences(name):
            if not MIN_WORDS <= len(sent) <= MAX_WORDS:
                wrong_length += 1
                continue
            e = rewritten(name, sent)
            (moved if e["moved"] else unmoved).append(e)
    return moved, unmoved, wrong_length


SUBSTITUTABLE_PREFIXES = ("nn", "np", "jj", "vb", "rb", "cd")  # open classes; be/hv/do/md stay
SUBSTITUTE_P = 0.25  # per open-class word of a copy
# Of those substitutes, the share that are made-up words: one same-tag word's start joined to
# another's end ("chase" + "raised" → "chaised"). Real words alone leave unseen forms unseen ("chased"
# is in no training pair, and the eighth run dropped its first piece when it moved); made-up ones
# make the model copy piece sequences it has never met, which is all a new word asks of it.
MADE_UP_P = 0.3
PLAIN_WORD = re.compile(r"^(?:[A-Za-z]+|[0-9]+)$")  # replacements the detokenizer treats as words


def tag_lexicon(files):
    """{Brown tag: [word, ... one per occurrence]} of the plain words the documents tag so."""
    lexicon = {}
    for name in files:
        for sent in brown.read_sentences(name):
            for w, t in sent:
                if PLAIN_WORD.match(w) and base_tag(t).startswith(SUBSTITUTABLE_PREFIXES):
                    lexicon.setdefault(t, []).append(w)
    return lexicon


def substituted(exs, lexicon, copies, seed=0):
    """copies of every example whose open-class words are each, with probability SUBSTITUTE_P, swapped
    for a word the lexicon has under the same tag (half the time drawn by frequency, half by type, so
    rare words come up) or, MADE_UP_P of the time, for a made-up word joined from two of them. Tags,
    perm and moved are the original's: the rule reads tags only."""
    rng = random.Random(seed)
    types = {t: sorted(set(ws)) for t, ws in lexicon.items()}

    def draw(t):
        return rng.choice(lexicon[t] if rng.random() < 0.5 else types[t])

    out = []
    for _ in range(copies):
        for e in exs:
            words = list(e["words"])
            for i, t in enumerate(e["tags"]):
                if t in lexicon and rng.random() < SUBSTITUTE_P:
                    words[i] = made_up(draw(t), draw(t), rng) if rng.random() < MADE_UP_P else draw(t)
            out.append({**e, "words": words})
    return out


def made_up(head, tail, rng):
    """head's first 1..len characters joined to tail's last 1..len ones; head itself when the join
    would not be a plain word (letters meeting digits)."""
    word = head[:rng.randint(1, len(head))] + tail[rng.randint(0, len(tail) - 1):]
    return word if PLAIN_WORD.match(word) else head


def texts(ex):
    """(source text, target text) as a user would type them."""
    return brown.detokenize(ex["words"]), brown.detokenize([ex["words"][i] for i in ex["perm"]])


def main():
    train_files, held_files = brown.split_files()
    splits = {}
    for split, files in (("train", train_files), ("held_out", held_files)):
        exs, unmoved, wrong_length = examples(files)
        splits[split] = exs, unmoved
        crossing = sum(1 for e in exs if e["perm"] != sorted(e["perm"]))
        print(f"{split}: {len(files)} documents, {len(exs)} sentences kept (dropped: {wrong_length} "
              f"outside {MIN_WORDS}-{MAX_WORDS} words, {len(unmoved)} where the rule moves nothing); "
              f"{sum(e['moved'] for e in exs)} verb groups moved, {crossing} non-monotonic")
        if split == "held_out":
            for e in exs[:: max(1, len(exs) // 10)][:10]:
                src, tgt = texts(e)
                print(f"  {src}\n  → {tgt}\n    word alignment {e['perm']}")
    if len(sys.argv) > 1:
        os.makedirs(sys.argv[1], exist_ok=True)
        wins = window_examples(train_files)
        print(f"train windows: {len(wins)} from the sentences over {MAX_WORDS} words, "
              f"{sum(len(e['words']) for e in wins)} words")
        subs = substituted(splits["train"][0] + wins + splits["train"][1], tag_lexicon(train_files), SUBSTITUTED_COPIES)
        print(f"train substituted copies: {len(subs)} ({SUBSTITUTED_COPIES} of each training pair)")
        for name, exs in (("train_words", splits["train"][0]), ("held_out_words", splits["held_out"][0]),
                          ("train_windows_words", wins), ("train_unmoved_words", splits["train"][1]),
                          ("train_substituted_words", subs)):
            write_jsonl(os.path.join(sys.argv[1], name + ".jsonl"), exs)


def write_jsonl(path, exs):
    with open(path, "w", encoding="utf-8") as f:
        for e in exs:
            f.write(json.dumps(e) + "\n")


if __name__ == "__main__":
    main()
