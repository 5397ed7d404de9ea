# Held-out score of an ensemble of decoders (MODEL.md "Decoder status"): the mean of their
# next-token probabilities on evaluate_causal.py's positions (both ways), beside each model alone.
# An upper bound on what distilling them into one model could reach.
#   /usr/bin/python3 tools/train/ensemble_causal.py model-causal build/train-causal-b/export
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
import causal_data  # noqa: E402
import shipped_causal  # noqa: E402
from evaluate_causal import WORK, Scores, batches, next_token_logp, schemes  # noqa: E402


def main():
    dirs = sys.argv[1:]
    if len(dirs) < 2:
        sys.exit("usage: ensemble_causal.py MODEL_DIR MODEL_DIR [...]")
    models = [shipped_causal.load(d)[0] for d in dirs]
    if len({m.config.n_positions for m in models}) != 1 or len({m.config.vocab_size for m in models}) != 1:
        sys.exit("the models must share the vocabulary and the context length")
    held, index = causal_data.load_stream(WORK, "held_out")
    L = models[0].config.n_positions
    for scheme, stride in schemes(L):
        alone, together = [Scores() for _ in models], Scores()
        with torch.no_grad():
            for x, first, gold, pos in batches(causal_data.eval_windows(held, index, L, stride)):
                logps = [next_token_logp(m, x, first) for m in models]
                for s, logp in zip(alone, logps):
                    s.add(logp, gold, pos)
                together.add(torch.logsumexp(torch.stack(logps), 0) - math.log(len(models)), gold, pos)
        print(f"{scheme} (stride {stride}):")
        for d, s in [*zip(dirs, alone), ("ensemble", together)]:
            r = s.summary()
            print(f"  {d}: top-1 {100 * r['top1']:.2f}%  top-5 {100 * r['top5']:.2f}%  perplexity {r['perplexity']:.1f}")


if __name__ == "__main__":
    main()
