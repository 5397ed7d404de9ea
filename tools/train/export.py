# Writes a trained model as a Hugging Face model folder: config.json, model.safetensors (fp16),
# vocab.txt and tokenizer_config.json. Each file is written to a temporary name and renamed, so
# another engineer reading model/ while training runs never sees a half-written file.
import json
import os
import shutil

import safetensors_io
from wordpiece import SPECIALS


def _replace(path, write):
    tmp = path + ".tmp"
    write(tmp)
    os.replace(tmp, path)


def tokenizer_config(max_len):
    return {
        "do_lower_case": True,
        "tokenize_chinese_chars": True,
        "strip_accents": None,
        "model_max_length": max_len,
        "tokenizer_class": "BertTokenizer",
        "unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]",
        "cls_token": "[CLS]", "mask_token": "[MASK]",
        "do_basic_tokenize": True, "never_split": None, "clean_up_tokenization_spaces": True,
    }


def write_json(obj, path):
    def w(tmp):
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(obj, f, indent=2)
            f.write("\n")
    _replace(path, w)


def export(model, vocab_path, out_dir, metadata=None):
    """→ {file name: size in bytes}."""
    os.makedirs(out_dir, exist_ok=True)
    c = model.config
    tensors = {k: v.half() for k, v in model.hf_state_dict().items()}
    _replace(os.path.join(out_dir, "model.safetensors"),
             lambda tmp: safetensors_io.save(tensors, tmp, metadata={"format": "pt", **(metadata or {})}))
    write_json(c.to_hf_json(), os.path.join(out_dir, "config.json"))
    _replace(os.path.join(out_dir, "vocab.txt"), lambda tmp: shutil.copyfile(vocab_path, tmp))
    write_json(tokenizer_config(c.max_position_embeddings), os.path.join(out_dir, "tokenizer_config.json"))
    assert SPECIALS[0] == "[PAD]" and c.pad_token_id == 0
    return {n: os.path.getsize(os.path.join(out_dir, n)) for n in sorted(os.listdir(out_dir))
            if not n.endswith(".tmp")}
