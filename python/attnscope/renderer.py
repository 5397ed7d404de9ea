"""Where the element's one-script build is: the copy the package was built with (setup.py puts
dist/attnscope-element-inline.js into attnscope/static/), else the checkout's dist/ (running from
python/ without installing), else the file ATTNSCOPE_ELEMENT_JS names. The script draws a frozen
figure with no WebAssembly: the page never fetches anything for it.
"""
import os
from pathlib import Path

FILE = "attnscope-element-inline.js"
_cached = None


def renderer_path():
    here = Path(__file__).resolve().parent
    candidates = [os.environ.get("ATTNSCOPE_ELEMENT_JS"), here / "static" / FILE, here.parent.parent / "dist" / FILE]
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    raise FileNotFoundError(
        f"attnscope: the element's script ({FILE}) is not installed: build the repository "
        "(bash scripts/build.sh wasm), then pip install ./python, or set ATTNSCOPE_ELEMENT_JS")


def renderer_source():
    """The script's text, ready to sit inside an inline <script type="module">."""
    global _cached
    if _cached is None:
        # A literal "</script" would end the inline script early (as scripts/build-embed.mjs guards).
        text = renderer_path().read_text(encoding="utf-8")
        _cached = text.replace("</script", "<\\/script").replace("</SCRIPT", "<\\/SCRIPT")
    return _cached
