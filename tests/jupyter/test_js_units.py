"""The widget's pure JS helpers, unit-tested with ``node --test`` (tests/js/).

They run here so that CI, which only runs pytest, runs them too. Node comes
with the JS build (``.ci/setup`` installs it); the browser tests cover the
real DOM.
"""

from __future__ import annotations

import pathlib
import re
import shutil
import subprocess
import tempfile

import pytest

pytestmark = pytest.mark.slow  # node runs the JavaScript unit tests

ROOT = pathlib.Path(__file__).resolve().parents[2]
JS_TESTS = sorted((ROOT / "tests" / "js").glob("*.test.js"))


def test_there_are_js_unit_tests() -> None:
    assert {p.name for p in JS_TESTS} >= {
        "format.test.js",
        "transcript.test.js",
        "live.test.js",
        "branches.test.js",
        "trace.test.js",
        "chart.test.js",
        "cut_off.test.js",
    }


def test_node_unit_tests_pass() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed; .ci/setup installs it (apt-get install nodejs npm)")
    done = subprocess.run(
        [node, "--test", *map(str, JS_TESTS)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    passed = re.search(r"^# pass (\d+)$", done.stdout, re.M)
    assert passed is not None and int(passed.group(1)) >= 25, done.stdout[-2000:]


def test_a_commonjs_script_in_a_venv_inside_the_checkout_runs() -> None:
    """JupyterLab runs its ``node-version-check.js`` (CommonJS: ``require``) from
    site-packages on every page load; with ``.venv`` inside the checkout Node
    takes the module type from the nearest package.json, which must not be
    ``"type": "module"`` (only js/ and tests/js/ are ES modules)."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed; .ci/setup installs it (apt-get install nodejs npm)")
    with tempfile.TemporaryDirectory(dir=ROOT, prefix=".venv-probe-") as venv:
        here = pathlib.Path(venv, "lib", "site-packages", "jupyterlab")
        here.mkdir(parents=True)
        (here / "check.js").write_text("const path = require('path'); console.log(path.sep);\n")
        done = subprocess.run(
            [node, "check.js"], cwd=here, capture_output=True, text=True, timeout=60
        )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "/"
