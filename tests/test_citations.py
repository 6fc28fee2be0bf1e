"""What the docs, docstrings, comments and JS comments cite exists: a file path
(``agent_nb/_core/reply.py``, ``_jupyter/widget/protocol.py``, ``js/format.js``) and a
dotted name (``agent_nb._core.reply.cut_off_note``). A rename or a move that leaves a
citation behind fails here with where the citation is, instead of sending a reader
to a file that is not there (issue 49: four such citations had drifted).

Names are found in the cited module's source (a ``def``, ``class``, assignment or
import of that name), so nothing is imported. ``agent_nb/data/`` is another
engineer's work in progress and is not scanned yet.
"""

from __future__ import annotations

import functools
import pathlib
import re
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "agent_nb"

_EXTENSIONS = "py|js|md|css|toml|json|ipynb|yml|yaml|cfg|txt|sh"
# A path with at least one folder; not part of a URL or of a longer path.
_PATH = re.compile(rf"(?<![\w/:.~$-])((?:[\w.-]+/)+[\w.-]+\.(?:{_EXTENSIONS}))\b(?![/\w])")
# A dotted name; not a format tag in a string ("agent_nb.session/1").
_DOTTED = re.compile(r"(?<![\w.])(agent_nb(?:\.\w+)+)(?![\w/])")
# Paths that are not the repository's, named on purpose: made by a run, outside the
# checkout (``../``), in a Binder URL (``lab/tree/``), or a folder the text names
# (``root/``: the cache root a docstring talks about).
_NOT_OURS = ("test-output/", "site/", "../", "lab/tree/", "root/")


@functools.cache
def _tracked() -> tuple[str, ...]:
    """The repository's files (git's list; the built bundles under static/ too)."""
    listed = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    built = [p.relative_to(ROOT).as_posix() for p in (PACKAGE / "static").glob("*")]
    return (*listed, *built)


def _path_exists(cited: str) -> bool:
    cited = cited.removeprefix("./")
    if cited.startswith(_NOT_OURS):
        return True
    return any(f == cited or f.endswith("/" + cited) for f in _tracked())


def _module_file(parts: list[str]) -> pathlib.Path | None:
    base = ROOT.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _defines(source: str, name: str) -> bool:
    return bool(
        re.search(
            rf"^\s*(?:async\s+)?(?:def|class)\s+{name}\b|^\s*{name}\s*[:=]|"
            rf"\bimport\b[^\n]*\b{name}\b|^\s+{name},?$",
            source,
            re.MULTILINE,
        )
    )


def _dotted_exists(cited: str) -> bool:
    parts = cited.split(".")
    for cut in range(len(parts), 0, -1):
        module = _module_file(parts[:cut])
        if module is None:
            continue
        rest = parts[cut:]
        if not rest:
            return True
        # the first name in the module; a further one (a method) in the same file
        source = module.read_text(encoding="utf-8")
        return all(_defines(source, name) for name in rest[:2])
    return False


def _scanned() -> list[pathlib.Path]:
    files = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
    files += sorted(ROOT.glob("js/*.js"))
    files += [p for p in sorted(PACKAGE.rglob("*.py")) if p.relative_to(PACKAGE).parts[0] != "data"]
    return files


def dead_citations(files: list[pathlib.Path]) -> list[str]:
    dead = []
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            where = f"{path.relative_to(ROOT)}:{number}"
            dead += [f"{where}: {c}" for c in _PATH.findall(line) if not _path_exists(c)]
            dead += [f"{where}: {c}" for c in _DOTTED.findall(line) if not _dotted_exists(c)]
    return dead


def test_every_cited_file_and_name_exists() -> None:
    assert dead_citations(_scanned()) == []


def test_a_dead_citation_is_found(tmp_path: pathlib.Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "See `agent_nb/_reply.py`, `_jupyter/protocol.py` and agent_nb._core.reply.nothing.\n"
        "These exist: `agent_nb/_core/reply.py`, `_jupyter/widget/protocol.py`,\n"
        "agent_nb._core.reply.cut_off_note, https://example.org/docs/x.md.\n",
        encoding="utf-8",
    )
    page = page.rename(ROOT / "docs" / f".{tmp_path.name}.md")
    try:
        found = [line.split(": ", 1)[1] for line in dead_citations([page])]
    finally:
        page.unlink()
    assert found == ["agent_nb/_reply.py", "_jupyter/protocol.py", "agent_nb._core.reply.nothing"]


@pytest.mark.parametrize(
    "cited", ["agent_nb.errors", "agent_nb.AgentRunner", "agent_nb._core.numbers.byte_size"]
)
def test_names_are_found_in_their_modules(cited: str) -> None:
    assert _dotted_exists(cited)
