"""figure() on the inputs users have: every accepted form gives the same figure; shapes, tokens and
views it cannot draw are refused by name; decoders are told by their causal mask; the rounding is
JavaScript's; word matrices and generate()'s per-step attentions against references computed
here another way (torch, float64)."""
import math
import types
import unittest

import numpy
import torch

import support  # noqa: F401 (puts python/ on the path)
import attnscope
from attnscope.figure import _js_round, figure_heads


def softmax_attentions(layers=3, heads=2, T=5, causal=False, seed=0):
    """A tuple of [1, heads, T, T] probability tensors, as transformers' outputs.attentions."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(layers):
        scores = torch.randn(1, heads, T, T, generator=g)
        if causal:
            scores = scores.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), 1), float("-inf"))
        out.append(torch.softmax(scores, dim=-1))
    return tuple(out)


TOKENS = ["[CLS]", "the", "cat", "sat", "[SEP]"]


class Forms(unittest.TestCase):
    def test_torch_numpy_and_lists_give_one_figure(self):
        att = softmax_attentions()
        want = attnscope.figure(att, TOKENS, view="grid")
        stacked = numpy.stack([a.numpy() for a in att])  # [L, 1, H, T, T]
        for form in (stacked, stacked[:, 0], stacked.tolist(), [a[0].tolist() for a in att], list(att)):
            self.assertEqual(attnscope.figure(form, TOKENS, view="grid"), want)

    def test_values_are_float32_rounded_to_six_decimals(self):
        att = softmax_attentions()
        doc = attnscope.figure(att, TOKENS, view="head", layer=2, head=1)
        want = [math.floor(float(v) * 1e6 + 0.5) / 1e6 for v in att[2][0, 1].flatten().tolist()]
        self.assertEqual(doc["attentions"][0], want)
        float64 = [a.double() for a in att]   # float64 input is held as float32, as the engine holds it
        self.assertEqual(attnscope.figure(float64, TOKENS, view="head", layer=2, head=1), doc)

    def test_rounding_halves_up_as_javascript_does(self):
        self.assertEqual([_js_round(x) for x in (0.5, 1.5, 2.5, 2.4999999, 7.0)], [1, 2, 3, 2, 7])
        self.assertNotEqual(round(2.5), _js_round(2.5))

    def test_heads_each_view_holds(self):
        self.assertEqual(figure_heads("head", 1, 2, 3, 4), [[1, 2]])
        self.assertEqual(figure_heads("lines", 1, 2, 3, 2), [[1, 0], [1, 1]])
        self.assertEqual(figure_heads("grid", 1, 2, 2, 2), [[0, 0], [0, 1], [1, 0], [1, 1]])

    def test_refusals_name_the_problem(self):
        att = softmax_attentions()
        cases = [
            (lambda: attnscope.figure(att, TOKENS[:4]), "4 tokens for attention over 5"),
            (lambda: attnscope.figure(att, TOKENS, view="formula"), "head, lines, grid"),
            (lambda: attnscope.figure(att, TOKENS, layer=3), "3 layers"),
            (lambda: attnscope.figure(att, TOKENS, head=2), "2 heads"),
            (lambda: attnscope.figure([torch.cat([a, a]) for a in att], TOKENS), "a batch of 2"),
            (lambda: attnscope.figure([a[0, 0] for a in att], TOKENS), "2 dimensions"),
            (lambda: attnscope.figure([att[0], att[1][:, :, :4, :4]], TOKENS), "layer 1 has shape"),
            (lambda: attnscope.figure(att, TOKENS, words=True), "words=True needs"),
            (lambda: attnscope.figure(att, TOKENS, token_texts=["a"]), "token_texts has 1"),
        ]
        for call, message in cases:
            with self.subTest(message=message), self.assertRaises(ValueError) as caught:
                call()
            self.assertIn(message, str(caught.exception))


class ModelInfo(unittest.TestCase):
    def test_a_causal_mask_makes_a_decoder(self):
        self.assertEqual(attnscope.figure(softmax_attentions(causal=True), TOKENS)["modelInfo"],
                         {"kind": "decoder", "config": {"numLayers": 3, "numHeads": 2, "isDecoder": True}})
        self.assertEqual(attnscope.figure(softmax_attentions(), TOKENS)["modelInfo"]["kind"], "encoder")
        self.assertEqual(attnscope.figure(softmax_attentions(), TOKENS, is_decoder=True)["modelInfo"]["kind"], "decoder")

    def test_configs_of_several_families(self):
        att = softmax_attentions(heads=2)
        gpt2 = {"model_type": "gpt2", "n_embd": 64, "n_head": 2}
        mistral = {"model_type": "mistral", "hidden_size": 64, "num_attention_heads": 2, "head_dim": 16}
        self.assertEqual(attnscope.figure(att, TOKENS, config=gpt2)["modelInfo"]["config"],
                         {"numLayers": 3, "numHeads": 2, "hiddenSize": 64, "headDim": 32, "isDecoder": False, "family": "gpt2"})
        self.assertEqual(attnscope.figure(att, TOKENS, config=mistral)["modelInfo"]["config"]["family"], "llama")
        self.assertEqual(attnscope.figure(att, TOKENS, config=mistral)["modelInfo"]["config"]["headDim"], 16)

    def test_a_transformers_model_names_itself(self):
        config = types.SimpleNamespace(name_or_path="bert-base-uncased", model_type="bert",
                                       to_dict=lambda: {"model_type": "bert", "hidden_size": 8, "num_attention_heads": 2})
        doc = attnscope.figure(softmax_attentions(), TOKENS, model=types.SimpleNamespace(config=config))
        self.assertEqual(doc["model"], "bert-base-uncased")
        self.assertEqual(doc["modelInfo"]["config"]["hiddenSize"], 8)

    def test_tokens_shown_and_special_tokens(self):
        doc = attnscope.figure(softmax_attentions(T=4), ["<s>", "\u0120Hello", "\u2581world", "</s>"])
        self.assertEqual(doc["tokenTexts"], ["<s>", " Hello", " world", "</s>"])   # BertViz's prettify
        self.assertEqual(doc["specialTokensMask"], [1, 0, 0, 1])
        plain = attnscope.figure(softmax_attentions(T=4), ["a", "\u0120b", "c", "d"], prettify_tokens=False)
        self.assertEqual(plain["tokenTexts"], ["a", "\u0120b", "c", "d"])


class Words(unittest.TestCase):
    def test_word_matrices_against_a_float64_reference(self):
        # "unaffable cats": un ##aff ##able | cats, as BERT's WordPiece splits it.
        text = "unaffable cats"
        tokens = ["[CLS]", "un", "##aff", "##able", "cats", "[SEP]"]
        offsets = [(0, 0), (0, 2), (2, 5), (5, 9), (10, 14), (0, 0)]
        att = softmax_attentions(layers=1, heads=1, T=6, seed=3)
        doc = attnscope.figure(att, tokens, text=text, offsets=offsets, words=True)
        self.assertEqual(doc["words"], [
            {"text": "[CLS]", "start": 0, "end": 0, "tokens": [0]},
            {"text": "unaffable", "start": 0, "end": 9, "tokens": [1, 2, 3]},
            {"text": "cats", "start": 10, "end": 14, "tokens": [4]},
            {"text": "[SEP]", "start": 0, "end": 0, "tokens": [5]}])
        groups = [[0], [1, 2, 3], [4], [5]]
        m = att[0][0, 0].double()
        want = [float(m[rows][:, cols].sum() / len(rows)) for rows in groups for cols in groups]
        for got, ref in zip(doc["wordAttentions"][0], want):
            self.assertAlmostEqual(got, ref, delta=1.5e-6)


class Generation(unittest.TestCase):
    def test_per_step_attentions_stitch_into_the_full_causal_matrix(self):
        # The reference: one causal attention over every position at once. generate() with a
        # cache gives the prompt's rows at step 0 and one row per later step; without a cache,
        # every step's square matrix.
        P, steps, L, H = 3, 4, 2, 2
        T = P + steps - 1
        full = softmax_attentions(layers=L, heads=H, T=T, causal=True, seed=5)
        cached = [tuple(a[:, :, :P, :P] for a in full)] + \
            [tuple(a[:, :, P + i - 1:P + i, :P + i] for a in full) for i in range(1, steps)]
        uncached = [tuple(a[:, :, :P + i, :P + i] for a in full) for i in range(steps)]
        tokens = [f"t{i}" for i in range(T + 1)]   # the sequence: the last token has no row yet
        want = attnscope.figure(full, tokens[:T], view="grid")
        self.assertEqual(attnscope.figure(cached, tokens, view="grid"), want)
        self.assertEqual(attnscope.figure(uncached, tokens[:T], view="grid"), want)
        self.assertEqual(want["modelInfo"]["kind"], "decoder")

    def test_an_encoder_decoders_per_step_cross_attentions_stitch_too(self):
        # generate() on T5 / BART: per step, cross_attentions [1, heads, q, S]: one row per step with
        # the cache (q = 1), every row so far without it; the same T x S matrix as one pass.
        T, S, L, H = 4, 5, 2, 3
        g = torch.Generator().manual_seed(7)
        full = tuple(torch.softmax(torch.randn(1, H, T, S, generator=g), dim=-1) for _ in range(L))
        cached = [tuple(a[:, :, i:i + 1, :] for a in full) for i in range(T)]
        uncached = [tuple(a[:, :, :i + 1, :] for a in full) for i in range(T)]
        tokens, source = [f"t{i}" for i in range(T + 1)], [f"s{j}" for j in range(S)]
        want = attnscope.figure(full, tokens[:T], view="grid", kind="cross", source_tokens=source)
        self.assertEqual(want["shape"], [L, H, T, S])
        self.assertEqual(attnscope.figure(cached, tokens, view="grid", kind="cross", source_tokens=source), want)
        self.assertEqual(attnscope.figure(uncached, tokens[:T], view="grid", kind="cross", source_tokens=source), want)


if __name__ == "__main__":
    unittest.main()
