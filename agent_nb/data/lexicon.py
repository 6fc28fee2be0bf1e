"""The words of a question, matched against a table: cues, column names, values.

The planner (`plan`) reads a question through these: the cue words of each
operation (``highest``, ``trend``, ``correlated``, ``missing``...), the
columns the question names (`match_columns`: a column's own name parts score
1 each, its synonyms 0.8, the whole name 3 more; a lone letter of a longer
name names nothing), and the category or index values it names
(`match_values`: "gentoo", "new york", longest first). All plain word
matching: the question is never parsed as code.
"""

from __future__ import annotations

import re
from typing import Any

from .table import Column, Table

__all__ = [
    "ADDITIVE",
    "AGG_WORDS",
    "CORR",
    "HIGH",
    "HOW_MANY",
    "LOW",
    "MISSING",
    "MODE",
    "NUMBERS",
    "SHAPE",
    "STOPWORDS",
    "TOPK",
    "TREND",
    "WHO",
    "cues",
    "match_columns",
    "match_values",
    "phrase",
    "time_column",
]  # fmt: skip


def cues(text: str) -> frozenset[str]:
    return frozenset(text.split())


HIGH = cues(
    "highest most best top largest biggest greatest max maximum leading peak higher larger "
    "heaviest longest hottest warmest wettest deepest tallest oldest fastest richest "
    "expensive strongest windiest rainiest popul populous"
)
LOW = cues(
    "lowest least worst bottom smallest fewest min minimum weakest lower smaller lightest "
    "shortest coldest cheapest youngest slowest poorest driest"
)
TREND = cues(
    "trend change changed grow grew growth rise rose fall fell drop dropped increase increased "
    "decrease decreased evolve evolved develop developed go went over_time"
)
CORR = cues("correlation correlated correlate relationship related relate associated association")
MISSING = cues("missing null nan na blank gap")
SHAPE = cues("row column shape size record entry observation big")
AGG_WORDS = {
    "sum": cues("total sum overall combined altogether"),
    "mean": cues("average mean avg typical typically"),
    "median": cues("median middle"),
    "share": cues("share percent percentage proportion fraction"),
    "nunique": cues("distinct unique different"),
}
MODE = re.compile(r"\b(most (common|frequent|often|popular|usual)|commonest|mode)\b")
HOW_MANY = re.compile(r"\b(how many|number of|count)\b")
WHO = re.compile(r"\b(who|which|what|when)\b")
TOPK = re.compile(
    r"\b(?:top|bottom|first|last|largest|smallest|highest|lowest|best|worst)\s+(\d+|three|four|"
    r"five|ten|two)\b|\b(\d+|three|four|five|ten|two)\s+(?:largest|smallest|highest|lowest|best|"
    r"worst|biggest|most|least)\b"
)
NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "ten": 10}
ADDITIVE = cues(
    "sales revenue count amount total units quantity number population deaths births profit "
    "sold visitors precipitation rain jobs employment volume passengers murders crimes generation"
)


def phrase(text: str) -> str:
    return re.sub(r"[_\W]+", " ", text.lower()).strip()


def match_columns(table: Table, words: list[str], text: str) -> dict[str, tuple[float, set[str]]]:
    """Each named column's score and the question words its name used up."""
    asked = set(words)
    found: dict[str, tuple[float, set[str]]] = {}
    spaced = f" {phrase(text)} "
    for col in table.columns.values():
        if col.role == "empty":
            continue
        own = {p for p in col.parts if p in asked}
        synonyms = (col.words - set(col.parts)) & asked
        whole = f" {phrase(col.name)} " in spaced
        if not own and not synonyms:
            continue
        if not whole and not synonyms and all(len(p) < 2 for p in own):
            continue  # one letter of a longer name ("g" of body_mass_g) names nothing
        score = len(own) + 0.8 * len(synonyms) + (3 if whole else 0)
        if own and own >= set(col.parts):
            score += 1
        found[col.name] = (score, own | synonyms)
    return found


def match_values(table: Table, text: str, named: set[str]) -> list[tuple[Column, Any]]:
    """(column, value) for each category or index value the question names."""
    tokens = phrase(text).split()
    grams = {" ".join(tokens[i : i + n]) for n in (1, 2, 3, 4) for i in range(len(tokens))}
    hits = []
    for col in table.columns.values():
        if col.role not in ("category", "label") or not col.values:
            continue
        for gram in grams:
            value = col.values.get(gram)
            if value is None or gram in HIGH | LOW | STOPWORDS or len(gram) < 2:
                continue
            if gram.isdigit() and col.name not in named:
                continue
            hits.append((col, value))
    # the longest value wins where one is inside another ("new york" over "york")
    hits.sort(key=lambda h: -len(str(h[1])))
    kept: list[tuple[Column, Any]] = []
    for col, value in hits:
        if not any(str(value).lower() in str(v).lower() and c.name == col.name for c, v in kept):
            kept.append((col, value))
    return kept


STOPWORDS = cues("a an the of in on for to is are was were and or by with what which who how")


def time_column(table: Table) -> Column | None:
    times = table.of("time")
    if not times:
        return None
    import pandas as pd

    dated = [c for c in times if pd.api.types.is_datetime64_any_dtype(table.df[c.name])]
    return (dated or times)[0]
