"""A reply cut off inside a code block does not swallow what follows it.

``%agent history [--all]``, ``%agent export --format md`` and the widget's
transcript each close a fence a turn left open before the next turn
(`agent_nb._core.fences.close_open_fence`, the one finder). Driven through a
real IPython shell on the ScriptedBackend (``--max-tokens`` cuts the reply),
rendered by real Markdown renderers (markdown-it, mistune, and marked as
JupyterLab and the widget use it).
"""

from __future__ import annotations

import html
import re

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import CapturedIO

from agent_nb._core.fences import fences
from agent_nb.backends import ScriptedBackend
from tests.fixtures_magics import run
from tests.html_safety import render_all, render_marked

CUT = "Here is the loop:\n\n```python\nfor i in range(10):\n    print(i)\n    print(i * 2)\n```\n"


def _code(rendered: str) -> str:
    blocks = re.findall(r"<pre><code[^>]*>(.*?)</code></pre>", rendered, re.S)
    return html.unescape("\n".join(blocks))


def _markdown(cap: CapturedIO) -> str:
    data: dict[str, str] = cap.outputs[-1].data
    return data.get("text/markdown") or data["text/plain"]


@pytest.fixture
def cut_session(shell: InteractiveShell, backend: ScriptedBackend) -> str:
    backend.enqueue(CUT)
    result, _ = run(shell, "%%agent demo --max-tokens 8\nwrite a loop", cell_id="a")
    assert result.success
    backend.enqueue("The second answer, in prose.")
    run(shell, "%%agent demo\nand now in words", cell_id="b")
    backend.enqueue("A third, on a branch.")
    run(shell, "%%agent demo\nand now in words again", cell_id="b")  # a re-run: a branch
    return "demo"


@pytest.mark.parametrize(
    "command", ["%agent history demo --all", "%agent history demo", "%agent export demo"]
)
def test_history_and_export_close_the_cut_off_fence(
    shell: InteractiveShell, cut_session: str, command: str
) -> None:
    _, cap = run(shell, command)
    markdown = _markdown(cap)
    assert "for i in" in markdown  # the cut-off code is there...
    rendered = {**render_all(markdown), "marked": render_marked([markdown])[0]}
    for name, out in rendered.items():
        code = _code(out)
        assert "for i in" in code, name  # ...as code
        # ...and what follows it is not: the next turns, the branch list.
        for later in ("and now in words", "A third, on a branch.", "Branches", "branch 2"):
            assert later in out and later not in code, (name, later)


def test_the_widget_transcript_closes_the_fence_in_its_own_bubble(
    shell: InteractiveShell, cut_session: str
) -> None:
    from agent_nb._jupyter.widget.chat_widget import ChatWidget

    widget = ChatWidget(session=cut_session, evict_on_close=False)
    try:
        models = [e["text"] for e in widget.transcript if e["kind"] == "model"]
    finally:
        widget.close()
    cut = models[0]
    assert cut.startswith("Here is the loop:") and fences(cut)[-1].closed
    shown = render_marked([*models, cut + "\n\nafter the bubble"])
    assert "for i in" in _code(shown[0])
    assert "after the bubble" not in _code(shown[-1])
