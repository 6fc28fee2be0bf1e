"""Plans that read single rows or a column's distinct values: a column's value in the
first or last row ("the location of the first purchase row-wise"), the label of the
row a "who" question matches ("Who is the author of 'value with a view'?"), and
"how many <stores>" as the distinct values of the column the noun names.

Each function takes the planner at work (``p``) and adds candidates to it;
`planner_value.value` calls them.
"""

from __future__ import annotations

import re
from typing import Any

from .query import Filter, Plan
from .words import question_words

__all__ = ["distinct_count", "row_lookups"]


def row_lookups(p: Any, filters: tuple[Filter, ...], agg: str | None) -> None:
    """A column's value in the first or last row; the label of the row "who" matches."""
    r = p.r
    fcols = p.filter_cols()
    first_row = re.search(r"\b(first|last)\b", r.text) and re.search(
        r"\brow[- ]?wise\b|\b(first|last) (row|entry|record|line)\b", r.text
    )
    if first_row and r.named and r.expect != "list":  # "the location of the first row"
        shown = p.best(("label", "category", "measure", "id", "time"))
        if shown:
            last = bool(re.search(r"\blast\b", r.text))
            p.add(
                Plan(
                    op="lookup",
                    group_by=shown[0].name,
                    order="asc" if last else "desc",
                    filters=filters,
                    words=(
                        *p.words(shown[0]),
                        ("rows", ("last" if last else "first", "row", "wise")),
                    ),
                ),
                f"{shown[0].name} in the {'last' if last else 'first'} row",
            )
    who = re.match(r"^\W*who\b", r.text)
    # "who is the author of 'value with a view'?"
    if who and filters and agg is None and not (r.high or r.low):
        label = p.label(exclude=list(fcols))
        if label is not None:
            p.add(
                Plan(op="lookup", group_by=label.name, filters=filters, words=p.words(label)),
                f"{label.name} in the matching row",
            )


def distinct_count(p: Any) -> None:
    """ "How many active stores": the distinct values of the column the noun names."""
    r = p.r
    fcols = p.filter_cols()
    counted = re.search(r"\bhow many (?:\w+ )?(\w+)", r.text)
    kinds = [  # "how many active stores": the distinct values of store_id, not rows
        c
        for c in p.best(("category", "id"), exclude=list(fcols))
        if c.nunique > 1
        and counted is not None
        and {*question_words(counted.group(0))} & r.named[c.name][1] - {"how", "many"}
        and r.named[c.name][1] - (c.words - set(c.parts))
    ]
    if kinds:
        p.add(
            Plan(op="aggregate", measure=kinds[0].name, agg="nunique", words=p.words(kinds[0])),
            f"how many distinct {kinds[0].name}",
        )
