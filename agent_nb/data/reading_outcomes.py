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

from . import vocabulary
from .query import Filter
from .reading_column_filters import negated_at

__all__ = ["WORDS", "outcome_column", "outcome_filters", "recorders"]

#: The question's words for an outcome: "w" a win, "l" a loss, "d" a draw or tie.
WORDS = {
    **dict.fromkeys(vocabulary.listed("outcome_win"), "w"),
    **dict.fromkeys(vocabulary.listed("outcome_loss"), "l"),
    **dict.fromkeys(vocabulary.listed("outcome_draw"), "d"),
}
#: How a result cell begins, by outcome ("d": a draw or tie, which a result column also holds).
_MARKS = {
    "w": vocabulary.words("result_marks_win"),
    "l": vocabulary.words("result_marks_loss"),
    "d": vocabulary.words("result_marks_draw"),
}
#: The marks that are words ("Won", not "W"): a column that writes the outcome out.
_WORDS_OF = {k: marks - {"w", "l", "d", "t"} for k, marks in _MARKS.items()}
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


#: Column names that record one side of an outcome: who won ("Winner", "Wins"), who lost.
_NAMED = {
    "w": vocabulary.words("outcome_recorders_win"),
    "l": vocabulary.words("outcome_recorders_loss"),
    "d": vocabulary.words("outcome_recorders_draw"),  # not "Draw": a contest's order
}


def recorders(table: Any, kind: str, results: tuple[str, dict[str, str]] | None) -> set[str]:
    """The columns that record outcome ``kind`` ("w" a win, "l" a loss, "d" a draw): the
    column of ``results`` (`outcome_column`, as the reading found it), a column named
    for that side ("Winner", "ATP wins", a standing's "W" beside its "L"; the side is
    the name's head, "Seats won" names seats), and a text column that writes it out
    among its values ("Won" beside "Nominated")."""
    out = set()
    if results is not None and kind in results[1]:
        out.add(results[0])
    letters = {c.name.strip().lower(): c.name for c in table.columns.values()}
    if {"w", "l"} <= letters.keys() and kind in letters:
        out.add(letters[kind])
    for col in table.columns.values():
        named = bool(col.parts) and col.parts[-1] in _NAMED[kind]  # not "Winner/Runner-up"
        if named or (not col.numeric and _outcome_values(col, kind)):
            out.add(col.name)
    return out


def _outcome_values(col: Any, kind: str) -> list[Any]:
    """``col``'s values that write outcome ``kind`` out as a word ("Won", "Lost")."""
    return [value for key, value in col.values.items() if str(key).strip() in _WORDS_OF[kind]]


def outcome_filters(r: Any, taken: set[str]) -> list[Filter]:
    """A filter on the column of results for the question's "won" or "lost" (not where
    a negation stands before it, nor where that column already has a filter): its mark
    ("W 24-10"), or its value where a column writes the outcome out ("Won" beside
    "Nominated": "what award did she win?")."""
    said = [(i, t) for i, t in enumerate(r.tokens) if t in WORDS]
    if not said:
        return []
    kinds = {WORDS[t] for _, t in said}
    if len(kinds) != 1 or any(negated_at(r, i) for i, _ in said):
        return []  # "won or lost", "did not win": not one outcome
    (kind,) = kinds
    words = tuple(t for _, t in said)
    if r.outcomes is None:
        found = _written_out(r.table, kind)
        if found is None or found[0] in taken:
            return []
        return [Filter(column=found[0], op="=", value=found[1], words=words)]
    if r.outcomes[0] in taken:
        return []
    if any(r.tokens[i - 1 : i] in (["who"], ["whom"]) or r.tokens[i - 2 : i - 1] == ["which"]
           for i, _ in said):  # fmt: skip
        # "who won the first game?", "which team lost?": the one who won, and the column
        # says whether the table's own side did; that is another question
        return []
    name, written = r.outcomes
    if kind not in written:
        return []
    return [Filter(column=name, op="startswith", value=written[kind], words=words)]


def _written_out(table: Any, kind: str) -> tuple[str, Any] | None:
    """The one category column with a value that is outcome ``kind`` written out as a
    word ("Won"), and that value; None where no column or several do."""
    found = [
        (col.name, value)
        for col in table.columns.values()
        if col.role == "category"
        for value in _outcome_values(col, kind)
    ]
    return found[0] if len(found) == 1 else None
