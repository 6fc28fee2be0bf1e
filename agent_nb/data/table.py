"""A table as the planner sees it: checked, cleaned names, each column's role and words.

`profile` turns a DataFrame into a `Table`: one-line errors for what cannot
be answered (no rows, no columns, nothing but missing values), notes for what
was repaired (MultiIndex columns flattened, duplicate or non-string names
renamed, infinite values left out), a meaningful index made a column (its
dates, years or labels are a dimension like any other), numbers held as text
("1,234", "17 years", "3rd", "$2.5M") read as numbers with the cells as
written kept for display (`cells.numbers_as_written`, `Table.written`), and
for each column:

* its **role**, decided by type before any word is read: a date, or an
  integer column named like year/month/day, is ``time`` (never summed); a few
  distinct small integers (``cylinders``, ``k = arange % 7``) or a
  low-cardinality text column is a ``category``; a text column of many values
  is a ``label`` (names: ranked top-k plus "other", or the row that holds a
  maximum); an integer named like id/code is an ``id``; other numbers are
  ``measure`` s; a column with no values is ``empty``;
* its **words**: the parts of its name (``Weight_in_lbs``: weight, lbs;
  ``bodyMassG``: body, mass, g), their singulars, and the synonyms of a small
  table (weight ~ mass, price ~ cost, sales ~ revenue, ...);
* for categories and labels, its **values** by their lower-case text
  ("gentoo" -> "Gentoo"), and without footnotes ("italy" -> "Italy [3]"), so
  a question naming a value names its column.

Role detection reads a sample of at most `SAMPLE_ROWS` rows, so a 10⁶-row
table profiles in a fraction of a second.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import warnings
from collections.abc import Mapping
from typing import Any, Literal

from .cells import holds_years
from .wordnet import antonyms, measured_by
from .wordnet import forms as wordnet_forms
from .words import NAME_STOP, singular, synonyms_of

__all__ = [
    "SAMPLE_ROWS",
    "TIME_WORDS",
    "Column",
    "Table",
    "column_role",
    "holds_years",
    "name_words",
    "of_years",
    "profile",
    "years_written",
]  # fmt: skip

Role = Literal["time", "category", "label", "measure", "id", "empty"]
#: What "first" and "last" of a column are where they are not the table's rows: the
#: earliest and latest of an event's years, the 1 and the n of places out of the
#: table's order (`column_ends`).
Ends = Literal["", "years", "places"]

SAMPLE_ROWS = 200_000
MAX_CATEGORY = 50  # distinct values of a category column
MAX_SMALL_INT = 12  # distinct small integers that make a numeric column a category
MAX_VALUES = 5_000  # distinct values indexed for matching (labels)


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: The words of a column's name that make it a time (its values' role).
TIME_WORDS = _set("date year month day week time period quarter yr datetime timestamp")
_ID_WORDS = _set("id code zip key index idx")
_WORD = re.compile(r"[A-Za-z]+|[0-9]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def name_words(name: str) -> tuple[str, ...]:
    """The lower-case parts of a column name, in order (``Weight_in_lbs``: weight, in, lbs)."""
    return tuple(w.lower() for w in _WORD.findall(_CAMEL.sub(" ", name)))


@dataclasses.dataclass(frozen=True)
class Column:
    """One column: its name, role, the words that name it and (categories) its values."""

    name: str
    role: Role
    parts: tuple[str, ...]  # the name's own words (singular), stop words dropped
    words: frozenset[str]  # parts and their synonyms
    values: dict[str, Any]  # lower-case text -> the value (categories and labels)
    nunique: int
    integer: bool = False
    numeric: bool = False  # numbers (a measure, or a category of small integers)
    described: str = ""  # the user's description (context)
    listy: bool = False  # a column of lists written as text ("[Vegetarian, Vegan]")
    duration: bool = False  # times taken ("1:55.45", a Time in seconds): less is faster
    in_order: bool = False  # numbers or dates that never go back, or never forward, down it
    ends: Ends = ""  # what its own "first" and "last" are (`column_ends`)
    # text whose values are nearly all numbers, not read as numbers ("1,282" above
    # "89.7%"): it holds figures, and names no row
    figures: bool = False


@dataclasses.dataclass(frozen=True)
class Table:
    """A checked DataFrame (index as a column where it means something) and its columns."""

    name: str
    df: Any
    columns: dict[str, Column]
    notes: tuple[str, ...]
    index: str | None  # the column the index became, if it did
    # the cells as written of each text column read as numbers ("17 years" -> 17):
    # `df` holds the numbers the plan computes with, these are what is shown
    written: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    # the digest of the user's frame this was profiled from (`profiles.content_key`), set
    # by `profiles.profiled`: what a copy of `df` in an engine is kept by, across questions
    key: bytes | None = None

    def of(self, role: str) -> list[Column]:
        return [c for c in self.columns.values() if c.role == role]


def _flat_name(key: Any) -> str:
    if isinstance(key, tuple):
        return "_".join(str(k) for k in key if str(k) != "")
    return str(key)


def _clean_names(df: Any, notes: list[str]) -> Any:
    import pandas as pd

    raw = list(df.columns)
    if isinstance(df.columns, pd.MultiIndex):
        names = [_flat_name(k) for k in raw]
        notes.append(f"columns flattened from a MultiIndex (e.g. {raw[0]!r} is {names[0]!r})")
    else:
        names = [str(k) for k in raw]
        odd = [k for k in raw if not isinstance(k, str)]
        if odd:
            notes.append(f"non-string column names read as text ({', '.join(map(repr, odd[:3]))})")
    seen: dict[str, int] = {}
    unique = []
    for name in names:
        n = seen.get(name, 0) + 1
        seen[name] = n
        unique.append(name if n == 1 else f"{name}_{n}")
    dupes = sorted({n for n, c in seen.items() if c > 1})
    if dupes:
        notes.append(f"duplicate column names renamed with _2, _3 ({', '.join(dupes[:3])})")
    if unique != raw:
        df = df.copy(deep=False)
        df.columns = unique
    return df


def _with_index(df: Any) -> tuple[Any, str | None]:
    """The index as a first column, when it holds something (dates, labels, years)."""
    import pandas as pd

    index = df.index
    if isinstance(index, pd.MultiIndex):  # each level becomes a column, first
        names = [str(n) if n is not None else f"level_{i}" for i, n in enumerate(index.names)]
        names = [n if n not in df.columns else f"{n}_index" for n in names]
        out = df.reset_index(drop=True)
        for i, n in reversed(list(enumerate(names))):
            out.insert(0, n, index.get_level_values(i).to_numpy())
        return out, names[0]
    if isinstance(index, pd.RangeIndex):
        return df, None
    if (
        index.name is None
        and pd.api.types.is_integer_dtype(index)
        and index.is_monotonic_increasing
    ):
        return df, None  # a plain row number
    name = str(index.name) if index.name is not None else "index"
    if name in df.columns:
        name = f"{name}_index"
    out = df.reset_index(drop=True)
    out.insert(0, name, index.to_numpy())
    return out, name


def column_role(name: str, series: Any, sample: Any) -> tuple[Role, int, bool]:
    """(role, distinct values in ``sample`` (-1: not counted, a float measure), integer?).

    Only what decides the role is computed: a wide table of float measures costs
    one missing-value scan per column, not a distinct count."""
    import pandas as pd

    parts = set(name_words(name))
    if not sample.notna().any():
        return "empty", 0, False
    if pd.api.types.is_bool_dtype(series):
        return "category", int(sample.nunique()), False
    if pd.api.types.is_datetime64_any_dtype(series):
        return "time", int(sample.nunique()), False
    if pd.api.types.is_numeric_dtype(series):
        # (years with a missing cell among them are floats: whole numbers all the same)
        integer = pd.api.types.is_integer_dtype(series) or (
            holds_years(sample.dropna().head(1)) and holds_years(sample)
        )  # (the first value first: a wide table of measures costs one cell each)
        if parts & (TIME_WORDS | _ID_WORDS):
            whole = integer or bool((sample.dropna() % 1 == 0).all())
            if whole:
                return ("time" if parts & TIME_WORDS else "id"), int(sample.nunique()), True
        if not integer:
            return "measure", -1, False
        nunique = int(sample.nunique())
        if nunique <= 1 and len(sample) > 1:
            return "id", nunique, True  # a constant: no measure, no group
        if nunique == len(sample) > 10 and parts & {"number", "no", "num", "nr", "serial"}:
            return "id", nunique, True  # one per row, named as a number (EmployeeNumber)
        small = (
            nunique <= MAX_SMALL_INT and len(sample) >= 4 * nunique
            and float(sample.abs().max()) < 1_000
        )  # fmt: skip
        return ("category" if small else "measure"), nunique, True
    nunique = int(sample.nunique())
    if parts & TIME_WORDS:
        probe = sample.dropna().astype(str).head(50)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parsed = pd.to_datetime(probe, errors="coerce", format="mixed")
        if len(probe) and parsed.notna().all():
            return "time", nunique, False
    names_rows = nunique > 1 and nunique == int(sample.notna().sum())  # one value per row
    return ("label" if names_rows or nunique > MAX_CATEGORY else "category"), nunique, False


def _years_named(columns: dict[str, Column], df: Any) -> dict[str, Column]:
    """``columns`` where "year" names the table's one column of years when no column's
    name is a time ("the last year they placed 2nd" over a Season of 1999 to 2008)."""
    if any(set(c.parts) & TIME_WORDS for c in columns.values()):
        return columns
    years = [c for c in columns.values() if c.integer and c.numeric and holds_years(df[c.name])]
    if len(years) != 1:
        return columns
    only = years[0]
    named = dataclasses.replace(only, words=only.words | {"year", "years"})
    return {**columns, only.name: named}


def in_table_order(values: Any) -> bool:
    """Whether ``values`` (numbers or dates) never go back, or never forward, down the
    table. Dates written as text are not compared: they count as in order."""
    import pandas as pd

    seen = values.dropna()
    if not pd.api.types.is_numeric_dtype(seen) and not pd.api.types.is_datetime64_any_dtype(seen):
        return True
    return bool(seen.is_monotonic_increasing or seen.is_monotonic_decreasing)


def of_years(df: Any, col: Column) -> bool:
    """Whether ``col`` of ``df`` holds numbers that are all years (`holds_years`)."""
    return bool(col.numeric and holds_years(df[col.name]))


#: A year as a cell writes it among other words: "23 settembre 1981", "Scrapped in 1972".
_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b")


def years_written(values: Any) -> Any:
    """The year of each cell of ``values`` (missing cells dropped), or None where the
    column is no column of years or dates: numbers that are years, datetimes, or text
    whose every cell writes exactly one year."""
    import pandas as pd

    seen = values.dropna()
    if pd.api.types.is_datetime64_any_dtype(seen):
        return seen.dt.year
    if pd.api.types.is_numeric_dtype(seen) and not pd.api.types.is_bool_dtype(seen):
        return seen if holds_years(seen) else None
    found = seen.astype(str).str.findall(_YEAR)
    if found.empty or not (found.str.len() == 1).all():
        return None
    return found.str[0].astype(int)


def column_ends(parts: tuple[str, ...], values: Any, in_order: bool) -> Ends:
    """What "first" and "last" of a column of whole numbers are, read once per profile:

    * ``years``: the years of an event, whole numbers 1000-2100 under a verb's
      participle ("Founded", "Built", "Gained university status"): "founded last" is
      its latest year, since such a table is seldom listed in that order (a Year or
      Date column is the table's own order, read by a lookup: "the first year X won");
    * ``places``: the rows numbered 1 to n, each once, in another order than the
      table's (a contest's Place, listed in the order of its draw): its first is 1
      and its last n, and the table's first row is no "first place";
    * ``""``: the table's rows.
    """
    values = values.dropna()
    n = len(values)
    if parts and _participle(parts[0]) and holds_years(values):
        return "years"
    # whole numbers, each once, from 1 to n are 1..n (no sort)
    if n >= 3 and not in_order and values.min() == 1 and values.max() == n and values.is_unique:
        return "places"
    return ""


def _present(value: Any) -> bool:
    """Whether a cell holds a value: not None, NaN, NaT or pandas' NA (whose truth is
    ambiguous); a list or an array is a value."""
    import pandas as pd

    try:
        return not bool(pd.isna(value))
    except (TypeError, ValueError):  # an array's isna: a value all the same
        return True


def _figures(values: dict[str, Any]) -> bool:
    """Whether nearly all (nine in ten) of a text column's first 50 distinct values read
    as numbers."""
    from .cells import share_of_numbers

    texts = [v for v in dict.fromkeys(values.values()) if isinstance(v, str)][:50]
    return len(texts) >= 3 and share_of_numbers(texts) >= 0.9


def _participle(word: str) -> bool:
    """Whether ``word`` is a form of a verb other than the verb itself ("founded")."""
    return any(pos == "v" and lemma != word for lemma, pos in wordnet_forms(word))


def _without_details(values: dict[str, Any]) -> None:
    """Add to ``values`` each value's name without a bracketed detail at its end
    ("greece" of "Greece (details)", "oklahoma" of "Oklahoma (2)"), where that name is
    no other value's and no two values share it ("Smith (1)", "Smith (2)": neither)."""
    from .cells import DETAIL

    short: dict[str, list[Any]] = {}
    for key, value in values.items():
        detail = DETAIL.search(key)
        if detail is None or len(detail.group().split()) > 2:
            continue  # "Filming (Releasing in 2014)": a note, not a name's detail
        name = key[: detail.start()].strip()
        if re.search(r"[^\W\d_]{2}", name) and name not in values:  # a name: "2–2" is none
            short.setdefault(name, []).append(value)
    for name, found in short.items():
        if len({str(v) for v in found}) == 1:
            values[name] = found[0]


def _as_dates(series: Any) -> Any:
    """A text column of dates as datetimes, or None where any value does not parse."""
    import pandas as pd

    probe = series.dropna().head(200).astype(str)
    if not probe.str.contains(r"\d{4}").all():
        return None  # "January", "Mon": names of periods, not dates
    given = int(series.notna().sum())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for how in (None, "mixed"):  # one inferred format is fast; mixed ones are not
            try:
                parsed = pd.to_datetime(series, errors="coerce", format=how)
            except (TypeError, ValueError):
                continue
            if int(parsed.notna().sum()) == given:
                return parsed
    return None


#: A time taken as written: "5:38.62", "1:34:45.026", "4:27".
_CLOCK = re.compile(r"^\s*\d{1,2}(:\d\d){1,2}(\.\d+)?\s*$")


def _clocked(cells: Any) -> bool:
    """Whether most of a text column's cells are times taken ("5:38.62"): the winner's
    time above the others' gaps ("+5.2 secs") counts too, where it is the first."""
    texts = [str(v) for v in cells.dropna()]
    timed = [bool(_CLOCK.match(t)) for t in texts]
    return bool(texts) and (timed[0] or 2 * sum(timed) > len(texts))


#: The nouns that name a column of durations when its numbers are not written as times.
DURATION = frozenset(("time", "duration"))


@functools.lru_cache(maxsize=1)
def duration_words() -> frozenset[str]:
    """The words that measure a duration: its own, a speed's (a time taken over one course
    is its speed, the other way round) and a length's, as WordNet gives them."""
    return DURATION | {"speed", *measured_by("speed"), *measured_by("length")}


def _words_of(name: str, described: str = "") -> tuple[tuple[str, ...], frozenset[str]]:
    parts = tuple(singular(w) for w in name_words(name) if w not in NAME_STOP)
    words: set[str] = set(parts)
    for p in parts:
        # a pole's opposite shares its group ("sex gender male female") and names another
        # column: "males" is not named by "female"
        words |= (synonyms_of(p) | set(measured_by(p))) - set(antonyms(p))
    words |= {singular(w) for w in name_words(described) if w not in NAME_STOP}
    return parts, frozenset(words)


def profile(name: str, df: Any, context: Mapping[str, Any] | None = None) -> Table:
    """``df`` checked and described for planning (see the module docstring).

    ``context`` (else ``df.attrs["context"]``) maps a column to its description
    or synonyms ("TOEFL Score": "English test score"), and ``"column=value"`` to a
    value's synonyms ("Origin=USA": "American, US"); see `context.read_context`.

    Raises ValueError, in one line, for a table nothing can be computed from.
    """
    import numpy as np
    import pandas as pd

    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"data {name!r} must be a pandas DataFrame, got {type(df).__name__}")
    if df.shape[1] == 0:
        raise ValueError(f"{name} has no columns: there is nothing to answer from")
    if df.shape[0] == 0:
        raise ValueError(
            f"{name} is empty (0 rows, columns: {', '.join(map(str, df.columns[:20]))})"
        )
    from .cells import (
        clean_text,
        numbers_as_written,
        places_shown_as_medals,
        without_header_rows,
        without_section_rows,
        without_summary_row,
        written_values,
    )
    from .context import describe_columns, value_aliases
    from .table_text import (
        empty_lists_missing,
        is_list_column,
        list_items,
        lists_as_text,
        numbers_in_text,
        unnest,
    )

    notes: list[str] = []
    given = context if context is not None else df.attrs.get("context")
    if isinstance(df.index, pd.MultiIndex):
        notes.append(
            f"the row MultiIndex's levels are columns ({', '.join(map(str, df.index.names))})"
        )
    df = _clean_names(df, notes)
    df, index = _with_index(df)
    df = lists_as_text(df, notes)  # [1, 2] in a cell: unhashable, read as "[1, 2]"
    floats = [c for c in df.columns if pd.api.types.is_float_dtype(df[c])]
    bad = [str(c) for c in floats if np.isinf(df[c].to_numpy(dtype=float, na_value=np.nan)).any()]
    if bad:  # one copy, only when a column holds an infinity
        df = df.copy()
        for column in bad:
            df[column] = df[column].replace([np.inf, -np.inf], np.nan)
        notes.append(f"infinite values left out as missing ({', '.join(bad[:5])})")
    df = without_header_rows(df, notes)  # "#", "President", ... again down the table
    df = without_section_rows(df, notes)  # "West" alone, heading the West's rows
    df, written, units = numbers_as_written(unnest(df, notes), notes)  # "1,234", "17 years", "3rd"
    df, written = without_summary_row(df, written, notes)  # a closing "Total" row
    df = places_shown_as_medals(df, notes)  # a Rank whose 1-3 were medal images
    df = empty_lists_missing(numbers_in_text(df, notes))
    sample = df if len(df) <= SAMPLE_ROWS else df.sample(SAMPLE_ROWS, random_state=0)
    columns: dict[str, Column] = {}
    copied = False
    for column in df.columns:
        series = df[column]
        role, nunique, integer = column_role(column, series, sample[column])
        if column in written and role == "measure" and units[column] == "th":
            # places ("1st", "2nd") are named as values ("finished 1st"): a category
            # whose numbers are named by their cells
            kinds = int(written[column].nunique())
            if kinds <= MAX_CATEGORY:
                role, nunique = "category", kinds
        if role == "time" and not (
            pd.api.types.is_datetime64_any_dtype(series) or pd.api.types.is_numeric_dtype(series)
        ):
            dated = _as_dates(series)
            if dated is not None:  # "2010-10-25 00:00:00+00:00", "July 2010": dates to group
                whole = sample is df
                if not copied:  # the user's frame stays as it is
                    df, copied = df.copy(), True
                df[column] = series = dated
                if whole:
                    sample = df
                else:  # df.sample made its own frame
                    sample[column] = dated.loc[sample.index]
        described = describe_columns(given).get(column, "")
        parts, words = _words_of(column, described)
        values: dict[str, Any] = {}
        if role in ("category", "label") and nunique <= MAX_VALUES:
            for value in sample[column].unique()[: MAX_VALUES + 1]:
                if _present(value):
                    values.setdefault(str(value).lower(), value)
                    values.setdefault(clean_text(str(value)).lower(), value)  # "Italy [3]"
            _without_details(values)  # "Greece (details)" names Greece
            if column in written:  # "4th" names the 4 it was read as
                for text, number in written_values(written[column], series).items():
                    values.setdefault(text, number)
            for item in list_items(series):
                values.setdefault(item.lower(), item)
            for alias, value in value_aliases(given, column).items():
                values.setdefault(alias, value)
        numeric = pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)
        listy = is_list_column(series)
        if listy:
            role = "category" if len(values) <= MAX_CATEGORY else "label"
        duration = numeric and (units.get(column) == "time" or bool(DURATION & set(parts)))
        if duration or (DURATION & set(parts) and not numeric and _clocked(sample[column])):
            # "the longest", "the fastest" measure it (the fastest: the least); "how long
            # did X take" reads it, also where a few cells are no times ("DNF", "+1 lap")
            words |= duration_words()
        in_order = in_table_order(series)
        columns[column] = Column(
            column,
            role,
            parts,
            words,
            values,
            nunique,
            integer,
            numeric,
            described,
            listy,
            duration,
            in_order,
            column_ends(parts, series, in_order) if integer else "",
            role == "label" and not numeric and _figures(values),
        )
    columns = _years_named(columns, df)
    empty = [c for c, col in columns.items() if col.role == "empty"]
    if len(empty) == len(columns):
        raise ValueError(f"{name} holds no values: every column is missing throughout")
    if empty:
        notes.append(f"columns with no values, left out: {', '.join(empty[:5])}")
    return Table(name, df, columns, tuple(notes), index, written)
