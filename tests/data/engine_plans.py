"""Every plan the suite's question sets produce, and how two `Result`s may differ.

`plans` reads each question of `tests.data.questions` and `tests.data.phrasings`
over its real table (the planner's candidates, best first, not only the one
that wins), so the differential test (`test_engines.py`) runs each plan the
suite can produce on pandas and on every engine. `difference` says, in one
line, how two results of the same plan disagree (None: they agree).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import pandas as pd

from agent_nb.data.planner import plan_candidates
from agent_nb.data.query import Filter, Plan
from agent_nb.data.result import PlanError, Result
from agent_nb.data.table import Table, profile
from tests.data import phrasings, questions

__all__ = ["CANDIDATES", "ORDERED", "difference", "plans", "profiled"]

CANDIDATES = 6  # the first candidates of each question: any of them can win


def _next(table: str, show: str, column: str, value: str, offset: int) -> tuple[str, Plan]:
    return table, Plan(
        op="lookup", group_by=show, offset=offset, filters=(Filter(column=column, value=value),)
    )


#: Plans over the table's own order that the question sets do not reach yet (the row
#: after or before a named row; a run of rows; a value on rows far apart: a PlanError).
ORDERED: tuple[tuple[str, Plan], ...] = (
    _next("airports", "name", "name", "Thigpen", 1),
    _next("airports", "city", "name", "Meadow Lake", -1),
    _next("airports", "iata", "name", "Thigpen", -1),  # no row before the first
    _next("stocks", "price", "symbol", "MSFT", 1),
    _next("stocks", "date", "symbol", "AMZN", -2),
    _next("barley", "variety", "site", "Morris", 1),  # rows far apart
    ("stocks", Plan(op="aggregate", agg="streak", filters=(Filter(column="symbol", value="IBM"),))),
    (
        "barley",
        Plan(op="aggregate", agg="streak", filters=(Filter(column="site", value="Morris"),)),
    ),
    (
        "stocks",
        Plan(op="aggregate", agg="streak", filters=(Filter(column="price", op=">", value=1e9),)),
    ),
)


@functools.cache
def profiled(name: str) -> Table:
    return profile(name, phrasings.frame(name))


@functools.cache
def plans() -> dict[str, tuple[Plan, ...]]:
    """Table name -> the distinct plans its questions produce."""
    asked = [(q.table, q.text) for q in questions.QUESTIONS]
    asked += [(p.table, p.text) for p in phrasings.PHRASINGS]
    out: dict[str, dict[str, Plan]] = {}
    for name, text in asked:
        try:
            _, candidates = plan_candidates(profiled(name), text)
        except ValueError:
            continue
        for c in candidates[:CANDIDATES]:
            out.setdefault(name, {})[c.plan.model_dump_json()] = c.plan
    for name, plan in ORDERED:
        out.setdefault(name, {})[plan.model_dump_json()] = plan
    return {name: tuple(found.values()) for name, found in out.items()}


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b or a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-7, abs_tol=1e-9) or (a != a and b != b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    return str(a) == str(b)


def _roles(r: Result) -> list[tuple[str, float]]:
    return sorted(r.roles, key=lambda x: (x[0], x[1] if x[1] == x[1] else 0.0))


def difference(a: Result | PlanError, b: Result | PlanError) -> str | None:
    """How ``b`` differs from ``a`` (pandas'), or None when they agree."""
    if isinstance(a, PlanError) or isinstance(b, PlanError):
        if isinstance(a, PlanError) and isinstance(b, PlanError):
            return None
        return f"pandas: {a if isinstance(a, PlanError) else 'a result'}; engine: " + (
            str(b) if isinstance(b, PlanError) else f"{b.value!r}"
        )
    if not _close(a.value, b.value):
        return f"value {a.value!r} != {b.value!r}"
    ra, rb = _roles(a), _roles(b)
    if len(ra) != len(rb) or not all(
        x[0] == y[0] and _close(x[1], y[1]) for x, y in zip(ra, rb, strict=True)
    ):
        return f"roles {ra} != {rb}"
    if a.names != b.names:
        return f"names {a.names} != {b.names}"
    if a.others != b.others:
        return f"others {a.others} != {b.others}"
    if (a.chart, a.x, a.y, a.rows) != (b.chart, b.x, b.y, b.rows):
        return f"chart/rows {(a.chart, a.x, a.y, a.rows)} != {(b.chart, b.x, b.y, b.rows)}"
    fa, fb = pd.DataFrame(a.frame), pd.DataFrame(b.frame)
    if fa.shape != fb.shape or [str(c) for c in fa.columns] != [str(c) for c in fb.columns]:
        return f"frame {fa.shape} {list(fa.columns)} != {fb.shape} {list(fb.columns)}"
    for column in range(fa.shape[1]):
        left, right = fa.iloc[:, column].tolist(), fb.iloc[:, column].tolist()
        if not _close([_cell(v) for v in left], [_cell(v) for v in right]):
            return f"frame column {fa.columns[column]!r}: {left[:5]} != {right[:5]}"
    if dict(a.detail).keys() != dict(b.detail).keys() or not all(
        _close(_cell(x), _cell(dict(b.detail)[k])) for k, x in a.detail
    ):
        return f"detail {a.detail} != {b.detail}"
    return None


def _cell(v: Any) -> Any:
    from agent_nb.data.result import plain

    v = plain(v)
    if isinstance(v, tuple):
        return [_cell(x) for x in v]
    if isinstance(v, float) and v != v:
        return None
    return v
