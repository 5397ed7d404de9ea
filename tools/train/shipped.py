# Loads the shipped model folder (config.json, fp16 model.safetensors, vocab.txt) back into the
# plain-PyTorch BERT, so evaluation and head analysis measure exactly the files users download.
import json
import os

import safetensors_io
from model import BertConfig, BertForMaskedLM
from wordpiece import WordPiece


def load(model_dir, dtype=None):
    with open(os.path.join(model_dir, "config.json"), encoding="utf-8") as f:
        config = BertConfig.from_hf_json(json.load(f))
    model = BertForMaskedLM(config)
    model.load_hf_state_dict(safetensors_io.load(os.path.join(model_dir, "model.safetensors")))
    if dtype is not None:
        model = model.to(dtype)
    model.eval()
    wp = WordPiece.from_file(os.path.join(model_dir, "vocab.txt"))
    if len(wp.vocab) != config.vocab_size:
        raise ValueError(f"vocab.txt has {len(wp.vocab)} tokens, config says {config.vocab_size}")
    return model, wp
