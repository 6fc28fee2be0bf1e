"""`DataAgent`: the question becomes a plan, pandas answers it, a writer words it.

A `DataAgent` is a `CodeAgent`: it runs no model. Each turn it answers the
turn's question (``ctx.user_content``, or its own ``question``) with `ask`:
a typed plan over the table's columns, run by pandas. It writes the
computed sentence to ``temp:insights`` (its ``output_key``), which the writer
reads through ``{temp:insights}``, the plan and why to ``temp:data_plan``
(the trace shows it) and the check's reference to ``temp:data_check``. The
writer's ``after_model_callback`` `check_reply` compares the model's
sentence with the result and replaces it by the template sentence when a
number or a name is wrong. ``focus=False`` writes every computed fact
(`insights`) instead. `DataAgent.pipeline(writer)` builds the pair;
`writer_for` makes the writer of a session whose agent is given (``%%agent
--data`` and ``ChatWidget(data=...)`` both use it).

The agent's message carries the answer's plan line, result table and chart
spec as attachments (`Answer.view`): stored with the turn and never
read by the model, so the chat widget shows them in the turn, after a reload
and from another kernel's store.

For models that can call tools, `DataAgent.tools` offers structured
questions over the same frames (group totals, filter by value, top-k, a
column's distribution). Their arguments are column names and plain values,
checked against the frame; **model text is never evaluated as code** (no
``eval``, no ``DataFrame.query`` / ``DataFrame.eval``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from collections.abc import AsyncGenerator, Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Literal, get_args

from .._core.state import check_state_key
from .._core.tools import ToolContext
from .._core.types import Event, TextMessage
from .._runtime.agents import Agent, CodeAgent, SequentialAgent
from .insights import check_frame, compute_insights
from .result import plain

if TYPE_CHECKING:  # pydantic (the plan's model) is imported when a question is asked
    from .._runtime.context import InvocationContext
    from .answer import Answer

__all__ = [
    "ANSWER_KEY",
    "CHECK_KEY",
    "PLAN_KEY",
    "WORDINGS",
    "WRITER_INSTRUCTIONS",
    "DataAgent",
    "check_reply",
    "writer_for",
]

#: Where the data agent leaves the plan (and why) and the check's reference.
PLAN_KEY = "temp:data_plan"
CHECK_KEY = "temp:data_check"
#: The typed answer (JSON: bool, number, string, list or null), for ``reply.answer``.
ANSWER_KEY = "temp:data_answer"

#: How a data answer is worded: "computed" (the computed sentence is the reply, at once,
#: no model call) or "model" (a writer words it, and `check_reply` holds it to the result).
_Wording = Literal["computed", "model"]
WORDINGS: tuple[str, ...] = get_args(_Wording)

#: What the writer is told; the facts come first so a tiny model sees them.
WRITER_INSTRUCTIONS = (
    "{temp:insights}\n\nAnswer the question in one short sentence, using only this fact. "
    "Quote the numbers and names exactly."
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
    question: str | None = None
    context: Mapping[str, Any] | None = dataclasses.field(default=None, repr=False)
    choose: bool = True
    wording: str = "model"

    def __init__(
        self,
        name: str = "data_agent",
        data: Mapping[str, Any] | None = None,
        *,
        output_key: str = "temp:insights",
        focus: bool = True,
        question: str | None = None,
        context: Mapping[str, Any] | str | None = None,
        choose: bool = True,
        wording: str = "model",
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
        from .context import read_context

        if not isinstance(choose, bool):
            raise TypeError(f"DataAgent choose must be True or False, got {choose!r}")
        object.__setattr__(self, "question", question)
        object.__setattr__(self, "context", read_context(context) or None)
        object.__setattr__(self, "choose", choose)
        if wording not in WORDINGS:
            raise ValueError(f"DataAgent wording must be one of {list(WORDINGS)}, got {wording!r}")
        object.__setattr__(self, "wording", wording)
        object.__setattr__(self, "_answers", {})
        super().__init__(name=name, fn=self._write_insights, description=description)

    def answer(self, question: str | None = None) -> Answer:
        """The answer to ``question`` (default: this agent's ``question``), computed
        once per question: the magic asks before the turn, the turn reuses it."""
        text = question if question is not None else (self.question or "")
        answers: dict[str, Answer] = self._answers  # type: ignore[attr-defined]
        if text not in answers:
            from .answer import ask

            answers.clear()  # one question at a time: the cache only spares a recompute
            answers[text] = ask(self.data, text, self.context)
        return answers[text]

    async def _fill_plan(self, ctx: InvocationContext, question: str) -> None:
        """Where the words left a choice open, the turn's model fills the whole plan
        (`choose`), inside this invocation; validated by running it (`answer.refine`)."""
        answer = self.answer(question)
        if not (self.choose and answer.open) or answer.table not in self.data:
            return
        from .answer import refine
        from .choose import choose_plan
        from .context import table_context
        from .profiles import profiled

        frame = self.data[answer.table]
        table = await asyncio.to_thread(
            profiled, answer.table, frame, table_context(self.context, answer.table)
        )
        try:
            plan = await choose_plan(ctx, table, question)
        except Exception as exc:  # a server that cannot keep to the grammar: the words stand
            why = (
                f"the model's plan could not be read ({type(exc).__name__}); the words' plan stands"
            )
            self._answers[question] = dataclasses.replace(  # type: ignore[attr-defined]
                answer, reasons=(*answer.reasons, why)
            )
            return
        if plan is None:
            return
        better = await asyncio.to_thread(
            refine, self.data, answer, plan, "the model filled the plan", self.context
        )
        self._answers[question] = better  # type: ignore[attr-defined]

    def insights_text(self, question: str = "") -> str:
        """The text written to ``temp:insights`` (computed now): with a ``question``
        and ``focus``, the computed answer; else every fact of `compute_insights`."""
        if question and self.focus:
            return self.answer(question).facts
        from .profiles import derived

        tables = [
            derived(df, ("insights", n), functools.partial(compute_insights, n, df))
            for n, df in self.data.items()
        ]
        return "\n\n".join(t.text() for t in tables)

    async def run(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        """`CodeAgent.run`, with the answer's table and chart on its message."""
        asked = self.question or ctx.turn.user_content
        if asked and self.focus:
            await self._fill_plan(ctx, asked)
        async for event in super().run(ctx):
            question = self.question or ctx.turn.user_content
            if isinstance(event, TextMessage) and question and self.focus:
                # Altair off the worker loop: its first import takes a moment
                bundle = await asyncio.to_thread(self._view, question)
                event = dataclasses.replace(event, attachments=bundle)
            yield event

    def _view(self, question: str) -> dict[str, Any]:
        return self.answer(question).view  # computed by _write_insights: cached

    def _write_insights(self, ctx: ToolContext) -> str | None:
        question = self.question or ctx.user_content
        if not (question and self.focus):
            ctx.state[self.output_key] = self.insights_text()
            return None
        answer = self.answer(question)
        ctx.state[self.output_key] = answer.facts
        ctx.state[PLAN_KEY] = answer.trace
        ctx.state[CHECK_KEY] = answer.reference
        ctx.state[ANSWER_KEY] = answer.value
        if self.wording == "computed":  # the computed sentence is the reply: no writer
            return answer.sentence
        return None

    def pipeline(
        self, writer: Agent | None = None, *, name: str = "data_pipeline"
    ) -> SequentialAgent:
        """This agent, then ``writer`` (default: an agent told to word the answer,
        whose sentence `check_reply` checks; give your own writer that callback too)."""
        writer = writer or Agent(
            name="writer", instructions=WRITER_INSTRUCTIONS, after_model_callback=check_reply
        )
        return SequentialAgent(name, [self, writer])

    @property
    def tools(self) -> tuple[Callable[..., Any], ...]:
        """Structured questions over the frames, for a writer that can call tools."""
        return _data_tools(self.data)


def writer_for(base: Any, system: str | None = None, *, check: bool = True) -> Agent:
    """The writer of a data pipeline on a session whose agent is ``base``: it keeps
    that agent's name (so its KV cache), tools, rounds and config, reads the answer
    (`WRITER_INSTRUCTIONS`, then ``system`` or else ``base``'s own instructions)
    and has its sentence checked (`check_reply`; ``check=False`` for a reply that
    is a constrained value, ``--schema`` or ``--choice``)."""
    own = base if isinstance(base, Agent) else None
    instructions = system or (own.instructions if own is not None else "")
    return Agent(
        name=own.name if own is not None else "writer",
        instructions=WRITER_INSTRUCTIONS + (f"\n\n{instructions}" if instructions else ""),
        tools=own.tools if own is not None else (),
        max_turns=own.max_turns if own is not None else 10,
        config=own.config if own is not None else None,
        after_model_callback=check_reply if check else None,
    )


def check_reply(callback_context: Any, llm_response: Any) -> str | None:
    """An ``after_model_callback`` for the writer: the model's sentence when it is
    true to the data agent's result (``temp:data_check``), else the template
    sentence and a line saying the wording was replaced."""
    reference = callback_context.state.get(CHECK_KEY)
    if not reference or any(p.function_call is not None for p in llm_response.parts):
        return None
    from .evidence import checked_reply

    text = llm_response.text or ""
    replaced = checked_reply(text, reference)
    note = reference.get("note", "")
    if replaced is None and note:  # the model's sentence stands; the left-out word is said
        return f"{text.rstrip()}\n\n{note}"
    return replaced


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
        return [{str(k): plain(v) for k, v in row.items()} for row in rows.to_dict("records")]

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
        return [{str(c): plain(v) for c, v in row.items()} for row in rows.to_dict("records")]

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
            return dict(zip(["min", "q1", "median", "q3", "max"], map(plain, q), strict=True))
        counts = series.astype(str).value_counts().head(_MAX_TOOL_ROWS)
        return {str(k): int(v) for k, v in counts.items()}

    return (group_totals, filter_rows, top_k, distribution)
