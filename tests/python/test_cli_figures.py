"""The figures Python makes equal those `attnscope snapshot` writes for the same attentions.

The CLI can only make a figure from a run of a model, so each case runs the bundled model through
the CLI twice: `run --format json` gives the attentions (float32, 9 significant digits: exact),
tokens and offsets, `tokenize` the token texts; those go to attnscope.figure() in the forms users
have them (torch tensors shaped as transformers returns them, numpy arrays, nested lists), and
the result must be the snapshot's JSON, value for value (float formatting aside).
"""
import json
import contextlib
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from support import cli, cli_json, model_config, python_offsets, schema_errors

import attnscope

CASES = [
    # model, text, view, layer, head, words, the form the attentions are given in ("lists": and
    # numpy hidden, so the standard-library path runs)
    ("bundled", "The unaffable cat sat on the mat.", "head", 1, 2, False, "torch"),
    ("bundled", "The river bank was muddy.", "lines", 3, 0, False, "numpy"),
    ("bundled", "Attention is all you need.", "grid", 0, 0, False, "lists"),
    ("bundled", "The unaffable tokenizer mispronounced embeddings.", "head", 1, 2, True, "torch"),
    ("bundled", "Naïve café-goers, unaffable ones:  they rest.", "grid", 0, 0, True, "lists"),
    ("bundled-causal", "Once upon a time there was a prince.", "head", 0, 1, False, "torch"),
    ("bundled-causal", "The cat sat.", "lines", 1, 0, False, "lists"),
    # Bytes of one emoji share its span; the text's offsets count UTF-16 units in the figure.
    ("bundled-causal", "Look 😀 there wasn’t a prince unaffably.", "grid", 0, 0, True, "numpy"),
]


def without_numpy(form):
    """"lists": the standard-library path, as where numpy is not installed."""
    return mock.patch("attnscope.attention.numpy", None) if form == "lists" else contextlib.nullcontext()


def as_form(attentions, form):
    """[L][H][T][T] lists as the user would hold them."""
    if form == "lists":
        return attentions
    if form == "numpy":
        import numpy
        return [numpy.asarray(layer, dtype=numpy.float32)[None] for layer in attentions]
    import torch
    return tuple(torch.tensor(layer, dtype=torch.float32).unsqueeze(0) for layer in attentions)  # [1, H, T, T]


def differences(want, got, where="$"):
    """Where two parsed JSON documents differ (numbers compared as numbers: 1 == 1.0)."""
    if isinstance(want, dict) and isinstance(got, dict):
        out = [f"{where}: keys {sorted(want)} vs {sorted(got)}"] if list(want) != list(got) else []
        return out + [d for k in want if k in got for d in differences(want[k], got[k], f"{where}.{k}")]
    if isinstance(want, list) and isinstance(got, list):
        if len(want) != len(got):
            return [f"{where}: {len(want)} entries vs {len(got)}"]
        return [d for i, (a, b) in enumerate(zip(want, got)) for d in differences(a, b, f"{where}[{i}]")]
    number = lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)  # noqa: E731
    same = want == got if number(want) and number(got) else want == got and type(want) is type(got)
    return [] if same else [f"{where}: CLI {want!r}, Python {got!r}"]


class FiguresEqualTheCli(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_every_case(self):
        for number, (model, text, view, layer, head, words, form) in enumerate(CASES):
            with self.subTest(model=model, text=text, view=view, words=words, form=form):
                tmp = Path(self.tmp.name)
                args = ["--model", model, "--text", text]
                extra = ["--words"] if words else []
                want = cli_json(tmp / f"{number}-cli.json", "snapshot", *args, "--view", view, "--layer", str(layer),
                                "--head", str(head), *extra)
                run = cli_json(tmp / f"{number}-run.json", "run", *args, "--format", "json")
                encoding = json.loads(cli("tokenize", *args))
                out = tmp / f"{number}-python.json"
                options = dict(view=view, layer=layer, head=head, text=text, token_texts=encoding["token_texts"],
                               offsets=python_offsets(text, run["offsets"]), words=words, model=model,
                               config=model_config(model), path=out)
                with without_numpy(form):
                    got = attnscope.figure(as_form(run["attentions"], form), run["tokens"], **options)
                problems = differences(want, got)
                self.assertEqual(problems[:10], [], f"{len(problems)} differences")
                self.assertEqual(differences(want, json.loads(out.read_text(encoding="utf-8"))), [], "the file written")
                self.assertEqual(schema_errors(got), [])
                self.assertEqual(schema_errors(want), [])

    def test_an_encoder_decoders_three_attentions(self):
        # The bundled T5: `snapshot --kind enc` (the source's self-attention), `--kind dec
        # --target` (the decoder's, over decoder_start_token_id and the target) and `--kind cross
        # --target` (the target's rows reading the source), against figures of `run --target`'s
        # encoder_attentions, decoder_attentions and cross_attentions, shaped as transformers'
        # outputs.encoder_attentions / decoder_attentions / cross_attentions.
        tmp = Path(self.tmp.name)
        source, target = "The cat chased the unaffable dog.", "the cat the dog chased"
        args = ["--model", "bundled-seq2seq", "--text", source]
        run = cli_json(tmp / "s2s-run.json", "run", *args, "--target", target, "--format", "json")
        src = json.loads(cli("tokenize", *args))
        tgt = json.loads(cli("tokenize", "--model", "bundled-seq2seq", "--side", "target", "--text", target))
        config = model_config("bundled-seq2seq")
        sides = [
            ("enc", ["--view", "head", "--layer", "2", "--head", "3", "--words"], run["encoder_attentions"], run["source_tokens"],
             dict(view="head", layer=2, head=3, words=True, token_texts=src["token_texts"],
                  offsets=python_offsets(source, src["offsets"]))),
            ("dec", ["--view", "grid", "--target", target], run["decoder_attentions"], run["target_tokens"],
             dict(view="grid", token_texts=run["target_tokens"][:1] + tgt["token_texts"])),
            ("cross", ["--view", "lines", "--layer", "1", "--target", target], run["cross_attentions"], run["target_tokens"],
             dict(view="lines", layer=1, token_texts=run["target_tokens"][:1] + tgt["token_texts"],
                  source_tokens=run["source_tokens"], source_token_texts=src["token_texts"],
                  source_offsets=python_offsets(source, src["offsets"]))),
        ]
        for kind, flags, attentions, tokens, options in sides:
            with self.subTest(kind=kind):
                want = cli_json(tmp / f"s2s-{kind}.json", "snapshot", *args, "--kind", kind, *flags)
                got = attnscope.figure(as_form(attentions, "torch"), tokens, text=source, model="bundled-seq2seq",
                                       config=config, kind=kind, **options)
                self.assertEqual(differences(want, got)[:10], [])
                self.assertEqual(schema_errors(got), [])
                if kind == "cross":   # target rows × source columns, not a square
                    self.assertEqual(got["shape"], [len(attentions), len(attentions[0]), len(tokens), len(run["source_tokens"])])
                    self.assertNotEqual(got["shape"][2], got["shape"][3])

    def test_the_file_is_the_cli_file_up_to_float_formatting(self):
        # Byte for byte once both are parsed and printed the same way: keys in the same order too.
        tmp = Path(self.tmp.name)
        text = "The cat sat on the mat."
        cli_path = tmp / "order-cli.json"
        want = cli_json(cli_path, "snapshot", "--text", text, "--view", "lines", "--layer", "2")
        run = cli_json(tmp / "order-run.json", "run", "--text", text, "--format", "json")
        got = attnscope.figure(run["attentions"], run["tokens"], view="lines", layer=2, text=text,
                               offsets=run["offsets"], model="bundled", config=model_config("bundled"))
        self.assertEqual(json.dumps(want), json.dumps(json.loads(attnscope.figure_json(got))))


if __name__ == "__main__":
    unittest.main()
