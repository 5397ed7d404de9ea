# Evaluates an exported encoder-decoder folder (train_seq2seq.py's export) on its heldout.jsonl:
#   - greedy decoding (decoder_start_token_id, argmax to </s>): exact match of the whole target,
#     and token accuracy (greedy token i == reference token i, over the reference's tokens incl. </s>:
#     the figure; one dropped or doubled token shifts every later one), and beside it the
#     edit-distance token accuracy (1 - Levenshtein distance / reference tokens, as word accuracy is
#     1 - WER), which counts such a slip once;
#   - per-head alignment accuracy: with the reference target teacher-forced, the share of target
#     tokens whose cross-attention argmax over the source is alignment[i], for every (layer, head);
#     against the diagonal baseline (target token i → source token min(i, S-1)); and the same for
#     the layer-averaged attention: each decoder layer's cross-attention averaged over its heads,
#     and the average over all layers and heads (what a reader sees before picking a head);
#   - teacher-forced next-token accuracy, split at reorder points (target tokens whose source token
#     is not the one after the previous target token's: where the rule's decisions are) and
#     elsewhere (a greedy output is exact exactly when no teacher-forced step errs, so these are
#     the mistakes greedy decoding starts from);
#   - the held-out documents' sentences where the rule moves nothing (not in heldout.jsonl): the
#     share whose greedy output is the source unchanged, as it should be;
#   - a reference check: the fp16 weights run through tests/fixtures/make_seq2seq_fixtures.py's
#     independent t5_forward (float64) give the same logits and cross-attentions as model_seq2seq.
#   python3 evaluate_seq2seq.py [FOLDER] [--limit N]
import argparse
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))
import brown  # noqa: E402
import safetensors_io  # noqa: E402
import seq2seq_data  # noqa: E402
from model_seq2seq import T5Config, T5ForConditionalGeneration  # noqa: E402
from seq2seq_tokenizer import SharedWordPiece  # noqa: E402


def load(folder):
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        hf = json.load(f)
    config = T5Config.from_hf_json(hf)
    config.dropout_rate = 0.0
    model = T5ForConditionalGeneration(config)
    tensors = safetensors_io.load(os.path.join(folder, "model.safetensors"))
    model.load_hf_state_dict(tensors)
    model.eval()
    with open(os.path.join(folder, "tokenizer.json"), encoding="utf-8") as f:
        vocab = json.load(f)["model"]["vocab"]
    wp = SharedWordPiece([t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])])
    with open(os.path.join(folder, "heldout.jsonl"), encoding="utf-8") as f:
        held = [json.loads(line) for line in f]
    return model, wp, held, hf, tensors


@torch.no_grad()
def reference_check(model, hf, tensors, src, tgt_in):
    """Max |difference| of logits and cross-attentions against the fixture script's t5_forward."""
    import make_seq2seq_fixtures as ref
    w = {k: v.double() for k, v in tensors.items()}
    out = ref.t5_forward(w, hf, torch.tensor(src), torch.tensor(tgt_in))
    m = T5ForConditionalGeneration(model.config).double()
    m.load_hf_state_dict(w)
    m.eval()
    s = torch.tensor([src])
    mask = torch.ones_like(s, dtype=torch.bool)
    cross = []
    logits = m.decode(m.encode(s, mask), mask, torch.tensor([tgt_in]), cross=cross)[0]
    d_logits = (logits - out["logits"]).abs().max().item()
    d_cross = max((c[0] - r).abs().max().item() for c, r in zip(cross, out["cross_attentions"]))
    return d_logits, d_cross


def main():
    p = argparse.ArgumentParser()
    p.add_argument("folder", nargs="?", default=os.path.join(ROOT, "build", "train-seq2seq", "export"))
    p.add_argument("--limit", type=int, default=0, help="evaluate the first N examples only")
    p.add_argument("--show", type=int, default=5, help="greedy outputs to print")
    p.add_argument("--unmoved", type=int, default=500, help="held-out sentences the rule leaves alone to check")
    args = p.parse_args()
    model, wp, held, hf, tensors = load(args.folder)
    if args.limit:
        held = held[:args.limit]
    c = model.config
    L, H = c.num_decoder_layers, c.num_heads
    exact = tok_right = tok_total = tok_edits = 0
    head_right = torch.zeros(L, H)
    moved_right = torch.zeros(L, H)  # on the target tokens that align off the diagonal (a != i)
    layer_right = torch.zeros(L + 1)  # head-averaged attention of each layer, then of all layers
    layer_moved_right = torch.zeros(L + 1)
    diag_right = aligned = moved = 0
    tf_right = [0, 0]  # teacher-forced next-token hits: [elsewhere, at reorder points]
    tf_total = [0, 0]
    shown = 0
    for n, ex in enumerate(held):
        src = wp.encode_text(ex["source"])
        ref = wp.encode_text(ex["target"])
        if len(ref) != len(ex["alignment"]):
            raise ValueError(f"example {n}: {len(ref)} target tokens, {len(ex['alignment'])} alignments")
        if n == 0:
            d_logits, d_cross = reference_check(model, hf, tensors, src, [c.decoder_start_token_id] + ref[:-1])
            print(f"reference check (fixture t5_forward, float64): max |logits diff| {d_logits:.2e}, "
                  f"max |cross-attention diff| {d_cross:.2e}")
        out = model.greedy(src, max_len=len(ref) + 10)
        exact += out == ref
        tok_right += sum(1 for i, t in enumerate(ref) if i < len(out) and out[i] == t)
        tok_total += len(ref)
        tok_edits += edit_distance(out, ref)
        if shown < args.show:
            print(f"  source  {ex['source']}\n  target  {ex['target']}\n  greedy  {wp_decode(wp, out)}")
            shown += 1
        cross = []
        forced = teacher_forced(model, src, ref, cross)[0].argmax(-1).tolist()
        for i, t in enumerate(ref):
            at_reorder = int(is_reorder_point(ex["alignment"], i))
            tf_total[at_reorder] += 1
            tf_right[at_reorder] += forced[i] == t
        argmax = torch.stack([x[0].argmax(-1) for x in cross])  # (L, H, T)
        per_layer = torch.stack([x[0].mean(0) for x in cross])  # (L, T, S): heads averaged
        averaged = torch.cat([per_layer, per_layer.mean(0, keepdim=True)]).argmax(-1)  # (L + 1, T)
        for i, a in enumerate(ex["alignment"]):
            if a is None:
                continue
            aligned += 1
            diag_right += min(i, len(src) - 1) == a
            head_right += (argmax[:, :, i] == a).float()
            layer_right += (averaged[:, i] == a).float()
            if a != min(i, len(src) - 1):
                moved += 1
                moved_right += (argmax[:, :, i] == a).float()
                layer_moved_right += (averaged[:, i] == a).float()
    print(f"held-out examples {len(held)}: greedy exact match {exact / len(held):.1%}, "
          f"greedy token accuracy {tok_right / tok_total:.1%} ({tok_total} tokens; by edit distance "
          f"{1 - tok_edits / tok_total:.1%})")
    print(f"teacher-forced token accuracy {sum(tf_right) / sum(tf_total):.1%}: at reorder points "
          f"{tf_right[1] / max(1, tf_total[1]):.1%} ({tf_total[1]} tokens), elsewhere "
          f"{tf_right[0] / max(1, tf_total[0]):.1%}")
    unchanged, n_unmoved = unmoved_kept(model, wp, args.unmoved)
    print(f"held-out sentences where the rule moves nothing: greedy output unchanged in "
          f"{unchanged / max(1, n_unmoved):.1%} of {n_unmoved}")
    diag = diag_right / aligned
    acc = head_right / aligned
    print(f"alignment accuracy (cross-attention argmax == alignment, {aligned} target tokens); "
          f"diagonal baseline {diag:.1%}; in brackets on the {moved} tokens off the diagonal (baseline 0%)")
    for l in range(L):
        print(f"  decoder layer {l}: " + "  ".join(f"h{h} {acc[l, h]:.1%} (moved {moved_right[l, h] / max(1, moved):.1%})"
                                                    for h in range(H)))
    best = acc.max().item()
    l, h = divmod(int(acc.argmax()), H)
    print(f"best head L{l}H{h} {best:.1%}: {100 * (best - diag):+.1f} points over the diagonal "
          f"(moved {moved_right[l, h] / max(1, moved):.1%})")
    layer_acc = layer_right / aligned
    layer_moved = layer_moved_right / max(1, moved)
    print("layer-averaged attention (heads averaged, then argmax): " + "  ".join(
        f"layer {k} {layer_acc[k]:.1%} (moved {layer_moved[k]:.1%})" for k in range(L)) +
        f"  all layers {layer_acc[L]:.1%} (moved {layer_moved[L]:.1%}): "
        f"{100 * (layer_acc[L].item() - diag):+.1f} points over the diagonal")
    print(json.dumps({"exact_match": exact / len(held), "token_accuracy": tok_right / tok_total,
                      "edit_distance_token_accuracy": 1 - tok_edits / tok_total,
                      "diagonal_baseline": diag, "best_head": [l, h], "best_head_alignment": best,
                      "best_head_alignment_moved": (moved_right[l, h] / max(1, moved)).item(),
                      "layer_averaged_alignment": layer_acc[:L].tolist(),
                      "all_layers_averaged_alignment": layer_acc[L].item(),
                      "all_layers_averaged_alignment_moved": layer_moved[L].item(),
                      "teacher_forced_accuracy": sum(tf_right) / sum(tf_total),
                      "teacher_forced_accuracy_at_reorder_points": tf_right[1] / max(1, tf_total[1]),
                      "unmoved_unchanged": unchanged / max(1, n_unmoved),
                      "examples": len(held), "target_tokens": tok_total, "aligned_tokens": aligned,
                      "moved_tokens": moved}))


@torch.no_grad()
def unmoved_kept(model, wp, limit):
    """(how many, of how many) held-out sentences where the rule moves nothing come out unchanged
    (evenly spread over the held-out documents). A greedy output equals the reference exactly when
    no teacher-forced step errs, so one teacher-forced pass per sentence decides it."""
    unmoved = seq2seq_data.examples(brown.split_files()[1])[1]
    unmoved = unmoved[::max(1, len(unmoved) // max(1, limit))][:limit]
    kept = 0
    for e in unmoved:
        ids = wp.encode_text(seq2seq_data.texts(e)[0])
        kept += teacher_forced(model, ids, ids)[0].argmax(-1).tolist() == ids
    return kept, len(unmoved)


def teacher_forced(model, src, ref, cross=None):
    """Logits (1, T, V) of the decoder fed decoder_start_token_id and ref[:-1], on source ids src;
    cross collects the cross-attentions when given."""
    s = torch.tensor([src])
    mask = torch.ones_like(s, dtype=torch.bool)
    tgt_in = torch.tensor([[model.config.decoder_start_token_id] + ref[:-1]])
    return model.decode(model.encode(s, mask), mask, tgt_in, cross=cross)


def edit_distance(a, b):
    """Levenshtein distance between two token lists (insertions, deletions, substitutions)."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        diagonal, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            diagonal, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, diagonal + (x != y))
    return row[-1]


def is_reorder_point(alignment, i):
    """Whether target token i is where the output jumps: its source token is not the one after the
    previous target token's (the first token counts when it is not the source's first; </s> and
    other unaligned tokens are not reorder points)."""
    if alignment[i] is None:
        return False
    previous = alignment[i - 1] if i > 0 else -1
    return previous is None or alignment[i] != previous + 1


def wp_decode(wp, ids):
    """WordPiece decoder, roughly (## pieces glued, specials dropped) for printing."""
    words = []
    for i in ids:
        t = wp.vocab[i]
        if t in ("<pad>", "</s>"):
            continue
        if t.startswith("##") and words:
            words[-1] += t[2:]
        else:
            words.append(t)
    return " ".join(words)


if __name__ == "__main__":
    main()
