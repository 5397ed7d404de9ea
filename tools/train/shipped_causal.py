# Loads the shipped decoder folder (model-causal/: config.json, fp16 model.safetensors,
# tokenizer.json) back into model_causal.GPT2LMHeadModel, so evaluation and head analysis measure
# exactly the files users download.
import json
import os

import safetensors_io
from model_causal import GPT2Config, GPT2LMHeadModel


def load(model_dir, dtype=None):
    with open(os.path.join(model_dir, "config.json"), encoding="utf-8") as f:
        config = GPT2Config.from_hf_json(json.load(f))
    model = GPT2LMHeadModel(config)
    model.load_hf_state_dict(safetensors_io.load(os.path.join(model_dir, "model.safetensors")))
    if dtype is not None:
        model = model.to(dtype)
    model.eval()
    with open(os.path.join(model_dir, "tokenizer.json"), encoding="utf-8") as f:
        vocab = json.load(f)["model"]["vocab"]
    if len(vocab) != config.vocab_size:
        raise ValueError(f"tokenizer.json has {len(vocab)} tokens, config says {config.vocab_size}")
    return model, vocab
