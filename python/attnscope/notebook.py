"""Figures shown inline in a notebook: an <attn-scope> whose src is the figure as a data: URL (no
file, no server), the element's renderer inlined once per notebook (the first output carries it;
later outputs use the custom element it defined), in the notebook's light or dark theme.

Output rules this follows: no `require` (the renderer is a plain inline module script); every
script is safe to run again when the notebook reloads (defining the element twice is a no-op, the
theme script only sets an attribute); the element is as wide as the cell (max-width 100%).
Colab draws each output in its own frame, so there every output carries the renderer.
"""
import base64
import html
import sys

from .figure import figure_json
from .renderer import renderer_source

_renderer_sent = False

# Reads the host's theme: JupyterLab / Notebook 7 (data-jp-theme-light on <body>), VS Code
# (vscode-dark / vscode-high-contrast classes on <body>), else the system's preference.
_THEME_SCRIPT = """<script>(function (el) {
  if (!el || el.hasAttribute('theme')) return;
  var body = document.body, jp = body && body.getAttribute('data-jp-theme-light');
  var vs = body && /\\bvscode-(light|dark|high-contrast)\\b/.exec(body.className);
  var dark = jp ? jp === 'false' : vs ? vs[1] !== 'light'
    : !!(window.matchMedia && matchMedia('(prefers-color-scheme: dark)').matches);
  if (dark) el.setAttribute('theme', 'dark');
})(document.currentScript && document.currentScript.previousElementSibling);</script>"""

_MISSING = ("AttnScope's renderer is not on this page: run attnscope.init_notebook() and draw the "
            "view again, or re-run the first cell that drew a view.")


def init_notebook():
    """Makes the next view carry the renderer again (after the output that had it was cleared)."""
    global _renderer_sent
    _renderer_sent = False


def figure_html(doc, *, view=None, theme="auto", height=None, title=None):
    """One figure's element, at the figure's own view or `view` (one the figure holds)."""
    if theme not in ("auto", "light", "dark"):
        raise ValueError(f"theme must be auto, light or dark, not {theme!r}")
    src = "data:application/json;base64," + base64.b64encode(figure_json(doc).encode("utf-8")).decode("ascii")
    # text: the figure's own, so the fallback message inside is not read as the text to run.
    attributes = {"src": src, "text": doc["text"], "view": view or doc["view"]}
    if theme != "auto":
        attributes["theme"] = theme
    if height is not None:
        attributes["height"] = str(height)
    tag = "<attn-scope " + " ".join(f'{k}="{html.escape(v, quote=True)}"' for k, v in attributes.items()) + ">"
    heading = f'<p style="margin:0.6em 0 0;font-weight:600">{html.escape(title)}</p>' if title else ""
    # The message inside shows only while <attn-scope> is undefined: the element's shadow root has
    # no slot for it.
    return f'{heading}{tag}<span style="color:#888">{html.escape(_MISSING)}</span></attn-scope>{_THEME_SCRIPT}'


def output_html(pieces, standalone=False):
    """One output holding the figures, with the renderer in front where this notebook lacks it,
    or always when `standalone` (HTML handed back to be saved as a file carries everything)."""
    global _renderer_sent
    renderer = ""
    if standalone or not _renderer_sent or "google.colab" in sys.modules:
        renderer = f'<script type="module">{renderer_source()}</script>'
        _renderer_sent = _renderer_sent or not standalone
    return f'<div class="attnscope-output">{renderer}{"".join(pieces)}</div>'


def emit(pieces, html_action):
    """BertViz's html_action: 'view' displays, 'return' returns IPython's HTML object (the string
    where IPython is not installed), standalone."""
    if html_action not in ("view", "return"):
        raise ValueError(f"html_action must be 'view' or 'return', not {html_action!r}")
    markup = output_html(pieces, standalone=html_action == "return")
    try:
        from IPython.display import HTML, display
    except ImportError:
        if html_action == "view":
            raise RuntimeError("html_action='view' needs IPython (a notebook); use html_action='return'") from None
        return markup
    if html_action == "return":
        return HTML(markup)
    display(HTML(markup))
    return None
