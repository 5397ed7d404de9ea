"""A figure's `modelInfo` ({kind, config: {numLayers, numHeads, hiddenSize, headDim, isDecoder,
family}}) from what Python has: a transformers config (object or config.json dict), or nothing.
The engine's names for the same facts: engine/config.cpp parses them, bindings/convert.cpp names
the family. An encoder-decoder's figure holds one side's self-attention or the cross-attention (js/analysis/snapshot.js
figureConfig): kind 'encoder-decoder', that side's head width (cross: the decoder's)."""

# model_type -> the engine's family name (the Llama family's relatives share its layer).
_FAMILIES = {"mistral": "llama", "qwen2": "llama", "qwen3": "llama"}
# Decoder-only model types, for a one-token input (whose single weight says nothing about a mask).
_CAUSAL_TYPES = {"gpt2", "llama", "mistral", "qwen2", "qwen3", "gpt_neo", "gpt_neox", "gptj", "opt",
                 "bloom", "falcon", "gemma", "gemma2", "phi", "phi3", "olmo", "mpt", "codegen"}


def config_dict(config):
    """A plain dict of a transformers PretrainedConfig, a config.json dict, or None -> {}."""
    if config is None:
        return {}
    if isinstance(config, dict):
        return config
    if hasattr(config, "to_dict"):
        return config.to_dict()
    raise TypeError("config must be a transformers config, a config.json dict or None")


def _first(c, *keys):
    return next((c[k] for k in keys if isinstance(c.get(k), int)), None)


def model_info(config, layers, heads, attentions, is_decoder=None, side=None):
    """The figure's modelInfo. Layers and heads are the attention's (what the figure holds); whether
    it is a decoder is `is_decoder` if given, else whether every head is causal (nothing above the
    diagonal), else for one token what the config says. side: 'enc' or 'dec' for an
    encoder-decoder's figure of that side's self-attention, 'cross' for its cross-attention."""
    c = config_dict(config)
    model_type = c.get("model_type")
    if side is not None:
        return _seq2seq_info(c, layers, heads, side)
    if is_decoder is None:
        if attentions.tokens > 1:
            is_decoder = attentions.is_causal()
        else:
            is_decoder = bool(c.get("is_decoder")) or model_type in _CAUSAL_TYPES
    hidden = _first(c, "hidden_size", "n_embd", "dim", "d_model")
    config_heads = _first(c, "num_attention_heads", "n_head", "n_heads", "num_heads")
    head_dim = _first(c, "head_dim") or (hidden // config_heads if hidden and config_heads else None)
    shape = {"numLayers": layers, "numHeads": heads, "hiddenSize": hidden, "headDim": head_dim,
             "isDecoder": bool(is_decoder), "family": _FAMILIES.get(model_type, model_type)}
    # Facts Python does not know are left out (JSON.stringify drops undefined the same way).
    return {"kind": "decoder" if is_decoder else "encoder",
            "config": {k: v for k, v in shape.items() if v is not None}}


def _seq2seq_info(c, layers, heads, side):
    hidden = _first(c, "d_model", "hidden_size")
    side_heads = _first(c, "encoder_attention_heads" if side == "enc" else "decoder_attention_heads", "num_heads")
    head_dim = _first(c, "d_kv", "head_dim") or (hidden // side_heads if hidden and side_heads else None)
    shape = {"numLayers": layers, "numHeads": heads, "hiddenSize": hidden, "headDim": head_dim,
             "isDecoder": side != "enc", "family": c.get("model_type")}  # cross-attention: the decoder's layers
    return {"kind": "encoder-decoder", "config": {k: v for k, v in shape.items() if v is not None}}
