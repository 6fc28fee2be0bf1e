"""Small readings the planner's plans share: how a measure adds up, per-group and
period words, the n-th largest, the words after "how many"."""

from __future__ import annotations

import re
from typing import Any, Literal

from . import vocabulary
from .query import Agg
from .table import Column, Table, name_words
from .words import (
    ADDITIVE,
    RANKING,
    STOPWORDS,
    phrase,
    singular,
)

__all__ = [
    "agent_by",
    "counted_word",
    "counts_from_the_top",
    "counts_rows",
    "default_agg",
    "how_many_of",
    "how_words",
    "nth",
    "nth_words",
    "per",
    "per_words",
    "period",
    "time_of",
]


def default_agg(column: Column) -> Agg:
    """How a measure adds up when the question does not say: sums for amounts, means for levels."""
    parts = set(column.parts) | {f"{p}s" for p in column.parts}
    return "sum" if parts & ADDITIVE else "mean"


def counts_from_the_top(table: Table, name: str | None) -> bool:
    """Whether column ``name`` is a standing (a rank, a place, a seed): whole numbers from
    1, the table listed in their order. Its top is 1: "the top-ranked", "the best
    position", "the highest seed" ask for its smallest value."""
    col = table.columns.get(name or "")
    if col is None or not col.numeric or len(table.df) < 3:
        return False
    import numpy as np

    values = table.df[col.name].dropna().to_numpy(dtype=float)  # whole, some rows empty
    # the cheap tests first: the planner asks this of each candidate, on 10⁶ rows too
    if len(values) < 3 or values.min() < 1 or not (values % 1 == 0).all():
        return False
    if values.min() > 1:  # "Rank" 5, 6, 20, ...: a standing by its name, part of the list
        return _named_a_standing(col.name) and _mostly_distinct(values)
    rising = float(np.mean(np.diff(values) >= 0))
    return rising >= 0.9 and _mostly_distinct(values)


def _mostly_distinct(values: Any) -> bool:
    """Whether at least half the numbers differ (a standing shares few places)."""
    import pandas as pd

    return len(pd.unique(values)) >= len(values) / 2


#: The names of a standing, whose 1 is the top, wherever the table starts or sorts.
_STANDINGS = vocabulary.words("standing_names")

#: What qualifies a name's head without being part of it: a bracket, a preposition.
_QUALIFIER = re.compile(r"[(\[]|\b(?:in|of|at|on|for|by)\b", re.IGNORECASE)


def _named_a_standing(name: str) -> bool:
    """Whether a standing's word heads ``name`` or a line of it ("World rank", "Position
    (UK)", "Rank in league", "Peak chart positions" over "US"), not a word that only
    modifies another ("Position Angle" is an angle)."""
    for line in name.splitlines():
        words = [w for w in name_words(_QUALIFIER.split(line)[0]) if not w.isdigit()]
        if words and singular(words[-1]) in _STANDINGS:
            return True
    return False


def time_of(table: Table) -> Column | None:
    from .lexicon import time_column

    return time_column(table)


_AGENT = re.compile(r"\b(given|made|written|set|done|taken|seen|known|held|\w+ed)\s+by$")
#: The participles before "by" that ask for a grouping ("grouped by", "sorted by").
_GROUPED = vocabulary.alternation("grouping_participles")
_GROUPING = re.compile(rf"\b({_GROUPED})\s+by$")


def agent_by(text: str, at: int) -> bool:
    """Whether the "by" ending at ``at`` names who did something ("given by the
    college", "scored by its players"), not a grouping."""
    return bool(_AGENT.search(text[:at])) and not _GROUPING.search(text[:at])


def per(text: str, col: Column, table: Table | None = None) -> bool:
    return bool(per_words(text, col, table))


#: The words before a column's name that ask for it as a grouping ("per island").
_PER = vocabulary.alternation("per_group_words")


def per_words(text: str, col: Column, table: Table | None = None) -> tuple[str, ...]:
    """The words that ask for ``col`` as a grouping ("per island", "for each species"; of
    a date column, a period: "per month", "by year", "the monthly total")."""
    heads = [re.escape(phrase(col.name).split()[0])] if phrase(col.name) else []
    if col.role == "time":
        heads += [f"{p}s?" for p in PERIODS]
    if not heads:
        return ()
    pattern = rf"\b({_PER})\s+(\w+\s)?({'|'.join(heads)})\b"
    for m in re.finditer(pattern, text):
        if not (m.group(1) == "by" and agent_by(text, m.end(1))):
            return tuple(m.group(1).split())
    if col.role == "time":
        adjective = _period_adjective(text, table)
        if adjective is not None:
            return (adjective[0],)
    return ()


Period = Literal["year", "month", "day"]
PERIODS: tuple[Period, ...] = ("year", "month", "day")
_PERIOD_CUE = vocabulary.alternation("period_cues")


def period(text: str, table: Table | None = None) -> Period | None:
    """The period a question groups dates by: "which month", "per year", "over the
    months", "which date" (a day), or an adjective built on one ("monthly", "yearly",
    "daily")."""
    for word in PERIODS:
        if re.search(rf"\b({_PERIOD_CUE})\s+{word}", text):
            return word
    if re.search(rf"\b({_PERIOD_CUE})\s+date\b", text):
        return "day"  # "the game on which date had the most attendance": not its month
    adjective = _period_adjective(text, table)
    return adjective[1] if adjective is not None else None


def _period_adjective(text: str, table: Table | None) -> tuple[str, Period] | None:
    """The first word of ``text`` built on a period noun ("monthly": month) and that
    period; not a word of one of ``table``'s column names ("monthly" of MonthlyIncome
    names the column, not a grouping)."""
    named = {w for c in table.columns.values() for w in c.parts} if table else set()
    for token in re.findall(r"[a-z]+ly\b", text):
        built_on = period_of(token)
        if token not in named and built_on is not None:
            return token, built_on
    return None


def period_of(word: str) -> Period | None:
    """The period ``word`` names or is built on, by WordNet: "month", "months" and
    "monthly" (a derivation) name a month."""
    from .wordnet import bases

    for p in PERIODS:
        if word in (p, f"{p}s"):
            return p
    for base in bases(word):
        for p in PERIODS:
            if base.word == p and base.via in ("derivation", "inflection"):
                return p
    return None


#: The n-th largest: an ordinal, then a superlative ("the second highest").
_ORDINALS = vocabulary.alternation("nth_ordinals")
_NTH_SUPERLATIVES = vocabulary.alternation_of(RANKING)
_NTH = re.compile(rf"\b({_ORDINALS})[\s-]+({_NTH_SUPERLATIVES})\b")
_NTH_NUMBER: dict[str, int] = vocabulary.mapping("nth_ordinal_numbers")


def nth_words(text: str) -> tuple[str, ...]:
    m = _NTH.search(text)
    return tuple(phrase(m.group(0)).split()) if m else ()


def nth(text: str) -> int | None:
    m = _NTH.search(text)
    if not m:
        return None
    return _NTH_NUMBER[m.group(1)]


#: The count's own phrases, before what is counted ("how many votes", "the number of riders").
_HOW_MANY = vocabulary.alternation("how_many_number_of")
_HOW_MANY_OR_COUNT = vocabulary.alternation("count_phrases")


def counted_word(text: str) -> str | None:
    """The word right after "how many" or "number of" (past "total": "how many total
    votes" counts votes): what the question counts."""
    hit = re.search(rf"\b(?:{_HOW_MANY})\s+(?:total\s+|overall\s+)?(\w+)", text)
    return hit.group(1) if hit else None


def how_many_of(text: str, m: Column) -> bool:
    """ "How many passengers", "the number of starters": the words after "how many" (or
    "number of") name the measure itself, a column of counts to add up."""
    word = counted_word(text)
    # singulars: "penalties" of Penalty (a part is singular), "passengers" of passengers
    return word is not None and any(singular(word) == singular(p) for p in m.parts)


def counts_rows(text: str, t: Table) -> bool:
    """ "How many transactions", "the number of transactions": the word counted names
    the rows themselves (a column of ids or names, one per row: transaction_id), not
    a column of counts (transaction_qty) to add up."""
    word = counted_word(text)
    return word is not None and any(
        c.role in ("id", "label") and c.nunique == len(t.df) and singular(word) in c.parts
        for c in t.columns.values()
    )


def how_words(text: str) -> tuple[str, ...]:
    """The word that names what "how many" counts: the last noun of the words after it, up
    to a closed-class word ("how many Japanese cars get ...": cars; "the number of riders
    listed": riders). The words before it qualify the rows ("Japanese") and are not
    placed by counting them."""
    from .word_classes import is_noun

    hit = re.search(rf"\b(?:{_HOW_MANY_OR_COUNT})\s+((?:\w+\s*)+)", text)
    if not hit:
        return ()
    run: list[str] = []
    for word in hit.group(1).split():
        if word in STOPWORDS:
            break
        run.append(word)
    nouns = [w for w in run if is_noun(w)]
    return tuple((nouns or run)[-1:])
