"""A real JupyterLab driven by Debian chromium through Playwright (``-m browser``).

`jupyter_lab` starts ``jupyter lab`` on 127.0.0.1 with a random free port and
a token, in a temp dir holding a prepared notebook, with its own settings,
workspaces and runtime dirs (so nothing from the user's Lab leaks in, and no
news or update checks go out). `lab_page` loads Lab once in chromium; `lab`
opens each module's own notebook (and kernel) in it and hands tests a `Lab`
helper: run a cell through Lab's own command registry
(``expose_app_in_browser``), read its outputs, find the widget it shows,
switch themes.

Missing chromium or playwright fails loudly: browser tests must not skip in CI.
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import secrets
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from tests.net import free_port, wait_http
from tests.parallel import restore_browser_loop

__all__ = [
    "CHROMIUM",
    "CHROMIUM_ARGS",
    "TOKEN_DELAY",
    "Lab",
    "jupyter_lab",
    "lab",
    "lab_browser",
    "lab_page",
]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
REPO = pathlib.Path(__file__).resolve().parents[1]
OUTPUT_DIR = REPO / "test-output"

#: The setup cell's scripted model streams a token every TOKEN_DELAY s: slow enough
#: for a test to see a reply streaming, fast for the short replies most tests use.
TOKEN_DELAY = 0.02

SETUP_CELL = f"""\
from agent_nb import Agent, AgentRunner, ChatWidget, GenerationConfig, get_runner, set_runner
from agent_nb.backends import ScriptedBackend, ToolCallChunk

def add(a: int, b: int) -> int:
    \"\"\"Add two integers.\"\"\"
    return a + b

backend = ScriptedBackend(token_delay={TOKEN_DELAY})
runner = AgentRunner(Agent(tools=[add]), model=backend)
set_runner(runner)
print("SETUP-OK")
"""

_SETTINGS = {
    # Every cell stays in the DOM, so locators by index are stable.
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
}


def _notebook() -> dict[str, Any]:
    return {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "id": "setup",
                "metadata": {},
                "outputs": [],
                "source": SETUP_CELL,
            }
        ],
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


@pytest.fixture(scope="session")
def jupyter_lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A running JupyterLab: ``{"url", "token", "root", "notebook"}``."""
    base = tmp_path_factory.mktemp("lab")
    root = base / "root"
    root.mkdir()
    settings = base / "settings"
    for rel, value in _SETTINGS.items():
        path = settings / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))
    kernel_dir = base / "data" / "kernels" / "python3"
    kernel_dir.mkdir(parents=True)
    (kernel_dir / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "Python 3",
                "language": "python",
            }
        )
    )
    notebook = root / "widget.ipynb"
    notebook.write_text(json.dumps(_notebook()))
    port, token = free_port(), secrets.token_hex(16)
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(base / "config"),
        "JUPYTER_DATA_DIR": str(base / "data"),
        "JUPYTER_RUNTIME_DIR": str(base / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(settings),
        "JUPYTERLAB_WORKSPACES_DIR": str(base / "workspaces"),
        # The kernels it starts ask the model each time (conftest's rule for tests),
        # and never read the user's replay cache.
        "AGENT_NB_REPLAY": "0",
        "AGENT_NB_REPLAY_FILE": str(base / "replay.sqlite"),
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]).rstrip(
            os.pathsep
        ),
    }
    log = base / "lab.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "jupyterlab",
                "--no-browser",
                "--ServerApp.ip=127.0.0.1",
                f"--ServerApp.port={port}",
                "--ServerApp.port_retries=0",
                f"--IdentityProvider.token={token}",
                f"--ServerApp.root_dir={root}",
                "--LabApp.expose_app_in_browser=True",
                "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
                "--LabApp.news_url=None",
                "--LabApp.extension_manager=readonly",
                "--ServerApp.allow_root=True",
                "--ServerApp.terminals_enabled=False",
            ],
            cwd=root,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_http(f"{url}/api/status?token={token}", proc, log, name="jupyter lab", timeout=90)
        yield {"url": url, "token": token, "root": root, "notebook": notebook.name, "log": log}
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)


@pytest.fixture(scope="session")
def lab_browser() -> Iterator[Any]:
    """Debian chromium under Playwright, one launch per test session. Its sync API
    keeps an event loop marked as running on the main thread while it lives, which
    `tests/parallel.py` lifts for the tests that do not use the browser."""
    if not shutil.which(CHROMIUM) and not pathlib.Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("playwright is missing: pip install playwright")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            restore_browser_loop()
            browser.close()


class Lab:
    """One notebook open in JupyterLab, with helpers that use Lab's own APIs."""

    def __init__(self, page: Any, path: str = "") -> None:
        self.page = page
        self.path = path  # the notebook's path in the Lab's root
        self.errors: list[str] = []  # uncaught exceptions in the page while it is open
        self._on_error = lambda exc: self.errors.append(str(exc))
        page.on("pageerror", self._on_error)

    def detach(self) -> None:
        """Stop collecting the page's errors (the page goes on to the next module)."""
        self.page.remove_listener("pageerror", self._on_error)

    def run(self, code: str, *, timeout: float = 60) -> int:
        """Append a code cell, execute it and wait; returns its index."""
        return self._append_and_run(code, timeout)

    def start(self, code: str) -> int:
        """Append a code cell and start it without waiting for it to finish."""
        return self._append_and_run(code, None)

    def _append_and_run(self, code: str, timeout: float | None) -> int:
        index = self.page.evaluate(
            """async ([code, timeoutMs]) => {
                const app = window.jupyterapp;
                const nb = app.shell.currentWidget.content;
                nb.activeCellIndex = nb.widgets.length - 1;
                await app.commands.execute('notebook:insert-cell-below');
                nb.activeCell.model.sharedModel.setSource(code);
                const index = nb.activeCellIndex;
                const done = app.commands.execute('notebook:run-cell');
                if (timeoutMs === null) return index;
                const timer = new Promise((_, reject) =>
                    setTimeout(() => reject(new Error('cell timed out')), timeoutMs));
                await Promise.race([done, timer]);
                return index;
            }""",
            [code, None if timeout is None else int(timeout * 1000)],
        )
        return int(index)

    def wait_reopened(self, min_cells: int) -> None:
        """After a reload or reopen: the notebook shows more than ``min_cells`` cells
        and its kernel is idle."""
        self.page.wait_for_function(
            """(minCells) => {
                const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
                const k = w && w.sessionContext && w.sessionContext.session &&
                    w.sessionContext.session.kernel;
                return k && k.status === 'idle' && w.content.widgets.length > minCells;
            }""",
            arg=min_cells,
            timeout=90_000,
        )

    def outputs(self, index: int) -> list[dict[str, Any]]:
        """The cell's outputs as nbformat JSON."""
        result = self.page.evaluate(
            """(index) => {
                const nb = window.jupyterapp.shell.currentWidget.content;
                return nb.widgets[index].model.outputs.toJSON();
            }""",
            index,
        )
        return list(result)

    def text(self, index: int) -> str:
        """Stream text and errors of a cell (errors included so a failure shows up)."""
        parts = []
        for out in self.outputs(index):
            if out.get("output_type") == "stream":
                parts.append("".join(out["text"]) if isinstance(out["text"], list) else out["text"])
            elif out.get("output_type") == "error":
                parts.append(f"{out['ename']}: {out['evalue']}")
        return "".join(parts)

    def eval(self, expr: str, *, timeout: float = 60) -> str:
        """Run ``print(expr)`` in a new cell and return what it printed."""
        index = self.run(f"print({expr})", timeout=timeout)
        return self.text(index).strip()

    def cell(self, index: int) -> Any:
        return self.page.locator(".jp-Notebook .jp-Cell").nth(index)

    def widget(self, index: int, *, timeout: float = 30) -> Any:
        """The ChatWidget shown by cell ``index`` (waits until it renders)."""
        locator = self.cell(index).locator(".agent-nb-chat")
        locator.wait_for(state="visible", timeout=timeout * 1000)
        return locator

    def set_theme(self, name: str) -> None:
        self.page.evaluate(
            "(theme) => window.jupyterapp.commands.execute('apputils:change-theme', {theme})",
            name,
        )
        self.page.wait_for_function(
            "(theme) => document.body.dataset.jpThemeName === theme", arg=name, timeout=30_000
        )
        self.page.wait_for_timeout(300)  # let the theme's CSS variables settle


OPEN_NOTEBOOK = """async (path) => {
    const app = window.jupyterapp;
    const widget = await app.commands.execute(
        'docmanager:open', {path, factory: 'Notebook', kernel: {name: 'python3'}});
    app.shell.activateById(widget.id);
    // Alone in the main area, as when Lab opens on it (closing the last one opened a launcher).
    for (const other of [...app.shell.widgets('main')]) if (other !== widget) other.dispose();
    await widget.context.ready;
    await widget.sessionContext.ready;
}"""

# Close every notebook still open in the page, unsaved, and shut its kernel down:
# through the session manager, as Lab's own ``shutdownOnDispose`` does, so the
# server finishes that while the next notebook opens (``wait``: before it returns).
# After a module's reload, Lab may have restored other notebooks (its workspace).
CLOSE_NOTEBOOKS = """async (wait) => {
    const app = window.jupyterapp;
    const open = [...app.shell.widgets('main')].filter((w) => w.sessionContext && w.context);
    const shutdowns = [];
    for (const widget of open) {
        const session = widget.sessionContext.session;
        const sessions = app.serviceManager.sessions;
        if (session) shutdowns.push(sessions.shutdown(session.id).catch(() => {}));
        widget.context.model.dirty = false;
        widget.dispose();
    }
    if (wait) await Promise.all(shutdowns);
}"""

KERNEL_IDLE = """(path) => {
    const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
    const k = w && w.context && w.context.path === path && w.sessionContext.session &&
        w.sessionContext.session.kernel;
    return k && k.status === 'idle';
}"""


def _load_lab(page: Any, url: str) -> None:
    page.goto(url, wait_until="domcontentloaded", timeout=90_000)
    page.wait_for_function("() => window.jupyterapp", timeout=90_000)
    page.evaluate("() => window.jupyterapp.restored")


def _clear_main_area(page: Any, url: str) -> None:
    """Close what an earlier module left open: its notebooks, a dialog a failed test
    left up; a page that no longer runs Lab loads it again."""
    try:
        for button in page.locator(".jp-Dialog .jp-mod-reject").all():
            button.click()
        page.evaluate(CLOSE_NOTEBOOKS, False)
    except Exception:
        _load_lab(page, url)


@pytest.fixture(scope="session")
def lab_page(jupyter_lab: dict[str, Any], lab_browser: Any) -> Iterator[Any]:
    """One chromium page with JupyterLab loaded, for the whole session: loading Lab
    is the slow part, so each module opens its own notebook in it (`lab`)."""
    context = lab_browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    _load_lab(page, f"{jupyter_lab['url']}/lab?reset&token={jupyter_lab['token']}")
    OUTPUT_DIR.mkdir(exist_ok=True)
    try:
        yield page
    finally:
        restore_browser_loop()
        with contextlib.suppress(Exception):  # their kernels go with them
            page.evaluate(CLOSE_NOTEBOOKS, True)
        context.close()


@pytest.fixture(scope="module")
def lab(
    jupyter_lab: dict[str, Any], lab_page: Any, request: pytest.FixtureRequest
) -> Iterator[Lab]:
    """A fresh notebook of this module's own, on a kernel of its own, open in the
    session's Lab page (`lab_page`) with its setup cell run.

    Its own file and kernel: a module that saves its notebook or restarts its
    kernel must not hand its cells (and cell indexes) to the next one. Lab's own
    commands open it, and close it (its kernel shut down) when the module ends.
    """
    name = f"{request.module.__name__.rsplit('.', 1)[-1]}.ipynb"
    (jupyter_lab["root"] / name).write_text(json.dumps(_notebook()))
    page = lab_page
    _clear_main_area(page, f"{jupyter_lab['url']}/lab?token={jupyter_lab['token']}")
    helper = Lab(page, name)
    page.evaluate(OPEN_NOTEBOOK, name)
    page.wait_for_function(KERNEL_IDLE, arg=name, timeout=90_000)
    page.evaluate(
        """async () => {
            const app = window.jupyterapp;
            app.shell.currentWidget.content.activeCellIndex = 0;
            await app.commands.execute('notebook:run-cell');
        }"""
    )
    if "SETUP-OK" not in helper.text(0):
        raise RuntimeError(f"notebook setup cell failed: {helper.outputs(0)}")
    try:
        yield helper
    finally:
        helper.detach()
        page.evaluate(CLOSE_NOTEBOOKS, True)  # its kernel gone before the next module's starts
