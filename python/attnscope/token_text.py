"""Token labels as the engine writes them (engine/tokenizer token_text): what a lens figure's cells
and column headers show for a vocabulary entry. Byte-level BPE entries (GPT-2's alphabet, a space
written as Ġ) are decoded to their text with a space shown as ␣; SentencePiece's ▁ is shown as ␣;
WordPiece entries are shown as they are."""
import re


def token_labels(tokens, vocab):
    """The tokens labelled as the lens labels the tokens it reads (readable): a lens figure's
    column headers then match its cells, and the CLI's token texts."""
    if hasattr(vocab, "convert_ids_to_tokens"):
        names = vocab.convert_ids_to_tokens(list(range(len(vocab))))
    else:
        names = vocab.keys() if isinstance(vocab, dict) else vocab
    byte_level = is_byte_level(names)
    return [readable(str(t), byte_level) for t in tokens]


def is_byte_level(names):
    """Whether a vocabulary writes spaces as GPT-2's Ġ (byte-level BPE)."""
    return any(isinstance(t, str) and t.startswith("\u0120") for t in names)


def _byte_decoder():
    """GPT-2's bytes_to_unicode, inverted: the character byte-level BPE writes for each byte."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    chars, n = {}, 0
    for b in range(256):
        if b in printable:
            chars[chr(b)] = b
        else:
            chars[chr(256 + n)] = b
            n += 1
    return chars


_BYTES = _byte_decoder()
_UTF8_LEAD = re.compile(rb"[\x00-\x7f]|[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")


def readable(token, byte_level):
    """A token as a label, as the engine's token_text: byte-level tokens decoded to their text
    with a space as ␣, a tab ⇥, a newline ↵, other control bytes as Control Pictures and bytes
    that are no whole UTF-8 character as <0xNN>; SentencePiece's ▁ as ␣; WordPiece as it is."""
    if not byte_level:
        return token.replace("\u2581", "\u2423")
    if any(c not in _BYTES for c in token):
        return token
    data = bytes(_BYTES[c] for c in token)
    out, i = [], 0
    while i < len(data):
        m = _UTF8_LEAD.match(data, i)
        piece = None
        if m:
            try:
                piece = m.group().decode("utf-8")
            except UnicodeDecodeError:
                piece = None
        if piece is None:
            out.append(f"<0x{data[i]:02X}>")
            i += 1
            continue
        c = ord(piece) if len(piece) == 1 else -1
        out.append("\u2423" if c == 0x20 else "\u21e5" if c == 9 else "\u21b5" if c == 10
                   else chr(0x2400 + c) if 0 <= c < 0x20 else "\u2421" if c == 0x7F else piece)
        i = m.end()
    return "".join(out)
