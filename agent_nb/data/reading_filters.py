"""What a question's words filter: values, thresholds, negations, ranges, dates, text,
missing values and yes/no columns, each with the words it came from.

`filters_of` builds the filters of a reading (`reading.Reading`); `comparator`
reads the comparison words before a number ("more than", "at least"). The filters
a column's kind makes (yes/no, missing, text, ordinal periods) are read in
`reading_column_filters`.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any, cast

from . import vocabulary
from .cells import SCALE_WORDS
from .lexicon import Named, Stated, time_column
from .query import Filter
from .reading_column_filters import (
    DATE,
    binary_filters,
    column_holding,
    missing_filters,
    negated_at,
    ordinal_periods,
    text_filters,
)
from .reading_outcomes import outcome_filters
from .result import plain
from .table import TIME_WORDS, Column, Table, of_years
from .word_classes import a_person, a_time
from .words import COMPARATORS, COMPARING, phrase, singular

__all__ = ["by_range", "comparator", "filters_of", "spans", "without_instructions"]


def comparator(tokens: list[str], i: int) -> tuple[str, tuple[str, ...]] | None:
    if i > 0 and tokens[i - 1] in ("a", "an"):
        i -= 1  # "exactly a thousand"
    said: tuple[str, ...] = ()
    if i >= 2 and tokens[i - 2] == "the" and a_time(tokens[i - 1]):
        said, i = (tokens[i - 2], tokens[i - 1]), i - 2  # "after the year 2006"
    before = " " + " ".join(tokens[max(0, i - 4) : i])
    for words, op in COMPARATORS:
        if before.endswith(" " + words):  # whole words: "slower than" is no "lower than"
            return op, (*words.split(), *said)
    after = " ".join(tokens[i + 1 : i + 3])
    for words, op in COMPARATORS:
        if words in ("or more", "or less", "or above", "or below") and after.startswith(words):
            return op, tuple(words.split())
    return None


def _comparative(r: Any, i: int) -> tuple[str, tuple[str, ...]] | None:
    """ "faster than 1:56", "deeper than 30": a comparative before "than" compares by
    its attribute's pole on the table (a speed of times taken turns round)."""
    if i < 2 or r.tokens[i - 1] != "than":
        return None
    side = r.side(r.tokens[i - 2])
    if not side:
        return None
    return (">" if side > 0 else "<"), (r.tokens[i - 2], "than")


def scaled(value: float, col: Column, table: Table, tokens: list[str], i: int) -> float:
    after = tokens[i + 1] if i + 1 < len(tokens) else ""
    if after in ("per", "percent", "%") or (
        i + 1 < len(tokens) and tokens[i + 1 : i + 3] == ["per", "cent"]
    ):
        top = table.df[col.name].max()
        if top is not None and float(top) <= 1.0:
            return value / 100
    said = next((SCALE_WORDS[t] for t in tokens[i : i + 4] if t in SCALE_WORDS), None)
    if said is None or abs(value) < said:
        return value
    counted_in = _COUNTED_IN.search(col.name.lower())
    if counted_in is not None:  # "200 billion" of "Revenue (USD billions)": 200
        return value / SCALE_WORDS[counted_in.group(1)]
    if not spans(table, col, value) and spans(table, col, value / said):
        return value / said  # "10 million viewers" of "Viewers (m)", 9.71 to 15.55
    return value


#: A column whose name says its numbers count thousands, millions or billions.
_SCALES = vocabulary.alternation("scale_words_of_column_names")
_COUNTED_IN = re.compile(rf"\b({_SCALES})s?\b")


def in_column_unit(r: Any, s: Stated, col: Column, value: float) -> tuple[float, tuple[str, ...]]:
    """``value`` in ``col``'s unit when the question states it with one ("heavier than
    5 kg" on body_mass_g: 5000), and the unit's words, now placed; a unit the column has
    none of, or of another dimension, stays unplaced (its words are not returned)."""
    from ..errors import UnitError
    from .units import column_unit, convert, quantities

    written = s.text.split()[0].replace(",", "") if s.text.split() else ""
    stated = next(
        (
            q
            for q in quantities(r.question)
            if q.value == s.value or q.words[0].replace(",", "") == written
        ),
        None,
    )  # "0.2 m": 0.2 metres, not the 0.2 million the number alone reads
    if stated is None:
        return value, ()
    unit = column_unit(col.name)
    if unit is None:
        return value, ()
    try:
        converted = convert(stated.value, stated.unit, unit)
    except UnitError:
        return value, ()
    words = tuple(w for x in stated.words[1:] for w in phrase(x).split())
    return round(converted, 9), words


def spans(table: Table, col: Column, value: float) -> bool:
    s = table.df[col.name]
    try:
        lo, hi = float(s.min()), float(s.max())
    except (TypeError, ValueError):
        return False
    return lo - 0.5 * abs(hi - lo) <= value <= hi + 0.5 * abs(hi - lo) or value == 0


def by_range(table: Table, value: float, skip: Collection[str] = ()) -> Column | None:
    """The one numeric column whose values span ``value`` (the tightest, if several), of
    those not in ``skip``."""
    fits = []
    for col in table.columns.values():
        if not col.numeric or col.role in ("id", "time") or col.name in skip:
            continue
        s = table.df[col.name]
        lo, hi = float(s.min()), float(s.max())
        if lo <= value <= hi:
            fits.append((hi - lo, col))
    return min(fits, key=lambda x: x[0])[1] if fits else None


_INSTRUCTION = re.compile(
    r"(?<=[.?!])\s+(answer\b|the answer\b|if there (are|is)\b|please\b|respond\b)[^.?!]*[.?!]?",
    re.IGNORECASE,
)


def without_instructions(question: str) -> str:
    """The question without the instructions after it ("Answer True or False",
    "If there are none answer with an empty list"): they name no data."""
    q = question.strip().strip('"').strip()
    return _INSTRUCTION.sub("", q).strip() or q


#: The words that set two values of one column against each other ("more A than B"),
#: between them, and anywhere in the question ("the ratio of A to B").
_APART_BETWEEN = vocabulary.alternation("set_apart_between_values")
_APART = re.compile(rf"\b({_APART_BETWEEN})\b")
_APART_ANYWHERE = vocabulary.alternation("set_apart_in_question")


def _apart(r: Any, hits: list[Named]) -> bool:
    """Two values of one column set against each other, not OR-ed."""
    a, b = sorted(h.start for h in hits)[:2]
    between = " ".join(r.tokens[a:b])
    return bool(_APART.search(between)) or bool(re.search(rf"\b({_APART_ANYWHERE})\b", r.text))


def filters_of(r: Any) -> list[Filter]:
    t = r.table
    out: list[Filter] = []
    by_column: dict[str, list[Named]] = {}
    for v in r.values:
        by_column.setdefault(v.column.name, []).append(v)
    for name, hits in by_column.items():
        neg = negated_at(r, hits[0].start)
        words = tuple(w for h in hits for w in h.words) + neg
        if hits[0].partial:
            item = str(hits[0].value).strip("[]'\" ")  # "[Mercadona]": the item in any list
            # no filter says "does not contain": a negation before it stays unplaced
            plain_words = tuple(w for h in hits for w in h.words)
            out.append(Filter(column=name, op="contains", value=item, words=plain_words))
        elif len(hits) > 1 and _apart(r, hits):  # "more Adelie than Gentoo": two filters
            for h in hits:
                out.append(Filter(column=name, op="=", value=plain(h.value), words=h.words))
        elif len(hits) > 1:
            vals = tuple(plain(h.value) for h in hits)
            out.append(
                Filter(
                    column=name,
                    op="!=" if neg else "in",  # "not Aprilia or Honda": none of them
                    value=vals,
                    words=words,
                )
            )
        else:
            out.append(
                Filter(
                    column=name, op="!=" if neg else "=", value=plain(hits[0].value), words=words
                )
            )
    time = time_column(t)
    if time is not None and not _dated(t, time):
        time = None  # (a Year of text: its years are read as `_years_column` reads them)
    # (a column of years is looked for only where a year is stated: a scan per column)
    years = _years_column(r, t) if any(_a_year(r, s) for s in r.stated) else None
    if time is not None and years is not None and years[1] and years[0].name != time.name:
        time = None  # "left in 1960" of Left: the column the words name, not the Join Year
    elif time is not None:
        years = None
    # (the years cells write are read as years only: `_years_column`)
    derived_years = {d.name for d in r.derived if d.op == "year"}
    k_at = {s for s in r.k_words}
    for s in r.stated:
        if r.k is not None and s.words == r.k_words and s.value == r.k:
            continue
        i = s.start
        if any(
            f.op == "between" and isinstance(f.value, tuple) and s.value in f.value for f in out
        ):
            continue
        if any(s.text in m.group(0) for m in DATE.finditer(r.question)) or any(
            v.start <= i < v.start + len(v.words) for v in r.values
        ):
            continue  # a number inside a date or a named value
        if time is not None and float(s.value).is_integer() and 1800 <= s.value <= 2100:
            span = _years_span(r, s)
            if span is not None and t.df[time.name].dtype.kind in "iuf":
                out.append(Filter(column=time.name, op="between", value=span[:2], words=span[2]))
                continue
            cmp = comparator(r.tokens, i)
            op = cmp[0] if cmp and cmp[0] in ("<", ">", "<=", ">=") else "="
            if t.df[time.name].dtype.kind in "iuf" or "datetime" in str(t.df[time.name].dtype):
                out.append(
                    Filter(
                        column=time.name,
                        op=cast(Any, op),
                        value=int(s.value),
                        words=s.words + (cmp[1] if cmp else ()),
                    )
                )
                continue
        elif years is not None and _a_year(r, s):
            span = _years_span(r, s)  # "built in the 1800s" of Built
            if span is not None:
                words = span[2] + years[1]
                out.append(Filter(column=years[0].name, op="between", value=span[:2], words=words))
                continue
            said = _said_as_a_year(r, s, years[0])
            # (a year inside a text value, "2012" of "2012-13", is read as before)
            if said is not None and (said[0] != "=" or _inside_values(r, s) is None):
                out.append(
                    Filter(
                        column=years[0].name,
                        op=cast(Any, said[0]),
                        value=int(s.value),
                        words=s.words + said[1] + years[1],
                    )
                )
                continue
        cmp = comparator(r.tokens, i) or _comparative(r, i)
        between = (
            i >= 1
            and r.tokens[i - 1] in ("between", "from")
            and any(o.start > i and o.start <= i + 3 for o in r.stated)
        )
        if (
            not cmp
            and not between
            and i >= 1
            and r.tokens[i - 1] in ("is", "was")
            and (i + 1 < len(r.tokens) and r.tokens[i + 1] in ("a", "an"))
        ):
            cmp = ("=", ())  # "is 99 an existing id": equality
        after = r.tokens[i + len(s.words) : i + len(s.words) + 3]
        if not cmp and not between:
            inside = _inside_values(r, s)
            if inside is not None:
                out.append(inside)
                continue
            labelled = _labelled_by(r, s)
            if labelled is not None:
                out.append(labelled)
                continue
            if not _counts_a_column(r, after, s) or _bounded(r.tokens, i):
                continue
            cmp = ("=", ())  # "cars with 8 cylinders": Cylinders, as many as said
        counted = _counted(r, after)
        if counted is not None and cmp is not None:  # "more than 100 lifters": a count
            r.count_tests.append((cmp[0], _num(s.value), counted, s.words + cmp[1]))
            continue
        if cmp is not None and _counts_identified(r, after):
            continue  # "more than 10 products": products counted, not product_id compared
        col = r.near(
            i,
            ("measure", "category", "id", "time"),
            numeric=True,
            value=s.value,
            spent=cmp[1] if cmp else (),
        )
        units = [
            (score, t.columns[n])
            for n, (score, ws) in r.named.items()
            if t.columns[n].numeric and after[:1] and (after[0] in ws or singular(after[0]) in ws)
        ]
        # "flippers ... 210 mm": of the columns "mm" names, the best named
        unit = max(units, key=lambda x: x[0])[1] if units else None
        if len(units) > 1 and sum(x[0] == units[0][0] for x in units) == len(units):
            unit = None  # a unit every candidate shares equally decides nothing
        cw_len = len(cmp[1]) if cmp is not None else 0
        lead = r.tokens[i - cw_len - 1] if i - cw_len - 1 >= 0 else ""
        own_word = (
            cmp is not None
            and cmp[0] != "="
            and any(t.columns[n].numeric and set(cmp[1]) & t.columns[n].words for n in r.named)
        )  # "older than": the comparison's own word names the column
        if unit is None and cmp is not None and lead and not own_word:
            unit = next(  # "transaction_qty > 5": the column named right before the sign
                (
                    t.columns[n]
                    for n, (_, ws) in r.named.items()
                    if t.columns[n].numeric and (lead in ws or singular(lead) in ws)
                ),
                None,
            )
        if unit is not None:
            col = unit  # "3000 points": the column named right after the number
        if cmp is not None and unit is None and cmp[0] != "=":  # "older than": its own word
            for c in t.columns.values():
                measured = c.numeric and _measured_by(cmp[1], c)  # "taller": height
                if not measured and not (c.numeric and c.name in r.named and set(cmp[1]) & c.words):
                    continue
                # "taller than 1.7 m" of height_cm: the range in the column's own unit
                if spans(t, c, in_column_unit(r, s, c, s.value)[0]):
                    col = c
        if (  # "more than 3000 points": the column named by the unit, even past its range
            col is not None
            and unit is None
            and not spans(t, col, scaled(s.value, col, t, r.tokens, i))
        ):
            col = by_range(t, s.value, derived_years) or col
        chosen = "named"
        if col is None:
            col = by_range(t, s.value, derived_years)
            chosen = "by its range"
        if col is None or (col.integer and of_years(t.df, col) and not 1000 <= s.value <= 2100):
            continue  # ("elected at least 10 democrats": no year, nor First elected's test)
        value = scaled(s.value, col, t, r.tokens, i)
        value, unit_words = in_column_unit(r, s, col, value)
        if between:
            other = next((o for o in r.stated if o.start > i and o.start <= i + 3), None)
            if other is None:
                continue
            hi = scaled(other.value, col, t, r.tokens, other.start)
            hi, more = in_column_unit(r, other, col, hi)
            unit_words += more
            out.append(
                Filter(
                    column=col.name,
                    op="between",
                    value=(_num(value), _num(hi)),
                    words=(r.tokens[i - 1], "to", "and", *s.words, *other.words),
                )
            )
            continue
        assert cmp is not None
        op, cw = cmp
        # "no more than" holds its own negation: it is not negated again
        neg = () if {"no", "not"} & set(cw) else negated_at(r, i - len(cw))
        if neg and op in ("<", ">", "<=", ">="):
            op = {"<": ">=", ">": "<=", "<=": ">", ">=": "<"}[op]
        said = s.words + cw + neg + unit_words
        out.append(Filter(column=col.name, op=cast(Any, op), value=_num(value), words=said))
        if chosen != "named":
            r.notes.append(f"{s.text} read as {col.name} (the only column whose values span it)")
            r.open.append("threshold column")
    del k_at
    out = _either(r, out)
    out += ordinal_periods(r, {f.column for f in out})
    out += binary_filters(r, {f.column for f in out})
    texts = text_filters(r, {f.column for f in out})
    needles = {(f.column, str(f.value).lower()) for f in texts}
    # "names containing 'International'": the text filter, not also the value of that name
    out = [f for f in out if f.op != "=" or (f.column, str(f.value).lower()) not in needles]
    out += texts
    out += missing_filters(r, {f.column for f in out})
    out += outcome_filters(r, {f.column for f in out})
    return out


#: "from 1941 to 1949", "from 1941 through 1949".
_YEAR_JOINERS = vocabulary.alternation("year_range_joiners")


def _dated(t: Table, col: Column) -> bool:
    """Whether ``col`` holds numbers or dates: a time column a year filters as it is."""
    dtype = t.df[col.name].dtype
    return dtype.kind in "iuf" or "datetime" in str(dtype)


#: The words before a year that say it is one ("in 2004", "of 1977"; "before", "after"
#: and "since" are comparators).
_YEAR_PREPOSITIONS = frozenset(("in", "of", "from", "during", "year"))


def _years_column(r: Any, t: Table) -> tuple[Column, tuple[str, ...]] | None:
    """Where no time column holds numbers or dates: the column of years a stated year
    filters ("released in 2004" of Release, 2003 to 2006; "established before 1978" of
    the year each Established cell writes, `reading_column_filters.year_columns`), with
    the words that name it. The one the question names, else the table's only one."""
    source = {d.name: d.column for d in r.derived if d.op == "year"}
    years = [
        c
        for c in t.columns.values()
        if c.numeric and c.role != "empty" and t.df[c.name].nunique() > 1 and of_years(t.df, c)
    ]
    named = [c for c in years if source.get(c.name, c.name) in r.named]
    if len(named) == 1:
        return named[0], tuple(sorted(r.named[source.get(named[0].name, named[0].name)][1]))
    if named or len(years) != 1:
        return None
    # no word names it: a column named as a time (a Year of text, "TBA" among its
    # years), or the table's unnamed first column (its rows' labels), is the rows' years;
    # another (a contract's Ends) is one fact of each row, and a year may be another's
    own = t.columns[source.get(years[0].name, years[0].name)]
    return (years[0], ()) if set(own.parts) & (TIME_WORDS | {"unnamed"}) else None


def _a_year(r: Any, s: Stated) -> bool:
    """Whether ``s`` may be a year of a column of years: a whole number from 1800 to 2100
    written as a year is ("2,000" is an amount), that names no column ("2006 attendance")."""
    if not float(s.value).is_integer() or not 1800 <= s.value <= 2100 or "," in s.text:
        return False
    return not any(str(int(s.value)) in name for name in r.table.columns)


def _said_as_a_year(r: Any, stated: Stated, col: Column) -> tuple[str, tuple[str, ...]] | None:
    """The test a ``stated`` year puts on a column of years that is no time column:
    a comparator's ("before 1978"), or equality where a preposition says it is a year
    ("in 2004"); only where some row meets it."""
    import operator

    s, i, year = r.table.df[col.name], stated.start, float(stated.value)
    cmp = comparator(r.tokens, i)
    if cmp is not None and cmp[0] in ("<", ">", "<=", ">="):
        test = {"<": operator.lt, ">": operator.gt, "<=": operator.le, ">=": operator.ge}
        # a test no row meets ("in service after 1950" of Entered service, all before)
        # reads another column than the one the words mean
        return cmp if bool(test[cmp[0]](s, year).any()) else None
    if cmp is not None or i < 1 or r.tokens[i - 1] not in _YEAR_PREPOSITIONS:
        return None
    return ("=", ()) if bool((s == year).any()) else None


def _years_span(r: Any, s: Stated) -> tuple[int, int, tuple[str, ...]] | None:
    """The years a stated year opens: "the 1990s" (1990 to 1999), "the 1800s" (1800 to
    1899), "1941-1949", "from 1941 to 1949", "between 1941 and 1949" (both ends kept)."""
    year = int(s.value)
    if year % 10 == 0 and re.search(rf"\b{year}'?s\b", r.question.lower()):
        # "the 1800s" is a century; "the 1990s" (and "the 2000s", as said of years
        # lately) a decade
        century = year % 100 == 0 and year < 2000
        return year, year + (99 if century else 9), s.words
    end = s.start + len(s.words)
    after = next((o for o in r.stated if end <= o.start <= end + 1), None)
    if after is None or not float(after.value).is_integer() or not year < after.value <= 2100:
        return None
    joined = re.search(rf"\b{year}\s*[-–]\s*{int(after.value)}\b", r.question)
    said = re.search(
        rf"\b(from {year} ({_YEAR_JOINERS})|between {year} and) {int(after.value)}\b",
        r.text,
    )
    if not (joined or said) or (
        said and said.group(0).startswith("between") and _APART.search(r.text)
    ):
        return None  # "the difference in votes between 1968 and 1974": two years apart
    return (
        year,
        int(after.value),
        (*s.words, *after.words, "from", "to", "through", "until", "between", "and"),
    )


def _either(r: Any, out: list[Filter]) -> list[Filter]:
    """ "in 2007 and 2008": a row holds one value of a column, so two numbers said of
    it keep the rows of either (``in``), not of both (always none); "more in 2009 than
    in 2007" sets them apart (`_apart`) and keeps two filters."""
    same: dict[str, list[Filter]] = {}
    for f in out:
        if f.op == "=" and isinstance(f.value, (int, float)):
            same.setdefault(f.column, []).append(f)
    for column, fs in same.items():
        if len(fs) < 2 or _APART.search(r.text):
            continue
        words = tuple(w for f in fs for w in f.words)
        values = tuple(f.value for f in fs if isinstance(f.value, (int, float)))
        either = Filter(column=column, op="in", value=values, words=words)
        out = [f for f in out if f not in fs] + [either]
    return out


_BOUND_EXTRAS = vocabulary.words("bound_words_before_number")


def _bounded(tokens: list[str], i: int) -> bool:
    """Whether a comparison's words stand within the three words before the number at
    ``i`` ("at least half a million people"): a bound the reading did not read whole is
    no equality."""
    return bool(set(tokens[max(0, i - 3) : i]) & (COMPARING | _BOUND_EXTRAS))


def _measured_by(words: tuple[str, ...], col: Column) -> bool:
    """Whether a comparative among ``words`` measures the attribute ``col`` names:
    "taller" of height_cm (WordNet's attribute of tall: height)."""
    from .wordnet import attributes

    return any(a.noun in col.parts for w in words for a in attributes(w))


def _counts_a_column(r: Any, after: list[str], s: Stated) -> bool:
    """Whether the word after a number names a column of whole numbers that counts it:
    "8 cylinders" of Cylinders (a small table's, which no category of values holds),
    "20 years old" of Age."""
    from .units import word_unit

    if not after:
        return False
    # "20 years old": past the unit, the adjective that names Age
    said = after[:2] if word_unit(after[0]) is not None else after[:1]
    cols = [n for n, (_, ws) in r.named.items() if any(w in ws or singular(w) in ws for w in said)]
    if any(set(s.words) & set(phrase(n).split()) for n in cols):
        return False  # "the 2009 arms sales": the number is part of a column's name
    return any(r.table.columns[n].integer for n in cols)


def _labelled_by(r: Any, s: Stated) -> Filter | None:
    """ "Rank 3", "week 5", "position 24": a number right after the noun of a numeric
    column names the rows that hold it, where that column holds it (and the noun names
    no other numeric column)."""
    i = s.start
    if i < 1 or not float(s.value).is_integer() or _bounded(r.tokens, i - 1):
        return None
    col = column_holding(r, r.tokens[i - 1], s.value)
    return (
        None if col is None else Filter(column=col.name, op="=", value=_num(s.value), words=s.words)
    )


def _inside_values(r: Any, s: Stated) -> Filter | None:
    """A number that is part of a text value ("2012" of season "2012-13"): contains."""
    if not float(s.value).is_integer() or s.value < 1000:
        return None
    needle = str(int(s.value))
    for col in r.table.columns.values():
        textual = col.role in ("category", "label") and not col.numeric and col.values
        if textual and any(needle in k and k != needle for k in list(col.values)[:500]):
            return Filter(column=col.name, op="contains", value=needle, words=s.words)
    return None


_ROWS = vocabulary.words("row_nouns")


def _counted(r: Any, after: list[str]) -> Any:
    """What a number counts, when the words after it name rows rather than a measure:
    "100 lifters" (the rows' names), "5 unique types of exercise" (distinct values)."""
    t = r.table
    if not after:
        return None
    head = [w for w in after if w not in vocabulary.words("distinct_words")]
    distinct = len(head) < len(after)
    for n, (_, ws) in r.named.items():
        col = t.columns[n]
        if head and (head[0] in ws or singular(head[0]) in ws) and not col.numeric:
            if distinct:
                return ("nunique", col.name)
            # the rows' names, or a column of people ("Name", "Player", "Swimmer")
            if col.role == "label" or "name" in col.parts or any(map(a_person, col.parts)):
                return ("rows", None)
    if singular(after[0]) in _ROWS or after[0] in _ROWS:
        return ("rows", None)
    return None


def _counts_identified(r: Any, after: list[str]) -> bool:
    """Whether the noun after a number names what an id column identifies ("10 products"
    of product_id): the number counts those things, and no id is compared with it."""
    if not after or after[0] in vocabulary.words("identifier_nouns"):
        return False
    word = after[0]
    return any(
        r.table.columns[n].role == "id" and (word in ws or singular(word) in ws)
        for n, (_, ws) in r.named.items()
    )


def _num(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value
