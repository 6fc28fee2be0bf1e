"""`DataAgent`: pandas computes the facts, a writer agent words them.

A `DataAgent` is a `CodeAgent`: it runs no model. Each turn it computes
`compute_insights` for each of its DataFrames and writes them, as short
sentences plus a compact table, to ``temp:insights`` (its ``output_key``);
the writer that follows reads them through ``{temp:insights}`` in its
instructions. With ``focus`` (the default) the turn's question
(``ctx.user_content``) picks what the writer reads: the tables' shape and the
one fact that answers it (`relevance.focus`), so a small model words the right
fact instead of a neighbour of it; ``focus=False`` writes every fact.
`DataAgent.pipeline(writer)` builds that pair as a `SequentialAgent`.

For models that can call tools, `DataAgent.tools` offers structured
questions over the same frames (group totals, filter by value, top-k, a
column's distribution). Their arguments are column names and plain values,
checked against the frame; **model text is never evaluated as code** (no
``eval``, no ``DataFrame.query`` / ``DataFrame.eval``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from .._core.state import check_state_key
from .._core.tools import ToolContext
from .._runtime.agents import Agent, CodeAgent, SequentialAgent
from .insights import check_frame, compute_insights
from .relevance import focus

__all__ = ["WRITER_INSTRUCTIONS", "DataAgent"]

#: What the writer is told; the facts come first so a tiny model sees them.
WRITER_INSTRUCTIONS = (
    "{temp:insights}\n\nAnswer the question in one short sentence, using only these facts. "
    "Quote the numbers exactly."
)

_MAX_TOOL_ROWS = 20


@dataclasses.dataclass(frozen=True, init=False, eq=False)
class DataAgent(CodeAgent):
    """Insights from DataFrames into ``temp:insights`` (see the module docstring)."""

    #: The default writer's instructions (`pipeline`), for a writer of your own.
    WRITER_INSTRUCTIONS: ClassVar[str] = WRITER_INSTRUCTIONS

    data: Mapping[str, Any] = dataclasses.field(default_factory=dict, repr=False)
    output_key: str = "temp:insights"
    focus: bool = True

    def __init__(
        self,
        name: str = "data_agent",
        data: Mapping[str, Any] | None = None,
        *,
        output_key: str = "temp:insights",
        focus: bool = True,
        description: str = "",
    ) -> None:
        if not isinstance(data, Mapping) or not data:
            raise TypeError(
                "DataAgent data must be a non-empty dict of name -> pandas DataFrame, "
                f"e.g. data={{'sales': df}}; got {type(data).__name__}"
            )
        frames = {}
        for key, frame in data.items():
            if not isinstance(key, str) or not key:
                raise TypeError(f"DataAgent data names must be non-empty strings, got {key!r}")
            frames[key] = check_frame(key, frame)
        check_state_key("DataAgent output_key", output_key)
        object.__setattr__(self, "data", frames)
        object.__setattr__(self, "output_key", output_key)
        if not isinstance(focus, bool):
            raise TypeError(f"DataAgent focus must be True or False, got {focus!r}")
        object.__setattr__(self, "focus", focus)
        super().__init__(name=name, fn=self._write_insights, description=description)

    def insights_text(self, question: str = "") -> str:
        """The text written to ``temp:insights`` (computed now): every fact, or,
        with a ``question`` and ``focus``, the facts that answer it."""
        tables = [compute_insights(n, df) for n, df in self.data.items()]
        if question and self.focus:
            return focus(tables, question)
        return "\n\n".join(t.text() for t in tables)

    def _write_insights(self, ctx: ToolContext) -> None:
        ctx.state[self.output_key] = self.insights_text(ctx.user_content)

    def pipeline(
        self, writer: Agent | None = None, *, name: str = "data_pipeline"
    ) -> SequentialAgent:
        """This agent, then ``writer`` (default: an agent told to word the facts)."""
        writer = writer or Agent(name="writer", instructions=WRITER_INSTRUCTIONS)
        return SequentialAgent(name, [self, writer])

    @property
    def tools(self) -> tuple[Callable[..., Any], ...]:
        """Structured questions over the frames, for a writer that can call tools."""
        return _data_tools(self.data)


def _data_tools(frames: Mapping[str, Any]) -> tuple[Callable[..., Any], ...]:
    def frame(table: str) -> Any:
        if table not in frames:
            raise ValueError(f"unknown table {table!r}; tables: {sorted(frames)}")
        return frames[table]

    def column(df: Any, name: str) -> Any:
        if name not in df.columns:
            raise ValueError(f"unknown column {name!r}; columns: {[str(c) for c in df.columns]}")
        return df[name]

    def group_totals(table: str, by: str, value: str, top: int = 10) -> dict[str, float]:
        """Total of a numeric column per group, largest first.

        Args:
            table: the table's name.
            by: the column to group by.
            value: the numeric column to add up.
            top: how many groups to return (at most 20).
        """
        df = frame(table)
        column(df, by), column(df, value)
        totals = df.groupby(by, observed=True)[value].sum().sort_values(ascending=False)
        return {str(k): float(v) for k, v in totals.head(min(top, _MAX_TOOL_ROWS)).items()}

    def filter_rows(
        table: str, column_name: str, equals: str, limit: int = 10
    ) -> list[dict[str, Any]]:
        """Rows whose column equals a value (compared as text).

        Args:
            table: the table's name.
            column_name: the column to compare.
            equals: the value to match.
            limit: how many rows to return (at most 20).
        """
        df = frame(table)
        mask = column(df, column_name).astype(str) == str(equals)
        rows = df[mask].head(min(limit, _MAX_TOOL_ROWS))
        return [{str(k): _plain(v) for k, v in row.items()} for row in rows.to_dict("records")]

    def top_k(table: str, value: str, k: int = 5, largest: bool = True) -> list[dict[str, Any]]:
        """The rows with the largest (or smallest) values of a numeric column.

        Args:
            table: the table's name.
            value: the numeric column to rank by.
            k: how many rows (at most 20).
            largest: largest first (False: smallest first).
        """
        df = frame(table)
        column(df, value)
        n = min(k, _MAX_TOOL_ROWS)
        rows = df.nlargest(n, value) if largest else df.nsmallest(n, value)
        return [{str(c): _plain(v) for c, v in row.items()} for row in rows.to_dict("records")]

    def distribution(table: str, column_name: str) -> dict[str, Any]:
        """How a column's values are spread: counts of the commonest values, or quantiles.

        Args:
            table: the table's name.
            column_name: the column.
        """
        import pandas as pd

        series = column(frame(table), column_name)
        if pd.api.types.is_numeric_dtype(series):
            q = series.quantile([0, 0.25, 0.5, 0.75, 1]).tolist()
            return dict(zip(["min", "q1", "median", "q3", "max"], map(_plain, q), strict=True))
        counts = series.astype(str).value_counts().head(_MAX_TOOL_ROWS)
        return {str(k): int(v) for k, v in counts.items()}

    return (group_totals, filter_rows, top_k, distribution)


def _plain(value: Any) -> Any:
    """A pandas / numpy scalar as a JSON value."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and value != value:
        return None
    if isinstance(value, (int, float, str, bool)) or value is None:
        return value
    return str(value)
