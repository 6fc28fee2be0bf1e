"""ChatWidget lifecycle in a real JupyterLab (chromium): what closes it and what keeps it.

Every outcome is read through the kernel (``runner.sessions()``, the widget's
``closed``), never from the page alone. The module shortens the grace period
to `GRACE` s (the default, 5 s, is pinned by tests/jupyter/test_widget_lifecycle.py).
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.fixtures_lab import OUTPUT_DIR, Lab

pytestmark = pytest.mark.browser

GRACE = 2.0
#: After a reload every widget output of the notebook is restored from the kernel,
#: one round trip each: on a loaded machine (the other xdist worker) that takes a while.
RESTORE_S = 90

HELPERS = f"""\
ChatWidget.close_grace_s = {GRACE}

def live(sid):
    return any(s.id == sid and not s.closed and not s.evicting for s in runner.sessions())
print("HELPERS-OK")
"""


@pytest.fixture(scope="module")
def lc(lab: Lab) -> Lab:
    index = lab.run(HELPERS)
    assert "HELPERS-OK" in lab.text(index), lab.outputs(index)
    return lab


def on_cell(lab: Lab, index: int, command: str) -> None:
    """Make cell ``index`` active and run a notebook command on it (waits for it)."""
    lab.page.evaluate(
        """async ([index, command]) => {
            const app = window.jupyterapp;
            const nb = app.shell.currentWidget.content;
            nb.activeCellIndex = index;
            await app.commands.execute(command);
        }""",
        [index, command],
    )


def send(widget: Any, text: str) -> None:
    box = widget.locator("textarea.anb-input")
    box.click()
    box.fill(text)
    box.press("Enter")
    widget.locator(".anb-past .anb-model", has_text=f"You said: {text}").wait_for(timeout=10_000)
    widget.locator(".anb-stop:disabled").wait_for(timeout=10_000)


def show(lab: Lab, code: str) -> tuple[int, Any]:
    index = lab.run(code)
    return index, lab.widget(index)


def eventually(lab: Lab, expr: str, expected: str = "True", timeout: float = 60) -> None:
    """Evaluate ``expr`` in the kernel, a cell at a time, until it prints ``expected``.

    A close waits for the view's message and then the grace period's timer, and a
    loaded machine delays both; the kernel reads comm messages between cells, so
    the polling is a cell at a time, not a loop inside one. (The grace period's
    timing is pinned by tests/jupyter/test_widget_lifecycle.py.)"""
    deadline = time.monotonic() + timeout
    while (got := lab.eval(expr)) != expected:
        assert time.monotonic() < deadline, f"{expr} printed {got}, not {expected}, for {timeout} s"
        lab.page.wait_for_timeout(250)


def test_clearing_the_output_closes_the_owned_session(lc: Lab) -> None:
    index, widget = show(lc, "w_clear = ChatWidget('lc-clear')\nw_clear")
    send(widget, "remember")
    on_cell(lc, index, "notebook:clear-cell-output")
    assert lc.eval("live('lc-clear')") == "True"  # not at once: the grace period runs
    eventually(lc, "live('lc-clear')", "False")
    assert lc.eval("w_clear.closed") == "True"


def test_deleting_the_cell_closes_the_owned_session(lc: Lab) -> None:
    index, widget = show(lc, "w_del = ChatWidget()\nw_del")
    sid = widget.locator(".anb-title").inner_text().split("· ")[1]
    send(widget, "delete me")
    on_cell(lc, index, "notebook:delete-cell")
    eventually(lc, f"live({sid!r})", "False")


def test_rerunning_a_widget_cell_five_times_leaves_one_widget(lc: Lab) -> None:
    lc.run("made = []")
    index = lc.run("w5 = ChatWidget()\nmade.append(w5)\nw5")
    lc.widget(index)
    for _ in range(4):
        on_cell(lc, index, "notebook:run-cell")
        lc.widget(index)  # each run's widget shows before the next run replaces it
    lc.page.wait_for_function(
        "(i) => window.jupyterapp.shell.currentWidget.content.widgets[i].model.executionCount",
        arg=index,
    )
    lc.page.wait_for_timeout(int(GRACE * 1000) + 1500)  # the shown one outlives the grace
    assert lc.eval("len(made)") == "5"
    eventually(lc, "[w.closed for w in made]", "[True, True, True, True, False]")
    assert lc.eval("sum(live(w.session_id) for w in made)") == "1"


def test_a_session_the_cells_use_is_only_detached(lc: Lab) -> None:
    lc.run("%load_ext agent_nb\n%config AgentMagics.stream_interval = 0")
    cell = lc.run("%%agent lc-demo\nfrom a cell")
    assert "Error" not in lc.text(cell), lc.text(cell)
    index, widget = show(lc, "w_demo = ChatWidget('lc-demo')\nw_demo")
    send(widget, "from the widget")
    shown = lc.cell(lc.run("%agent sessions")).inner_text()
    assert "%%agent cells" in shown and "ChatWidget" in shown, shown
    on_cell(lc, index, "notebook:clear-cell-output")
    eventually(lc, "w_demo.closed")  # the widget is gone ...
    assert lc.eval("live('lc-demo')") == "True"  # ... the conversation is not
    assert lc.eval("runner.session_holders('lc-demo')") == "('%%agent cells',)"
    cell = lc.run("%%agent lc-demo\nstill there?")
    assert "You said: still there?" in lc.cell(cell).inner_text()
    assert lc.eval("get_runner().get_or_create_session('lc-demo').turns") == "3"


def _save(lab: Lab) -> None:
    lab.page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    lab.page.wait_for_function(
        "() => !window.jupyterapp.shell.currentWidget.context.model.dirty", timeout=10_000
    )


def test_reload_and_a_reopened_tab_keep_the_widget(lc: Lab) -> None:
    index, widget = show(lc, "w_keep = ChatWidget('lc-keep')\nw_keep")
    send(widget, "survive a reload")
    _save(lc)
    lc.page.reload(wait_until="domcontentloaded")
    lc.wait_reopened(1)
    widget = lc.widget(index, timeout=RESTORE_S)
    widget.locator(".anb-past .anb-user", has_text="survive a reload").wait_for(timeout=30_000)
    lc.page.wait_for_timeout(int(GRACE * 1000) + 1000)
    assert lc.eval("(w_keep.closed, live('lc-keep'))") == "(False, True)"

    # Close the notebook's tab (the kernel runs on), then open it again.
    _save(lc)
    lc.page.evaluate("() => window.jupyterapp.shell.currentWidget.close()")
    lc.page.wait_for_function(
        "(path) => ![...window.jupyterapp.shell.widgets('main')].some("
        "(w) => w.context && w.context.path === path)",
        arg=lc.path,
        timeout=10_000,
    )
    lc.page.wait_for_timeout(int(GRACE * 1000) + 1000)  # longer than the grace period
    # Returns nothing: Playwright would serialise the whole notebook widget it resolves to.
    lc.page.evaluate(
        "async (path) => { await window.jupyterapp.commands.execute('docmanager:open', {path}); }",
        lc.path,
    )
    lc.wait_reopened(1)
    widget = lc.widget(index, timeout=RESTORE_S)
    widget.locator(".anb-past .anb-user", has_text="survive a reload").wait_for(timeout=30_000)
    assert lc.eval("(w_keep.closed, live('lc-keep'))") == "(False, True)"
    send(widget, "still here")

    # After all that, clearing the output still closes it: the old pages' views are not counted.
    on_cell(lc, index, "notebook:clear-cell-output")
    eventually(lc, "live('lc-keep')", "False")


WIDGET_CHATS = (
    "sum(live(s.id) and any(h.startswith('ChatWidget') for h in s.holders) "
    "for s in runner.sessions())"
)


def test_reloading_an_unsaved_notebook_closes_its_orphaned_widget(lc: Lab) -> None:
    _save(lc)  # saved before the widget's cell exists: the reload brings back no view
    _, widget = show(lc, "w_lost = ChatWidget()\nw_lost")
    sid = widget.locator(".anb-title").inner_text().split("· ")[1]
    send(widget, "lost on reload")
    # Reload without saving (and without Lab's "leave the page?" prompt).
    lc.page.evaluate("() => { window.jupyterapp.shell.currentWidget.context.model.dirty = false; }")
    lc.page.once("dialog", lambda dialog: dialog.accept())
    lc.page.reload(wait_until="domcontentloaded")
    lc.wait_reopened(1)
    eventually(lc, f"live({sid!r})", "False")  # the orphaned widget's session
    assert lc.eval("w_lost.closed") == "True"
    shown = lc.cell(lc.run("%load_ext agent_nb\n%agent sessions")).inner_text()
    assert sid not in shown, shown
    # Running the cell again makes one new chat, not a second live one. (Counted
    # after the reload: on a loaded machine an earlier test's saved widget may take
    # longer than this module's short grace period to render again, and close.)
    before = int(lc.eval(WIDGET_CHATS))
    _, widget = show(lc, "w_lost = ChatWidget()\nw_lost")
    send(widget, "a fresh chat")
    after = int(lc.eval(WIDGET_CHATS))
    assert after == before + 1, lc.eval("[(s.id, s.holders, s.closed) for s in runner.sessions()]")
    lc.page.screenshot(path=str(OUTPUT_DIR / "widget-unsaved-reload.png"))


def test_kernel_settings_apply_and_the_badge_names_the_model(lc: Lab) -> None:
    lc.run("%load_ext agent_nb")
    lc.run("%config AgentMagics.max_tokens = 8\n%config AgentMagics.stream_interval = 0\n"
           "backend.enqueue(' '.join(['tick'] * 30))")  # fmt: skip
    _, widget = show(lc, "w_cfg = ChatWidget('lc-cfg')\nw_cfg")
    box = widget.locator("textarea.anb-input")
    box.fill("count")
    box.press("Enter")
    note = widget.locator(".anb-past .anb-cut")
    note.wait_for(timeout=10_000)
    assert note.inner_text() == "cut off at the 8-token limit; raise max_tokens for more"
    stored = lc.eval("w_cfg.session.history[1].text.split()")
    assert stored == str(["tick"] * 8), stored

    lc.run("%config AgentMagics.default_model = 'mlx:smollm2-135m'\n"
           "%config AgentMagics.max_tokens = 512")  # fmt: skip
    lc.run("w_cfg.model_label = w_cfg._badge()")  # what a view attaching does
    widget.locator(".anb-badge", has_text="mlx:smollm2-135m").wait_for(timeout=30_000)
    cell = lc.run("%%agent lc-cfg -m scripted\nwhich model?")
    assert "Error" not in lc.text(cell), lc.text(cell)
    widget.locator(".anb-badge", has_text="scripted").wait_for(timeout=30_000)
    assert widget.locator(".anb-badge").inner_text() == "scripted"
    lc.run("%config AgentMagics.default_model = ''")
    widget.scroll_into_view_if_needed()
    widget.screenshot(path=str(OUTPUT_DIR / "chat-widget-settings.png"))


def test_a_closed_widget_says_so(lc: Lab) -> None:
    index, _ = show(lc, "w_gone = ChatWidget('lc-gone')\nw_gone")
    second = lc.widget(lc.run("w_gone"))  # a second view keeps it open ...
    on_cell(lc, index, "notebook:clear-cell-output")
    lc.page.wait_for_timeout(int(GRACE * 1000) + 1000)
    assert lc.eval("w_gone.closed") == "False"
    # ... and closing from Python marks every view before they go.
    lc.run("w_gone.close()")
    second.wait_for(state="detached", timeout=10_000)
    note = lc.eval("w_gone.closed_note")
    assert "closed" in note and "ChatWidget()" in note, note


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
CLOSED = "This chat widget was closed"


def test_close_replaces_the_output_with_a_note_and_the_transcript(lc: Lab) -> None:
    """The quickstart's `chat.close()` after Run All: the output says so, as text."""
    index, widget = show(lc, "w_q = ChatWidget('lc-q')\nw_q")
    send(widget, "keep my words")
    lc.run("w_q.close()")
    cell = lc.cell(index)
    cell.locator(".agent-nb-static", has_text=CLOSED).wait_for(timeout=10_000)
    assert cell.locator(".agent-nb-chat").count() == 0
    (output,) = lc.outputs(index)
    assert WIDGET_VIEW not in output["data"]  # a saved notebook holds the note, no dead widget
    shown = cell.inner_text()
    assert "run ChatWidget() for a new chat" in shown and "keep my words" in shown, shown
    assert "Error displaying widget" not in shown
    assert lc.eval("w_q.closed") == "True"
    cell.scroll_into_view_if_needed()
    cell.screenshot(path=str(OUTPUT_DIR / "widget-closed-note.png"))


def test_page_raised_no_errors(lc: Lab) -> None:
    assert lc.errors == []
