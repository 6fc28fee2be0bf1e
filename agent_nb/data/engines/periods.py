"""A time column's periods on the engine: `execute_ops.bucket`'s rule, decided by one query."""

from __future__ import annotations

from typing import Any

from .compile import Engine
from .filters import kind

__all__ = ["bucket", "flag"]


def flag(condition: Any) -> Any:
    """How many rows meet ``condition`` (a row it cannot decide: no)."""
    import ibis

    # a CASE, not a cast: PostgreSQL casts no boolean to a number
    return ibis.ifelse(condition.fill_null(False), 1, 0).sum()


def bucket(e: Engine, t: Any, column: str, period: str | None) -> tuple[Any, str]:
    """The periods of a time column (`execute_ops.bucket`'s rule, decided by one query)."""
    what = kind(t, column)
    s = t[column]
    if what not in ("time", "date"):
        if what == "number" and s.type().is_floating():
            got = e.one(t.aggregate(odd=flag(s.notnull() & (s % 1 != 0))))
            return (s.cast("int64") if not got["odd"] else s), ""
        return s, ""
    if period is None:
        got = e.one(
            t.aggregate(
                jan=flag((s.month() == 1) & (s.day() == 1)),
                n=t.count(),
                lo=s.min(),
                hi=s.max(),
                u=s.nunique(),
            )
        )
        import pandas as pd

        span = 0.0
        if got["lo"] is not None:
            span = (pd.Timestamp(got["hi"]) - pd.Timestamp(got["lo"])).days / 365.25
        many = int(got["u"]) > 24
        if int(got["jan"]) == int(got["n"]) or (span >= 3 and many):
            period = "year"
        elif many:
            period = "month"
    if period == "year":
        return s.year().cast("int64"), "year"
    if period == "month":
        return s.strftime("%Y-%m"), "month"
    return s.strftime("%Y-%m-%d"), "day" if period else ""
