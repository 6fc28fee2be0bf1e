"""No dead code: vulture (configured in ``[tool.vulture]``, pyproject.toml) finds no
name that nothing uses, beyond the whitelist of public API and framework hooks in
``.ci/vulture_whitelist.py`` (issue 49: two functions nothing called had been left
behind)."""

from __future__ import annotations

import pathlib
import subprocess
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _vulture(*args: str, cwd: pathlib.Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "vulture", *args], cwd=cwd, capture_output=True, text=True
    )


def test_the_package_has_no_dead_code() -> None:
    found = _vulture()
    assert found.returncode == 0, found.stdout + found.stderr


def test_a_function_nothing_calls_is_found(tmp_path: pathlib.Path) -> None:
    (tmp_path / "mod.py").write_text(
        textwrap.dedent(
            """
            def used() -> int:
                return 1

            def left_behind() -> int:
                return 2

            print(used())
            """
        ),
        encoding="utf-8",
    )
    found = _vulture("mod.py", "--min-confidence", "60", cwd=tmp_path)
    assert found.returncode == 3
    assert "unused function 'left_behind'" in found.stdout
    assert "'used'" not in found.stdout
