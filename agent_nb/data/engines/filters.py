"""A plan's filters and derived columns as Ibis expressions (the engine's `rows.py`/`derive.py`).

Each rule here is the pandas rule of `agent_nb.data.rows` and
`agent_nb.data.derive`, written once more over Ibis column expressions so
that the engine (DuckDB, PostgreSQL, Spark...) filters where the data lives:

* text equals case-blind after trimming (pandas compares the column's
  distinct values the same way); ``!=`` keeps no missing value. Where the
  caller knows a column's distinct values (``distinct``: a DataFrame's, read
  once), the wanted ones are found among them in Python, as pandas finds
  them, and the rows are matched exactly (``IN``): trimming and lowering
  every cell is what a text filter costs (0.17 s of 10⁶ cells in DuckDB,
  against 0.02 s for the ``IN``);
* a year named against a date column compares the year; a full date compares
  the day;
* a number column compared with a word compares the text (``=``/``in``) or
  is a `PlanError`; a text column has no order;
* a division by zero is a missing value, a text's ``words`` are its runs of
  non-space characters.

Nothing here turns text into SQL: every value is an Ibis literal, every column
a name checked against the table's schema.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .. import vocabulary
from ..query import Derived, Filter
from ..result import PlanError, number

__all__ = ["ROW", "derive", "kind", "mask", "where"]

#: The row-order column the engine adds to a DataFrame it runs (pandas' row order, for
#: ties, "first" and "last"); a source without it has no defined row order.
ROW = "__row__"
_NEAR = 3  # at most this many values to look for get a cheap test before the trimmed one


def kind(t: Any, column: str) -> str:
    """How a rule reads ``column``: bool, number, time, date, text or other."""
    if column not in t.columns:
        raise PlanError(f"there is no column {column!r}")
    dtype = t[column].type()
    if dtype.is_boolean():
        return "bool"
    if dtype.is_numeric():
        return "number"
    if dtype.is_timestamp():
        return "time"
    if dtype.is_date():
        return "date"
    if dtype.is_string():
        return "text"
    return "other"


def _compare(x: Any, op: str, values: list[Any]) -> Any:
    """``x`` ``op`` the filter's values: in them, none of them ("not Aprilia or
    Honda": ``!=`` of several), or against the one value (``True`` as a literal)."""
    import ibis

    if op == "in":
        return x.isin(values)
    if op == "!=" and len(values) > 1:
        return ~x.isin(values) & x.notnull()
    v = ibis.literal(values[0]) if isinstance(values[0], bool) else values[0]
    return {"=": x == v, "!=": x != v, "<": x < v, "<=": x <= v, ">": x > v, ">=": x >= v}[op]


def wanted_text(values: Sequence[Any]) -> set[str]:
    """The text values a filter looks for, as a cell is compared with them."""
    return {str(v).lower().strip() for v in values}


def text_filters(filters: tuple[Filter, ...]) -> list[Filter]:
    """The filters that compare a column with text values (case-blind, trimmed)."""
    return [f for f in filters if f.op in ("=", "!=", "in") and f.value is not None]


def _predicate(t: Any, f: Filter, distinct: Mapping[str, Sequence[Any]] | None = None) -> Any:
    import ibis

    what = kind(t, f.column)
    s = t[f.column]
    if f.op == "missing":
        return s.isnull()
    if f.op == "present":
        return s.notnull()
    values = f.value if isinstance(f.value, tuple) else (f.value,)
    if f.op in ("contains", "startswith"):
        text = s.cast("string").lower()
        needle = str(values[0]).lower()
        return text.contains(needle) if f.op == "contains" else text.startswith(needle)
    if what in ("time", "date"):
        if all(isinstance(v, int) and 1000 <= v <= 3000 for v in values):
            return _numbers(s.year(), f, values)  # a year named against a date column
        day = s.strftime("%Y-%m-%d")
        wanted = [str(v)[:10] for v in values]
        return ~day.isin(wanted) if f.op == "!=" else day.isin(wanted)
    if what == "number":
        return _numbers(s, f, values)
    if what == "bool":
        truth = [str(v).lower() in vocabulary.words("truth_words") for v in values]
        return _compare(s, f.op, truth)
    if f.op in ("<", "<=", ">", ">=", "between"):
        raise PlanError(f"{f.column} holds text: it has no order to compare")
    known = None if distinct is None else distinct.get(f.column)
    if known is not None and f.op in ("=", "!=", "in"):
        want = wanted_text(values)
        hits = [v for v in known if str(v).lower().strip() in want]
        hit = s.isin(hits) if hits else ibis.literal(False)
        return ~hit & s.notnull() if f.op == "!=" else hit
    wanted = sorted(wanted_text(values))
    text = s.cast("string")
    hit = text.strip().lower().isin(wanted)
    if len(wanted) <= _NEAR:
        # Trimming every cell is what costs (0.9 s over 10⁸ rows in DuckDB); a cell that
        # trims to a wanted value holds it, so test that first, cheaply (0.55 s in all):
        # in a WHERE the engine trims only the cells that pass.
        near = text.lower()
        holds = near.contains(wanted[0])
        for other in wanted[1:]:
            holds = holds | near.contains(other)
        hit = holds & hit
    return ~hit & s.notnull() if f.op == "!=" else hit


def _numbers(s: Any, f: Filter, values: tuple[Any, ...]) -> Any:
    nums = [number(v) for v in values]
    if any(n is None for n in nums):
        if f.op in ("=", "in"):
            return s.cast("string").lower().isin([str(v).lower() for v in values])
        raise PlanError(f"{f.column} holds numbers, not {values[0]!r}")
    given = [n for n in nums if n is not None]
    if f.op == "between":
        lo, hi = sorted(given)[:2] if len(given) > 1 else (given[0], given[0])
        return (s >= lo) & (s <= hi)
    return _compare(s, f.op, given)


def mask(
    t: Any, filters: tuple[Filter, ...], distinct: Mapping[str, Sequence[Any]] | None = None
) -> Any:
    """Whether each row of ``t`` meets every filter, in SQL's three values: true where
    every filter holds, false where one fails, NULL (unknown) where none fails and one
    cannot be decided (a missing value: ``x > 3`` of a missing ``x``). The unknown is
    kept, not turned into false: a caller says what it does with such rows (`where`
    leaves them out; `compile_rows._exists` counts them apart and says so)."""
    if not filters:
        raise ValueError("mask() needs at least one filter: without one, every row meets it")
    out = _predicate(t, filters[0], distinct)
    for f in filters[1:]:
        out = out & _predicate(t, f, distinct)
    return out


def where(
    t: Any, filters: tuple[Filter, ...], distinct: Mapping[str, Sequence[Any]] | None = None
) -> Any:
    """``t``'s rows that meet every filter (AND); a row a filter cannot decide is left out
    (SQL's WHERE drops a row whose condition is NULL, as pandas' filter drops it). Each
    condition is its own filter, unwrapped, so that the engine sees it as it is (an
    ``AND`` it can evaluate lazily, pushed into the scan)."""
    for f in filters:
        t = t.filter(_predicate(t, f, distinct))
    return t


def _derived(t: Any, d: Derived) -> Any:
    import ibis

    for name in (d.column, d.other):
        if name is not None:
            kind(t, name)  # a PlanError for a column that is not there
    if d.op == "month":
        if kind(t, d.column) not in ("time", "date"):
            raise PlanError(f"{d.column} holds no dates to read months of")
        return t[d.column].month().cast("float64")
    if d.op == "year":
        return _year_written(t, d.column)
    if d.op == "years":
        return _years_spanned(t, d.column)
    if d.op in ("length", "words"):
        if kind(t, d.column) != "text":
            raise PlanError(f"{d.column} holds no text to measure")
        s = t[d.column]
        if d.op == "length":
            return s.length().cast("float64")
        runs = s.re_replace(r"\S+", "x").length() - s.re_replace(r"\S+", "").length()
        return runs.cast("float64")
    assert d.other is not None
    for name in (d.column, d.other):
        if kind(t, name) != "number":
            raise PlanError(f"{name} holds no numbers to compute with")
    a, b = t[d.column].cast("float64"), t[d.other].cast("float64")
    if d.op == "/":
        return ibis.ifelse(b == 0, ibis.null("float64"), a / b)
    return {"+": a + b, "-": a - b, "*": a * b}[d.op]


def _year_written(t: Any, column: str) -> Any:
    """`derive.year_written` in the engine: the year a cell writes (a date's year)."""
    from ..derive import WRITTEN_YEAR

    if kind(t, column) in ("time", "date"):
        return t[column].year().cast("float64")
    if kind(t, column) != "text":
        raise PlanError(f"{column} holds no years written as text")
    return t[column].re_extract(WRITTEN_YEAR, 1).nullif("").cast("float64")


def _years_spanned(t: Any, column: str) -> Any:
    """`derive.years_spanned` in the engine: the years a cell's range spans."""
    import ibis

    from ..derive import YEAR_RANGE

    if kind(t, column) != "text":
        raise PlanError(f"{column} holds no ranges of years")
    s = t[column]
    matched = s.re_search(YEAR_RANGE)
    start = s.re_extract(YEAR_RANGE, 1).nullif("").cast("float64")
    said = s.re_extract(YEAR_RANGE, 2).nullif("")
    end = said.cast("float64")
    end = ibis.ifelse(said.length() == 2, (start / 100).floor() * 100 + end, end)
    end = ibis.ifelse((said.length() == 2) & (end < start), end + 100, end)
    return ibis.ifelse(matched, end - start, ibis.null("float64"))


def derive(t: Any, derived: tuple[Derived, ...]) -> Any:
    """``t`` with each derived column added (one already there is kept as it is)."""
    new = {d.name: _derived(t, d) for d in derived if d.name not in t.columns}
    return t.mutate(**new) if new else t
