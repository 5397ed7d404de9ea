"""Frozen figures: the JSON document `attnscope snapshot` writes (js/analysis/snapshot.js figureData), made
from attentions Python already has, so <attn-scope src="fig.json"> draws it with no WebAssembly
and no model. One format, described by docs/figure.schema.json: this module must write exactly
what the CLI writes for the same attentions (tests/python/test_cli_figures.py checks it).
"""
import json
import math

from .attention import attentions_from
from .cross import CROSS, source_field
from .lens import logit_lens
from .token_text import token_labels
from .model_info import model_info
from .tokens import prettify, special_mask
from .words import find_words, merge_head

FIGURE_FORMAT = "attnscope-figure"
FIGURE_VERSION = 2  # the newest version written (a lens or cross-attention figure's)
# The logit lens's view (web/src/views/registry.js's id): a figure of tokens and probabilities.
LENS_VIEW = "layers"
# Views this package writes figures of (formula, aggregates, ... need q, k, v or a trace; the flow
# graph and patching grids, which js/analysis/snapshot.js's FIGURE_VIEWS also has, need the engine's runs).
FIGURE_VIEWS = ("head", "lines", "grid", LENS_VIEW)
# The model a figure names when the caller names none: words the element shows ("attention
# computed by your model") and cannot mistake for a hub id, so a view the figure lacks fails
# in place instead of fetching some other model.
UNNAMED_MODEL = "your model"
DECIMALS = 1e6  # six decimals, as js/analysis/snapshot.js: a row still sums to 1 within 1e-5


def figure_version(view, kind):
    """The lowest format version that has all a figure holds, as js/analysis/snapshot.js figureVersion: the
    lens and cross-attention came with version 2; head, lines and grid figures stay 1, so readers
    from before version 2 still draw them."""
    return 2 if view == LENS_VIEW or kind == CROSS else 1


def figure_heads(view, layer, head, layers, heads):
    """The [layer, head] pairs a view holds: one head, one layer's heads, every head, or (the
    lens) none."""
    if view == LENS_VIEW:
        return []
    if view == "head":
        return [[layer, head]]
    return [[l, h] for l in range(layers) if view != "lines" or l == layer for h in range(heads)]


def figure(attention, tokens, *, view="head", layer=0, head=0, text="", token_texts=None,
           special_tokens_mask=None, offsets=None, words=False, model=UNNAMED_MODEL, config=None,
           is_decoder=None, kind=None, prettify_tokens=True, source_tokens=None, source_token_texts=None,
           source_special_tokens_mask=None, source_offsets=None, hidden_states=None, lm_head=None, final_norm=None,
           vocab=None, input_ids=None, last_normed=True, heads_of=None, path=None):
    """The figure document (a dict; also written to `path` when given) for one view.

    attention: outputs.attentions (per-layer [1, heads, T, T]), numpy arrays or nested lists.
    tokens: the T tokens (tokenizer.convert_ids_to_tokens(ids)); token_texts: their labels
      (default: the tokens, with prettify_tokens as BertViz shows them).
    special_tokens_mask: 1 for [CLS], <s>, ... (default: recognised by name).
    text, offsets: the text and each token's (start, end) in it, as the tokenizer's offset_mapping
      gives them (Python string indices); words=True needs both.
    model: a name, or a transformers model (its name_or_path and config are used).
    config: a transformers config or config.json dict (hidden size, family); is_decoder: default
      is whether every head is causal.
    kind: 'enc' or 'dec' when the attention is an encoder-decoder's (T5, BART, Marian) encoder or
      decoder self-attention, as `attnscope snapshot --kind` writes it (text is then the source);
      'cross' for its cross-attention (outputs.cross_attentions, [1, heads, T target, S source]
      per layer; tokens are the target's, source_tokens and the source_* options the source's).
    view='layers' (the logit lens): hidden_states (outputs.hidden_states), lm_head (its weight),
      final_norm, vocab (the tokenizer), input_ids, last_normed: see attnscope.lens.logit_lens.
    heads_of: the view whose matrices the figure holds (default: `view`'s; a lens figure holds
      none unless told, say 'grid', so its element can switch to the attention views offline).
    """
    if kind not in (None, "enc", "dec", CROSS):
        raise ValueError(f"kind is 'enc', 'dec' or 'cross' (an encoder-decoder's attention), not {kind!r}")
    if view not in FIGURE_VIEWS:
        raise ValueError(f"a frozen figure draws the {', '.join(FIGURE_VIEWS)} views, not {view!r}")
    if not isinstance(model, str):
        config = config if config is not None else model.config
        model = getattr(model.config, "name_or_path", "") or UNNAMED_MODEL
    att = attentions_from(attention, square=kind != CROSS)
    L, H, T = att.layers, att.heads, att.tokens
    if kind == CROSS and words:
        raise ValueError("a cross-attention figure holds tokens: words merge one sentence's pieces")
    tokens = _check_tokens(tokens, T, att.from_generation)
    if not (isinstance(layer, int) and 0 <= layer < L):
        raise ValueError(f"layer {layer}: the attention has {L} layers")
    if not (isinstance(head, int) and 0 <= head < H):
        raise ValueError(f"head {head}: the attention has {H} heads")
    if token_texts is None and view == LENS_VIEW and vocab is not None:
        token_texts = token_labels(tokens, vocab)   # as the lens's cells label the tokens they read
    labels = list(token_texts)[:T] if token_texts is not None else (prettify(tokens) if prettify_tokens else tokens)
    special = [1 if v else 0 for v in special_tokens_mask][:T] if special_tokens_mask is not None \
        else special_mask(tokens)
    spans = [(int(s), int(e)) for s, e in _pairs(offsets)][:T] if offsets is not None else [(0, 0)] * T
    for name, values in (("token_texts", labels), ("special_tokens_mask", special), ("offsets", spans)):
        if len(values) != T:
            raise ValueError(f"{name} has {len(values)} entries; the attention has {T} tokens")
    utf16 = _utf16_index(text)
    heads = figure_heads(heads_of or view, layer, head, L, H)
    if words and not heads:
        raise ValueError(f"the {view} view holds no attention to merge into words")
    info = model_info(config, L, H, att, is_decoder, side=kind)
    lens = None
    if view == LENS_VIEW:
        if not info["config"]["isDecoder"] or kind is not None:
            raise ValueError("the logit lens from hidden states is for decoders (final norm, then lm_head); an encoder's "
                             "masked-LM head is not supported here (AttnScope's explorer computes it live)")
        if hidden_states is None or lm_head is None:
            raise ValueError("view='layers' (the logit lens) needs hidden_states= (output_hidden_states=True) and "
                             "lm_head= (model.lm_head.weight)")
        lens = _rounded_lens(logit_lens(hidden_states, lm_head, final_norm, vocab=vocab, input_ids=input_ids,
                                        tokens=tokens, last_normed=last_normed))
        if len(lens) != L + 1 or len(lens[0]) != T:
            raise ValueError(f"hidden_states give {len(lens)} rows of {len(lens[0])} positions; the attention has "
                             f"{L} layers (so {L + 1} rows) over {T} tokens")
    doc = {
        "format": FIGURE_FORMAT,
        "version": figure_version(view, kind),
        "model": model,
        "modelInfo": info,
        **({"kind": kind} if kind else {}),
        "text": text,
        "view": view, "layer": layer, "head": head,
        "tokens": tokens,
        "tokenTexts": labels,
        "specialTokensMask": special,
        "offsets": [utf16(i) for span in spans for i in span],
        "shape": [L, H, T, att.columns] if kind == CROSS else [L, H, T],
        **({"source": source_field(source_tokens, att.columns, token_texts=source_token_texts,
                                   special_tokens_mask=source_special_tokens_mask, offsets=source_offsets,
                                   prettify_tokens=prettify_tokens, utf16=utf16, pairs=_pairs)}
           if kind == CROSS else {}),
        "heads": heads,
        "attentions": [_rounded(att, l, h) for l, h in heads],
        **({"lens": lens} if lens is not None else {}),
    }
    if words:
        if offsets is None or not text:
            raise ValueError("words=True needs the text and the tokens' offsets (return_offsets_mapping=True)")
        found = find_words(tokens, labels, spans, special, text)
        doc["words"] = [{"text": w["text"], "start": utf16(w["start"]), "end": utf16(w["end"]), "tokens": w["tokens"]}
                        for w in found]
        doc["wordAttentions"] = [_round_list(merge_head(att.matrix(l, h), found, T)) for l, h in heads]
    if path is not None:
        write_figure(doc, path)
    return doc


def figure_json(doc):
    """The document as the CLI writes it: compact JSON, one line."""
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n"


def write_figure(doc, path):
    with open(path, "w", encoding="utf-8") as f:
        f.write(figure_json(doc))


def _check_tokens(tokens, T, from_generation):
    tokens = [str(t) for t in tokens]
    if from_generation and len(tokens) == T + 1:
        return tokens[:T]  # the last generated token: no step has attended from it yet
    if len(tokens) != T:
        raise ValueError(f"{len(tokens)} tokens for attention over {T} positions")
    return tokens


def _pairs(offsets):
    offsets = offsets.tolist() if hasattr(offsets, "tolist") else list(offsets)
    if offsets and not isinstance(offsets[0], (list, tuple)):  # flat [s0, e0, s1, e1, ...]
        return list(zip(offsets[0::2], offsets[1::2]))
    return offsets


def _utf16_index(text):
    """Python string index -> UTF-16 code unit index (what JavaScript strings count)."""
    if all(ord(c) < 0x10000 for c in text):
        return lambda i: i
    prefix = [0]
    for c in text:
        prefix.append(prefix[-1] + (2 if ord(c) >= 0x10000 else 1))
    return lambda i: prefix[min(max(i, 0), len(text))]


def _rounded(att, layer, head):
    vector = att.matrix_array(layer, head)
    if vector is None:
        return _round_list(att.matrix(layer, head))
    import numpy
    x = vector.astype(numpy.float64) * DECIMALS
    r = numpy.floor(x)
    r += (x - r) >= 0.5
    return [_compact(v) for v in (r / DECIMALS).tolist()]


def _significant(p):
    """Six significant digits, as js/analysis/figure-lens.js's Number(p.toPrecision(6)) (both round the
    double correctly, so the same number)."""
    return None if p is None else _compact(float(f"{p:.6g}"))


def _rounded_lens(lens):
    for row in lens:
        for e in row:
            for c in e["top"]:
                c["prob"] = _significant(c["prob"])
            e["finalProb"] = _significant(e["finalProb"])
            if "nextProb" in e:
                e["nextProb"] = _significant(e["nextProb"])
    return lens


def _round_list(values):
    return [_compact(_js_round(v * DECIMALS) / DECIMALS) for v in values]


def _js_round(x):
    """JavaScript's Math.round: the nearest integer, halves up (Python's round() halves to even)."""
    r = math.floor(x)
    return r + 1 if x - r >= 0.5 else r


def _compact(v):
    # 0 and 1 as JSON.stringify prints them (not 0.0, 1.0): the same text, and half the bytes of
    # a decoder's zeros above the diagonal.
    return int(v) if v == 0 or v == 1 else v
