# Token streams for the causal model: the uint16 id files encode_causal.mjs writes with
# @huggingface/tokenizers (every document followed by <|endoftext|>), and the two ways we cut them:
# random training windows (nanoGPT style, crossing document boundaries as GPT-2 does) and the fixed
# evaluation chunks (each held-out document from its start, in n_positions pieces).
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


def eval_chunks(stream, index, length):
    """Each document's tokens (no <|endoftext|>) cut from its start into pieces of ≤ length tokens;
    pieces shorter than 2 tokens are dropped (nothing to predict). → list of 1-D tensors."""
    chunks = []
    for d in index["documents"]:
        doc = stream[d["start"]:d["start"] + d["length"]]
        for i in range(0, len(doc), length):
            if len(doc[i:i + length]) >= 2:
                chunks.append(doc[i:i + length])
    return chunks
