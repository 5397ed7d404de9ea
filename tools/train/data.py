# Training and evaluation sequences: Brown sentences tokenized with our WordPiece, packed in
# document order into [CLS] ... [SEP] sequences (some as [CLS] A [SEP] B [SEP] pairs so the
# token-type-1 embedding is trained too), and BERT's masking: 15% of tokens selected, of which 80%
# become [MASK], 10% a random token, 10% stay.
import random

import torch

from brown import read_sentences, surface


def file_sentences(names, wp):
    """Per file, its sentences as WordPiece id lists (empty sentences dropped)."""
    docs = []
    for name in names:
        sents = []
        for sent in read_sentences(name):
            ids = []
            for word, _tag in sent:
                ids.extend(wp.encode_words(surface(word)))
            if ids:
                sents.append(ids)
        docs.append(sents)
    return docs


def pack(docs, wp, max_len, rng, pair_prob=0.0, short_prob=0.0):
    """→ list of (ids, token_types). Consecutive sentences of one file fill a sequence up to
    max_len; a longer sentence is cut into max_len pieces. With short_prob the target length is
    drawn from [8, max_len] (users type short text), with pair_prob the sequence is split at a
    sentence boundary into two segments."""
    cls, sep = wp.ids["[CLS]"], wp.ids["[SEP]"]
    out = []
    for sents in docs:
        pieces = []  # sentences cut to fit any budget
        for s in sents:
            for i in range(0, len(s), max_len - 3):
                pieces.append(s[i:i + max_len - 3])
        i = 0
        while i < len(pieces):
            as_pair = rng.random() < pair_prob
            budget = max_len - (3 if as_pair else 2)
            if rng.random() < short_prob:
                budget = rng.randint(min(8, budget), budget)
            chunk = [pieces[i]]
            used = len(pieces[i])
            i += 1
            while i < len(pieces) and used + len(pieces[i]) <= budget:
                chunk.append(pieces[i])
                used += len(pieces[i])
                i += 1
            if used > budget:  # a single piece longer than a short budget: cut it
                chunk = [chunk[0][:budget]]
            if as_pair and len(chunk) >= 2:
                cut = rng.randint(1, len(chunk) - 1)
                a = [t for s in chunk[:cut] for t in s]
                b = [t for s in chunk[cut:] for t in s]
                ids = [cls] + a + [sep] + b + [sep]
                types = [0] * (len(a) + 2) + [1] * (len(b) + 1)
            else:
                a = [t for s in chunk for t in s]
                ids = [cls] + a + [sep]
                types = [0] * len(ids)
            out.append((ids, types))
    return out


def collate(seqs):
    """list of (ids, types) → ids, types, attention_mask (B,T) padded with [PAD]=0."""
    T = max(len(ids) for ids, _ in seqs)
    ids = torch.zeros(len(seqs), T, dtype=torch.long)
    types = torch.zeros(len(seqs), T, dtype=torch.long)
    mask = torch.zeros(len(seqs), T, dtype=torch.long)
    for b, (i, t) in enumerate(seqs):
        ids[b, :len(i)] = torch.tensor(i)
        types[b, :len(t)] = torch.tensor(t)
        mask[b, :len(i)] = 1
    return ids, types, mask


def mask_tokens(ids, attention_mask, num_specials, vocab_size, generator, select_prob=0.15,
                mask_id=4, mask_frac=0.8, random_frac=0.1):
    """→ (inputs, labels) with labels = -100 where not selected. Special tokens (ids below
    num_specials: [PAD] [UNK] [CLS] [SEP] [MASK]) are never selected."""
    eligible = (ids >= num_specials) & (attention_mask == 1)
    selected = (torch.rand(ids.shape, generator=generator) < select_prob) & eligible
    labels = torch.where(selected, ids, torch.full_like(ids, -100))
    roll = torch.rand(ids.shape, generator=generator)
    to_mask = selected & (roll < mask_frac)
    to_random = selected & (roll >= mask_frac) & (roll < mask_frac + random_frac)
    inputs = ids.clone()
    inputs[to_mask] = mask_id
    random_ids = torch.randint(num_specials, vocab_size, ids.shape, generator=generator)
    inputs[to_random] = random_ids[to_random]
    return inputs, labels


def batches(seqs, batch_size, rng):
    order = list(range(len(seqs)))
    rng.shuffle(order)
    for i in range(0, len(order) - batch_size + 1, batch_size):
        yield collate([seqs[j] for j in order[i:i + batch_size]])
