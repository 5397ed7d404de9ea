"""AttnScope in notebooks: attention from the models you run in PyTorch, drawn inline by AttnScope's
<attn-scope> element from a frozen figure (no WebAssembly, no model download, no network).

    from attnscope import head_view, model_view, show, figure
    head_view(outputs.attentions, tokens)            # as BertViz's head_view
    figure(outputs.attentions, tokens, view="grid", path="fig.json")   # <attn-scope src="fig.json">
    head_view(encoder_attention=..., decoder_attention=..., cross_attention=..., encoder_tokens=...,
              decoder_tokens=...)                 # an encoder-decoder's three attentions
    show(outputs.attentions, tokens, view="lens", hidden_states=outputs.hidden_states,
         lm_head=model.lm_head.weight, final_norm=model.transformer.ln_f, vocab=tokenizer)
"""
from .figure import FIGURE_FORMAT, FIGURE_VERSION, FIGURE_VIEWS, figure, figure_json, write_figure
from .lens import logit_lens
from .notebook import init_notebook
from .views import head_view, model_view, show

__all__ = ["head_view", "model_view", "show", "figure", "figure_json", "write_figure", "init_notebook", "logit_lens",
           "FIGURE_FORMAT", "FIGURE_VERSION", "FIGURE_VIEWS"]
__version__ = "0.1.0"
