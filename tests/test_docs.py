"""The documentation site tells the truth: every ```python example in ``docs/`` runs,
and ``mkdocs build --strict`` passes.

Each page's examples run in order, as the cells of one notebook, in a fresh IPython
shell (``%%agent`` cells through ``run_cell``, as a kernel runs them). The kernel
runner is on the `ScriptedBackend` (it echoes the message), unless the page says
``<!-- docs-test: model=embedded -->``: then on the embedded model. A fence opts out
only with ``title="not run"`` (code that needs a server of yours); a fence titled
``ipython_config.py`` is run with ``c`` bound to a config object, and each
``AgentMagics`` setting it makes is then applied with ``%config``, so a setting the
extension refuses fails the test.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output
from markdown_it import MarkdownIt
from traitlets.config import Config

from agent_nb import AgentRunner, get_runner, set_runner
from agent_nb._core.cache_dir import cache_root
from agent_nb.backends import Backend, ScriptedBackend

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
# The README's tour is the first thing a newcomer runs: its examples run as a page's do.
PAGES = [*sorted(DOCS.glob("*.md")), README]
NOT_RUN = 'title="not run"'
CONFIG_FILE = 'title="ipython_config.py"'
MODEL_MARK = re.compile(r"<!--\s*docs-test:\s*model=(scripted|embedded)\s*-->")


@dataclasses.dataclass(frozen=True)
class Example:
    page: str
    line: int  # 1-based line of the opening fence
    code: str
    info: str

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def examples(page: pathlib.Path) -> list[Example]:
    """The page's ```python fences, in order (markdown-it finds fences as mkdocs does)."""
    found = []
    for token in MarkdownIt("commonmark").parse(page.read_text(encoding="utf-8")):
        if token.type != "fence" or token.info.split(maxsplit=1)[:1] != ["python"]:
            continue
        assert token.map is not None
        where = page.relative_to(ROOT).as_posix() if page.is_relative_to(ROOT) else page.name
        found.append(Example(where, token.map[0] + 1, token.content, token.info))
    return found


def page_model(page: pathlib.Path) -> str:
    match = MODEL_MARK.search(page.read_text(encoding="utf-8"))
    return match.group(1) if match else "scripted"


def _params() -> list[object]:
    """Every page with examples; each runs like a small notebook, so they are ``slow``
    (the embedded model's pages ``mlx`` too)."""
    params: list[object] = []
    for page in PAGES:
        if not examples(page):
            continue
        marks = [pytest.mark.slow]
        if page_model(page) == "embedded":
            marks.append(pytest.mark.mlx)
        params.append(pytest.param(page, id=page.stem, marks=marks))
    return params


@pytest.fixture
def page_dir(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    """Files an example writes (a SQLite store, KV checkpoints) land in a temporary
    folder; the converted model is linked from the real cache, not converted again."""
    real_cache = cache_root()
    cache = tmp_path / "cache"
    cache.mkdir()
    for entry in real_cache.glob("*-mlx"):
        (cache / entry.name).symlink_to(entry)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("AGENT_NB_CACHE_DIR", str(cache))
    monkeypatch.delenv("AGENT_NB_REPLAY")  # on, as a user has it (the file is the test's own)
    return tmp_path


@pytest.fixture
def fresh_shell() -> Iterator[InteractiveShell]:
    """The process's one IPython shell, with a fresh namespace, history and config."""
    shell = InteractiveShell.instance()
    shell.reset(new_session=True)
    shell.config.pop("AgentMagics", None)  # %config writes into the shell's config
    yield shell
    _close_widgets(shell)
    if "agent_nb" in shell.extension_manager.loaded:
        shell.extension_manager.unload_extension("agent_nb")
    shell.config.pop("AgentMagics", None)
    shell.reset(new_session=True)


def _close_widgets(shell: InteractiveShell) -> None:
    """A page's widgets close with its shell, as they would with its kernel."""
    if "agent_nb._jupyter.widget.chat_widget" not in sys.modules:
        return
    from agent_nb._jupyter.widget.chat_widget import ChatWidget

    values = [*shell.user_ns.values(), *shell.user_ns.get("Out", {}).values()]
    for value in values:
        if isinstance(value, ChatWidget) and not value.closed:
            value.close()


def _apply_config(shell: InteractiveShell, example: Example) -> None:
    c = Config()
    exec(compile(example.code, example.where, "exec"), {"c": c, "get_config": lambda: c})
    assert "AgentMagics" in c, f"{example.where}: an ipython_config.py example sets no AgentMagics"
    for name, value in c.AgentMagics.items():
        _run(shell, example, f"%config AgentMagics.{name} = {value!r}")


def _run(shell: InteractiveShell, example: Example, source: str) -> None:
    with capture_output() as cap:
        result = shell.run_cell(source, store_history=True)
    if not result.success:
        error = result.error_in_exec or result.error_before_exec
        pytest.fail(
            f"{example.where} failed: {error!r}\n--- code ---\n{source}\n"
            f"--- stdout ---\n{cap.stdout[-2000:]}\n--- stderr ---\n{cap.stderr[-2000:]}"
        )


def _backend(request: pytest.FixtureRequest, page: pathlib.Path) -> Backend:
    if page_model(page) == "embedded":
        backend: Backend = request.getfixturevalue("mlx_backend")
        return backend
    return ScriptedBackend()


@pytest.mark.parametrize("page", _params())
def test_the_examples_run(
    page: pathlib.Path,
    request: pytest.FixtureRequest,
    fresh_shell: InteractiveShell,
    page_dir: pathlib.Path,
) -> None:
    _run_page(page, request, fresh_shell, with_config=True)


@pytest.mark.slow  # starts the page's MCP server
def test_the_mcp_page_runs_in_order_without_its_config_file(
    request: pytest.FixtureRequest, fresh_shell: InteractiveShell, page_dir: pathlib.Path
) -> None:
    """A reader runs the page's cells in a notebook; its ``ipython_config.py`` is not a
    cell, so no example may lean on a server only that file adds (round 5: the widget
    named a server the page had just removed)."""
    _run_page(DOCS / "mcp.md", request, fresh_shell, with_config=False)


def _run_page(
    page: pathlib.Path,
    request: pytest.FixtureRequest,
    shell: InteractiveShell,
    *,
    with_config: bool,
) -> None:
    found = examples(page)
    runner = AgentRunner(model=_backend(request, page))
    previous = set_runner(runner)
    try:
        for example in found:
            if NOT_RUN in example.info:
                continue
            if CONFIG_FILE in example.info:
                if with_config:
                    _apply_config(shell, example)
            else:
                _run(shell, example, example.code)
    finally:
        get_runner().shutdown()  # %config AgentMagics.store may have installed another
        runner.shutdown()
        if previous is not None:
            set_runner(previous)


def test_examples_rarely_opt_out() -> None:
    """An example that is not run is one that can go stale: keep them few and named."""
    skipped = [ex.where for page in PAGES for ex in examples(page) if NOT_RUN in ex.info]
    total = sum(len(examples(page)) for page in PAGES)
    assert total >= 40, total
    assert len(skipped) <= 5, skipped


def test_the_extractor_sees_fences_as_markdown_does(tmp_path: pathlib.Path) -> None:
    page = tmp_path / "p.md"
    page.write_text(
        "Text with ```python inline``` code.\n\n"
        "```python\nx = 1\n```\n\n"
        '```python title="not run"\nserver()\n```\n\n'
        "    ```python\n    indented: code block, not a fence\n    ```\n\n"
        "~~~python\ny = 2\n~~~\n\n"
        "```bash\nls\n```\n",
        encoding="utf-8",
    )
    found = examples(page)
    expected = [(3, "x = 1\n"), (7, "server()\n"), (15, "y = 2\n")]
    assert [(ex.line, ex.code) for ex in found] == expected
    assert NOT_RUN in found[1].info


MKDOCS = shutil.which("mkdocs", path=str(pathlib.Path(sys.executable).parent))


@pytest.mark.slow
@pytest.mark.skipif(MKDOCS is None, reason="the docs extra is not installed")
def test_the_site_builds_strict_and_offline(tmp_path: pathlib.Path) -> None:
    assert MKDOCS is not None
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [MKDOCS, "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "fonts.googleapis.com" not in index  # theme.font: false keeps the site offline
    reference = (tmp_path / "site" / "reference.html").read_text(encoding="utf-8")
    assert "AgentRunner" in reference and "get_or_create_session" in reference
    notebook = (tmp_path / "site" / "notebooks" / "01_quickstart.html").read_text(encoding="utf-8")
    assert "%%agent" in notebook
