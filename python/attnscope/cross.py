"""An encoder-decoder's cross-attention figure (kind 'cross', js/analysis/figure-cross.js): the decoder's
rows (the target's tokens: the figure's tokens) reading the source (its `source` field: tokens,
labels, special-token marks and UTF-16 offsets into the figure's text, the source). Matrices are
[L][H][T target][S source], as transformers' outputs.cross_attentions holds them per layer."""
from .tokens import prettify, special_mask

CROSS = "cross"


def source_field(tokens, S, *, token_texts=None, special_tokens_mask=None, offsets=None, prettify_tokens=True,
                 utf16=lambda i: i, pairs=None):
    """The figure's `source` for the S source tokens (the encoder's input)."""
    if tokens is None:
        raise ValueError("a cross-attention figure needs the source's tokens (encoder_tokens)")
    tokens = [str(t) for t in tokens]
    if len(tokens) != S:
        raise ValueError(f"{len(tokens)} source tokens for cross-attention over {S} source positions")
    labels = list(token_texts) if token_texts is not None else (prettify(tokens) if prettify_tokens else tokens)
    special = [1 if v else 0 for v in special_tokens_mask] if special_tokens_mask is not None else special_mask(tokens)
    spans = [(int(s), int(e)) for s, e in pairs(offsets)] if offsets is not None else [(0, 0)] * S
    for name, values in (("source_token_texts", labels), ("source_special_tokens_mask", special),
                         ("source_offsets", spans)):
        if len(values) != S:
            raise ValueError(f"{name} has {len(values)} entries; the source has {S} tokens")
    return {"tokens": tokens, "tokenTexts": [str(t) for t in labels], "specialTokensMask": special,
            "offsets": [utf16(i) for span in spans for i in span]}
