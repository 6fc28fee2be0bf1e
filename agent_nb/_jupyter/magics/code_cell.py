"""``%%agent --code``: the reply's first code block becomes the next cell, never run."""

from __future__ import annotations

from typing import Any

from ..._core.fences import first_code_block, opens_a_block
from ..front_end import batch_run

__all__ = ["next_cell"]


def next_cell(shell: Any, reply: str, output: str | None) -> None:
    """Insert the first code block of ``reply`` below (the front end does), or say why not."""
    code = first_code_block(reply)
    if code is None:
        if opens_a_block(reply):
            why = "its code block was cut off before the closing fence (raise --max-tokens)"
        else:
            why = "it has no fenced code block"
        print(f"--code: no cell was added: {why}")
        return
    if batch_run(shell):  # nbconvert, papermill: no front end to insert a cell
        if output:
            where = f"the reply is in {output} ({output}.text)"
        else:
            where = "add -o VAR to keep the reply in a variable"
        print(
            "--code: no cell was added: nothing here can insert one (a batch run such "
            f"as nbconvert or papermill); {where}"
        )
        return
    shell.set_next_input(code, replace=False)
    print("--code: the reply's first code block is in a new cell below (not run)")
