# BERT for masked-LM in plain PyTorch with Hugging Face's BertForMaskedLM layout and tensor names:
# embeddings (word + position + token type, LayerNorm), post-LN encoder layers, exact erf GELU, MLM
# head (dense + GELU + LayerNorm, decoder tied to the word embeddings + bias). Dropout only in
# training. forward() keeps every attention matrix, which is what AttnScope shows.
import math
from dataclasses import asdict, dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class BertConfig:
    vocab_size: int = 8000
    hidden_size: int = 128
    num_hidden_layers: int = 4
    num_attention_heads: int = 4
    intermediate_size: int = 512
    max_position_embeddings: int = 128
    type_vocab_size: int = 2
    layer_norm_eps: float = 1e-12
    hidden_dropout_prob: float = 0.1
    attention_probs_dropout_prob: float = 0.1
    initializer_range: float = 0.02
    pad_token_id: int = 0

    def to_hf_json(self):
        """config.json with every BertConfig field Hugging Face writes."""
        d = asdict(self)
        d.update({
            "architectures": ["BertForMaskedLM"],
            "model_type": "bert",
            "hidden_act": "gelu",
            "position_embedding_type": "absolute",
            "classifier_dropout": None,
            "use_cache": True,
            "torch_dtype": "float16",
        })
        return d

    @classmethod
    def from_hf_json(cls, d):
        if d.get("model_type") != "bert" or d.get("hidden_act") != "gelu":
            raise ValueError("expects model_type 'bert' with hidden_act 'gelu'")
        return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})


class Embeddings(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.word_embeddings = nn.Embedding(c.vocab_size, c.hidden_size, padding_idx=c.pad_token_id)
        self.position_embeddings = nn.Embedding(c.max_position_embeddings, c.hidden_size)
        self.token_type_embeddings = nn.Embedding(c.type_vocab_size, c.hidden_size)
        self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)
        self.dropout = nn.Dropout(c.hidden_dropout_prob)

    def forward(self, ids, token_types):  # ids, token_types (B,T) → (B,T,C)
        positions = torch.arange(ids.shape[1], device=ids.device).unsqueeze(0)
        x = (self.word_embeddings(ids) + self.position_embeddings(positions)
             + self.token_type_embeddings(token_types))
        return self.dropout(self.LayerNorm(x))


class SelfAttention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.heads, self.head_dim = c.num_attention_heads, c.hidden_size // c.num_attention_heads
        self.query = nn.Linear(c.hidden_size, c.hidden_size)
        self.key = nn.Linear(c.hidden_size, c.hidden_size)
        self.value = nn.Linear(c.hidden_size, c.hidden_size)
        self.dropout = nn.Dropout(c.attention_probs_dropout_prob)

    def forward(self, x, mask_bias):  # x (B,T,C), mask_bias (B,1,1,T) → context (B,T,C), probs (B,H,T,T)
        B, T, C = x.shape
        split = lambda t: t.view(B, T, self.heads, self.head_dim).transpose(1, 2)  # (B,H,T,dh)
        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim) + mask_bias
        probs = scores.softmax(dim=-1)
        context = self.dropout(probs) @ v
        return context.transpose(1, 2).reshape(B, T, C), probs


class DenseLayerNorm(nn.Module):
    """HF's BertSelfOutput / BertOutput: LayerNorm(dense(h) + residual)."""

    def __init__(self, in_size, c):
        super().__init__()
        self.dense = nn.Linear(in_size, c.hidden_size)
        self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)
        self.dropout = nn.Dropout(c.hidden_dropout_prob)

    def forward(self, h, residual):
        return self.LayerNorm(self.dropout(self.dense(h)) + residual)


class Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self = SelfAttention(c)
        self.output = DenseLayerNorm(c.hidden_size, c)


class Intermediate(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c.hidden_size, c.intermediate_size)

    def forward(self, x):
        return F.gelu(self.dense(x))  # exact erf GELU (HF "gelu")


class Layer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.attention = Attention(c)
        self.intermediate = Intermediate(c)
        self.output = DenseLayerNorm(c.intermediate_size, c)

    def forward(self, x, mask_bias):
        context, probs = self.attention.self(x, mask_bias)
        x = self.attention.output(context, x)
        x = self.output(self.intermediate(x), x)
        return x, probs


class Encoder(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.layer = nn.ModuleList([Layer(c) for _ in range(c.num_hidden_layers)])


class Bert(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embeddings = Embeddings(c)
        self.encoder = Encoder(c)

    def forward(self, ids, token_types, attention_mask):
        # Padding keys get -10000 before the softmax, as in HF's BERT, so their probability is ~0.
        mask_bias = (1.0 - attention_mask[:, None, None, :].float()) * -10000.0
        x = self.embeddings(ids, token_types)
        attentions = []
        for layer in self.encoder.layer:
            x, probs = layer(x, mask_bias)
            attentions.append(probs)
        return x, attentions


class PredictionTransform(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense = nn.Linear(c.hidden_size, c.hidden_size)
        self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)

    def forward(self, x):
        return self.LayerNorm(F.gelu(self.dense(x)))


class Predictions(nn.Module):
    def __init__(self, c, word_embeddings):
        super().__init__()
        self.transform = PredictionTransform(c)
        self.word_embeddings = word_embeddings  # tied decoder weight (V, C)
        self.bias = nn.Parameter(torch.zeros(c.vocab_size))

    def forward(self, x):
        return self.transform(x) @ self.word_embeddings.weight.t() + self.bias


class MlmHead(nn.Module):
    def __init__(self, c, word_embeddings):
        super().__init__()
        self.predictions = Predictions(c, word_embeddings)


class BertForMaskedLM(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.config = c
        self.bert = Bert(c)
        self.cls = MlmHead(c, self.bert.embeddings.word_embeddings)
        self.apply(self._init_weights)

    def _init_weights(self, m):
        std = self.config.initializer_range
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, std=std)
            nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Embedding):
            nn.init.normal_(m.weight, std=std)
            if m.padding_idx is not None:
                with torch.no_grad():
                    m.weight[m.padding_idx].zero_()
        elif isinstance(m, nn.LayerNorm):
            nn.init.ones_(m.weight)
            nn.init.zeros_(m.bias)

    def forward(self, ids, token_types, attention_mask):
        """→ last hidden (B,T,C), attentions [L] of (B,H,T,T)."""
        return self.bert(ids, token_types, attention_mask)

    def mlm_logits(self, hidden):  # (..., C) → (..., V)
        return self.cls.predictions(hidden)

    def hf_state_dict(self):
        """Tensors under Hugging Face BertForMaskedLM names. The decoder is tied to the word
        embeddings, so cls.predictions.decoder.weight is not written (HF re-ties it on load and
        our engine copies word_embeddings); this saves V*C*2 bytes in the shipped file."""
        return {name: t for name, t in self.state_dict().items()
                if name != "cls.predictions.word_embeddings.weight"}

    def load_hf_state_dict(self, tensors):
        own = self.state_dict()
        for name in own:
            src = ("bert.embeddings.word_embeddings.weight"
                   if name == "cls.predictions.word_embeddings.weight" else name)
            if src not in tensors:
                raise KeyError(f"missing tensor {src}")
            if tuple(tensors[src].shape) != tuple(own[name].shape):
                raise ValueError(f"{src}: shape {tuple(tensors[src].shape)}, expected {tuple(own[name].shape)}")
            own[name] = tensors[src].float()
        self.load_state_dict(own)
