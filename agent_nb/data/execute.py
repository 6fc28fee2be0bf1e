"""pandas runs a `Plan`: the typed answer, a small result table and the numbers in their roles.

`run_plan` returns a `Result`: ``value`` (a bool, a number, a string or a
list: `kind` names which, in DataBench's five answer types), the result as a
small DataFrame (at most `MAX_ROWS` rows), the numbers it holds by role
(``value``, ``count``, ``base``, ``first``, ``last``, ``change``...), the
answer's labels and the result's other labels, and the chart it wants. The
sentence is `describe`'s job; what the check compares is `evidence`'s.

A plan whose precondition fails (a filter that leaves no rows, a column with
no numbers, a value of the wrong type) raises `PlanError` in one true line;
the caller tries its next candidate. Every reduction runs under
``np.errstate`` with numpy's and pandas' warnings caught, so nothing leaks
into the cell.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Any, Literal

from .query import Filter, Plan
from .table import Table

__all__ = ["MAX_ROWS", "PlanError", "Result", "plain", "rows_where", "run_plan"]

MAX_ROWS = 10
MAX_LIST = 50


class PlanError(ValueError):
    """A plan that cannot be computed on this table (one true line)."""


@dataclasses.dataclass(frozen=True)
class Result:
    """A plan's answer (see the module docstring)."""

    value: Any
    frame: Any
    roles: tuple[tuple[str, float], ...] = ()  # (role, number) the sentence may state
    names: tuple[str, ...] = ()  # the answer's labels
    others: tuple[str, ...] = ()  # the result's other labels
    chart: Literal["bar", "line"] | None = None
    x: str = ""
    y: str = ""
    rows: int = 0  # rows the value was computed over
    detail: tuple[tuple[str, Any], ...] = ()  # what describe words (op-specific)

    @property
    def kind(self) -> str:
        """DataBench's answer type of ``value`` (or ``table`` for a trend, ``none``)."""
        return kind_of(self.value)

    def get(self, key: str, default: Any = None) -> Any:
        return dict(self.detail).get(key, default)

    @property
    def numbers(self) -> dict[str, float]:
        return dict(self.roles)


def kind_of(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, list):
        numeric = value and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in value
        )
        return "list[number]" if numeric else "list[category]"
    return "category"


def plain(value: Any) -> Any:
    """A pandas / numpy scalar as a plain Python value (dates as ISO text)."""
    if hasattr(value, "item") and not isinstance(value, str):
        try:
            value = value.item()
        except (ValueError, AttributeError):
            pass
    if hasattr(value, "isoformat"):
        text = value.isoformat()
        return text[:10] if text.endswith("T00:00:00") or len(text) == 10 else text
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value if isinstance(value, (str, int, float, bool)) or value is None else str(value)


def _number(value: Any) -> float | None:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None


def _mask(df: Any, f: Filter) -> Any:
    import pandas as pd

    if f.column not in df.columns:
        raise PlanError(f"there is no column {f.column!r}")
    s = df[f.column]
    if f.op == "missing":
        return s.isna()
    if f.op == "present":
        return s.notna()
    values = f.value if isinstance(f.value, tuple) else (f.value,)
    dated = pd.api.types.is_datetime64_any_dtype(s)
    if f.op in ("contains", "startswith"):
        text = s.astype(str).str.lower()
        needle = str(values[0]).lower()
        return text.str.contains(needle, regex=False) if f.op == "contains" else (
            text.str.startswith(needle)
        )
    if dated and all(isinstance(v, int) and 1000 <= v <= 3000 for v in values):
        s = s.dt.year  # a year named against a date column
    elif dated:  # a date named in full: compared as the day
        day = s.dt.strftime("%Y-%m-%d")
        wanted_days = [str(v)[:10] for v in values]
        return ~day.isin(wanted_days) if f.op == "!=" else day.isin(wanted_days)
    numeric = pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)
    if numeric:
        nums = [_number(v) for v in values]
        if any(n is None for n in nums):
            if f.op in ("=", "in"):
                return s.astype(str).str.lower().isin([str(v).lower() for v in values])
            raise PlanError(f"{f.column} holds numbers, not {values[0]!r}")
        x = pd.to_numeric(s, errors="coerce")
        if f.op == "between":
            lo, hi = sorted(n for n in nums if n is not None)[:2] if len(nums) > 1 else (nums[0],) * 2
            return (x >= lo) & (x <= hi)
        return _compare(x, f.op, nums if f.op == "in" else nums[0])
    if pd.api.types.is_bool_dtype(s):
        truth = [str(v).lower() in ("true", "yes", "1") for v in values]
        return _compare(s, f.op, truth if f.op == "in" else truth[0])
    if f.op in ("<", "<=", ">", ">=", "between"):
        raise PlanError(f"{f.column} holds text: it has no order to compare")
    lower = s.astype(str).str.lower().str.strip()
    wanted = [str(v).lower().strip() for v in values]
    if f.op == "!=":
        return ~lower.isin(wanted) & s.notna()
    return lower.isin(wanted)


def _compare(x: Any, op: str, v: Any) -> Any:
    if op == "in":
        return x.isin(v)
    return {"=": x == v, "!=": x != v, "<": x < v, "<=": x <= v, ">": x > v, ">=": x >= v}[op]


def rows_where(df: Any, filters: tuple[Filter, ...]) -> Any:
    """The rows of ``df`` that meet every filter (AND)."""
    for f in filters:
        df = df[_mask(df, f).fillna(False).astype(bool)]
    return df


def run_plan(table: Table, plan: Plan) -> Result:
    """The answer to ``plan`` over ``table`` (see the module docstring)."""
    import numpy as np

    from . import execute_ops

    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return execute_ops.RUN[plan.op](table, plan)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            if isinstance(exc, PlanError):
                raise
            raise PlanError(f"{plan.describe()}: {type(exc).__name__}: {exc}") from None
