"""The other rows that share a named row's value: "which nation won the same number of
gold medals as Hungary?" keeps the rows whose Gold is Hungary's own, Hungary left out.

The value is read off the table, never guessed: the one row the name picks gives it
(as `reading_than_row` reads a bound), and the filter on that name becomes two: the
compared column equal to that row's value, and the name's column other than the name.
The reading's note says so. Where the name picks no row or several, or no column is
named between "same" and "as", nothing changes (and `answer_form` says the question
asks for the other rows).
"""

from __future__ import annotations

from typing import Any

from .query import Filter
from .reading_than_row import name_after, own_row
from .result import number

__all__ = ["same_as_a_named_row"]


def same_as_a_named_row(r: Any) -> None:
    """Turn "the same C as X" into C = X's own C and not X, in place (module docstring)."""
    t = r.tokens
    if t.count("same") != 1:
        return
    same = t.index("same")
    if "as" not in t[same + 1 :]:
        return
    as_at = t.index("as", same + 1)
    value = name_after(r, as_at)
    if value is None:
        return
    if sum(v.column.name == value.column.name for v in r.values) > 1:
        return  # "the same floors as A and B": whose value is shared is not one row's
    span = set(t[same + 1 : as_at])
    compared = [
        name for name, (_, words) in r.named.items() if name != value.column.name and words & span
    ]
    if len(compared) != 1:
        return  # none named, or several: which one is shared is not read
    column = compared[0]
    rows = own_row(r, value)
    if rows is None or rows[column].isna().iloc[0]:
        return
    cell = rows[column].iloc[0]
    shared = number(cell) if r.table.columns[column].numeric else cell
    if hasattr(cell, "year") and hasattr(cell, "month"):  # a date: its year, if asked
        # ("the same year listed for their date as Kodo Fuyuki": a date column's "="
        # compares the year); the same day is not read
        shared = int(cell.year) if "year" in span else None
    if shared is None:
        return
    if isinstance(shared, float) and shared.is_integer():
        shared = int(shared)
    r.filters = [
        f for f in r.filters if not (f.column == value.column.name and f.value == value.value)
    ]
    words = ("same", *t[same + 1 : as_at], "as")
    r.filters.append(Filter(column=column, op="=", value=shared, words=words))
    r.filters.append(
        Filter(column=value.column.name, op="!=", value=value.value, words=value.words)
    )
    r.notes.append(f"{column} = {shared}: {value.value}'s own, {value.value} left out")
    r.same_as = value.column.name
