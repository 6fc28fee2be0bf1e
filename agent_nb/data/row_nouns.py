"""What the rows of a table are, as the question's nouns name them: the columns that tell
the rows apart ("players" of Player, "athletes" of Lifter Name), and the columns that
count a noun's kind (Gold of "gold medals"). The placement rules and the form checks
read them to know whether a count of rows counts what the question counts."""

from __future__ import annotations

from .table import SAMPLE_ROWS, Column, Table
from .word_classes import forms
from .words import singular

__all__ = ["counting_columns", "names_kind", "names_rows", "row_name_columns"]


def names_rows(col: Column, table: Table) -> bool:
    """A column whose values tell the rows apart (a label, an id, one year per row):
    its name names the rows ("a player" of PLAYER, "years with ..." of YEAR).

    A column of numbers or dates tells them apart only where its values run in the
    table's order (Rank, Pick, Season): one per row in any order is a measure ("the
    most votes", "founded last", "first in altitude"), which names no row."""
    if col.role in ("label", "id"):
        return not col.figures  # "1,282", "89.7%": figures name no row
    unique = col.nunique >= min(len(table.df), SAMPLE_ROWS)
    if not unique or not (col.role == "time" or col.integer):
        return False
    return col.in_order


def row_name_columns(word: str, table: Table) -> list[Column]:
    """The columns that tell the rows apart whose names ``word`` is part of (or names
    a kind of: "athletes" of Lifter Name, a lifter is an athlete)."""
    return [c for c in table.columns.values() if names_rows(c, table) and names_kind(word, c)]


def names_kind(word: str, col: Column) -> bool:
    """Whether ``word`` is a word of ``col``'s name, or names a kind of what it names
    ("athletes" of Lifter Name: WordNet files a lifter under athlete)."""
    from .wordnet import hypernyms

    mine = forms(word)
    kinds = {k for p in col.parts for k in hypernyms(p, 1, senses=1)[:2]}
    return any(mine & forms(p) for p in col.parts) or bool(mine & (kinds | col.words))


def counting_columns(word: str, table: Table) -> list[str]:
    """The columns of whole numbers that count ``word``'s kind: a column's word and the
    noun make one WordNet term (Gold and "medals": "gold medal")."""
    from .wordnet import lemmas

    noun = singular(word)
    return [
        c.name
        for c in table.columns.values()
        if c.integer and any(lemmas(f"{p} {noun}") for p in c.parts)
    ]
