"""Plans that read single rows or a column's distinct values: a column's value in the
first or last row ("the location of the first purchase row-wise"), the label of the
row a "who" question matches ("Who is the author of 'value with a view'?"), and
"how many <stores>" as the distinct values of the column the noun names, and
the row after or before a named row in the table's own order ("the episode
after X", "who finished before Y": `neighbours`).

Each function takes the planner at work (``p``) and adds candidates to it;
`planner_value.value` calls them.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from . import vocabulary
from .lexicon import kinds_of_values
from .query import LOOKUP_ENDS, Derived, Filter, Plan
from .reading_column_filters import yes_or_no
from .row_order import chronology
from .table import holds_years, of_years
from .word_classes import a_time, is_noun
from .words import HOW_MANY, TREND, phrase, question_words, singular

__all__ = [
    "closest",
    "distinct_count",
    "first_in_time",
    "first_of_two",
    "how_long_held",
    "how_often",
    "neighbours",
    "options_held",
    "others_sharing",
    "row_lookups",
    "streaks",
    "table_ends",
    "when_lookup",
]

#: The operation's own words: which way the table's order is counted from a named row.
_AFTER = vocabulary.words("after_words")
_BEFORE = vocabulary.words("before_words")
#: The table's layout: the row below a named one is the next, the row above the one before.
_BELOW = vocabulary.words("below_words")
_ABOVE = frozenset(("above",))
#: Words that only say the row is the adjacent one ("right after", "the next", "just before").
_ADJACENT = vocabulary.words("adjacent_words")
#: Words that say the order meant is the table's as listed, not time's.
_LISTED = vocabulary.words("listed_order_words")
#: The ends of the table's order, and the table's nouns for a row ("the first row").
_FIRST_LAST = vocabulary.alternation("first_last")
_ROW_NOUNS = vocabulary.alternation("row_entry_record_line")


def row_lookups(p: Any, filters: tuple[Filter, ...], agg: str | None) -> None:
    """A column's value in the first or last row; the label of the row "who" matches."""
    r = p.r
    fcols = p.filter_cols()
    first_row = re.search(rf"\b({_FIRST_LAST})\b", r.text) and re.search(
        rf"\brow[- ]?wise\b|\b({_FIRST_LAST}) ({_ROW_NOUNS})\b", r.text
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


def when_lookup(p: Any, filters: tuple[Filter, ...], agg: str | None) -> None:
    """ "When was the Universiade?", "when did Joe Clark take office?": "when" asks for
    the time of the rows the filters match, the table's column of years or dates."""
    from .planner_cues import time_of

    r = p.r
    if not re.match(r"^\W*when\b", r.text) or not filters or agg is not None:
        return
    if r.high or r.low:
        return  # "when was the highest attendance?": the row of an extreme
    time = time_of(r.table)
    if time is None or time.name in p.filter_cols():
        return
    p.add(
        Plan(op="lookup", group_by=time.name, filters=filters, words=(("time", ("when",)),)),
        f"{time.name} in the matching row",
    )


#: The words of "how many" itself, which name no column counted.
_HOW_MANY = vocabulary.words("how_many")


def distinct_count(p: Any) -> None:
    """ "How many active stores": the distinct values of the column the noun names."""
    r = p.r
    fcols = p.filter_cols()
    counted = re.search(r"\bhow many (?:\w+ )?(\w+)", r.text)
    kinds = [  # "how many active stores": the distinct values of store_id, not rows
        c
        for c in p.best(("category", "id"), exclude=list(fcols))
        if c.nunique > 1
        and not yes_or_no(p.t.df[c.name])  # "how many passed": the rows that did
        and counted is not None
        and {*question_words(counted.group(0))} & r.named[c.name][1] - _HOW_MANY
        and r.named[c.name][1] - (c.words - set(c.parts))
    ]
    if kinds:
        p.add(
            Plan(op="aggregate", measure=kinds[0].name, agg="nunique", words=p.words(kinds[0])),
            f"how many distinct {kinds[0].name}",
        )


def _noun_named(p: Any, exclude: set[str]) -> list[Any]:
    """The columns, best named first and but ``exclude``, that a noun of the question
    names whole: "the next *venue*" (not "built"), "the first *state*" ("name" is not all
    of "Short name")."""
    r = p.r
    return [
        c
        for c in p.best(("label", "category", "measure", "id", "time"))
        if c.name not in exclude
        and any(is_noun(w) for w in r.named[c.name][1])
        and _whole(c, r.named[c.name][1])
    ]


def _whole(col: Any, said: set[str]) -> bool:
    """Every word of ``col``'s name is among the words that named it, or one of them is
    what all its values are ("country" of a Nation that holds Brazil and Chile)."""
    heard = said | {singular(w) for w in said}
    if heard & kinds_of_values(col):
        return True
    return bool(col.parts) and all(p in heard or singular(p) in heard for p in col.parts)


def options_held(p: Any, filters: tuple[Filter, ...]) -> None:
    """ "Was Big Bang 2 recorded in Japanese or Korean?", "which abbey is Cistercian, Bath
    Abbey or Basingwerk Abbey?": the offered values' column (`Reading.options`) in the
    rows the other filters pick, among the values offered. `answer_form` states it
    only where those rows hold one of them."""
    column = p.r.options
    offered = _two_offered(filters, column)
    if offered is None or not any(f.column != column for f in filters):
        return
    p.add(
        Plan(
            op="lookup",
            group_by=column,
            filters=filters,
            words=(*p.words(p.t.columns[column]), ("options", ("or",))),
        ),
        f"which of {' or '.join(map(str, offered))} the rows named hold",
    )


def _two_offered(filters: tuple[Filter, ...], column: str | None) -> tuple[Any, ...] | None:
    """The two values offered as "A or B": ``column``'s filter that keeps either one."""
    for f in filters:
        if f.column == column and f.op == "in" and isinstance(f.value, tuple):
            return f.value if len(f.value) == 2 else None
    return None


def first_of_two(p: Any, filters: tuple[Filter, ...]) -> None:
    """ "Which was released earlier, Atomic or Last Dayz?", "who is listed first, A or B?":
    of the two values offered, the one whose row comes first (or last) in time, by the
    column of years the question names (else the table's one such column); or, where
    none is there, in the table's own order ("first" and "last" only)."""
    r = p.r
    column = r.either
    offered = _two_offered(filters, column)
    if not column or offered is None or p.t.columns[column].numeric:
        return
    inside = {i for v in r.values for i in range(v.start, v.start + len(v.words))}
    ends = {t: r.time_end(t) for i, t in enumerate(r.tokens) if i not in inside}
    said = [t for t, end in ends.items() if end]
    if len({ends[t] for t in said}) != 1:
        return
    early = ends[said[0]] < 0
    listed = bool(_LISTED & set(r.tokens))
    dated = [c for c in p.t.columns.values() if c.role == "time" and c.name != column]
    years = [c for c in p.t.columns.values() if _in_years(p.t, c) and c.name != column]
    named = [c for c in years if c.name in r.named]
    time = named[0] if named else years[0] if len(years) == 1 else None
    shown = p.t.columns[column]
    if set(r.named) - {column, time.name if time is not None else column}:
        return  # "eliminated first" of an Eliminated column: it orders them, not read here
    if time is not None and not listed:
        p.add(
            Plan(
                op="extreme",
                measure=time.name,
                group_by=column,
                order="asc" if early else "desc",
                filters=filters,
                words=(*p.words(shown, time), ("order", (said[0], "or"))),
            ),
            f"which of {' or '.join(map(str, offered))} comes {said[0]} by {time.name}",
        )
        return
    if said[0] not in vocabulary.words("first_last") or (dated and not listed):
        return  # in time, by dates no extreme computes with: not the table's order
    p.add(
        Plan(
            op="lookup",
            group_by=column,
            order=LOOKUP_ENDS[said[0]],
            filters=filters,
            words=(*p.words(shown), ("order", (said[0], "or"))),
        ),
        f"which of {' or '.join(map(str, offered))} is {said[0]} in the table's order",
    )


def _in_years(table: Any, col: Any) -> bool:
    """Whether ``col`` holds numbers that are years: what "earlier" and "later" order by
    (a column of dates is `_dated`)."""
    return bool(col.numeric and (col.role == "time" or holds_years(table.df[col.name])))


def how_long_held(p: Any, filters: tuple[Filter, ...]) -> None:
    """ "How long was Daubin in office?", "how long did Bottka Paul serve?": the years
    between the two columns of years that bound each row's term (From and To, Beginning
    and End of service), summed over the rows the question names. The pair is the one
    pair of year columns whose left one is never after its right one."""
    r = p.r
    if not re.match(r"^\W*how long\b", r.text) or not filters:
        return
    filtered = {f.column for f in filters}
    years = [c for c in p.t.columns.values() if c.name not in filtered and of_years(p.t.df, c)]
    df = p.t.df
    pairs = []
    for i, start in enumerate(years):
        for end in years[i + 1 :]:
            both = df[[start.name, end.name]].dropna()
            if len(both) >= 2 and bool((both[start.name] <= both[end.name]).all()):
                pairs.append((start, end))
    ranges = [  # a column of terms written as ranges: "1997-2006", "1920–1928"
        c
        for c in p.t.columns.values()
        if c.name not in filtered and not c.numeric and _holds_ranges(df[c.name])
    ]
    if len(pairs) + len(ranges) != 1:
        return  # no term, or two: which one is asked about is not clear
    if ranges:
        span = Derived(op="years", column=ranges[0].name)
        bounds: tuple[Any, ...] = (ranges[0],)
    else:
        span = Derived(op="-", column=pairs[0][1].name, other=pairs[0][0].name)
        bounds = pairs[0]
    # what was held, after the named row ("in office", "in service"): the term itself
    last = max(i for i, t in enumerate(r.tokens) if any(t in f.words for f in filters))
    held = tuple(t for t in r.tokens[last + 1 :] if is_noun(t) and not _names_any(r, t))
    p.add(
        Plan(
            op="aggregate",
            agg="sum",
            measure=span.name,
            derive=(span,),
            filters=filters,
            words=(*p.words(*bounds), (span.name, ("long", *held))),
        ),
        f"the {span.name} of the matching rows",
    )


def _holds_ranges(cells: Any) -> bool:
    """Whether nearly all (nine in ten) of a text column's first cells begin with a range
    of years ("1997-2006"; "2000–current" too, whose span is not known)."""
    from .derive import YEAR_FROM, YEAR_RANGE

    text = cells.dropna().head(200).astype("string")  # a sample, as profiles probe
    return (
        len(text) >= 2
        and bool(text.str.extract(YEAR_FROM)[0].notna().mean() >= 0.9)
        and bool(text.str.extract(YEAR_RANGE)[0].notna().any())
    )


def _names_any(r: Any, word: str) -> bool:
    """Whether ``word`` names a column or is part of a value the question names."""
    return any(word in ws for _, ws in r.named.values()) or any(word in v.words for v in r.values)


def _dated(table: Any, col: Any) -> bool:
    """Whether ``col`` holds dates (read as such): the extreme orders them as they are."""
    import pandas as pd

    return bool(col.role == "time" and pd.api.types.is_datetime64_any_dtype(table.df[col.name]))


def others_sharing(p: Any, filters: tuple[Filter, ...]) -> None:
    """ "Which nation won the same number of gold medals as Hungary?": the names, in the
    named row's column, of the other rows that share its value (`reading_same_row`
    turned the name into those filters), each one listed."""
    column = p.r.same_as
    if column is None or not any(f.column == column and f.op == "!=" for f in filters):
        return
    p.add(
        Plan(op="values", group_by=column, filters=filters, listed=True),
        f"the other rows' {column}",
    )


_WHO = vocabulary.alternation("who_whom")


def neighbours(p: Any, filters: tuple[Filter, ...]) -> None:
    """ "Which album came after X?", "who finished right before Y?", "what city is listed
    below X?": a column of the row next to the one the question names, in the table's
    own order (`row_order`); "below" and "above" are the layout's, never time's.

    Only for one named text value (the anchor) that follows the order word; the column
    reported is the one the question names before the order word ("the next *venue*
    after X"), else the anchor's own ("who came after X": the next name)."""
    r = p.r
    if r.expect is not None or r.high or r.low or len(filters) != 1:
        return
    anchor = filters[0]
    if anchor.op != "=" or not isinstance(anchor.value, str) or not anchor.words:
        return
    after = [i for i, t in enumerate(r.tokens) if t in _AFTER | _BELOW]
    before = [i for i, t in enumerate(r.tokens) if t in _BEFORE | _ABOVE]
    if bool(after) == bool(before):
        return  # neither, or both: no one direction
    # "the next album released after X", "the previous holder before Y": one direction,
    # said twice; the word nearest the named row is the cue
    cues = after or before
    cue = cues[-1]
    if not set(anchor.words) <= set(r.tokens[cue + 1 :]):
        return  # "X is before who": the order word must lead to the named row
    said = (r.tokens[cue], *(t for t in r.tokens[max(0, cue - 2) : cue] if t in _ADJACENT))
    said += tuple(r.tokens[i] for i in cues[:-1])
    said += tuple(t for t in r.tokens[:cue] if t == "next")
    who = re.match(rf"^\W*({_WHO})\b", r.text)
    asked = [c for c in _noun_named(p, {anchor.column}) if r.where.get(c.name, cue) < cue]
    # the column named first: "what single title is listed on the charts after X" asks
    # for the title (the anchor's column), not the charts
    own = r.where.get(anchor.column, cue) if anchor.column in r.named else cue
    ahead = asked[0] if asked and r.where[asked[0].name] < own else None
    shown = p.t.columns[anchor.column] if who or ahead is None else ahead
    side = "after" if after else "before"
    offset = 1 if after else -1
    # "listed after X", "the row below X": the table's order, not time's
    listed = (_LISTED | _BELOW | _ABOVE) & set(r.tokens)
    if r.tokens[cue] in _BELOW | _ABOVE:
        side = "below" if after else "above"
    if not listed and chronology(p.t.df) < 0:  # newest first: "after" in time is above
        offset, side = -offset, f"{side} in time (the table lists the newest first)"
    p.add(
        Plan(
            op="lookup",
            group_by=shown.name,
            offset=offset,
            filters=filters,
            words=(*p.words(shown), ("order", tuple(dict.fromkeys(said)))),
        ),
        f"{shown.name} of the row {side} the one where {anchor.phrase()}, in the table's order",
    )


def first_in_time(p: Any, filters: tuple[Filter, ...]) -> None:
    """ "The first state formed", "the last game released for Game Boy Advance": the row
    at the early (first) or late (last) end of the column of years or dates that the
    question's own words name (Formed, Release), not the row the table lists first. The
    column shown is the one a noun names, else the rows' label; "what year was the
    first ..." asks for the time itself: its earliest value."""
    r = p.r
    said = [t for t in r.tokens if t in LOOKUP_ENDS]
    if len(set(said)) != 1 or r.expect is not None or r.k is not None:
        return
    if (r.cues & (r.up | r.down)) - set(said):
        return  # another end asked for ("the first team to score the most")
    if _LISTED & set(r.tokens):
        return  # "the first team listed": the layout's
    word = said[0]
    at = r.tokens.index(word)
    if any(word in ws for _, ws in r.named.values()) or any(word in f.words for f in filters):
        return  # "its first flight", "the First assembly": part of a name or a value
    filtered = {f.column for f in filters}
    times = [
        c
        for c in p.best(("measure", "time", "id"))
        if c.name not in filtered and ((_in_years(p.t, c) and not c.duration) or _dated(p.t, c))
    ]
    if len(times) != 1:
        return  # none, or two columns of years or dates: which one orders is not clear
    time = times[0]
    # "what was the first year ...", "in what year was the last season ...", "the year
    # the last ship was built", "when"; or the noun after the order word names the time
    # column ("the last election", "the first air date"): the time itself is asked for
    lead = re.match(r"^\W*(?:in |on |during )?(?:what|which) (\w+)", r.text)
    said_first = r.tokens[:at] if lead is None else [lead.group(1)]
    by_noun = [w for w in r.named[time.name][1] if is_noun(w) and w in r.tokens]
    asks_time = (
        bool(re.match(r"^\W*when\b", r.text))
        or any(a_time(w) for w in (*r.tokens[at + 1 : at + 2], *said_first))
        or any(r.tokens.index(w) > at for w in by_noun)
    )
    named = _noun_named(p, {*filtered, time.name})
    # a column named before the order word is the one asked for ("the attendance of the
    # last week"), then the time, then one named after it ("the first state formed")
    asked = [*named, time] if any(is_noun(w) for w in r.named[time.name][1]) else named
    before = sorted(
        (c for c in asked if r.where.get(c.name, at) < at), key=lambda c: r.where[c.name]
    )  # "the date of the first episode": the time itself (not "founded first")
    if before:
        shown = before[0]
    elif asks_time:
        shown = time
    else:
        shown = named[0] if named else p.label(exclude=list(filtered))
    if shown is None:
        return
    # a lookup's "desc" is the table's top row (its first); in time the first is the lowest
    order: Literal["asc", "desc"] = "asc" if LOOKUP_ENDS[word] == "desc" else "desc"
    p.add(
        Plan(
            op="extreme",
            measure=time.name,
            group_by=None if shown.name == time.name else shown.name,
            order=order,
            filters=filters,
            words=(*p.words(time, shown), ("order", (word,))),
        ),
        f"{shown.name} of the {'earliest' if order == 'asc' else 'latest'} "
        f"{time.name}: {word} in time",
    )


#: The ends of the table as laid out, where the question speaks of it ("the top of the list").
_EDGES: dict[str, Literal["asc", "desc"]] = vocabulary.mapping("layout_edges")
#: The question words that ask for a row ("who finished first", "which opponent ...").
_WHO_WHICH = vocabulary.alternation("who_which")


def table_ends(p: Any, filters: tuple[Filter, ...]) -> None:
    """ "What was the last song of the year?", "which opponent is listed first?": a
    column's value in the first or the last of the rows that match, in the table's own
    order (the order of time where the table lists the newest first, unless the question
    says "listed"). The column is the one the question names (else the rows' label)."""
    r = p.r
    layout = bool(_LISTED & set(r.tokens))  # "the top of the list", "the top city listed"
    ends = {**LOOKUP_ENDS, **(_EDGES if layout else {})}
    said = [t for t in r.tokens if t in ends]
    # "top" and "bottom" of the layout are no superlative of a value; any other is
    others = (r.cues & (r.up | r.down)) - (set(_EDGES) if layout else set())
    if len(set(said)) != 1 or r.expect is not None or others or r.k is not None:
        return
    word = said[0]
    at = r.tokens.index(word)
    filtered = {f.column for f in filters}
    named = _noun_named(p, filtered)
    # the column named before the order word ("the year of the first review"), else after
    before = [c for c in named if r.where.get(c.name, at) < at]
    near = sorted(before, key=lambda c: at - r.where[c.name]) or sorted(
        named, key=lambda c: r.where.get(c.name, at) - at
    )
    # "who finished first": the label; so is "the first car with 8 cylinders" of a table
    # named cars (a car, by its name)
    table_noun = singular(phrase(r.table.name))
    asks_row = bool(re.match(rf"^\W*({_WHO_WHICH})\b", r.text)) or any(
        singular(t) == table_noun for t in r.tokens[at + 1 : at + 2]
    )
    # "who wrote the first episode": the column its verb names (Written by), else the label
    by_verb = [
        c
        for c in p.best(("label", "category"))
        if r.where.get(c.name) == 1 and c.name not in filtered
    ]
    if r.tokens[:1] == ["who"] and by_verb and not before:  # "the first episode" names the row
        near = by_verb[:1]
    shown = near[0] if near else p.label(exclude=list(filtered)) if asks_row else None
    if shown is None:
        return
    order = ends[word]
    listed = _LISTED & set(r.tokens)
    if not listed and chronology(p.t.df) < 0:  # newest first: the first in time is last
        order = "asc" if order == "desc" else "desc"
    p.add(
        Plan(
            op="lookup",
            group_by=shown.name,
            order=order,
            filters=filters,
            words=(*p.words(shown), ("order", (word, *(listed & {"listed"})))),
        ),
        f"{shown.name} in the {word} matching row, in the table's order",
    )


#: The operation's own words: the rows whose value is nearest a stated number.
_NEAR = vocabulary.words("nearest_words")


def closest(p: Any, filters: tuple[Filter, ...]) -> None:
    """ "Which year is closest to 2000?", "the car whose horsepower is nearest to 150":
    the rows whose named column is nearest the number stated right after "to"."""
    r = p.r
    cue = next((i for i, t in enumerate(r.tokens) if t in _NEAR), None)
    if cue is None or r.tokens[cue + 1 : cue + 2] != ["to"]:
        return
    target = next((s for s in r.stated if s.start == cue + 2), None)
    if target is None:
        return
    named = [
        c for c in p.best(("measure", "time", "id", "category"), numeric=True)
        if c.name not in {f.column for f in filters}
    ]  # fmt: skip
    if not named:
        return
    measure = named[0]
    rest = [c for c in named[1:] if r.where.get(c.name, cue) < r.where[measure.name]]
    shown = rest[0] if rest else p.label(exclude=[measure.name]) or measure
    p.add(
        Plan(
            op="extreme",
            measure=measure.name,
            group_by=None if shown.name == measure.name else shown.name,
            near=target.value,
            filters=filters,
            words=(*p.words(measure, shown), ("near", (r.tokens[cue], "to", *target.words))),
        ),
        f"the {shown.name} whose {measure.name} is closest to {target.text}",
    )


#: How often, in the operation's own words: "once", "twice", "3 times".
#: The test each word puts on the number of rows ("more than twice": ">"; no word: "=").
_HOW_TESTS: dict[str, str] = vocabulary.mapping("how_often_tests")
_HOW: dict[str | None, str] = {None: "="}
_HOW.update(_HOW_TESTS.items())
#: (the words of the tests, as `vocabulary.alternation` writes them: a phrase keeps its space)
_HOW_WORDS = "|".join(re.escape(w).replace("\\ ", " ") for w in _HOW_TESTS)
#: "once", "twice", "thrice" and "one" to "ten" (times), each the number of its place.
_ADVERBS = vocabulary.alternation("times_adverbs")
_CARDINALS = vocabulary.alternation("small_cardinals")
_TIMES = re.compile(rf"\b(?:({_HOW_WORDS})\s+)?({_ADVERBS}|(\d+|{_CARDINALS}) times)\b")
_COUNTS = {
    w: n
    for name in ("times_adverbs", "small_cardinals")
    for n, w in enumerate(vocabulary.listed(name), 1)
}


def how_often(p: Any, filters: tuple[Filter, ...]) -> None:
    """ "Which teams appear exactly once?", "which players are listed more than twice?":
    the values of the column the question names whose rows number so many, all listed."""
    r = p.r
    found = _TIMES.search(r.text)
    if found is None or re.search(r"\bhow many times\b", r.text):
        return  # "how many times did X win": a count of rows, not a test of one
    said, word, digits = found.group(1), found.group(2), found.group(3)
    n = _COUNTS.get(word) or _COUNTS.get(digits or "") or int(digits or 0)
    words = tuple(found.group(0).split())
    # the number says how often, so no filter is read from it ("more than 3 times")
    filters = tuple(f for f in filters if not set(f.words) & set(words))
    cols = [c for c in p.best(("category", "label")) if c.name not in {f.column for f in filters}]
    label = p.label(exclude=[f.column for f in filters])
    cols = cols or ([label] if label is not None else [])
    if not cols or n < 1:
        return
    p.add(
        Plan(
            op="rank",
            group_by=cols[0].name,
            having=(_HOW[said], n),  # type: ignore[arg-type]
            listed=True,
            filters=filters,
            words=(*p.words(cols[0]), ("having", words)),
        ),
        f"the {cols[0].name} values whose rows number {found.group(0)}",
    )


#: The words of a run of rows one after another ("three consecutive wins", "a winning
#: streak", "five in a row", "straight wins": an adjective before a noun).
_IN_A_ROW = re.compile(r"\b(consecutive(?:ly)?|in a row|streak|straight)\b")


def streaks(p: Any, filters: tuple[Filter, ...]) -> None:
    """ "How many consecutive wins did they have?", "the longest winning streak": the
    longest run of rows that match the filters, one after another in the table's order.
    A noun after the run's word that names the table's time ("consecutive years") says
    what each row is, and is placed by the run."""
    r = p.r
    found = _IN_A_ROW.search(r.text)
    if found is None or not filters or r.expect in ("list", "boolean"):
        return
    said = found.group(0).split()
    at = r.tokens.index(said[-1]) if said[-1] in r.tokens else -1
    after = r.tokens[at + 1] if 0 <= at < len(r.tokens) - 1 else ""
    if said == ["straight"] and not (after.endswith("s") and is_noun(after)):
        return  # "a straight flush": no run
    if not (HOW_MANY.search(r.text) or r.high) or r.cues & TREND:
        return  # "which years were consecutive": no length; "years ... increase": a trend
    ends = tuple(t for t in r.tokens if t in r.up)  # "the most consecutive", "the longest"
    unit = [
        (n, (after,))
        for n, (_, ws) in r.named.items()
        if p.t.columns[n].role == "time" and (after in ws or singular(after) in ws)
    ]
    p.add(
        Plan(
            op="aggregate",
            agg="streak",
            filters=filters,
            words=(("run", (*said, *ends)), *unit[:1]),
        ),
        "the longest run of matching rows, in the table's order",
    )
