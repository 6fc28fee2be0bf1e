"""What a ``%%agent`` cell sends: its text with ``{name}`` filled in, the ``--data``
summaries and the ``--cells`` context, each computed once per cell.

``--data`` DataFrames are set apart for the data agent (unless
``--data-mode summary``); every other object becomes a summary within the
data budget, counted in the turn's model's tokens.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Any

from IPython.core.error import UsageError

from ..._core.tokens import TextCounter
from ..prompts.cell_context import cells_context, recent_cells
from ..prompts.data_summary import summarize
from ..prompts.interpolate import Interpolated, interpolate
from .data_cell import lookup_data

__all__ = ["CellMessage", "compose", "variables"]


@dataclasses.dataclass(frozen=True)
class CellMessage:
    """One cell's message and what it was made from."""

    text: str
    """What the model is sent: ``--cells`` context, the cell's words, summaries."""
    question: str
    """The cell's own words, interpolated (the data agent's question)."""
    frames: dict[str, Any]
    """``--data`` DataFrames for the data agent (empty: no data agent)."""
    cells_read: tuple[int, ...]
    """The execution counts of the ``--cells`` sent."""
    references: tuple[str, ...]
    """The notebook names ``{...}`` read (stale marks watch them)."""
    summarized: tuple[str, ...] = ()
    """The ``--data`` names sent as summaries (no table: the model reads them)."""


def compose(
    shell: Any,
    cell: str,
    args: Any,
    *,
    data_mode: str,
    data_budget: int,
    cells_budget: int,
    history_len: int | None,
    count: TextCounter,
) -> CellMessage:
    """The cell's message; a bad reference, name or option is a one-line error."""
    frames, summarized = _split_data(
        shell.user_ns, list(args.data), args.data_mode or data_mode, getattr(args, "table", None)
    )
    # A bad reference raises ValueError, which usage_errors turns into one line.
    filled = Interpolated(cell, ()) if args.raw else interpolate(cell, shell.user_ns)
    question = filled.text.strip()
    if not question:
        raise UsageError("the cell is empty; write the message below the %%agent line")
    budget = data_budget // max(1, len(summarized))
    summaries = [summarize(name, obj, budget, count) for name, obj in summarized.items()]
    if filled.fields:  # never silent: say what the model gets instead of the braces
        print(f"interpolated: {', '.join(filled.fields)}")
    for name, obj in summarized.items():  # never silent: the reply's numbers are the model's
        print(
            f"not computed: --data {name} ({type(obj).__name__}) is not a table, so the model "
            "answers from a summary of it and nothing checks its numbers; pass a DataFrame "
            "(or a Series) for a computed answer"
        )
    message = "\n\n".join([question, *summaries])
    read = _recent(shell, args, history_len)
    if read:
        context = cells_context(
            shell, read, outputs=args.outputs, budget_tokens=cells_budget, count=count
        )
        message = f"{context}\n\n{message}"
    return CellMessage(
        text=message,
        question=question,
        frames=frames,
        cells_read=tuple(n for n, _ in read),
        references=filled.fields,  # the same scan: the fields it filled, as typed
        summarized=tuple(summarized),
    )


def _split_data(
    ns: dict[str, Any], names: list[str], mode: str, table: str | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """--data objects as (tables for the data agent, objects to summarise). A database
    URL is opened here with ``--table`` (and named by it): its password goes no further."""
    from ...data.sources import is_url, source

    urls = [n for n in names if is_url(n)]
    found = lookup_data(ns, [n for n in names if n not in urls])
    if table is not None and not urls and not any(_takes_table(v) for v in found.values()):
        raise UsageError("--table goes with --data naming a database URL or a DuckDB connection")
    opened = {}
    for url in urls:
        if not table:
            raise UsageError(
                "--data with a database URL needs --table NAME, the table to ask about"
            )
        opened[table] = source(url, table=table)
    if mode == "summary" or not found:
        return opened, found
    frames = {n: _as_frame(n, v, table) for n, v in found.items() if _is_table(v)}
    return opened | frames, {n: v for n, v in found.items() if n not in frames}


def variables(names: list[str]) -> list[str]:
    """The ``--data`` names that are notebook variables (not a database URL, whose text
    is never kept: stale marks watch variables)."""
    from ...data.sources import is_url

    return [n for n in names if not is_url(n)]


def _takes_table(value: object) -> bool:
    """A DuckDB connection or a database URL held in a variable: ``--table`` names its table."""
    from ...data.sources import is_url

    kind = type(value)
    duckdb = kind.__module__.startswith(("duckdb", "_duckdb")) and "Connection" in kind.__name__
    return duckdb or is_url(value)


def _as_frame(name: str, value: Any, table: str | None = None) -> Any:
    """A Series is a one-column table, named by the Series (or the variable); a source
    (a path, a DuckDB or Ibis table) is opened where it lives."""
    if _is_dataframe(value):
        return value
    if _is_source(value):
        from ...data.sources import source

        return source(value, table=table if _takes_table(value) else None, name=name)
    return value.to_frame(name=value.name if value.name is not None else name)


def _is_table(value: object) -> bool:
    pandas = sys.modules.get("pandas")
    return (
        _is_dataframe(value)
        or (pandas is not None and isinstance(value, pandas.Series))
        or _is_source(value)
    )


def _is_source(value: object) -> bool:
    from ...data.sources import is_source

    return is_source(value)


def _is_dataframe(value: object) -> bool:
    """Checked without importing pandas: a notebook that never used it has no DataFrame."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(value, pandas.DataFrame)


def _recent(shell: Any, args: Any, history_len: int | None) -> list[tuple[int, str]]:
    """The cells ``--cells N`` sends (none without it)."""
    if args.cells is None:
        if args.outputs:
            raise UsageError("--outputs goes with --cells N (the outputs of those cells)")
        return []
    if args.cells < 1:
        raise UsageError(f"--cells needs a number of cells of at least 1, got {args.cells}")
    cells = recent_cells(shell, args.cells, before=history_len)
    if not cells:
        raise UsageError("--cells: no cell has run before this one in this kernel yet")
    return cells
