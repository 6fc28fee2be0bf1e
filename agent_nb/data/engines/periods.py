"""A time column's periods on the engine: `execute_ops.bucket`'s rule, decided by one query."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .compile import Engine
from .filters import kind

__all__ = ["bucket", "flag"]


def flag(condition: Any) -> Any:
    """How many rows meet ``condition``: those where it is true. A row where it is NULL
    is not one of them (``CASE WHEN`` sends it to ``ELSE``); a caller that must say such
    rows counts them apart (`compile_rows._exists`)."""
    import ibis

    # a CASE, not a cast: PostgreSQL casts no boolean to a number
    return ibis.ifelse(condition, 1, 0).sum()


def _same(value: Any) -> Any:
    return value


def _month(value: Any) -> str:
    return f"{int(value) // 100:04d}-{int(value) % 100:02d}"


def _day(value: Any) -> str:
    return str(value)[:10]


def bucket(
    e: Engine, t: Any, column: str, period: str | None
) -> tuple[Any, str, Callable[[Any], Any]]:
    """The periods of a time column: the key to group by, the label, and how a fetched
    key reads (`execute_ops.bucket`'s rule). Months group by ``year * 100 + month`` and
    days by the date, both read as pandas writes them ("2021-03", "2021-03-04") once
    grouped: formatting every row as text costs three times as much."""
    what = kind(t, column)
    s = t[column]
    if what not in ("time", "date"):
        if what == "number" and s.type().is_floating():
            got = e.one(t.aggregate(odd=flag(s.notnull() & (s % 1 != 0))))
            return (s.cast("int64") if not got["odd"] else s), "", _same
        return s, "", _same
    if period is None:
        period = _period(e, t, s)
    if period == "year":
        return s.year().cast("int64"), "year", _same
    if period == "month":
        return (s.year() * 100 + s.month()).cast("int64"), "month", _month
    return s.date(), "day" if period else "", _day


def _period(e: Engine, t: Any, s: Any) -> str | None:
    """pandas' choice of period for a trend that names none: years over long spans (or
    dates that are all January 1st), months past 24 distinct values, else days. The
    distinct count is estimated (HyperLogLog) and counted exactly only near 24."""
    import pandas as pd

    got = e.one(
        t.aggregate(
            jan=flag((s.month() == 1) & (s.day() == 1)),
            n=t.count(),
            lo=s.min(),
            hi=s.max(),
            u=s.approx_nunique(),
        )
    )
    distinct = int(got["u"] or 0)
    if 12 <= distinct <= 48:
        distinct = int(e.one(t.aggregate(u=s.nunique()))["u"])
    span = 0.0
    if got["lo"] is not None:
        span = (pd.Timestamp(got["hi"]) - pd.Timestamp(got["lo"])).days / 365.25
    many = distinct > 24
    if int(got["jan"]) == int(got["n"]) or (span >= 3 and many):
        return "year"
    return "month" if many else None
