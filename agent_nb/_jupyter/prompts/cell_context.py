"""``%%agent --cells N [--outputs]``: the notebook's recent cells as context.

"Given what I did above" needs what was run, not what the notebook file
holds: the kernel's own input history is the record of executed cells, in
execution order, each with its execution count, so that is what is sent, as
typed (magics included). Cells are labelled ``In [n]`` / ``Out[n]`` like the
prompts the user sees, and the same numbers work in ``{In[n]}`` / ``{Out[n]}``
interpolation.

Outputs are text only. IPython 9 keeps each cell's printed text, results and
error in ``history_manager.outputs`` / ``exceptions``; with IPython 8 only the
cell's result value (``Out[n]``) is known. Everything is cut to a token
budget shared evenly by the cells, each cut in its middle, and counted like
``--data``: with the model's tokenizer when the backend has one, else the one
estimate (`agent_nb._core.tokens`). Labels and fences count too.
"""

from __future__ import annotations

import functools
import reprlib
from typing import Any

from ..._core.tokens import TextCounter, estimate_text_tokens
from .trim import fit_middle

__all__ = ["cells_context", "recent_cells"]


def recent_cells(shell: Any, n: int, *, before: int | None = None) -> list[tuple[int, str]]:
    """``(execution count, source as typed)`` of the last ``n`` cells run before ``before``.

    ``before`` is the length the input history had when the current cell
    started (so the current cell is never its own context); None means all.
    """
    raw: list[str] = shell.history_manager.input_hist_raw
    end = len(raw) if before is None else min(before, len(raw))
    return [(i, raw[i]) for i in range(max(1, end - n), end)]


def _text(value: Any) -> str:
    return value if isinstance(value, str) else "".join(value)


def _outputs(shell: Any, count: int) -> str:
    """The text a cell showed: printed streams, results, displays, its error."""
    history = shell.history_manager
    records = getattr(history, "outputs", None)
    if records is None:  # IPython 8: only the result value is kept
        out = shell.user_ns.get("Out", {})
        return reprlib.repr(out[count]) if count in out else ""
    chunks = []
    for record in records.get(count, ()):
        if record.output_type in ("out_stream", "err_stream"):
            chunks.append(_text(record.bundle.get("stream", [])))
        else:
            chunks.append(_text(record.bundle.get("text/plain", "")))
    error = getattr(history, "exceptions", {}).get(count)
    if error:
        chunks.append(f"{error['ename']}: {error['evalue']}")
    return "\n".join(c.strip("\n") for c in chunks if c.strip())


def cells_context(
    shell: Any,
    cells: list[tuple[int, str]],
    *,
    outputs: bool,
    budget_tokens: int,
    count: TextCounter = estimate_text_tokens,
) -> str:
    """The labelled cells (oldest first), within about ``budget_tokens`` tokens
    as ``count`` counts them (each cell gets an even share, at least 40)."""
    what = "code and outputs" if outputs else "code"
    header = f"Context: the {what} of the last {len(cells)} cells I ran in this notebook."
    share = max(40, (budget_tokens - count(header)) // max(1, len(cells)))
    parts = [header]
    for number, source in cells:
        shown = _outputs(shell, number) if outputs else ""
        code_share = share * 2 // 3 if shown else share
        code_block = functools.partial(_block, f"In [{number}]", "python")
        parts.append(fit_middle(source.strip("\n"), code_share, count, code_block))
        if shown:
            output_block = functools.partial(_block, f"Out[{number}]", "text")
            parts.append(fit_middle(shown, share - code_share, count, output_block))
    return "\n\n".join(parts)


def _block(label: str, lang: str, text: str) -> str:
    return f"{label}:\n```{lang}\n{text}\n```"
