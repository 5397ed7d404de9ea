"""Token labels and special-token marks for a figure when the caller gives only the tokens."""
import re

# [CLS], [SEP], [PAD], [MASK]; <s>, </s>, <pad>; <|endoftext|>, <|begin_of_text|>, ...: what the
# tokenizers' post-processors add. A mask given by the tokenizer (return_special_tokens_mask=True)
# is exact; this is the fallback.
_SPECIAL = re.compile(r"^\[(CLS|SEP|PAD|MASK)\]$|^</?s>$|^<pad>$|^<\|[A-Za-z_]+\|>$")


def prettify(tokens):
    """BertViz's format_special_chars: byte-level and SentencePiece space marks shown as spaces."""
    return [t.replace("\u0120", " ").replace("\u2581", " ").replace("</w>", "") for t in tokens]


def special_mask(tokens):
    return [1 if _SPECIAL.match(t) else 0 for t in tokens]
