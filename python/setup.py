# The package ships the element's frozen-figure renderer: dist/attnscope-element-inline.js (the
# element as one script, which a notebook output can inline; dist/attnscope-element.js fetches
# chunks beside it), which scripts/build.sh (scripts/build-embed.mjs) writes, is copied into the
# built package as attnscope/static/attnscope-element-inline.js. One source: the file is never kept in git twice.
# pip builds ./python in place, so ../dist is the checkout's; ATTNSCOPE_ELEMENT_JS names the file
# when building from elsewhere.
import os
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
RENDERER = "attnscope-element-inline.js"


class BuildWithRenderer(build_py):
    def run(self):
        super().run()
        source = Path(os.environ.get("ATTNSCOPE_ELEMENT_JS") or HERE.parent / "dist" / RENDERER)
        if not source.is_file():
            raise SystemExit(
                f"attnscope: {source} is missing; build it first (bash scripts/build.sh wasm, or "
                "node scripts/build-embed.mjs) or set ATTNSCOPE_ELEMENT_JS to the file")
        target = Path(self.build_lib) / "attnscope" / "static" / RENDERER
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)


setup(cmdclass={"build_py": BuildWithRenderer})
