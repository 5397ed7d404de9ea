"""BertViz's head_view and model_view, and show() for any view a frozen figure holds, drawn by
AttnScope's element inline. BertViz's arguments keep their names, order and meanings; AttnScope's
own (text, model, config, theme, height, offsets, ...) come after, by keyword.

What is shown holds every head when that is small (MAX_HELD_VALUES), so the element's layer and
head pickers keep drawing from the figure; a bigger input holds only the asked view's heads.
An encoder-decoder's triple is drawn as BertViz draws it, each attention in turn: the encoder's
self-attention, the decoder's (causal) and the cross-attention (target rows reading the source).
"""
from .attention import attentions_from
from .cross import CROSS
from .figure import FIGURE_VIEWS, LENS_VIEW, figure
from .notebook import emit, figure_html

# 4 M weights: about 40 MB of JSON in the notebook. BERT-base (12 x 12 heads) stays whole to
# 166 tokens.
MAX_HELD_VALUES = 4_000_000
VIEW_ALIASES = {"model": "grid", "aggregate": "aggregates", "lens": LENS_VIEW, "logit_lens": LENS_VIEW}


def head_view(attention=None, tokens=None, sentence_b_start=None, prettify_tokens=True, layer=None, heads=None,
              encoder_attention=None, decoder_attention=None, cross_attention=None, encoder_tokens=None,
              decoder_tokens=None, include_layers=None, html_action="view", **options):
    """AttnScope's head view of `attention` (outputs.attentions) over `tokens`, at `layer` and the
    first of `heads`. sentence_b_start is accepted and not used (the view shows one sequence).
    With include_layers, `layer` is one of them (as in BertViz); the view numbers the kept layers
    from 0."""
    head = heads[0] if heads else 0
    if include_layers is not None and layer is not None:
        if layer not in include_layers:
            raise ValueError(f"layer {layer} is not in include_layers {list(include_layers)}")
        layer = list(include_layers).index(layer)
    return _views("head", attention, tokens, prettify_tokens, layer or 0, head, encoder_attention, decoder_attention,
                  cross_attention, encoder_tokens, decoder_tokens, include_layers, None, html_action, options)


def model_view(attention=None, tokens=None, sentence_b_start=None, prettify_tokens=True, display_mode="dark",
               encoder_attention=None, decoder_attention=None, cross_attention=None, encoder_tokens=None,
               decoder_tokens=None, include_layers=None, include_heads=None, html_action="view", **options):
    """AttnScope's grid of every layer and head (BertViz's model view); display_mode 'dark' or
    'light' is the theme, as in BertViz."""
    if display_mode not in ("dark", "light"):
        raise ValueError(f"display_mode must be 'dark' or 'light', not {display_mode!r}")
    options.setdefault("theme", display_mode)
    return _views("grid", attention, tokens, prettify_tokens, 0, 0, encoder_attention, decoder_attention,
                  cross_attention, encoder_tokens, decoder_tokens, include_layers, include_heads, html_action, options)


def show(attention, tokens, view="grid", *, layer=0, head=0, html_action="view", theme="auto", height=None,
         **figure_options):
    """Any view a frozen figure draws (head, lines, grid; 'lens', the logit lens, as the Layers view)
    at `layer` and `head`; figure_options are figure()'s (text, offsets, words, model, config, ...;
    the lens: hidden_states=outputs.hidden_states, lm_head=model.lm_head.weight, final_norm=the
    model's final norm module, vocab=the tokenizer)."""
    view = VIEW_ALIASES.get(view, view)
    if view not in FIGURE_VIEWS:
        raise ValueError(f"show() draws the views a frozen figure holds ({', '.join(FIGURE_VIEWS)}, lens), not {view!r}: "
                         "the others need the model's q, k and v (run the model in AttnScope's explorer)")
    square = figure_options.get("kind") != CROSS
    doc = _shown_figure(attentions_from(attention, square=square), tokens, view, layer, head, figure_options)
    return emit([figure_html(doc, view=view, theme=theme, height=height)], html_action)


def _views(view, attention, tokens, prettify_tokens, layer, head, encoder_attention, decoder_attention,
           cross_attention, encoder_tokens, decoder_tokens, include_layers, include_heads, html_action, options):
    theme, height = options.pop("theme", "auto"), options.pop("height", None)
    options["prettify_tokens"] = prettify_tokens
    parts = []
    if attention is not None:
        parts.append((None, attention, tokens, None))
    else:
        if encoder_attention is None and decoder_attention is None:
            raise ValueError("give attention (with tokens), or encoder_attention / decoder_attention")
        if encoder_attention is not None:
            parts.append(("Encoder self-attention", encoder_attention, encoder_tokens, "enc"))
        if decoder_attention is not None:
            parts.append(("Decoder self-attention", decoder_attention, decoder_tokens, "dec"))
    if cross_attention is not None:
        if encoder_tokens is None or decoder_tokens is None:
            raise ValueError("cross_attention needs encoder_tokens (its columns) and decoder_tokens (its rows)")
        parts.append(("Cross-attention", cross_attention, decoder_tokens, CROSS))
    pieces = []
    for title, att, toks, kind in parts:
        if toks is None:
            raise ValueError(f"{(title or 'attention').lower()} needs its tokens")
        att = attentions_from(att, square=kind != CROSS)
        if include_layers is not None:
            att = att.select_layers(include_layers)
        if include_heads is not None:
            att = att.select_heads(include_heads)
        at_layer, at_head = min(layer, att.layers - 1), min(head, att.heads - 1)   # a decoder may have fewer
        extra = {"source_tokens": encoder_tokens} if kind == CROSS else {}
        doc = _shown_figure(att, toks, view, at_layer, at_head, dict(options, kind=kind, **extra))
        pieces.append(figure_html(doc, view=view, theme=theme, height=height, title=title))
    return emit(pieces, html_action)


def _shown_figure(att, tokens, view, layer, head, options):
    """The figure a view shows: every head when small enough, else the view's own heads (the
    lens: none)."""
    whole = att.layers * att.heads * att.tokens * att.columns <= MAX_HELD_VALUES
    if view == LENS_VIEW:
        return figure(att, tokens, view=view, layer=layer, head=head, heads_of="grid" if whole else view, **options)
    return figure(att, tokens, view="grid" if whole else view, layer=layer, head=head, **options)
