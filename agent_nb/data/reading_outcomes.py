"""Won and lost, read off a column of results: "how many home games were won" keeps the
rows whose result is a win.

A season's table often records each game's result as a mark, alone or before
the score: "W", "L 10–24", "Win", "Lost". The question says *won* or *lost*,
never the mark, so no value of the table matches its word, and the word was
left out: the count was of every home game. `outcome_filters` finds such a
column by its cells (most of them begin with a mark of a win, a loss or a
draw, and both a win and a loss are among them) and puts the question's word
on it as a filter on the mark that column uses ("W" or "Win", as written).
"""

from __future__ import annotations

import re
from typing import Any

from .query import Filter
from .reading_column_filters import negated_at

__all__ = ["WORDS", "outcome_column", "outcome_filters"]

#: The question's words for an outcome: "w" a win, "l" a loss, "d" a draw or tie.
WORDS = {
    **dict.fromkeys(("win", "wins", "won", "winning", "victory", "victories", "beat"), "w"),
    **dict.fromkeys(("lose", "loses", "lost", "loss", "losses", "losing"), "l"),
    **dict.fromkeys(("tie", "ties", "tied", "draw", "draws", "drew", "drawn"), "d"),
}
#: How a result cell begins, by outcome ("d": a draw or tie, which a result column also holds).
_MARKS = {
    "w": frozenset({"w", "win", "won", "victory"}),
    "l": frozenset({"l", "loss", "lost", "defeat"}),
    "d": frozenset({"d", "draw", "drawn", "t", "tie", "tied"}),
}
_FIRST = re.compile(r"^\s*([A-Za-z]+)\b")
_SHARE = 0.8  # of a column's filled cells that begin with a mark (the rest: "Postponed"...)
_LEAST = 4  # filled cells, at least: two results make no column of them


def _outcome(cell: Any) -> tuple[str, str] | None:
    """(outcome, the mark as written, lower case) of a result cell, or None."""
    hit = _FIRST.match(str(cell))
    if hit is None:
        return None
    mark = hit.group(1).lower()
    return next(((k, mark) for k, marks in _MARKS.items() if mark in marks), None)


def outcome_column(table: Any) -> tuple[str, dict[str, str]] | None:
    """The column of results (its name, and the mark it writes for each outcome), or
    None where no column is one: a text column whose filled cells mostly begin with
    a mark, a win and a loss among them."""
    for col in table.columns.values():
        if col.numeric:
            continue
        cells = table.df[col.name].dropna().head(500)
        if len(cells) < _LEAST:
            continue
        read = [_outcome(c) for c in cells]
        marked = [o for o in read if o is not None]
        if len(marked) < _SHARE * len(cells):
            continue
        written: dict[str, str] = {}
        for kind, mark in marked:  # the first mark of each outcome, as this column writes it
            written.setdefault(kind, mark)
        if {"w", "l"} <= written.keys():
            return col.name, written
    return None


def outcome_filters(r: Any, taken: set[str]) -> list[Filter]:
    """A filter on the column of results for the question's "won" or "lost" (not where
    a negation stands before it, nor where that column already has a filter)."""
    said = [(i, t) for i, t in enumerate(r.tokens) if t in WORDS]
    if not said or r.outcomes is None or r.outcomes[0] in taken:
        return []
    if any(r.tokens[i - 1 : i] in (["who"], ["whom"]) or r.tokens[i - 2 : i - 1] == ["which"]
           for i, _ in said):  # fmt: skip
        # "who won the first game?", "which team lost?": the one who won, and the column
        # says whether the table's own side did; that is another question
        return []
    kinds = {WORDS[t] for _, t in said}
    if len(kinds) != 1 or any(negated_at(r, i) for i, _ in said):
        return []  # "won or lost", "did not win": not one outcome
    name, written = r.outcomes
    (kind,) = kinds
    if kind not in written:
        return []
    words = tuple(t for _, t in said)
    return [Filter(column=name, op="startswith", value=written[kind], words=words)]
