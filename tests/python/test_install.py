"""`pip install ./python` with no network: the package installs, imports, and carries the element
the build wrote (dist/attnscope-element-inline.js copied in by setup.py, byte for byte)."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from support import ROOT


class Install(unittest.TestCase):
    def test_pip_installs_the_package_with_the_renderer(self):
        with tempfile.TemporaryDirectory() as tmp:
            # A copy of python/, so the build leaves nothing in the checkout; the copy has no ../dist,
            # so ATTNSCOPE_ELEMENT_JS says where the element is (in the checkout, setup.py finds it).
            source, target = Path(tmp) / "python", Path(tmp) / "site"
            shutil.copytree(ROOT / "python", source, ignore=shutil.ignore_patterns("build", "*.egg-info", "static"))
            env = {**os.environ, "ATTNSCOPE_ELEMENT_JS": str(ROOT / "dist" / "attnscope-element-inline.js"),
                   "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
            done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-index", "--no-build-isolation",
                                   "--quiet", "--target", str(target), str(source)], env=env, capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stderr)
            installed = target / "attnscope" / "static" / "attnscope-element-inline.js"
            self.assertEqual(installed.read_bytes(), (ROOT / "dist" / "attnscope-element-inline.js").read_bytes())
            check = ("import attnscope, attnscope.renderer as r; print(r.renderer_path()); "
                     "print(attnscope.head_view([[[[1.0]]]], ['a'], html_action='return').data.count('customElements'))")
            clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "ATTNSCOPE_ELEMENT_JS")}
            done = subprocess.run([sys.executable, "-c", check], cwd=tmp, capture_output=True, text=True,
                                  env={**clean, "PYTHONPATH": str(target)})
            self.assertEqual(done.returncode, 0, done.stderr)
            path, uses = done.stdout.split()
            self.assertEqual(Path(path), installed)
            self.assertGreater(int(uses), 0)

    def test_without_the_element_the_build_says_how_to_get_it(self):
        with tempfile.TemporaryDirectory() as tmp:
            source = Path(tmp) / "python"
            shutil.copytree(ROOT / "python", source, ignore=shutil.ignore_patterns("build", "*.egg-info", "static"))
            env = {**os.environ, "ATTNSCOPE_ELEMENT_JS": str(Path(tmp) / "missing.js")}
            done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-index", "--no-build-isolation",
                                   "--target", str(Path(tmp) / "site"), str(source)], env=env, capture_output=True, text=True)
            self.assertNotEqual(done.returncode, 0)
            self.assertIn("scripts/build.sh wasm", done.stdout + done.stderr)


if __name__ == "__main__":
    unittest.main()
