"""After Kernel → Restart, a ChatWidget view in real JupyterLab (chromium) says
its kernel-side model is gone, keeps the typed text and disables Send with the
reason. Its own module: the restart takes the kernel every other test uses."""

from __future__ import annotations

import pytest

from tests.fixtures_lab import OUTPUT_DIR, Lab

pytestmark = pytest.mark.browser

GONE = "the kernel restarted — re-run this cell to chat again"


def test_a_view_whose_kernel_restarted_says_so_and_keeps_the_typed_text(lab: Lab) -> None:
    index = lab.run("w_rs = ChatWidget()\nw_rs")
    widget = lab.widget(index)
    box = widget.locator("textarea.anb-input")
    box.click()
    box.fill("before the restart")
    box.press("Enter")
    widget.locator(".anb-past .anb-model", has_text="You said: before the restart").wait_for(
        timeout=10_000
    )
    lab.page.evaluate(
        "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.restart()"
    )
    lab.page.wait_for_function(
        """() => {
            const k = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
            return k && k.status === 'idle';
        }""",
        timeout=60_000,
    )
    widget.locator(".anb-status", has_text=GONE).wait_for(timeout=10_000)
    box.click()
    box.fill("typed after the restart")
    box.press("Enter")  # sends nothing: the text stays
    lab.page.wait_for_timeout(500)
    assert box.input_value() == "typed after the restart"
    send = widget.locator("button.anb-send")
    assert send.is_disabled() and send.get_attribute("title") == GONE
    assert widget.locator(".anb-status").inner_text() == GONE  # not "waiting for the model…"
    assert widget.locator(".anb-past .anb-user", has_text="typed after").count() == 0
    # The new kernel knows no such widget.
    assert lab.eval("'w_rs' in dir()") == "False"
    widget.screenshot(path=str(OUTPUT_DIR / "widget-kernel-restarted.png"))
