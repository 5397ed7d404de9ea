"""Attentions as the user has them -> one (layers, heads, T, T) stack of float32 matrices (an
encoder-decoder's cross-attention: (layers, heads, T target, S source)).

Takes what transformers returns (a tuple of per-layer tensors [batch, heads, T, T]), numpy arrays,
nested lists ([L][H][T][T], or [L][1][H][T][T] as `attnscope run --format bertviz` writes), and
the per-step attentions of `generate(..., output_attentions=True)`, stitched into one matrix.
Uses numpy when it is installed (a 12 x 12 x 512 x 512 stack is 37 M values); plain lists when not.
"""
from array import array

try:
    import numpy
except ImportError:  # the package needs only the standard library
    numpy = None


class Attentions:
    """layers x heads x T x S probabilities (S = T but for cross-attention); matrix(l, h) is one
    head's T*S row-major values as Python floats, each exactly a float32 (the engine's precision:
    a figure rounds the same numbers)."""

    def __init__(self, stack, from_generation=False, columns=None):
        self._stack = stack  # numpy (L, H, T, S) float32, or [L][H] array('f') of T*S
        self.from_generation = from_generation
        if numpy is not None and isinstance(stack, numpy.ndarray):
            self.layers, self.heads, self.tokens, self.columns = stack.shape
        else:
            self.layers, self.heads = len(stack), len(stack[0])
            size = len(stack[0][0])
            self.tokens = size // columns if columns else int(round(size ** 0.5))
            self.columns = columns or self.tokens

    def matrix(self, layer, head):
        return self._stack[layer][head].ravel().tolist() if self.uses_numpy else self._stack[layer][head].tolist()

    def matrix_array(self, layer, head):
        """The numpy T*T float32 vector (numpy installed) or None."""
        return self._stack[layer][head].ravel() if self.uses_numpy else None

    @property
    def uses_numpy(self):
        return numpy is not None and isinstance(self._stack, numpy.ndarray)

    def is_causal(self):
        """Whether every head attends only backwards (a decoder's mask): nothing above the diagonal."""
        T = self.tokens
        if self.uses_numpy:
            upper = numpy.triu(numpy.ones((T, T), dtype=bool), 1)
            return not self._stack[:, :, upper].any()
        return all(m[i * T + j] == 0 for layer in self._stack for m in layer for i in range(T) for j in range(i + 1, T))

    def select_layers(self, layers):
        """Only these layers, in this order (BertViz's include_layers)."""
        for l in layers:
            if not 0 <= l < self.layers:
                raise ValueError(f"include_layers: layer {l} is outside the {self.layers} layers")
        if self.uses_numpy:
            return Attentions(self._stack[list(layers)], self.from_generation)
        return Attentions([self._stack[l] for l in layers], self.from_generation, self.columns)

    def select_heads(self, heads):
        """Only these heads of every layer, in this order (BertViz's include_heads)."""
        for h in heads:
            if not 0 <= h < self.heads:
                raise ValueError(f"include_heads: head {h} is outside the {self.heads} heads")
        if self.uses_numpy:
            return Attentions(self._stack[:, list(heads)], self.from_generation)
        return Attentions([[layer[h] for h in heads] for layer in self._stack], self.from_generation, self.columns)


def attentions_from(attention, square=True):
    """An Attentions from any of the accepted forms (see the module docstring); ValueError if none.
    square=False: cross-attention, [batch, heads, T target, S source] per layer."""
    if isinstance(attention, Attentions):
        if square and attention.columns != attention.tokens:
            raise ValueError(f"self-attention must be square; this is {attention.tokens} x {attention.columns} "
                             "(cross-attention is passed as cross_attention)")
        return attention
    if attention is None:
        raise ValueError("no attention given: pass outputs.attentions (run the model with output_attentions=True)")
    if _is_generation(attention):
        return _stitch_generation(attention, square)
    layers = [_plain(layer) for layer in _layer_list(attention)]
    return _stack([_one_example(layer, l) for l, layer in enumerate(layers)], square)


def _layer_list(attention):
    plain = _plain(attention)
    if _dims(plain) == 5 or _dims(plain) == 4 or isinstance(plain, (list, tuple)):
        return list(plain)
    raise ValueError("attention must be a sequence of per-layer [batch, heads, T, T] tensors")


def _plain(x):
    """A torch tensor as numpy (when installed) or nested lists; anything else unchanged."""
    if hasattr(x, "detach") and hasattr(x, "cpu"):
        x = x.detach().cpu().float()
        return x.numpy() if numpy is not None else x.tolist()
    return x


def _dims(x):
    if hasattr(x, "ndim"):
        return x.ndim
    depth = 0
    while isinstance(x, (list, tuple)) and len(x) > 0:
        depth, x = depth + 1, x[0]
    return depth


def _one_example(layer, index):
    """[heads, T, T] of one layer given as [1, heads, T, T] or [heads, T, T]."""
    dims = _dims(layer)
    if dims == 4:
        if len(layer) != 1:
            raise ValueError(f"layer {index}: a batch of {len(layer)}; pass one example (attention[l][i:i + 1])")
        return layer[0]
    if dims == 3:
        return layer
    raise ValueError(f"layer {index} has {dims} dimensions; expected [batch, heads, T, T] "
                     "(run the model with output_attentions=True)")


def _stack(layers, square=True):
    """Attentions of (L, H, T, T) float32 from per-layer [H][T][T], checked square and of one
    shape; square=False: (L, H, T, S) from [H][T][S]."""
    if not layers:
        raise ValueError("attention has no layers")
    what = "[heads, T, T]" if square else "[heads, T target, S source]"
    if numpy is not None:
        arrays = [numpy.asarray(layer, dtype=numpy.float32) for layer in layers]
        for l, a in enumerate(arrays):
            if square and a.ndim == 3 and a.shape[1] != a.shape[2]:
                raise ValueError(f"layer {l} has shape {list(a.shape)}: self-attention must be square, [heads, T, T] "
                                 "(an encoder-decoder's cross-attention goes in cross_attention)")
            if a.ndim != 3 or a.shape != arrays[0].shape:
                raise ValueError(f"layer {l} has shape {list(a.shape)}; every layer must be {what} "
                                 f"like layer 0's {list(arrays[0].shape)}")
        return Attentions(numpy.stack(arrays))
    H, T = len(layers[0]), len(layers[0][0])
    S = len(layers[0][0][0]) if T and not square else T
    stack = []
    for l, layer in enumerate(layers):
        if len(layer) != H or any(len(m) != T or any(len(row) != S for row in m) for m in layer):
            raise ValueError(f"layer {l}: every layer must be {what} like layer 0's [{H}, {T}, {S}]")
        stack.append([array("f", [v for row in m for v in row]) for m in layer])
    return Attentions(stack, columns=S)


def _is_generation(attention):
    """generate()'s attentions: a tuple over steps of tuples over layers of [batch, heads, q, k]."""
    if not isinstance(attention, (list, tuple)) or not attention:
        return False
    first = attention[0]
    return isinstance(first, (list, tuple)) and len(first) > 0 and hasattr(first[0], "shape") \
        and len(first[0].shape) == 4


def _stitch_generation(steps, square=True):
    """One causal T x T matrix per head from the steps: each step's q query rows are the last q of
    its k positions (q = the prompt at step 0, then 1 with the cache; k at every step without it).
    T = the prompt plus every token generated but the last, which no step has attended from yet.
    square=False: an encoder-decoder's cross-attentions, T x S (k is the source's S at every
    step): the decoder's length is q at step 0 and without the cache, one more each cached step."""
    L = len(steps[0])
    rows = [{} for _ in range(L)]  # [layer][position] -> [heads, k] of that query position
    length = 0
    for s, step in enumerate(steps):
        if len(step) != L:
            raise ValueError(f"generation step {s} has {len(step)} layers, step 0 has {L}")
        q, k = step[0].shape[-2], step[0].shape[-1]
        length = k if square else (q if s == 0 or q > 1 else length + 1)
        for l, layer in enumerate(step):
            layer = _one_example(_plain(layer), l)
            for r in range(q):
                rows[l][length - q + r] = [m[r] for m in layer]
    T = max(rows[0]) + 1
    missing = [r for r in range(T) if r not in rows[0]]
    if missing:
        raise ValueError(f"generation steps hold no attention for positions {missing[:5]}")
    H, S = len(rows[0][0]), T if square else steps[0][0].shape[-1]
    layers = []
    for l in range(L):
        layer = [[[0.0] * S for _ in range(T)] for _ in range(H)]
        for r in range(T):
            for h in range(H):
                values = list(rows[l][r][h])
                layer[h][r][:len(values)] = values
        layers.append(layer)
    stitched = _stack(layers, square)
    stitched.from_generation = True
    return stitched
