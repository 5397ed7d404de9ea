#!/usr/bin/python3
"""One target token through one decoder layer of an encoder-decoder folder (BART, Marian, T5), as
the independent float64 PyTorch forward of tests/fixtures/make_seq2seq_fixtures.py and
make_seq2seq_trace_fixtures.py computes it (written from transformers' architectures, not from the
engine): what the page's Block view shows for that token, computed at test time from the folder's
weights as stored (so a retrained model-seq2seq/ needs no new expected values).

stdin: {"model": DIR, "source_ids": [...], "decoder_ids": [...], "layer": l, "token": i, "full": bool}
stdout: {"self": [H][i+1], "cross": [H][S] (the token's attention rows),
         "input", "selfAttentionOutput", "selfAfter", "crossAttentionOutput", "crossAfter",
         "ffnOutput", "output": [C] rows (after = what the next sublayer reads the residual stream
         as: x + output for T5, its LayerNorm for BART/Marian), "finalNorm": [C] (T5) or null,
         with full: "encoder_attentions" [L][H][S][S], "decoder_attentions" [L][H][T][T],
         "cross_attentions" [L][H][T][S], "encoder_hidden" [S][C] (what cross-attention reads: T5 after
         the encoder's final norm)}
"""
import json
import os
import sys

import torch

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))
from make_seq2seq_fixtures import forward  # noqa: E402
from make_seq2seq_trace_fixtures import bart_decoder_trace, read_safetensors, t5_decoder_trace  # noqa: E402


def main():
    job = json.load(sys.stdin)
    with open(os.path.join(job["model"], "config.json"), encoding="utf-8") as f:
        c = json.load(f)
    w = read_safetensors(os.path.join(job["model"], "model.safetensors"))
    if c["model_type"] != "t5":  # save_pretrained keeps the tied copies under shared only
        w.setdefault("model.shared.weight", w.get("model.encoder.embed_tokens.weight"))
        w.setdefault("final_logits_bias", torch.zeros(1, c["vocab_size"], dtype=torch.float64))
    src, tgt, l, i = job["source_ids"], job["decoder_ids"], job["layer"], job["token"]
    with torch.no_grad():
        ref = forward(w, c, src, tgt)
        t5 = c["model_type"] == "t5"
        tr = (t5_decoder_trace if t5 else bart_decoder_trace)(w, c, ref["encoder_hidden"], torch.tensor(tgt))
    row = lambda name: tr[f"layers.{l}.{name}"][i].tolist()
    after = (lambda sub: row(sub + "AttentionResidual")) if t5 else (lambda sub: row(sub + "AttentionNorm"))
    out = {
        "self": ref["decoder_attentions"][l][:, i, : i + 1].tolist(),
        "cross": ref["cross_attentions"][l][:, i, :].tolist(),
        "input": (tr["embeddings"] if l == 0 else tr[f"layers.{l - 1}.output"])[i].tolist(),
        "selfAttentionOutput": row("selfAttentionOutput"), "selfAfter": after("self"),
        "crossAttentionOutput": row("crossAttentionOutput"), "crossAfter": after("cross"),
        "ffnOutput": row("ffnOutput"), "output": row("output"),
        "finalNorm": tr["finalNorm"][i].tolist() if "finalNorm" in tr else None,
    }
    if job.get("full"):
        for key in ("encoder_attentions", "decoder_attentions", "cross_attentions"):
            out[key] = [p.tolist() for p in ref[key]]
        out["encoder_hidden"] = ref["encoder_hidden"].tolist()
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
