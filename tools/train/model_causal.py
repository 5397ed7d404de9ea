# The bundled decoder: GPT-2's architecture in plain PyTorch (no `transformers` here), written for
# training. Pre-LN blocks x + attn(ln_1(x)), x + mlp(ln_2(x)); learned absolute positions; causal
# self-attention that keeps its probabilities (the viewer shows them); gelu_new MLP; final ln_f;
# lm_head tied to the token embedding. hf_state_dict / load_hf_state_dict translate to and from
# GPT2LMHeadModel's tensor names, whose Conv1D weights are stored [in, out] (nn.Linear's transpose).
import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


@dataclass
class GPT2Config:
    vocab_size: int = 4096
    n_positions: int = 256
    n_embd: int = 128
    n_layer: int = 4
    n_head: int = 4
    n_inner: int = None  # None: 4 * n_embd, as GPT2Config
    layer_norm_epsilon: float = 1e-5
    dropout: float = 0.1  # embedding, attention-probability and residual dropout alike
    bos_token_id: int = 4095
    eos_token_id: int = 4095

    @property
    def inner(self):
        return self.n_inner or 4 * self.n_embd

    def to_hf_json(self):
        """config.json as transformers' GPT2Config writes it (defaults included)."""
        return {
            "activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"],
            "attn_pdrop": self.dropout, "bos_token_id": self.bos_token_id, "embd_pdrop": self.dropout,
            "eos_token_id": self.eos_token_id, "initializer_range": 0.02,
            "layer_norm_epsilon": self.layer_norm_epsilon, "model_type": "gpt2",
            "n_ctx": self.n_positions, "n_embd": self.n_embd, "n_head": self.n_head, "n_inner": self.n_inner,
            "n_layer": self.n_layer, "n_positions": self.n_positions, "reorder_and_upcast_attn": False,
            "resid_pdrop": self.dropout, "scale_attn_by_inverse_layer_idx": False, "scale_attn_weights": True,
            "summary_activation": None, "summary_first_dropout": 0.1, "summary_proj_to_labels": True,
            "summary_type": "cls_index", "summary_use_proj": True, "tie_word_embeddings": True,
            "torch_dtype": "float16", "use_cache": True, "vocab_size": self.vocab_size,
        }

    @classmethod
    def from_hf_json(cls, j):
        if j.get("model_type") != "gpt2" or j.get("activation_function", "gelu_new") != "gelu_new":
            raise ValueError("not a gelu_new GPT-2 config")
        return cls(vocab_size=j["vocab_size"], n_positions=j["n_positions"], n_embd=j["n_embd"],
                   n_layer=j["n_layer"], n_head=j["n_head"], n_inner=j.get("n_inner"),
                   layer_norm_epsilon=j.get("layer_norm_epsilon", 1e-5), dropout=0.0,
                   bos_token_id=j.get("bos_token_id", 0), eos_token_id=j.get("eos_token_id", 0))


class CausalSelfAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.n_head = c.n_head
        self.c_attn = nn.Linear(c.n_embd, 3 * c.n_embd)
        self.c_proj = nn.Linear(c.n_embd, c.n_embd)
        self.attn_drop = nn.Dropout(c.dropout)
        self.resid_drop = nn.Dropout(c.dropout)
        mask = torch.tril(torch.ones(c.n_positions, c.n_positions, dtype=torch.bool))
        self.register_buffer("causal", mask, persistent=False)

    def forward(self, x):
        """x (B,T,C) → (output (B,T,C), probabilities (B,H,T,T))."""
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(C // self.n_head)
        scores = scores.masked_fill(~self.causal[:T, :T], float("-inf"))
        probs = scores.softmax(dim=-1)
        y = (self.attn_drop(probs) @ v).transpose(1, 2).reshape(B, T, C)
        return self.resid_drop(self.c_proj(y)), probs


class MLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c_fc = nn.Linear(c.n_embd, c.inner)
        self.c_proj = nn.Linear(c.inner, c.n_embd)
        self.drop = nn.Dropout(c.dropout)

    def forward(self, x):
        return self.drop(self.c_proj(F.gelu(self.c_fc(x), approximate="tanh")))  # tanh form = gelu_new


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.ln_1 = nn.LayerNorm(c.n_embd, eps=c.layer_norm_epsilon)
        self.attn = CausalSelfAttention(c)
        self.ln_2 = nn.LayerNorm(c.n_embd, eps=c.layer_norm_epsilon)
        self.mlp = MLP(c)

    def forward(self, x):
        a, probs = self.attn(self.ln_1(x))
        x = x + a
        x = x + self.mlp(self.ln_2(x))
        return x, probs


class GPT2LMHeadModel(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = c = config
        self.wte = nn.Embedding(c.vocab_size, c.n_embd)
        self.wpe = nn.Embedding(c.n_positions, c.n_embd)
        self.drop = nn.Dropout(c.dropout)
        self.h = nn.ModuleList(Block(c) for _ in range(c.n_layer))
        self.ln_f = nn.LayerNorm(c.n_embd, eps=c.layer_norm_epsilon)
        self.apply(self._init)
        for name, p in self.named_parameters():  # GPT-2: residual projections scaled by depth
            if name.endswith("c_proj.weight"):
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * c.n_layer))

    @staticmethod
    def _init(m):
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, std=0.02)
        if isinstance(m, nn.Linear) and m.bias is not None:
            nn.init.zeros_(m.bias)

    def forward(self, ids):
        """ids (B,T) → (hidden after ln_f (B,T,C), [per layer attention probabilities (B,H,T,T)])."""
        T = ids.shape[1]
        if T > self.config.n_positions:
            raise ValueError(f"{T} tokens > n_positions {self.config.n_positions}")
        x = self.drop(self.wte(ids) + self.wpe(torch.arange(T, device=ids.device)))
        attentions = []
        for block in self.h:
            x, probs = block(x)
            attentions.append(probs)
        return self.ln_f(x), attentions

    def logits(self, hidden):
        return hidden @ self.wte.weight.t()  # tied lm_head, no bias

    # --- Hugging Face GPT2LMHeadModel names ------------------------------------------------------
    def hf_state_dict(self):
        out = {"transformer.wte.weight": self.wte.weight, "transformer.wpe.weight": self.wpe.weight,
               "transformer.ln_f.weight": self.ln_f.weight, "transformer.ln_f.bias": self.ln_f.bias}
        for i, b in enumerate(self.h):
            p = f"transformer.h.{i}."
            for name, mod in (("ln_1", b.ln_1), ("ln_2", b.ln_2)):
                out[p + name + ".weight"], out[p + name + ".bias"] = mod.weight, mod.bias
            for name, lin in (("attn.c_attn", b.attn.c_attn), ("attn.c_proj", b.attn.c_proj),
                              ("mlp.c_fc", b.mlp.c_fc), ("mlp.c_proj", b.mlp.c_proj)):
                out[p + name + ".weight"] = lin.weight.t()  # Conv1D: [in, out]
                out[p + name + ".bias"] = lin.bias
        return {k: v.detach().contiguous() for k, v in out.items()}

    def load_hf_state_dict(self, tensors):
        mine = self.hf_state_dict()
        extra = set(tensors) - set(mine) - {"lm_head.weight"}
        missing = set(mine) - set(tensors)
        if extra or missing:
            raise ValueError(f"tensor names differ: missing {sorted(missing)}, unexpected {sorted(extra)}")
        for name, t in mine.items():
            if tuple(tensors[name].shape) != tuple(t.shape):
                raise ValueError(f"{name}: shape {tuple(tensors[name].shape)}, expected {tuple(t.shape)}")
        sd = {}
        for name, mod_name in self._hf_to_module_names().items():
            src = tensors[name].float()
            conv1d = ".c_" in mod_name and mod_name.endswith(".weight")  # back to nn.Linear's [out, in]
            sd[mod_name] = src.t() if conv1d else src
        self.load_state_dict(sd, strict=True)

    def _hf_to_module_names(self):
        names = {"transformer.wte.weight": "wte.weight", "transformer.wpe.weight": "wpe.weight",
                 "transformer.ln_f.weight": "ln_f.weight", "transformer.ln_f.bias": "ln_f.bias"}
        for i in range(self.config.n_layer):
            for part in ("ln_1.weight", "ln_1.bias", "ln_2.weight", "ln_2.bias", "attn.c_attn.weight",
                         "attn.c_attn.bias", "attn.c_proj.weight", "attn.c_proj.bias", "mlp.c_fc.weight",
                         "mlp.c_fc.bias", "mlp.c_proj.weight", "mlp.c_proj.bias"):
                names[f"transformer.h.{i}.{part}"] = f"h.{i}.{part}"
        return names
