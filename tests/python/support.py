"""Shared by the Python package's tests: the checkout's paths, the package importable from
python/ without installing it, the `attnscope` CLI (the JavaScript package's, the reference the
figures are compared with) and the figure schema."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
SCHEMA = json.loads((ROOT / "docs" / "figure.schema.json").read_text())
MODEL_FOLDERS = {"bundled": ROOT / "model", "bundled-causal": ROOT / "model-causal",
                 "bundled-seq2seq": ROOT / "model-seq2seq"}


def cli(*args):
    """Runs `attnscope ARGS --threads 1` (one thread: the same bits on any machine) -> stdout."""
    done = subprocess.run(["node", str(ROOT / "js" / "cli" / "cli.js"), *args, "--threads", "1"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise AssertionError(f"attnscope {' '.join(args)} failed ({done.returncode}): {done.stderr}")
    return done.stdout


def cli_json(path, *args):
    cli(*args, "--out", str(path))
    return json.loads(Path(path).read_text(encoding="utf-8"))


def model_config(model):
    return json.loads((MODEL_FOLDERS[model] / "config.json").read_text())


def python_offsets(text, utf16_pairs):
    """The CLI's UTF-16 (start, end) pairs as Python string indices (what offset_mapping gives)."""
    index, units = {}, 0
    for i, c in enumerate(text):
        index[units] = i
        units += 2 if ord(c) >= 0x10000 else 1
    index[units] = len(text)
    return [(index[s], index[e]) for s, e in utf16_pairs]


def schema_errors(doc):
    import jsonschema  # Debian's python3-jsonschema (scripts/setup.sh)
    validator = jsonschema.Draft202012Validator(SCHEMA)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]


def env_with_package():
    return {**os.environ, "PYTHONPATH": str(ROOT / "python")}
