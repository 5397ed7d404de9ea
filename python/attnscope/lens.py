"""The logit lens (nostalgebraist 2020) of a decoder from the hidden states PyTorch gives: every
row of `outputs.hidden_states` (the embeddings, then the residual stream after each layer) through
the model's final norm and its own output head, as engine/logit_lens.h computes it for a figure's
`lens` (js/analysis/figure-lens.js): per row and position the top-k tokens and their probabilities (a
softmax over the whole vocabulary in float64), the rank of the last row's top token (finalRank)
and of the token that actually follows (nextRank; None at the last position). Ranks are 1-based
and break ties by the lower id, as torch.argmax does.

Hugging Face's hidden_states end with the last layer's output *after* the final norm (GPT-2's
ln_f, the Llama family's norm): that row is read as it is (last_normed=True), so the last row is
the model's own prediction. Final norms supported: torch.nn.LayerNorm (GPT-2's ln_f: weight, bias,
eps), the Llama family's RMSNorm modules (LlamaRMSNorm, MistralRMSNorm, Qwen2RMSNorm,
Qwen3RMSNorm, torch.nn.RMSNorm: x / sqrt(mean(x^2) + eps) * weight), the same as a dict
({"type": "layer_norm" | "rms_norm", "weight", "bias", "eps"}), or None (the head reads the
hidden states as they are). Any other norm (Gemma's 1 + weight, say) is refused by name.
Computed with torch when it is given torch tensors, else numpy; plain Python only for tiny inputs.
"""
import math

from .token_text import is_byte_level, readable

try:
    import numpy
except ImportError:  # the package needs only the standard library
    numpy = None

DEFAULT_TOP_K = 5  # js/analysis/figure-lens.js LENS_TOP_K: what the Layers view lists for a cell
_RMS_NORMS = {"LlamaRMSNorm", "MistralRMSNorm", "Qwen2RMSNorm", "Qwen3RMSNorm", "RMSNorm"}


def logit_lens(hidden_states, lm_head, final_norm=None, *, vocab=None, input_ids=None, tokens=None, top_k=DEFAULT_TOP_K,
               last_normed=True, decoder=True):
    """[L+1][T] of {top: [{id, token, text, prob}], finalRank, finalProb, nextRank, nextProb}.

    hidden_states: outputs.hidden_states (L+1 tensors [1, T, C]), or arrays / nested lists.
    lm_head: the head's weight [V, C] (model.lm_head.weight), or the Linear module (its bias used).
    final_norm: the module the model applies before the head (model.transformer.ln_f,
      model.model.norm), a dict, or None; see the module docstring.
    vocab: names the tokens read: the tokenizer, its get_vocab() (token -> id), or tokens by id.
    input_ids: the T ids (default: the tokens looked up in vocab), for nextRank.
    """
    if not (isinstance(top_k, int) and top_k >= 1):
        raise ValueError(f"top_k must be a positive integer, not {top_k!r}")
    rows = [_matrix(h, f"hidden_states[{i}]") for i, h in enumerate(_layer_rows(hidden_states))]
    T, C = _shape(rows[0])
    for i, r in enumerate(rows):
        if _shape(r) != (T, C):
            raise ValueError(f"hidden_states[{i}] is {list(_shape(r))}; hidden_states[0] is [{T}, {C}]")
    weight, bias = _head(lm_head)
    V = _shape(weight)[0]
    if _shape(weight)[1] != C:
        raise ValueError(f"lm_head is {list(_shape(weight))}: its rows must have the hidden size {C}")
    norm = _norm(final_norm, C)
    names = _names(vocab, V)
    ids = _input_ids(input_ids, tokens, vocab, T) if decoder else None
    probs = []   # per row: T probability vectors over the vocabulary
    for l, r in enumerate(rows):
        x = r if (last_normed and l == len(rows) - 1) or norm is None else norm(r)
        probs.append(_softmax_rows(_logits(x, weight, bias)))
    final_top = [_top(p, 1)[0] for p in probs[-1]]
    out = []
    for row in probs:
        entries = []
        for t, p in enumerate(row):
            entry = {"top": [{"id": i, "token": names(i), "text": readable(names(i), names.byte_level), "prob": float(p[i])}
                             for i in _top(p, top_k)],
                     "finalRank": _rank(p, final_top[t]), "finalProb": float(p[final_top[t]])}
            if decoder:
                nxt = ids[t + 1] if t + 1 < T else None
                entry["nextRank"] = _rank(p, nxt) if nxt is not None else None
                entry["nextProb"] = float(p[nxt]) if nxt is not None else None
            entries.append(entry)
        out.append(entries)
    return out


# ---- inputs: numpy float64 arrays where numpy is installed, nested lists otherwise ----------------
def _array(x):
    if hasattr(x, "detach"):
        x = x.detach().cpu().double()
        return x.numpy() if numpy is not None else x.tolist()
    if numpy is not None:
        return numpy.asarray(x, dtype=numpy.float64)
    return x.tolist() if hasattr(x, "tolist") else x


def _shape(m):
    return tuple(m.shape) if hasattr(m, "shape") else (len(m), len(m[0]) if m else 0)


def _depth(x):
    if hasattr(x, "ndim"):
        return x.ndim
    depth = 0
    while isinstance(x, (list, tuple)) and x:
        depth, x = depth + 1, x[0]
    return depth


def _layer_rows(hidden_states):
    if hidden_states is None:
        raise ValueError("the lens needs hidden_states (run the model with output_hidden_states=True)")
    rows = list(hidden_states)
    if len(rows) < 2:
        raise ValueError("hidden_states must hold the embeddings and at least one layer's output")
    return rows


def _matrix(h, name):
    """[T][C] from [1, T, C] or [T, C]."""
    m = _array(h)
    depth = _depth(m)
    if depth == 3:
        if len(m) != 1:
            raise ValueError(f"{name}: a batch of {len(m)}; pass one example")
        return m[0]
    if depth != 2:
        raise ValueError(f"{name} has {depth} dimensions; expected [batch, T, hidden]")
    return m


def _head(lm_head):
    module = hasattr(lm_head, "weight")
    weight = _array(lm_head.weight if module else lm_head)
    bias = getattr(lm_head, "bias", None) if module else None
    if _depth(weight) != 2:
        raise ValueError("lm_head must be the head's weight [vocab, hidden] (model.lm_head.weight) or its Linear module")
    return weight, (_array(bias) if bias is not None else None)


def _norm(final_norm, C):
    """rows [T][C] -> the final norm of each row, or None."""
    if final_norm is None:
        return None
    if isinstance(final_norm, dict):
        kind, spec = final_norm.get("type"), final_norm
    else:
        name = type(final_norm).__name__
        if name == "LayerNorm":
            kind = "layer_norm"
        elif name in _RMS_NORMS:
            kind = "rms_norm"
        else:
            raise ValueError(f"final_norm {name} is not supported: pass torch.nn.LayerNorm (GPT-2's ln_f), a Llama-family "
                             f"RMSNorm ({', '.join(sorted(_RMS_NORMS))}), a dict, or None")
        eps = getattr(final_norm, "eps", None)
        eps = getattr(final_norm, "variance_epsilon", None) if eps is None else eps
        spec = {"weight": getattr(final_norm, "weight", None), "bias": getattr(final_norm, "bias", None), "eps": eps}
    if kind not in ("layer_norm", "rms_norm"):
        raise ValueError(f"final_norm type must be 'layer_norm' or 'rms_norm', not {kind!r}")
    eps = spec.get("eps")
    if not isinstance(eps, (int, float)) or isinstance(eps, bool) or eps < 0:
        raise ValueError(f"final_norm needs its eps (a number), not {eps!r}")
    weight = _array(spec["weight"]) if spec.get("weight") is not None else [1.0] * C
    bias = _array(spec["bias"]) if spec.get("bias") is not None else [0.0] * C
    if len(weight) != C or len(bias) != C:
        raise ValueError(f"final_norm's weight and bias must have the hidden size {C}")
    if numpy is not None:
        weight, bias = numpy.asarray(weight, dtype=numpy.float64), numpy.asarray(bias, dtype=numpy.float64)
        if kind == "layer_norm":
            return lambda x: (x - x.mean(-1, keepdims=True)) / numpy.sqrt(x.var(-1, keepdims=True) + eps) * weight + bias
        return lambda x: x / numpy.sqrt((x * x).mean(-1, keepdims=True) + eps) * weight

    def one(x):
        if kind == "rms_norm":
            s = 1 / math.sqrt(sum(v * v for v in x) / C + eps)
            return [v * s * w for v, w in zip(x, weight)]
        mean = sum(x) / C
        s = 1 / math.sqrt(sum((v - mean) ** 2 for v in x) / C + eps)
        return [(v - mean) * s * w + b for v, w, b in zip(x, weight, bias)]
    return lambda rows: [one(list(x)) for x in rows]


class _Names:
    """id -> token; byte_level: whether the vocabulary writes spaces as GPT-2's Ġ."""

    def __init__(self, by_id):
        self._by_id = by_id
        self.byte_level = is_byte_level(by_id)

    def __call__(self, i):
        return self._by_id[i]


def _names(vocab, V):
    if vocab is None:
        raise ValueError("the lens names the tokens it reads: pass vocab= (the tokenizer, or tokenizer.get_vocab())")
    if hasattr(vocab, "convert_ids_to_tokens"):
        by_id = list(vocab.convert_ids_to_tokens(list(range(V))))
    elif isinstance(vocab, dict):
        by_id = [None] * V
        for token, i in vocab.items():
            if 0 <= i < V:
                by_id[i] = token
    else:
        by_id = list(vocab)[:V]
    named = sum(1 for t in by_id if t is not None)
    if len(by_id) < V or named < V:
        raise ValueError(f"vocab names {named} of the head's {V} tokens")
    return _Names(by_id)


def _input_ids(input_ids, tokens, vocab, T):
    if input_ids is not None:
        ids = _array(input_ids)
        ids = [int(i) for i in (ids[0] if _depth(ids) == 2 else ids)]
    else:
        if tokens is None:
            raise ValueError("pass input_ids= or tokens= (for the rank of the token that follows)")
        if hasattr(vocab, "convert_tokens_to_ids"):
            ids = list(vocab.convert_tokens_to_ids(list(tokens)))
        elif isinstance(vocab, dict):
            ids = [vocab.get(t) for t in tokens]
        else:
            index = {t: i for i, t in enumerate(vocab)}
            ids = [index.get(t) for t in tokens]
        if any(i is None for i in ids):
            raise ValueError("a token is not in vocab: pass input_ids= (for the rank of the token that follows)")
    if len(ids) != T:
        raise ValueError(f"{len(ids)} input ids for hidden states over {T} positions")
    return ids


# ---- arithmetic (float64) ------------------------------------------------------------------------
def _logits(x, weight, bias):
    """[T][V] = x [T][C] · weightᵀ (+ bias)."""
    if numpy is not None:
        z = numpy.asarray(x, dtype=numpy.float64) @ weight.T
        return z + bias if bias is not None else z
    z = [[sum(w * v for w, v in zip(row, xt)) for row in weight] for xt in x]
    return [[a + b for a, b in zip(zt, bias)] for zt in z] if bias is not None else z


def _softmax_rows(z):
    if numpy is not None:
        e = numpy.exp(z - z.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)
    out = []
    for zt in z:
        top = max(zt)
        e = [math.exp(v - top) for v in zt]
        s = math.fsum(e)
        out.append([v / s for v in e])
    return out


def _top(p, k):
    """The k most likely ids, most likely first; ties: the lower id first."""
    if numpy is not None:
        return [int(i) for i in numpy.argsort(-p, kind="stable")[:k]]
    return sorted(range(len(p)), key=lambda i: (-p[i], i))[:k]


def _rank(p, i):
    if numpy is not None:
        return 1 + int((p > p[i]).sum()) + int((p[:i] == p[i]).sum())
    return 1 + sum(1 for j, q in enumerate(p) if q > p[i] or (q == p[i] and j < i))
