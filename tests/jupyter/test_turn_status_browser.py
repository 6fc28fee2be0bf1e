"""A ``%%agent`` cell in real JupyterLab (chromium) whose kernel restarts mid-turn
says so below the cut-off reply, as static Markdown in the notebook; a turn
that ends normally leaves one output and no widget in the notebook (nothing
that could fail to render when it is reopened, no emptied status output). Its
own module: the restart takes the kernel every other test uses."""

from __future__ import annotations

import contextlib
import json

import pytest

from tests.fixtures_lab import OUTPUT_DIR, Lab

pytestmark = pytest.mark.browser

CUT_OFF = "⚠ the kernel restarted during this turn — the reply above is cut off; re-run the cell"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def kinds(lab: Lab, index: int) -> list[list[str]]:
    """Each output's MIME types (display and execute results only)."""
    return [sorted(o.get("data", {})) for o in lab.outputs(index) if "data" in o]


def wait_done(lab: Lab, index: int) -> None:
    """The cell's execution ended (the kernel's status also flips to idle between
    the widgets' comm messages, mid-turn)."""
    lab.page.wait_for_function(
        "(i) => window.jupyterapp.shell.currentWidget.content.widgets[i].model"
        ".executionState === 'idle'",
        arg=index,
        timeout=60_000,
    )


def wait_idle(lab: Lab) -> None:
    lab.page.wait_for_function(
        """() => {
            const k = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
            return k && k.status === 'idle';
        }""",
        timeout=60_000,
    )


def settled(lab: Lab, index: int) -> None:
    """Wait (up to 10 s) for the cell's watch to give way to its final output: the
    last display update may land just after the cell's execution ends."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    with contextlib.suppress(PlaywrightTimeout):
        lab.page.wait_for_function(
            """([i, mime]) => window.jupyterapp.shell.currentWidget.content.widgets[i]
                .model.outputs.toJSON().every((o) => !(o.data && mime in o.data))""",
            arg=[index, WIDGET_VIEW],
            timeout=10_000,
        )


@pytest.fixture(scope="module")
def cells(lab: Lab) -> Lab:
    lab.run("%load_ext agent_nb\n%config AgentMagics.stream_interval = 0.05")
    return lab


def test_a_streaming_cell_shows_the_watch_and_a_finished_one_leaves_none(cells: Lab) -> None:
    cells.run("backend.enqueue(' '.join(['tick'] * 60))")  # 60 tokens, 0.02 s each
    index = cells.start("%%agent ts-done\ncount")
    cell = cells.cell(index)
    cell.locator(".jp-RenderedMarkdown", has_text="tick tick").first.wait_for(timeout=20_000)
    streaming = kinds(cells, index)
    # One output: the reply, drawn by the watch while it streams.
    assert len(streaming) == 1 and WIDGET_VIEW in streaming[0], streaming
    cell.screenshot(path=str(OUTPUT_DIR / "turn-status-streaming.png"))
    wait_done(cells, index)
    settled(cells, index)
    outputs = cells.outputs(index)
    assert [sorted(o["data"]) for o in outputs] == [
        ["text/markdown", "text/plain"],
    ], json.dumps(outputs)[:2000]
    assert cell.locator(".anb-turn-cut").count() == 0
    assert "Error displaying widget" not in cell.inner_text()
    # The widget goes back to the kernel's pool: the next cell reuses it, and no
    # turn is marked streaming.
    cells.run("backend.enqueue('second reply')")
    again = cells.run("%%agent ts-done\nagain")
    assert kinds(cells, again) == [["text/markdown", "text/plain"]]
    cells.run(
        "from ipywidgets.widgets.widget import _instances\n"
        "from agent_nb._jupyter.magics import turn_status"
    )
    shown = cells.eval(
        "[(w.streaming, w.markdown) for w in turn_status._idle], "
        "sum(type(w).__name__ == 'TurnStatus' for w in _instances.values())"
    )
    assert shown == "[(False, '')] 1", shown
    cell.scroll_into_view_if_needed()
    cell.screenshot(path=str(OUTPUT_DIR / "turn-status-done.png"))


def test_a_saved_and_reloaded_notebook_shows_no_widget_error(cells: Lab) -> None:
    cells.page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    cells.page.wait_for_function(
        "() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=10_000
    )
    cells.page.reload(wait_until="domcontentloaded")
    cells.wait_reopened(3)
    # What was saved holds no widget view that could fail to render ...
    saved = [kinds(cells, i) for i in range(cells.page.locator(".jp-Notebook .jp-Cell").count())]
    assert not any(WIDGET_VIEW in mimes for cell in saved for mimes in cell), saved
    # ... and every output renders.
    cells.page.locator(".jp-Notebook .jp-RenderedMarkdown", has_text="tick tick").first.wait_for()
    notebook = cells.page.locator(".jp-Notebook").inner_text()
    assert "tick tick" in notebook
    assert "Error displaying widget" not in notebook


def test_a_restart_mid_turn_says_the_reply_is_cut_off(cells: Lab) -> None:
    cells.run("backend.enqueue(' '.join(['word'] * 1500))")  # 30 s: far from done
    index = cells.start("%%agent ts-cut\nwrite a lot")
    cell = cells.cell(index)
    cell.locator(".jp-RenderedMarkdown", has_text="word word").first.wait_for(timeout=20_000)
    assert cell.locator(".anb-turn-cut").count() == 0  # silent while the kernel lives
    cells.page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.restart()"
    )
    wait_idle(cells)
    # The view wrote the reply and the note into the notebook in its place
    # (test_turn_cut_off_reload_browser.py saves and reloads it).
    note = cell.locator(".jp-RenderedMarkdown em", has_text=CUT_OFF)
    note.wait_for(timeout=10_000)
    assert note.inner_text() == CUT_OFF
    assert "word word" in cell.locator(".jp-RenderedMarkdown").inner_text()
    # Nothing else in the notebook says it: earlier, finished cells stay quiet.
    assert cells.page.locator(".jp-Notebook").inner_text().count(CUT_OFF) == 1
    assert cells.eval("'backend' in dir()") == "False"  # a new kernel indeed
    cell.scroll_into_view_if_needed()
    cell.screenshot(path=str(OUTPUT_DIR / "turn-status-restarted.png"))


def test_page_raised_no_errors(cells: Lab) -> None:
    assert cells.errors == []
