"""A ``%%agent`` reply cut off by a kernel restart in real JupyterLab (chromium),
then saved and the page reloaded: the reader still sees the partial reply and
the note, not "Error displaying widget: model not found", and the saved .ipynb
holds that text (`turn_status`, ``js/cut_off.js``). Its own module: the restart
takes its kernel, the reload its page."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.fixtures_lab import OUTPUT_DIR, Lab

pytestmark = pytest.mark.browser

CUT_OFF = "⚠ the kernel restarted during this turn — the reply above is cut off; re-run the cell"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

KERNEL_IDLE = """() => {
    const k = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
    return k && k.status === 'idle';
}"""


def test_a_cut_off_reply_is_saved_and_shown_after_a_reload(
    lab: Lab, jupyter_lab: dict[str, Any]
) -> None:
    lab.run("%load_ext agent_nb\n%config AgentMagics.stream_interval = 0.05")
    lab.run("backend.enqueue(' '.join(['partial'] * 1500))")  # 30 s: far from done
    index = lab.start("%%agent cut-reload\nwrite a lot")
    cell = lab.cell(index)
    cell.locator(".jp-RenderedMarkdown", has_text="partial partial").first.wait_for(timeout=20_000)
    assert WIDGET_VIEW in lab.outputs(index)[0]["data"]  # the turn's widget draws it
    lab.page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.restart()"
    )
    lab.page.wait_for_function(KERNEL_IDLE, timeout=60_000)
    cell.locator(".jp-RenderedMarkdown em", has_text=CUT_OFF).wait_for(timeout=10_000)
    shown = cell.locator(".jp-RenderedMarkdown").inner_text()

    lab.page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    lab.page.wait_for_function(
        "() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=10_000
    )
    # The file holds the text the reader saw, and no widget view.
    saved = json.loads((jupyter_lab["root"] / lab.path).read_text())
    (output,) = [o for o in saved["cells"][index]["outputs"] if "data" in o]
    assert WIDGET_VIEW not in output["data"], output
    markdown = "".join(output["data"]["text/markdown"])
    assert markdown.startswith("partial partial") and markdown.endswith(f"*{CUT_OFF}*")
    assert "".join(output["data"]["text/plain"]).endswith(CUT_OFF)

    # Reopened in a fresh page (the workspace reset: a plain reload restores the
    # layout of every module before this one, and later modules' cell indexes with it).
    url, token = jupyter_lab["url"], jupyter_lab["token"]
    lab.page.goto(f"{url}/lab/tree/{lab.path}?reset&token={token}", wait_until="domcontentloaded")
    lab.wait_reopened(index)
    cell = lab.cell(index)
    cell.locator(".jp-RenderedMarkdown em", has_text=CUT_OFF).wait_for(timeout=20_000)
    cell.scroll_into_view_if_needed()
    cell.screenshot(path=str(OUTPUT_DIR / "turn-cut-off-reloaded.png"))
    after = cell.locator(".jp-RenderedMarkdown").inner_text()
    assert after == shown and after.startswith("partial partial"), after
    assert "model not found" not in lab.page.locator(".jp-Notebook").inner_text()
    assert lab.errors == []
