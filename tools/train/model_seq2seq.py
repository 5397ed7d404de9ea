# T5ForConditionalGeneration (v1.0: relu feed-forward, tied embeddings) in plain PyTorch, with the
# module tree laid out so state_dict() names ARE Hugging Face's (shared.weight,
# encoder.block.0.layer.0.SelfAttention.q.weight, ..., decoder.final_layer_norm.weight): export
# writes them as they are. The architecture follows transformers' modeling_t5, as
# tests/fixtures/make_seq2seq_fixtures.py (t5_forward) spells it: RMSNorm with weight only, pre-norm
# sublayers, a final norm per stack, no 1/sqrt(d_kv) scaling, relative position bias from block 0's
# table (bidirectional buckets in the encoder, causal in the decoder, none in cross-attention,
# shared by every block of its stack), and the tied head seeing h * d_model^-0.5. Init as T5's
# _init_weights. Dropout after each sublayer and on the embeddings, as HF does when training.
import math
from dataclasses import asdict, dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class T5Config:
    vocab_size: int = 4096
    d_model: int = 256
    d_kv: int = 64
    d_ff: int = 512
    num_layers: int = 2
    num_decoder_layers: int = 2
    num_heads: int = 4
    relative_attention_num_buckets: int = 32
    relative_attention_max_distance: int = 128
    dropout_rate: float = 0.1
    layer_norm_epsilon: float = 1e-6
    pad_token_id: int = 0
    eos_token_id: int = 1
    decoder_start_token_id: int = 0

    @classmethod
    def from_hf_json(cls, d):
        """The fields this T5 has, from a config.json (the rest of it is to_hf_json's constants)."""
        return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})

    def to_hf_json(self):
        d = asdict(self)
        d.update({"architectures": ["T5ForConditionalGeneration"], "model_type": "t5", "feed_forward_proj": "relu",
                  "is_encoder_decoder": True, "tie_word_embeddings": True, "initializer_factor": 1.0,
                  "torch_dtype": "float16", "use_cache": True})
        return dict(sorted(d.items()))


def relative_bucket(rel, bidirectional, num_buckets, max_distance):
    """T5Attention._relative_position_bucket."""
    buckets = torch.zeros_like(rel)
    if bidirectional:
        num_buckets //= 2
        buckets += (rel > 0).to(torch.long) * num_buckets
        rel = torch.abs(rel)
    else:
        rel = -torch.min(rel, torch.zeros_like(rel))
    max_exact = num_buckets // 2
    is_small = rel < max_exact
    large = max_exact + (torch.log(rel.float() / max_exact) / math.log(max_distance / max_exact)
                         * (num_buckets - max_exact)).to(torch.long)
    large = torch.min(large, torch.full_like(large, num_buckets - 1))
    return buckets + torch.where(is_small, rel, large)


class RMSNorm(nn.Module):
    def __init__(self, d, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps))


class Attention(nn.Module):
    def __init__(self, c, has_bias_table):
        super().__init__()
        inner = c.num_heads * c.d_kv
        self.H, self.dkv = c.num_heads, c.d_kv
        self.q = nn.Linear(c.d_model, inner, bias=False)
        self.k = nn.Linear(c.d_model, inner, bias=False)
        self.v = nn.Linear(c.d_model, inner, bias=False)
        self.o = nn.Linear(inner, c.d_model, bias=False)
        if has_bias_table:
            self.relative_attention_bias = nn.Embedding(c.relative_attention_num_buckets, c.num_heads)

    def forward(self, x, kv, bias):
        """bias: (B or 1, H or 1, T, S) additive (position bias and masks). → (out, probs)."""
        B, T, _ = x.shape
        S = kv.shape[1]
        q = self.q(x).view(B, T, self.H, self.dkv).transpose(1, 2)
        k = self.k(kv).view(B, S, self.H, self.dkv).transpose(1, 2)
        v = self.v(kv).view(B, S, self.H, self.dkv).transpose(1, 2)
        scores = q @ k.transpose(-1, -2) + bias
        probs = F.softmax(scores.float(), dim=-1).type_as(scores)
        ctx = (probs @ v).transpose(1, 2).reshape(B, T, self.H * self.dkv)
        return self.o(ctx), probs


class SubLayer(nn.Module):
    """One layer[n] entry: layer_norm + SelfAttention / EncDecAttention / DenseReluDense."""

    def __init__(self, c, kind, has_bias_table=False):
        super().__init__()
        self.layer_norm = RMSNorm(c.d_model, c.layer_norm_epsilon)
        self.kind = kind
        if kind == "ff":
            self.DenseReluDense = nn.Module()
            self.DenseReluDense.wi = nn.Linear(c.d_model, c.d_ff, bias=False)
            self.DenseReluDense.wo = nn.Linear(c.d_ff, c.d_model, bias=False)
        elif kind == "self":
            self.SelfAttention = Attention(c, has_bias_table)
        else:
            self.EncDecAttention = Attention(c, False)


class Block(nn.Module):
    def __init__(self, c, is_decoder, first):
        super().__init__()
        subs = [SubLayer(c, "self", first)] + ([SubLayer(c, "cross")] if is_decoder else []) + [SubLayer(c, "ff")]
        self.layer = nn.ModuleList(subs)


class Stack(nn.Module):
    def __init__(self, c, is_decoder):
        super().__init__()
        n = c.num_decoder_layers if is_decoder else c.num_layers
        self.is_decoder = is_decoder
        self.block = nn.ModuleList([Block(c, is_decoder, i == 0) for i in range(n)])
        self.final_layer_norm = RMSNorm(c.d_model, c.layer_norm_epsilon)


class T5ForConditionalGeneration(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = c = config
        self.shared = nn.Embedding(c.vocab_size, c.d_model)
        self.encoder = Stack(c, False)
        self.decoder = Stack(c, True)
        self.drop = nn.Dropout(c.dropout_rate)
        self._init()

    @torch.no_grad()
    def _init(self):
        """T5PreTrainedModel._init_weights with initializer_factor 1."""
        c = self.config
        nn.init.normal_(self.shared.weight, std=1.0)
        for m in self.modules():
            if isinstance(m, Attention):
                nn.init.normal_(m.q.weight, std=(c.d_model * c.d_kv) ** -0.5)
                nn.init.normal_(m.k.weight, std=c.d_model ** -0.5)
                nn.init.normal_(m.v.weight, std=c.d_model ** -0.5)
                nn.init.normal_(m.o.weight, std=(c.num_heads * c.d_kv) ** -0.5)
                if hasattr(m, "relative_attention_bias"):
                    nn.init.normal_(m.relative_attention_bias.weight, std=c.d_model ** -0.5)
            elif isinstance(m, SubLayer) and m.kind == "ff":
                nn.init.normal_(m.DenseReluDense.wi.weight, std=c.d_model ** -0.5)
                nn.init.normal_(m.DenseReluDense.wo.weight, std=c.d_ff ** -0.5)

    def position_bias(self, stack, T, S):
        c = self.config
        rel = torch.arange(S)[None, :] - torch.arange(T)[:, None]
        b = relative_bucket(rel, not stack.is_decoder, c.relative_attention_num_buckets,
                            c.relative_attention_max_distance)
        table = stack.block[0].layer[0].SelfAttention.relative_attention_bias
        return table(b).permute(2, 0, 1).unsqueeze(0)  # (1, H, T, S)

    def encode(self, src, src_mask, attentions=None):
        """src (B, S) ids, src_mask (B, S) bool (True = real token) → (B, S, C)."""
        S = src.shape[1]
        neg = torch.finfo(torch.float32).min
        bias = self.position_bias(self.encoder, S, S) + (~src_mask)[:, None, None, :].float() * neg
        x = self.drop(self.shared(src))
        for blk in self.encoder.block:
            a, probs = blk.layer[0].SelfAttention(*(2 * [blk.layer[0].layer_norm(x)]), bias)
            if attentions is not None:
                attentions.append(probs)
            x = x + self.drop(a)
            x = x + self.drop(self.ff(blk.layer[1], x))
        return self.drop(self.encoder.final_layer_norm(x))

    def ff(self, sub, x):
        d = sub.DenseReluDense
        return d.wo(self.drop(F.relu(d.wi(sub.layer_norm(x)))))

    def decode(self, enc, src_mask, tgt_in, cross=None, self_attn=None, rows=None):
        """Logits (B, T, V) for decoder inputs tgt_in (decoder_start_token_id first); with rows (a
        (B, T) bool mask), (N, V) for those positions only: training skips the vocabulary
        projection, a fifth of a step, on padding."""
        T = tgt_in.shape[1]
        neg = torch.finfo(torch.float32).min
        causal = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
        bias = self.position_bias(self.decoder, T, T) + causal.float() * neg
        cross_bias = (~src_mask)[:, None, None, :].float() * neg
        x = self.drop(self.shared(tgt_in))
        for blk in self.decoder.block:
            a, probs = blk.layer[0].SelfAttention(*(2 * [blk.layer[0].layer_norm(x)]), bias)
            if self_attn is not None:
                self_attn.append(probs)
            x = x + self.drop(a)
            a, probs = blk.layer[1].EncDecAttention(blk.layer[1].layer_norm(x), enc, cross_bias)
            if cross is not None:
                cross.append(probs)
            x = x + self.drop(a)
            x = x + self.drop(self.ff(blk.layer[2], x))
        x = self.drop(self.decoder.final_layer_norm(x))
        if rows is not None:
            x = x[rows]
        return (x * self.config.d_model ** -0.5) @ self.shared.weight.T

    def forward(self, src, src_mask, tgt_in):
        return self.decode(self.encode(src, src_mask), src_mask, tgt_in)

    def hf_state_dict(self):
        """{HF name: tensor}: shared.weight stands for both embed_tokens and the tied lm_head."""
        return {k: v for k, v in self.state_dict().items()}

    def load_hf_state_dict(self, tensors):
        own = self.state_dict()
        missing = set(own) - set(tensors)
        if missing:
            raise KeyError(f"missing tensors: {sorted(missing)[:5]}")
        self.load_state_dict({k: tensors[k].to(own[k].dtype) for k in own})

    @torch.no_grad()
    def greedy(self, src, max_len=80):
        """One source (list of ids, </s> last) → (target ids without the start token, to </s>)."""
        c = self.config
        s = torch.tensor([src])
        mask = torch.ones_like(s, dtype=torch.bool)
        enc = self.encode(s, mask)
        out = [c.decoder_start_token_id]
        for _ in range(max_len):
            nxt = int(self.decode(enc, mask, torch.tensor([out]))[0, -1].argmax())
            out.append(nxt)
            if nxt == c.eos_token_id:
                break
        return out[1:]
