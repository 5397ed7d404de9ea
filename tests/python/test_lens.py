"""The logit lens from hidden states (attnscope.lens, a figure's `lens`): against the figure
`attnscope snapshot --view layers` writes for the bundled decoder, fed the hidden states of the
independent float64 PyTorch forward in tests/fixtures/bundled-causal (make_bundled_causal_fixture.py,
not the engine) shaped as transformers returns them (the last one after ln_f), the LM head (tied to
wte) and ln_f as a torch.nn.LayerNorm read from model-causal/model.safetensors; then a Llama-style
RMSNorm against the definition computed here with torch; and what it refuses."""
import json
import struct
import unittest

import torch

from support import ROOT, cli_json, model_config, schema_errors

import attnscope
from attnscope.lens import logit_lens
from attnscope.token_text import readable

FIXTURE = ROOT / "tests" / "fixtures" / "bundled-causal"
CASE = "endoftext"   # 15 tokens, one of them <|endoftext|>
DTYPES = {"F32": torch.float32, "F16": torch.float16, "I32": torch.int32}


def read_safetensors(path):
    """{name: tensor}, read with the standard library and torch (no safetensors package here)."""
    data = path.read_bytes()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    return {name: torch.frombuffer(bytearray(data[8 + n + e["data_offsets"][0]:8 + n + e["data_offsets"][1]]),
                                   dtype=DTYPES[e["dtype"]]).reshape(e["shape"])
            for name, e in header.items() if name != "__metadata__"}



def _untie(engine_top, reference_top, tolerance):
    """The engine's candidates as (id, token, text), two neighbours swapped where the reference
    ranks them the other way and the engine's probabilities of the two are within `tolerance` (a
    tie in float32, which the summation order of the engine's logits decides)."""
    top = list(engine_top)
    for i in range(len(top) - 1):
        a, b = top[i], top[i + 1]
        if (reference_top[i]["id"], reference_top[i + 1]["id"]) == (b["id"], a["id"]) and abs(a["prob"] - b["prob"]) < tolerance:
            top[i], top[i + 1] = b, a
    return [(c["id"], c["token"], c["text"]) for c in top]

class LlamaRMSNorm(torch.nn.Module):
    """transformers' LlamaRMSNorm as its source defines it (the package is not installed here)."""

    def __init__(self, size, eps):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(size))
        self.variance_epsilon = eps


class GemmaRMSNorm(LlamaRMSNorm):
    """Scales by 1 + weight: a norm the lens must refuse rather than misread."""


class LensEqualsTheCli(unittest.TestCase):
    def test_the_bundled_decoders_lens(self):
        case = next(c for c in json.loads((FIXTURE / "inputs.json").read_text())["cases"] if c["name"] == CASE)
        ref = read_safetensors(FIXTURE / case["expected"])
        weights = read_safetensors(ROOT / "model-causal" / "model.safetensors")
        config = model_config("bundled-causal")
        # transformers' hidden_states: the embeddings, each block's output, the last after ln_f.
        hs = ref["hidden_states"]
        hidden_states = tuple(hs[l][None] for l in range(len(hs) - 1)) + (ref["hidden_out"][None],)
        ln_f = torch.nn.LayerNorm(config["n_embd"], eps=config["layer_norm_epsilon"])
        with torch.no_grad():
            ln_f.weight.copy_(weights["transformer.ln_f.weight"].float())
            ln_f.bias.copy_(weights["transformer.ln_f.bias"].float())
        attentions = tuple(a[None] for a in ref["attentions"])
        vocab = json.loads((ROOT / "model-causal" / "vocab.json").read_text(encoding="utf-8"))

        want = cli_json(self.tmp / "lens-cli.json", "snapshot", "--model", "bundled-causal", "--text", case["text"],
                        "--view", "layers")
        self.assertEqual(want["tokens"], case["tokens"])
        got = attnscope.figure(attentions, case["tokens"], view="layers", text=case["text"], model="bundled-causal",
                               config=config, offsets=_pairs(want["offsets"]),   # labels: the lens's own (readable)
                               # GPT-2's tokenizer adds no special token: <|endoftext|> typed in the text is not one
                               special_tokens_mask=[0] * len(case["tokens"]),
                               hidden_states=hidden_states, lm_head=weights["transformer.wte.weight"], final_norm=ln_f,
                               vocab=vocab)
        self.assertEqual(schema_errors(got), [])
        # Everything but the lens is the CLI's, value for value.
        self.assertEqual({k: v for k, v in got.items() if k != "lens"}, {k: v for k, v in want.items() if k != "lens"})
        # The lens: the same tokens, texts and ranks; probabilities within 2e-6 (the engine's float32
        # logits against float64, each rounded to six significant digits).
        self.assertEqual(len(got["lens"]), len(want["lens"]))
        worst = 0
        for l, (row_want, row_got) in enumerate(zip(want["lens"], got["lens"])):
            for p, (a, b) in enumerate(zip(row_want, row_got)):
                where = f"row {l} position {p}"
                self.assertEqual(_untie(a["top"], b["top"], 2e-6), [(c["id"], c["token"], c["text"]) for c in b["top"]], where)
                self.assertEqual((a["finalRank"], a["nextRank"]), (b["finalRank"], b["nextRank"]), where)
                probs = [(x["prob"], y["prob"]) for x, y in zip(a["top"], b["top"])]
                probs += [(a["finalProb"], b["finalProb"])] + ([(a["nextProb"], b["nextProb"])] if a["nextRank"] else [])
                worst = max([worst] + [abs(x - y) for x, y in probs])
        self.assertLess(worst, 2e-6)
        self.assertIsNone(got["lens"][0][-1]["nextRank"], "nothing follows the last position")

    @classmethod
    def setUpClass(cls):
        import tempfile
        from pathlib import Path
        cls._dir = tempfile.TemporaryDirectory()
        cls.tmp = Path(cls._dir.name)

    @classmethod
    def tearDownClass(cls):
        cls._dir.cleanup()


def _pairs(flat):
    return list(zip(flat[0::2], flat[1::2]))


class Norms(unittest.TestCase):
    def setUp(self):
        g = torch.Generator().manual_seed(3)
        self.T, self.C, self.V, self.L = 4, 8, 11, 2
        self.hidden = tuple(torch.randn(1, self.T, self.C, generator=g) for _ in range(self.L + 1))
        self.head = torch.randn(self.V, self.C, generator=g)
        self.vocab = [f"t{i}" for i in range(self.V)]
        self.ids = [3, 1, 4, 1]

    def test_rms_norm_as_the_llama_family_defines_it(self):
        norm = LlamaRMSNorm(self.C, 1e-6)
        with torch.no_grad():
            norm.weight.copy_(torch.linspace(0.5, 1.5, self.C))
        lens = logit_lens(self.hidden, self.head, norm, vocab=self.vocab, input_ids=torch.tensor([self.ids]))
        for l, h in enumerate(self.hidden):
            x = h[0].double()
            if l < self.L:   # the last row is transformers' own, after the norm already
                x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * norm.weight.double()
            probs = torch.softmax(x @ self.head.double().T, dim=-1)
            final = torch.softmax(self.hidden[-1][0].double() @ self.head.double().T, dim=-1).argmax(-1)
            for t in range(self.T):
                top = torch.argsort(-probs[t], stable=True)[:5]
                self.assertEqual([c["id"] for c in lens[l][t]["top"]], top.tolist())
                for c in lens[l][t]["top"]:
                    self.assertAlmostEqual(c["prob"], probs[t, c["id"]].item(), delta=1e-12)
                self.assertEqual(lens[l][t]["finalRank"], 1 + int((probs[t] > probs[t, final[t]]).sum()))
                if t + 1 < self.T:
                    self.assertAlmostEqual(lens[l][t]["nextProb"], probs[t, self.ids[t + 1]].item(), delta=1e-12)
        self.assertEqual([e["finalRank"] for e in lens[-1]], [1] * self.T, "the last row is the model's own guess")

    def test_refusals_name_what_is_wrong(self):
        with self.assertRaisesRegex(ValueError, "GemmaRMSNorm is not supported"):
            logit_lens(self.hidden, self.head, GemmaRMSNorm(self.C, 1e-6), vocab=self.vocab, input_ids=self.ids)
        with self.assertRaisesRegex(ValueError, "pass vocab="):
            logit_lens(self.hidden, self.head, None, input_ids=self.ids)
        with self.assertRaisesRegex(ValueError, "hidden size 8"):
            logit_lens(self.hidden, self.head[:, :5], None, vocab=self.vocab, input_ids=self.ids)
        with self.assertRaisesRegex(ValueError, "output_hidden_states"):
            logit_lens(None, self.head, None, vocab=self.vocab, input_ids=self.ids)
        with self.assertRaisesRegex(ValueError, "rms_norm"):
            logit_lens(self.hidden, self.head, {"type": "batch_norm", "eps": 1e-5}, vocab=self.vocab, input_ids=self.ids)
        decoder = tuple(torch.tril(torch.ones(1, 2, self.T, self.T)) / torch.arange(1, self.T + 1).view(1, 1, -1, 1)
                        for _ in range(self.L))
        with self.assertRaisesRegex(ValueError, "no attention to merge into words"):
            attnscope.figure(decoder, self.vocab[:self.T], view="layers", text="t0t1t2t3", offsets=[(0, 2), (2, 4), (4, 6), (6, 8)],
                             words=True, hidden_states=self.hidden, lm_head=self.head, vocab=self.vocab)
        encoder = tuple(torch.full((1, 2, self.T, self.T), 1 / self.T) for _ in range(self.L))
        with self.assertRaisesRegex(ValueError, "for decoders"):
            attnscope.figure(encoder, self.vocab[:self.T], view="layers", hidden_states=self.hidden, lm_head=self.head,
                             vocab=self.vocab)

    def test_token_labels_as_the_engine_writes_them(self):
        # GPT-2's byte-level alphabet: Ġ a space, Ċ a newline, a lone continuation byte as <0xNN>.
        self.assertEqual([readable(t, True) for t in ["Ġcat", "ĊĊ", "Ã©", "Ã", "<|endoftext|>"]],
                         ["\u2423cat", "\u21b5\u21b5", "é", "<0xC3>", "<|endoftext|>"])
        self.assertEqual([readable(t, False) for t in ["\u2581the", "##ing"]], ["\u2423the", "##ing"])


if __name__ == "__main__":
    unittest.main()
