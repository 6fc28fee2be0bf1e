"""Filters a question's words put on one column by its kind: a yes/no column ("without
research experience"), missing values ("no labels", "a non-empty name"), text ("starting
with ford", a date in full), an ordinal period ("the sixth month"), a month's name over
a column of dates ("in February"), and the negation words before a value.
`reading_filters.filters_of` adds them to a reading's filters (`reading.read` the
months).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any, cast

from . import vocabulary
from .lexicon import time_column
from .query import Derived, Filter
from .word_classes import a_kind_of_character
from .words import EXCEPT, phrase, singular

__all__ = [
    "DATE",
    "binary_filters",
    "column_holding",
    "missing_filters",
    "month_tests",
    "negated_at",
    "ordinal_periods",
    "text_filters",
    "year_columns",
    "yes_or_no",
]


def negated_at(r: Any, start: int) -> tuple[str, ...]:
    """The negation (or "except") just before the words at ``start``: a negation word
    that begins them is the value's own ("never took office", "non-album singles")."""
    for i, word in r.negated:
        if 0 < start - i <= 4:
            return (word,)
    before = " ".join(r.tokens[max(0, start - 3) : start])
    for words in EXCEPT:
        if before.endswith(words) or f"{words} " in f"{before} ":
            return tuple(words.split())
    return ()


DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")
_STARTS = vocabulary.alternation("text_starts_with")
_CONTAINS = vocabulary.alternation("text_contains")
_TEXT_OP = re.compile(
    # "start with an s", "with the letter s": the article is no part of the text ("start
    # with a" alone is the letter a)
    rf"\b(?:{_STARTS}) with\s+"
    r"(?:(?:an?|the)\s+(?:letter\s+|word\s+)?(?=['\"]?[\w-]))?['\"]?([\w-]+)|"
    rf"\b(?:{_CONTAINS}) (?:the word\s+)?['\"]?([\w-]+)"
)


_TEXT_FILTER_LEADS = vocabulary.words("text_filter_leads")


def text_filters(r: Any, taken: set[str]) -> list[Filter]:
    """Dates named in full, "starting with ford", "containing chevy"."""
    out = []
    time = time_column(r.table)
    for m in DATE.finditer(r.question):
        if time is not None:
            out.append(
                Filter(
                    column=time.name, op="=", value=m.group(1), words=tuple(m.group(1).split("-"))
                )
            )
    for m in _TEXT_OP.finditer(r.text):
        word = m.group(1) or m.group(2)
        if not re.search("['\"]", m.group(0)) and a_kind_of_character(word):
            continue  # "begins with a vowel": a kind of letter, not the text; left unplaced
        at = len(phrase(r.text[: m.start()]).split())
        before = set(r.tokens[max(0, at - 3) : at])
        named_before = any(before & set(ws) for _, ws in r.named.values())
        if m.group(2) and not named_before and not before & _TEXT_FILTER_LEADS:
            continue  # "does the dataset contain squatting lifts": existence, not text
        col = r.near(at, ("label", "category"))
        if col is None or col.numeric:
            labels = [c for c in r.table.of("label") if not c.numeric]
            col = labels[0] if labels else None
        if col is not None:
            op = "startswith" if m.group(1) else "contains"
            out.append(
                Filter(
                    column=col.name,
                    op=cast(Any, op),
                    value=word,
                    words=tuple(phrase(m.group(0)).split()),
                )
            )
    return out


_NO_VALUE_LEADS = vocabulary.alternation("missing_value_leads")
_HAVING = vocabulary.alternation("having_before_a_value")
_NO_VALUE = re.compile(rf"\b({_NO_VALUE_LEADS})\b")
_HAS_VALUE = re.compile(rf"\b({_HAVING})\s+(a|an)?\s*$")
#: The words of missing values after "is" ("price is missing"), after "non" or "not"
#: right before a column's name, and after them anywhere before its words.
_MISSING = vocabulary.alternation("missing_value_names")
_NON = vocabulary.alternation("non_not")
_MISSING_BEFORE_NAME = vocabulary.alternation("missing_after_non_before_name")


def missing_filters(r: Any, taken: set[str]) -> list[Filter]:
    """ "no horsepower value", "without a Horsepower value": missing; "have a horsepower
    value", "Horsepower recorded", "is not missing": present."""
    out = []
    for name, at in r.where.items():
        if name in taken:
            continue
        words = r.named[name][1]
        end = (
            max(i for i, t in enumerate(r.tokens) if t in words or singular(t) in words)
            if any(t in words or singular(t) in words for t in r.tokens)
            else at
        )
        before = " ".join(r.tokens[max(0, at - 3) : at])
        after = " ".join(r.tokens[end + 1 : end + 4])
        valued = after.startswith(vocabulary.listed("value_said_after_column"))
        has_gaps = bool(r.table.df[name].isna().any())
        if re.search(rf"^(is|are)\s+(not\s+)?({_MISSING})", after):
            op = "present" if " not " in f" {after} " else "missing"
        elif re.search(rf"\b({_NON})\s+({_MISSING})$", before) or re.search(
            rf"\b({_NON}) ({_MISSING_BEFORE_NAME}) ({'|'.join(map(re.escape, words))})\b",
            " ".join(r.tokens),
        ):
            op = "present"  # "a non-empty product name", "(non-null) room rating"
        elif has_gaps and re.search(r"\b(no|without)$", before) and _named_plural(r, at):
            op = "missing"  # "products with no labels": the column's gaps
        elif _NO_VALUE.search(before) and (valued or "missing" in before):
            op = "missing"
        elif (
            valued and (_HAS_VALUE.search(before + " ") or after.startswith("recorded"))
        ) or after.startswith(vocabulary.listed("value_present_after_column")):
            op = "present"
        else:
            continue
        out.append(
            Filter(
                column=name,
                op=cast(Any, op),
                words=tuple(words) + tuple(before.split()[-2:]) + tuple(after.split()[:2]),
            )
        )
    return out


def _named_plural(r: Any, at: int) -> bool:
    """The column is named by a plural right there ("no labels"), not as a value's kind
    ("no research experience": a yes/no column, read by `binary_filters`)."""
    token = r.tokens[at] if at < len(r.tokens) else ""
    return token.endswith("s") and singular(token) != token


#: "the sixth month": an ordinal word and the number it says.
_ORDINALS = {w: i + 1 for i, w in enumerate(vocabulary.listed("period_ordinals"))}


def ordinal_periods(r: Any, taken: set[str]) -> list[Filter]:
    """ "the sixth month of the year" over a numeric Month column: ``Month = 6``; "the
    10th week", "the 9th position" over a column of whole numbers the noun names and
    that holds the number: ``Week = 10``."""
    out = []
    for i, token in enumerate(r.tokens[:-1]):
        written = re.fullmatch(r"(\d+)(?:st|nd|rd|th)", token)
        n = _ORDINALS.get(token) or (int(written.group(1)) if written else None)
        if n is None:
            continue
        if any(token in c.parts for c in r.table.columns.values()):
            continue  # "the most fourth place finishes": the column Fourth place
        noun = r.tokens[i + 1]
        period = singular(noun)
        col = next(
            (
                c for c in r.table.columns.values()
                if c.name not in taken and c.numeric and c.parts == (period,)
                and period in _PERIODS
            ),
            None,
        ) or column_holding(r, noun, n, taken)  # fmt: skip
        if col is not None:
            out.append(Filter(column=col.name, op="=", value=n, words=(token, noun)))
    return out


def column_holding(r: Any, noun: str, n: float, taken: Collection[str] = ()) -> Any:
    """The one numeric column that ``noun`` names ("rank", "week", "position" of Pos.)
    and that holds the number ``n``: beside its noun, the number picks its rows ("rank
    3", "the 10th week"); None where no column, or several, do."""
    said = {noun, singular(noun)}
    held = [
        c for c in r.table.columns.values()
        if c.name not in taken and c.numeric
        and (said & r.named.get(c.name, (0, set()))[1] or singular(noun) in c.parts)
        and (r.table.df[c.name] == n).any()
    ]  # fmt: skip
    return held[0] if len(held) == 1 else None


_PERIODS = vocabulary.words("period_nouns")


def binary_filters(r: Any, taken: set[str]) -> list[Filter]:
    """A named yes/no column after "with", "without", "have", "any"...: ``= 1`` (or 0,
    negated): "applicants without research experience" is ``Research = 0``."""
    out = []
    for name, at in r.where.items():
        col = r.table.columns[name]
        if name in taken or col.nunique != 2 or (not col.numeric and col.role != "category"):
            continue
        s = r.table.df[name].dropna()
        if not yes_or_no(s):
            continue
        before = r.tokens[max(0, at - 4) : at]
        # "how many students passed?", "players who retired": the yes/no column's verb
        said = r.tokens[at] if at < len(r.tokens) else ""
        if said.endswith("ed") and said in r.named[name][1] and at >= 1:
            before = [*before, "have"]
        if not set(before) & vocabulary.words("yes_no_column_leads"):
            continue
        neg = negated_at(r, at)
        yes: Any = True if s.dtype == bool else 1  # as the column holds it
        words = tuple(sorted(r.named[name][1])) + neg
        out.append(
            Filter(
                column=name,
                op="=",
                value=(not yes if yes is True else 0) if neg else yes,
                words=words,
            )
        )
    return out + opposite_filters(r, taken | {f.column for f in out})


def yes_or_no(values: Any) -> bool:
    """Whether a column's values (missing ones dropped) are True and False, or 1 and 0."""
    return set(values.dropna().unique().tolist()) == {0, 1}  # (True == 1, False == 0)


def opposite_filters(r: Any, taken: set[str]) -> list[Filter]:
    """ "Did anyone fail?" over a yes/no column named passed: a verb WordNet gives as the
    opposite of the column's name picks the rows where it is False (or 0)."""
    from .wordnet import antonyms, lemmas

    opposites = {  # each word's opposites, once: the columns are many, the words few
        at: {a for w in {token, *lemmas(token)} for a in antonyms(w)}
        for at, token in enumerate(r.tokens)
    }
    out = []
    for name, col in r.table.columns.items():
        if name in taken or name in r.named or col.nunique != 2 or len(col.parts) != 1:
            continue
        own = {col.parts[0], *lemmas(col.parts[0])}
        at = next((i for i, o in opposites.items() if own & o), None)
        if at is None:
            continue
        s = r.table.df[name].dropna()
        # True and False, or 0 and 1 under a participle ("survived"): a count that holds
        # only 0 and 1 ("Lost" of a short season) says no yes or no
        if not yes_or_no(s) or not (s.dtype == bool or col.parts[0].endswith("ed")):
            continue
        no: Any = False if s.dtype == bool else 0
        neg = negated_at(r, at)
        value = (True if no is False else 1) if neg else no
        out.append(Filter(column=name, op="=", value=value, words=(r.tokens[at], *neg)))
    return out


def month_tests(table: Any, question: str) -> list[tuple[Derived, Filter]]:
    """ "How many sales were in February?" over a column of dates: the month of each
    date (`query.Derived`, op ``month``) equal to February's number. Only where one
    column holds dates (two would leave which one open), and no column holds the
    month's name as a value (that value names it). "May" counts only capitalised:
    the lower-case word is the verb."""
    import calendar

    import pandas as pd

    dated = [n for n, c in table.columns.items() if c.role == "time"]
    dated = [n for n in dated if pd.api.types.is_datetime64_any_dtype(table.df[n])]
    if len(dated) != 1:
        return []
    names = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
    names.update({m.lower(): i for i, m in enumerate(calendar.month_abbr) if m})
    out = []
    for token in dict.fromkeys(phrase(question).split()):
        number = names.get(token)
        if number is None or (token == "may" and not re.search(r"\bMay\b", question)):
            continue
        if any(token in c.values for c in table.columns.values()):
            continue  # a Month column of names: the value filter reads it
        month = Derived(op="month", column=dated[0])
        out.append((month, Filter(column=month.name, op="=", value=number, words=(token,))))
    return out


#: A year a question states, and a year a cell writes (alone, or in a date or a note).
_STATED_YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")
_WRITTEN_YEAR = r"\b(?:1[5-9]\d\d|20\d\d)\b"
#: How many of a column's cells are read to know it writes years.
_YEAR_SAMPLE = 200


def year_columns(table: Any, question: str) -> list[Derived]:
    """ "How many dioceses were established before 1978?" over Established ("8 November
    1986"): the year each cell writes (`query.Derived`, op ``year``), for each text
    column whose cells are years with a few words at most (a date; "2011 (now closed)"),
    four in five of them at least, none a range of years. Only where the question states
    a year; numbers that are years, and dates, are filtered as they are."""
    import pandas as pd

    if not _STATED_YEAR.search(question):
        return []
    out = []
    for name, col in table.columns.items():
        series = table.df[name]
        if col.numeric or col.role == "empty" or pd.api.types.is_datetime64_any_dtype(series):
            continue
        cells = series.dropna().head(_YEAR_SAMPLE).astype(str)
        if len(cells) < 3 or cells.nunique() < 2:
            continue
        years = cells.str.count(_WRITTEN_YEAR)
        rest = cells[years > 0].str.replace(_WRITTEN_YEAR, " ", regex=True).str.split().str.len()
        # not notes that cite a year, nor ranges ("1946–1948": which year is not said)
        if (years > 0).mean() >= 0.8 and bool((rest <= 3).all()) and not (years > 1).any():
            out.append(Derived(op="year", column=name))
    return out
