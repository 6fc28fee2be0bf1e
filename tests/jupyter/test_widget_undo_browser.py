"""Undoing a deleted ChatWidget cell after the grace period, in a real JupyterLab.

A notebook of its own: JupyterLab's undo acts on the notebook's whole history,
and the lifecycle module's reload of an unsaved notebook leaves one in which
an undo can take back more than the deletion.
"""

from __future__ import annotations

import pytest

from tests.fixtures_lab import OUTPUT_DIR, Lab
from tests.jupyter.test_widget_lifecycle_browser import CLOSED, GRACE, HELPERS, on_cell, send, show
from tests.waiting import wait_until

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def lc(lab: Lab) -> Lab:
    index = lab.run(HELPERS)
    assert "HELPERS-OK" in lab.text(index), lab.outputs(index)
    return lab


def test_undoing_a_deletion_after_the_grace_period_says_the_widget_closed(lc: Lab) -> None:
    index, widget = show(lc, "w_undo = ChatWidget('lc-undo')\nw_undo")
    send(widget, "undo me")
    on_cell(lc, index, "notebook:delete-cell")
    # Past the grace period: the kernel closed the widget. Asked outside the
    # notebook, since a cell run meanwhile would become the undo's action.
    asked = """async () => {
        const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
        const reply = await kernel.requestExecute({
            code: "", silent: true, store_history: false,
            user_expressions: { note: "bool(w_undo.closed_note)" },
        }).done;
        return reply.content.user_expressions.note.data["text/plain"] === "True";
    }"""
    wait_until(
        lambda: lc.page.evaluate(asked),
        timeout=GRACE + 30,
        interval=0.25,
        what="the widget's close",
    )
    lc.page.wait_for_timeout(500)  # the closed note's display update reaches the page first
    on_cell(lc, max(index - 1, 0), "notebook:undo-cell-action")
    back = lc.cell(index).locator(".agent-nb-chat")
    back.wait_for(timeout=10_000)
    note = back.locator(".anb-closed-note")
    note.wait_for(timeout=10_000)
    assert note.inner_text().startswith(CLOSED)
    assert "ChatWidget('lc-undo')" in note.inner_text() or "ChatWidget()" in note.inner_text()
    assert "Error displaying widget" not in lc.cell(index).inner_text()
    assert back.locator("button.anb-send").is_disabled()
    # Closed before the undo (an earlier undo would have kept it open), and still.
    assert lc.eval("(w_undo.closed, live('lc-undo'))") == "(True, False)"
    back.scroll_into_view_if_needed()
    back.screenshot(path=str(OUTPUT_DIR / "widget-undo-after-close.png"))


def test_page_raised_no_errors(lc: Lab) -> None:
    assert lc.errors == []
