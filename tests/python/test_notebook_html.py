"""The HTML the views put in a notebook: the renderer inlined once per notebook (every output in
Colab; always in HTML returned to be saved), the figure as a data: URL that decodes to the
figure, nothing fetched from anywhere, BertViz's arguments taking effect."""
import base64
import json
import re
import sys
import unittest
from unittest import mock

import torch

import support
import attnscope
from attnscope import renderer, views
from test_figure_inputs import TOKENS, softmax_attentions


def elements(markup):
    """[(attributes dict, figure dict)] of each <attn-scope> in the markup."""
    found = []
    for tag in re.findall(r"<attn-scope ([^>]*)>", without_renderer(markup)):
        attributes = {k: v for k, v in re.findall(r'([a-z-]+)="([^"]*)"', tag)}
        src = attributes["src"]
        assert src.startswith("data:application/json;base64,"), src[:40]
        found.append((attributes, json.loads(base64.b64decode(src.split(",", 1)[1]))))
    return found


def without_renderer(markup):
    return re.sub(r'<script type="module">.*?</script>', "", markup, flags=re.S)


def renderer_count(markup):
    return markup.count('<script type="module">')


class Shown(unittest.TestCase):
    def setUp(self):
        attnscope.init_notebook()
        renderer._cached = None   # read the built file afresh (another test run may have rebuilt it)
        self.shown = []
        patcher = mock.patch("IPython.display.display", side_effect=lambda h: self.shown.append(h.data))
        patcher.start()
        self.addCleanup(patcher.stop)

    def test_the_renderer_comes_once_per_notebook(self):
        att = softmax_attentions()
        attnscope.head_view(att, TOKENS)
        attnscope.model_view(att, TOKENS)
        attnscope.show(att, TOKENS, view="lines", layer=1)
        self.assertEqual([renderer_count(h) for h in self.shown], [1, 0, 0])
        built = (support.ROOT / "dist" / "attnscope-element-inline.js").read_text(encoding="utf-8").replace("</script", "<\\/script")
        self.assertTrue(f'<script type="module">{built}</script>' in self.shown[0], "the built element, inlined whole")
        attnscope.init_notebook()   # its output was cleared: the next view carries it again
        attnscope.head_view(att, TOKENS)
        self.assertEqual(renderer_count(self.shown[-1]), 1)

    def test_colab_gets_it_in_every_output(self):
        with mock.patch.dict(sys.modules, {"google.colab": mock.MagicMock()}):
            attnscope.head_view(softmax_attentions(), TOKENS)
            attnscope.head_view(softmax_attentions(), TOKENS)
        self.assertEqual([renderer_count(h) for h in self.shown], [1, 1])

    def test_returned_html_stands_alone(self):
        attnscope.head_view(softmax_attentions(), TOKENS)
        returned = attnscope.head_view(softmax_attentions(), TOKENS, html_action="return")
        self.assertEqual(renderer_count(returned.data), 1)
        attnscope.head_view(softmax_attentions(), TOKENS)
        self.assertEqual(renderer_count(self.shown[-1]), 0, "returning HTML did not use up the notebook's renderer")
        with self.assertRaises(ValueError):
            attnscope.head_view(softmax_attentions(), TOKENS, html_action="save")

    def test_without_ipython_the_string_is_returned(self):
        with mock.patch.dict(sys.modules, {"IPython.display": None}):
            markup = attnscope.head_view(softmax_attentions(), TOKENS, html_action="return")
            self.assertIsInstance(markup, str)
            with self.assertRaises(RuntimeError):
                attnscope.head_view(softmax_attentions(), TOKENS)

    def test_no_request_leaves_the_page(self):
        attnscope.model_view(softmax_attentions(), TOKENS)
        markup = self.shown[0]
        outside = without_renderer(markup)
        self.assertEqual(re.findall(r'(?:src|href)="(?!data:)[^"]*"', outside), [])
        self.assertEqual(outside.count("</script>"), 1, "the theme script, besides the renderer")
        self.assertNotIn("require(", outside)

    def test_head_view_holds_every_head_and_opens_at_the_asked_one(self):
        att = softmax_attentions()
        attnscope.head_view(att, TOKENS, layer=2, heads=[1, 0])
        [(attributes, doc)] = elements(self.shown[0])
        self.assertEqual(attributes["view"], "head")
        self.assertEqual((doc["view"], doc["layer"], doc["head"]), ("grid", 2, 1))
        self.assertEqual(doc, attnscope.figure(att, TOKENS, view="grid", layer=2, head=1))

    def test_include_layers_keeps_bertvizs_meaning_of_layer(self):
        att = softmax_attentions(layers=4)
        attnscope.head_view(att, TOKENS, layer=3, include_layers=[1, 3])
        [(_, doc)] = elements(self.shown[0])
        self.assertEqual((doc["shape"][0], doc["layer"]), (2, 1))
        self.assertEqual(doc["attentions"][2], attnscope.figure(att, TOKENS, view="head", layer=3)["attentions"][0])
        with self.assertRaisesRegex(ValueError, "not in include_layers"):
            attnscope.head_view(att, TOKENS, layer=2, include_layers=[1, 3])

    def test_a_big_input_holds_only_the_views_heads(self):
        with mock.patch.object(views, "MAX_HELD_VALUES", 10):
            attnscope.show(softmax_attentions(), TOKENS, view="lines", layer=1)
        [(_, doc)] = elements(self.shown[0])
        self.assertEqual(doc["heads"], [[1, 0], [1, 1]])

    def test_model_view_arguments(self):
        att = softmax_attentions(layers=4, heads=3)
        attnscope.model_view(att, TOKENS, include_layers=[3, 1], include_heads=[2])
        attnscope.model_view(att, TOKENS, display_mode="light")
        [(dark, doc)], [(light, _)] = elements(self.shown[0]), elements(self.shown[1])
        self.assertEqual((dark["view"], dark["theme"], light["theme"]), ("grid", "dark", "light"))
        self.assertEqual(doc["shape"], [2, 1, 5])
        self.assertEqual(doc["attentions"][0], attnscope.figure([att[3][:, 2:3]], TOKENS)["attentions"][0])
        with self.assertRaises(ValueError):
            attnscope.model_view(att, TOKENS, display_mode="sepia")

    def test_auto_theme_is_left_to_the_page(self):
        attnscope.head_view(softmax_attentions(), TOKENS)
        [(attributes, _)] = elements(self.shown[0])
        self.assertNotIn("theme", attributes)
        self.assertIn("data-jp-theme-light", self.shown[0])

    def test_encoder_decoder_draws_its_three_attentions(self):
        # As BertViz's head_view(encoder_attention=…, decoder_attention=…, cross_attention=…): the
        # encoder's self-attention, the decoder's and the cross-attention (3 target rows reading 5
        # source tokens: [1, heads, 3, 5] per layer, as transformers' outputs.cross_attentions).
        enc, dec = softmax_attentions(T=5), softmax_attentions(T=3, causal=True)
        g = torch.Generator().manual_seed(1)
        cross = tuple(torch.softmax(torch.randn(1, 2, 3, 5, generator=g), dim=-1) for _ in range(3))
        target = ["<pad>", "a", "b"]
        attnscope.head_view(encoder_attention=enc, decoder_attention=dec, cross_attention=cross,
                            encoder_tokens=TOKENS, decoder_tokens=target, layer=2, heads=[1])
        (_, e), (_, d), (attributes, c) = elements(self.shown[0])
        self.assertEqual([(f["kind"], f["modelInfo"]["kind"], f["modelInfo"]["config"]["isDecoder"]) for f in (e, d, c)],
                         [("enc", "encoder-decoder", False), ("dec", "encoder-decoder", True),
                          ("cross", "encoder-decoder", True)])
        for title in ("Encoder self-attention", "Decoder self-attention", "Cross-attention"):
            self.assertIn(title, self.shown[0])
        self.assertEqual((attributes["view"], c["layer"], c["head"], c["shape"]), ("head", 2, 1, [3, 2, 3, 5]))
        self.assertEqual((c["tokens"], c["source"]["tokens"]), (target, TOKENS))
        at = c["heads"].index([2, 1])
        self.assertEqual(c["attentions"][at], [round(v, 6) for v in cross[2][0, 1].flatten().tolist()])
        self.assertEqual(support.schema_errors(c), [])
        with self.assertRaisesRegex(ValueError, "encoder_tokens"):
            attnscope.model_view(encoder_attention=enc, cross_attention=cross, decoder_tokens=target)
        with self.assertRaisesRegex(ValueError, "must be square"):   # a cross-attention passed as self-attention
            attnscope.head_view(cross, target)

    def test_show_lens_holds_the_lens_and_every_head(self):
        # show(view="lens"): the element opens the Layers view; the figure holds the lens and, being
        # small, every head, so the element's grid, head and lines buttons stay offline.
        att = softmax_attentions(T=4, causal=True)
        g = torch.Generator().manual_seed(2)
        hidden = tuple(torch.randn(1, 4, 6, generator=g) for _ in range(4))
        vocab = [f"w{i}" for i in range(9)]
        attnscope.show(att, vocab[:4], view="lens", hidden_states=hidden, lm_head=torch.randn(9, 6, generator=g),
                       final_norm=torch.nn.LayerNorm(6), vocab=vocab)
        [(attributes, doc)] = elements(self.shown[0])
        self.assertEqual((attributes["view"], doc["view"], len(doc["lens"]), len(doc["heads"])), ("layers", "layers", 4, 6))
        self.assertEqual(support.schema_errors(doc), [])

    def test_show_refuses_views_a_figure_cannot_hold(self):
        with self.assertRaisesRegex(ValueError, "q, k and v"):
            attnscope.show(softmax_attentions(), TOKENS, view="formula")

    def test_text_with_markup_is_escaped(self):
        attnscope.show(softmax_attentions(), TOKENS, text='a "quoted" <b>text</b>')
        # The inlined renderer is minified JavaScript, where "<b>" can occur by chance (a<b>>>c):
        # the markup must not reach the HTML outside it.
        outside_renderer = re.sub(r'<script type="module">.*?</script>', '', self.shown[0], flags=re.S)
        self.assertNotIn("<b>", outside_renderer)
        [(attributes, doc)] = elements(self.shown[0])
        self.assertEqual(doc["text"], 'a "quoted" <b>text</b>')


if __name__ == "__main__":
    unittest.main()
