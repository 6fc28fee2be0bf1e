"""The rows of a table that meet a plan's filters (AND), in pandas."""

from __future__ import annotations

from typing import Any

from . import vocabulary
from .query import Filter
from .result import PlanError, number

__all__ = ["rows_where"]


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
        return (
            text.str.contains(needle, regex=False)
            if f.op == "contains"
            else (text.str.startswith(needle))
        )
    if dated and all(isinstance(v, int) and 1000 <= v <= 3000 for v in values):
        s = s.dt.year  # a year named against a date column
    elif dated:  # a date named in full: compared as the day
        day = s.dt.strftime("%Y-%m-%d")
        wanted_days = [str(v)[:10] for v in values]
        return ~day.isin(wanted_days) if f.op == "!=" else day.isin(wanted_days)
    numeric = pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s)
    if numeric:
        nums = [number(v) for v in values]
        if any(n is None for n in nums):
            if f.op in ("=", "in"):
                return s.astype(str).str.lower().isin([str(v).lower() for v in values])
            raise PlanError(f"{f.column} holds numbers, not {values[0]!r}")
        x = pd.to_numeric(s, errors="coerce")
        if f.op == "between":
            lo, hi = (
                sorted(n for n in nums if n is not None)[:2] if len(nums) > 1 else (nums[0],) * 2
            )
            return (x >= lo) & (x <= hi)
        return _compare(x, f.op, nums)
    if pd.api.types.is_bool_dtype(s):
        truth = [str(v).lower() in vocabulary.words("truth_words") for v in values]
        return _compare(s, f.op, truth)
    if f.op in ("<", "<=", ">", ">=", "between"):
        raise PlanError(f"{f.column} holds text: it has no order to compare")
    # compared case-blind through the column's distinct values, not row by row
    wanted = {str(v).lower().strip() for v in values}
    distinct = s.unique()
    hits = [v for v in distinct if v == v and v is not None and str(v).lower().strip() in wanted]
    mask = s.isin(hits)
    return ~mask & s.notna() if f.op == "!=" else mask


def _compare(x: Any, op: str, values: list[Any]) -> Any:
    """``x`` ``op`` the filter's values: in them, none of them ("not Aprilia or
    Honda": ``!=`` of several), or against the one value."""
    if op == "in":
        return x.isin(values)
    if op == "!=" and len(values) > 1:
        return ~x.isin(values) & x.notna()
    v = values[0]
    return {"=": x == v, "!=": x != v, "<": x < v, "<=": x <= v, ">": x > v, ">=": x >= v}[op]


def rows_where(df: Any, filters: tuple[Filter, ...]) -> Any:
    """The rows of ``df`` that meet every filter (AND)."""
    for f in filters:
        df = df[_mask(df, f).fillna(False).astype(bool)]
    return df
