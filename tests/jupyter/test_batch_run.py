"""A notebook run by nbclient, as ``jupyter nbconvert --execute`` and papermill
run it: no front end inserts cells or renders widgets, so the ChatWidget
shows its transcript as escaped text (which the HTML export keeps) and
``--code`` says where the code is instead of promising a new cell."""

from __future__ import annotations

from typing import Any

import pytest
from nbclient import NotebookClient
from nbconvert import HTMLExporter
from nbformat.v4 import new_code_cell, new_notebook

pytestmark = [pytest.mark.kernel, pytest.mark.timeout(300)]

SETUP = (
    "%load_ext agent_nb\n"
    "from agent_nb import AgentRunner, ChatWidget, set_runner\n"
    "from agent_nb.backends import ScriptedBackend\n"
    "set_runner(AgentRunner(model=ScriptedBackend(["
    "'<b>bold</b> & <script>alert(1)</script> reply', "
    "'Here:\\n```python\\nprint(1)\\n```'])))"
)
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _stdout(cell: Any) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.get("name") == "stdout")


def test_widget_and_code_under_a_batch_run() -> None:
    nb = new_notebook(
        cells=[
            new_code_cell(SETUP),
            new_code_cell("%%agent chat\nhello there"),
            new_code_cell("ChatWidget('chat', evict_on_close=False)"),
            new_code_cell("%%agent --code -o answer\ncode please"),
        ]
    )
    NotebookClient(nb, kernel_name="python3", timeout=120).execute()
    # Shown through display() (a display id a close can replace), not as Out[n].
    (shown,) = [o for o in nb.cells[2].outputs if o["output_type"] == "display_data"]
    data = shown["data"]
    assert WIDGET_VIEW not in data  # nobody would render it: a blank box in HTML
    assert data["text/plain"].startswith("ChatWidget: session 'chat' (1 turn)")
    assert "assistant: <b>bold</b> & <script>alert(1)</script> reply" in data["text/plain"]
    page = data["text/html"]
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; &lt;script&gt;alert(1)&lt;/script&gt; reply" in page
    assert "<script" not in page and "<b>bold" not in page
    exported, _ = HTMLExporter().from_notebook_node(nb)
    assert "ChatWidget: session 'chat' (1 turn)" in exported
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; &lt;script&gt;alert(1)&lt;/script&gt; reply" in exported
    assert (
        _stdout(nb.cells[3])
        .strip()
        .endswith(
            "--code: no cell was added: nothing here can insert one (a batch run such as "
            "nbconvert or papermill); the reply is in answer (answer.text)"
        )
    )
