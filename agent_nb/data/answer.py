"""One question over the notebook's DataFrames: plan, compute, and what the writer reads.

`ask` profiles each table (`table.profile`), plans the question over the one
whose columns and values it names best (`plan.plan_question`), runs the plan
(`compute.run_plan`) and returns an `Answer`: the plan and why, the result
table, the template sentence and the check's reference. `Answer.facts` is
all the writer's prompt holds: the result's sentence (and notes about the
input), never the table; `Answer.chart` the Altair chart; `Answer.view` the
plan line, table and chart spec that the transcript stores and shows.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from .check import check_state
from .compute import Result, run_plan
from .plan import Chooser, Plan, plan_question
from .table import Table, profile

__all__ = ["Answer", "ask"]


@dataclasses.dataclass(frozen=True)
class Answer:
    """A question's answer over one table (see the module docstring)."""

    question: str
    table: str
    plan: Plan
    reasons: tuple[str, ...]
    result: Result
    notes: tuple[str, ...]

    @property
    def data(self) -> Any:
        """The result as a small DataFrame."""
        return self.result.frame

    @property
    def sentence(self) -> str:
        """The template sentence: the result, worded by code."""
        return self.result.sentence

    @property
    def chart(self) -> Any:
        """The result as an Altair chart (None for a single number)."""
        from .chart import chart_for

        return chart_for(self.result)

    @property
    def view(self) -> dict[str, Any]:
        """What the data agent's message carries (`chart.view_bundle`): JSON only."""
        from .chart import view_bundle

        return view_bundle(self.plan.describe(), self.data, self.chart)

    @property
    def facts(self) -> str:
        """What the writer reads: the computed answer, no table."""
        lines = [f"Facts about {self.table} (computed with pandas):", f"- {self.sentence}"]
        return "\n".join(lines)

    @property
    def trace(self) -> dict[str, Any]:
        """The plan and why it was chosen, as a JSON value (for ``temp:`` state)."""
        return {
            "table": self.table,
            "plan": self.plan.model_dump(mode="json"),
            "describe": self.plan.describe(),
            "why": list(self.reasons),
            "notes": list(self.notes),
        }

    @property
    def reference(self) -> dict[str, Any]:
        """What the writer's sentence is checked against (`check.check_sentence`)."""
        r = self.result
        return check_state(r.sentence, r.numbers, r.allowed, r.names, r.others)


def _score(table: Table, question: str) -> float:
    from .lexicon import match_columns, match_values
    from .table import question_words

    named = match_columns(table, question_words(question), question)
    return sum(s for s, _ in named.values()) + 2 * len(match_values(table, question, set(named)))


def ask(frames: Mapping[str, Any], question: str, choose: Chooser | None = None) -> Answer:
    """The answer to ``question`` over ``frames`` (name -> DataFrame).

    Raises ValueError in one line for a table nothing can be computed from
    (empty, all missing) or a plan with no rows or values to compute.
    """
    tables = [profile(name, df) for name, df in frames.items()]
    table = max(tables, key=lambda t: _score(t, question)) if len(tables) > 1 else tables[0]
    plan, reasons = plan_question(table, question, choose)
    result = run_plan(table, plan)
    return Answer(question, table.name, plan, reasons, result, table.notes)
