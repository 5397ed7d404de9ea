# Token streams for the causal model: the uint16 id files encode_causal.mjs writes with
# @huggingface/tokenizers (every document followed by <|endoftext|>), and the two ways we cut them:
# random training windows (nanoGPT style, crossing document boundaries as GPT-2 does) and the fixed
# evaluation windows (each held-out document from its start, in n_positions pieces, overlapping or not).
import json
import os

import numpy as np
import torch


def load_stream(work, split):
    """→ (ids int64 tensor, index {"eot", "vocab_size", "documents": [{name, start, length}]})."""
    ids = np.fromfile(os.path.join(work, f"{split}.bin"), dtype="<u2").astype(np.int64)
    with open(os.path.join(work, f"{split}.json"), encoding="utf-8") as f:
        index = json.load(f)
    return torch.from_numpy(ids), index


def random_windows(stream, batch, length, generator):
    """batch windows of length + 1 tokens at random offsets → (inputs, targets), each (B, length)."""
    starts = torch.randint(0, len(stream) - length - 1, (batch,), generator=generator)
    rows = torch.stack([stream[s:s + length + 1] for s in starts.tolist()])
    return rows[:, :-1], rows[:, 1:]


def eval_windows(stream, index, length, stride):
    """Each document's tokens (no <|endoftext|>) read through windows of ≤ length tokens starting
    at 0, stride, 2·stride, … → [(window, first)]: the window's targets window[1:] are scored from
    index first on, so every token is scored at most once and, past the first window, with at
    least length - stride tokens of its document before it (Hugging Face's "perplexity of
    fixed-length models"). stride == length: non-overlapping chunks, whose first tokens are not
    predicted (eval_chunks). Windows shorter than 2 tokens are dropped (nothing to predict)."""
    if not 1 <= stride <= length:
        raise ValueError(f"stride {stride} must be in [1, {length}]")
    windows = []
    for d in index["documents"]:
        doc = stream[d["start"]:d["start"] + d["length"]]
        start = 0
        while True:
            end = min(start + length, len(doc))
            if end - start >= 2:
                # The previous window ended at token start - stride + length: score from there on.
                windows.append((doc[start:end], 0 if start == 0 else max(0, length - stride - 1)))
            if end == len(doc):
                break
            start += stride
    return windows


def eval_chunks(stream, index, length):
    """Each document cut from its start into pieces of ≤ length tokens → list of 1-D tensors."""
    return [w for w, _ in eval_windows(stream, index, length, length)]
