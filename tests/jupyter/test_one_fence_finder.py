"""Rendering, ``--format code`` and ``--code`` see the same fenced blocks.

They used to run two parsers that disagreed: a closing fence longer than its
opening one rendered as code while ``--code`` found no block; a backtick in a
backtick fence's info string (not a fence in CommonMark) was the other way
round. Each case here goes through a real IPython shell on the ScriptedBackend
and through a real Markdown renderer.
"""

from __future__ import annotations

import html
import re

import pytest
from IPython.core.interactiveshell import InteractiveShell

from agent_nb._core.render import safe_markdown
from agent_nb.backends import ScriptedBackend
from tests.fixtures_magics import final_bundle, run
from tests.html_safety import render_all


def _rendered_blocks(markdown: str) -> list[str]:
    rendered = render_all(markdown)["markdown-it"]
    blocks = re.findall(r"<pre><code[^>]*>(.*?)</code></pre>", rendered, re.S)
    return [html.unescape(b).removesuffix("\n") for b in blocks]


CASES = {
    # closed by a longer run of backticks: one block, "x = 1\nprint(x)"
    "longer-closing-fence": ("Here:\n```python\nx = 1\nprint(x)\n`````\nDone.", "x = 1\nprint(x)"),
    # "```py`thon" opens no fence (a backtick in the info string), so "x = 1"
    # is prose; the "```" after it opens a block that never closes
    "backtick-in-info": ("Here:\n```py`thon\nx = 1\n```\nDone.", None),
}


@pytest.mark.parametrize(("reply", "block"), CASES.values(), ids=CASES.keys())
def test_rendered_code_and_the_code_option_agree(
    shell: InteractiveShell, backend: ScriptedBackend, reply: str, block: str | None
) -> None:
    complete = [block] if block is not None else []
    shell.rl_next_input = None
    backend.enqueue(reply)
    _, cap = run(shell, "%%agent --code\nwrite code")
    shown = _rendered_blocks(final_bundle(cap)["text/markdown"])
    assert shown[: len(complete)] == complete
    assert shell.rl_next_input == block
    if block is None:
        assert cap.stdout.strip().startswith("--code: no cell was added")
        assert not any("x = 1" in b for b in shown)  # the would-be code shows as prose
    else:
        assert shown == complete

    backend.enqueue(reply)
    _, cap = run(shell, "%%agent --format code\nwrite code")
    only_code = _rendered_blocks(final_bundle(cap)["text/markdown"])
    # --format code shows the complete blocks, or the whole reply as one block if none
    assert only_code == (complete or [reply])


def test_unclosed_fence_renders_to_the_end_but_gives_no_cell(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    reply = "Start:\n```python\nprint(1)\nprint(2)"
    assert _rendered_blocks(safe_markdown(reply)) == ["print(1)\nprint(2)"]
    shell.rl_next_input = None
    backend.enqueue(reply)
    _, cap = run(shell, "%%agent --code\nwrite code")
    assert shell.rl_next_input is None
    assert "cut off before the closing fence" in cap.stdout


def test_a_fence_in_a_list_item_is_one_block_for_both(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    reply = "1. Install:\n\n   ```sh\n   pip install x\n   ```\n2. Run it."
    assert _rendered_blocks(safe_markdown(reply)) == ["pip install x"]
    shell.rl_next_input = None
    backend.enqueue(reply)
    run(shell, "%%agent --code\nhow?")
    assert shell.rl_next_input == "pip install x"
