"""A comparison with a named row: "how many countries received more bronze medals than
Sweden?" compares each row's Bronze with Sweden's own.

The number is read off the table, never guessed: the one row the name picks gives it,
and the filter on that name becomes a bound on the measure (Bronze > 4), which the
reading's note says. Where the name picks no row or several, or the words name no
column of numbers between the comparative and "than", nothing changes.
"""

from __future__ import annotations

import re
from typing import Any

from . import vocabulary
from .planner_cues import counts_from_the_top
from .query import Filter, FilterOp
from .result import PlanError, number
from .rows import rows_where
from .word_classes import DETERMINERS
from .words import COMPARATORS

__all__ = ["name_after", "own_row", "than_a_named_row"]

#: The comparatives before "than" (`words.COMPARATORS`), each with its test; but those
#: whose direction depends on the measure: "better" and "worse", "older" and "younger"
#: (an age grows, a year of birth falls).
_ORDERS: dict[str, FilterOp] = {">": ">", "<": "<"}
_TESTS = {
    p.split()[0]: _ORDERS[op]
    for p, op in COMPARATORS
    if p.endswith(" than") and len(p.split()) == 2 and op in _ORDERS
    if p.split()[0] not in vocabulary.words("comparatives_by_measure")
}
_HOW = vocabulary.alternation("how_many_much")
_HOW_MUCH_MORE = re.compile(rf"\bhow ({_HOW}) (\w+ )?({'|'.join(_TESTS)})\b")
#: How far before "than" the comparative may stand ("more bronze medals than").
_REACH = 5


def than_a_named_row(r: Any) -> None:
    """Turn the name after "than" into a bound on the measure it is compared by, in place
    (see the module docstring)."""
    t = r.tokens
    if t.count("than") != 1:
        return
    than = t.index("than")
    if _HOW_MUCH_MORE.search(r.text):
        return  # "how many more medals than B": a difference, not a bound
    value = name_after(r, than)
    if value is None:
        return
    if any(v.column.name == value.column.name and v.start < than for v in r.values):
        return  # "did A have more X than B?": two named rows compared
    comp = next((k for k in range(than - 1, max(-1, than - _REACH - 1), -1) if t[k] in _TESTS), -1)
    if comp < 0:
        return
    measure = _measure_between(r, comp, than)
    if measure is None or counts_from_the_top(r.table, measure):
        return
    rows = own_row(r, value)
    bound = number(rows[measure].iloc[0]) if rows is not None else None
    if bound is None:
        return
    r.filters = [
        f for f in r.filters if not (f.column == value.column.name and f.value == value.value)
    ]
    words = (t[comp], *t[comp + 1 : than], "than", *value.words)
    bound = int(bound) if float(bound).is_integer() else bound
    r.filters.append(Filter(column=measure, op=_TESTS[t[comp]], value=bound, words=words))
    r.spent.add(t[comp])
    r.notes.append(f"{measure} {_TESTS[t[comp]]} {bound:g}: {bound:g} is {value.value}'s own")


def name_after(r: Any, at: int) -> Any:
    """The one text value the question names right after word ``at`` (and its
    determiners: "than the Netherlands", "as Hungary"), or None."""
    t = r.tokens
    after = at + 1
    while after < len(t) and t[after] in DETERMINERS:
        after += 1
    named = [v for v in r.values if v.start == after and not v.column.numeric]
    return named[0] if len(named) == 1 else None


def own_row(r: Any, value: Any) -> Any:
    """The one row of the table that named ``value`` picks, as a frame; None where it
    picks none or several."""
    own = Filter(column=value.column.name, op="=", value=value.value)
    try:
        rows = rows_where(r.table.df, (own,))
    except PlanError:
        return None
    return rows if len(rows) == 1 else None


def _measure_between(r: Any, comp: int, than: int) -> str | None:
    """The column of numbers named by the words between the comparative and "than"."""
    span = set(r.tokens[comp + 1 : than])
    for name, (_, words) in r.named.items():
        col = r.table.columns[name]
        if col.numeric and words & span:
            return str(name)
    return None
