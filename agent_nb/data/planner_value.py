"""The planner's plans for a number or a name: one aggregate, a ranking, the row at an
extreme, a share with its base, two values set against each other, a correlation.

Each function takes the planner at work (``p``: its reading, its table, its
helpers) and adds candidates to it; `planner` calls `value` and `correlation`.
"""

from __future__ import annotations

import re
from typing import Any

from . import vocabulary
from .planner_cues import (
    counts_rows,
    default_agg,
    how_many_of,
    how_words,
    nth,
    nth_words,
    per,
    period,
    time_of,
)
from .planner_group import dimension, grouped, second_group
from .planner_pairs import choice, share, versus
from .planner_rows import (
    closest,
    distinct_count,
    first_in_time,
    how_long_held,
    neighbours,
    row_lookups,
    table_ends,
    when_lookup,
)
from .query import COMPARING, Agg, Plan
from .words import (
    ADDITIVE,
    AGG_WORDS,
    FILLER,
    HOW_MANY,
    MODE,
    RANKING,
    SHAPE,
    STOPWORDS,
    TREND,
    WHO,
    phrase,
    question_words,
    singular,
)

__all__ = ["value"]


#: Where the rows are shown, at the question's end: "on the chart", "in this list".
_WHERE_SHOWN = vocabulary.words("where_shown_nouns")
_SHOWN_THE = vocabulary.words("the_this")
_SHOWN_ON = vocabulary.words("on_in_from")
#: The words of a column's name that mark its high or low side ("temp_max", "Low").
_HIGH_PART = vocabulary.words("column_part_high")
_LOW_PART = vocabulary.words("column_part_low")
#: The words that ask for the table's size, where no column is named ("how big").
_SIZE_WORDS = vocabulary.words("table_size_words")
#: The count's own phrases, and nouns ("how many", "the number of").
_HOW_MANY = vocabulary.alternation("how_many_number_of")
_COUNT_NOUNS = vocabulary.words("number_count")
#: The words before a numeric column that make it a group ("which hour").
_GROUP_ASKED = vocabulary.alternation("which_what_each_per")
#: "the category with the smallest single price": the row's, not a group total.
_SINGLE = vocabulary.alternation("single_individual")
#: The question words that ask for a row, not the value ("who has the highest ...").
_ROW_WH_BUT_WHAT = vocabulary.alternation("row_asking_wh_words_but_what")
_ROW_WH = vocabulary.alternation("row_asking_wh_words")
#: "the type of the transaction with the highest price": the row at an extreme.
_OF_ROW_LINKS = vocabulary.alternation("of_row_links")
_OF_ROW_SUPERLATIVES = vocabulary.alternation_of(RANKING)
#: "how many different rounds": distinct values asked for.
_DISTINCT = vocabulary.alternation("distinct_words")


def _unplaced_tail(tokens: list[str]) -> list[str]:
    """``tokens`` without a closing "on the chart" (the rows' page, no part of what is
    asked: "what is the largest attendance on the chart?" ends on the measure)."""
    if (
        len(tokens) > 3
        and tokens[-1] in _WHERE_SHOWN
        and tokens[-2] in _SHOWN_THE
        and tokens[-3] in _SHOWN_ON
    ):
        return tokens[:-3]
    return tokens


def value(p: Any) -> None:
    """A number or a category: one aggregate, a ranking, the row at an extreme."""
    r, t = p.r, p.t
    filters = tuple(r.filters)
    fcols = p.filter_cols()
    measures = [c for c in p.best(("measure",), numeric=True) if c.role not in ("time", "id")]

    def covered(c: Any) -> bool:  # "author" names little of author_num_reviews
        # (a lone letter is no word to name: "Penalties (P+S)" is named by "penalties")
        parts = [w for w in c.parts if len(w) > 1]
        return len(parts) < 3 or 2 * len(set(parts) - r.named[c.name][1]) <= len(parts)

    if not any(covered(c) for c in measures) and re.search(rf"\b({_HOW_MANY})\b", r.text):
        measures = []  # "the number of reviews": rows, not author_num_reviews
    measures = [c for c in measures if covered(c)] or measures
    cue_words = {w for ws in AGG_WORDS.values() for w in ws} | _COUNT_NOUNS
    if len(r.named) > 1:  # "the total number of job roles": "total" names no TotalWorkingYears
        measures = [c for c in measures if not r.named[c.name][1] <= cue_words]
    used_by_filters = {w for f in filters for w in f.words}
    measures = [c for c in measures if not r.named[c.name][1] <= used_by_filters] or measures
    side = _HIGH_PART if r.high else _LOW_PART if r.low else frozenset()
    measures.sort(  # the best named first; at a tie, the fewest parts unnamed, a measure
        key=lambda c: (
            -r.named[c.name][0],
            len(set(c.parts) - r.named[c.name][1]),
            not set(c.parts) & side,
            c.role != "measure",
        )
    )
    agg = p.agg_cue()
    order = p.order()
    if (
        r.cues & SHAPE
        and not r.named
        and not r.values
        and (HOW_MANY.search(r.text) or _SIZE_WORDS & r.cues)
    ):
        p.add(Plan(op="shape"), "the table's size")
        return
    neighbours(p, filters)
    first_in_time(p, filters)
    how_long_held(p, filters)
    row_lookups(p, filters, agg)
    when_lookup(p, filters, agg)
    table_ends(p, filters)
    closest(p, filters)
    choice(p, filters, measures[0] if measures else None, agg)
    eq_cols = {f.column for f in filters if f.op in ("=", "in")}
    measures = [c for c in measures if c.name not in eq_cols] or (
        [] if agg in (None, "count", "share") else measures
    )
    nth_k = nth(r.text)
    if nth_k and measures:
        p.add(
            Plan(
                op="aggregate",
                measure=measures[0].name,
                agg="nth",
                k=nth_k,
                order=order,
                filters=filters,
                words=(*p.words(measures[0]), ("nth", nth_words(r.text))),
            ),
            f"the {nth_k}th {order} of {measures[0].name}",
        )
    common = MODE.search(r.text)
    if common and r.expect != "list":  # "the most common X": X's commonest value
        at = len(r.text[: common.start()].split())
        cols = [t.columns[n] for n in r.named if n not in fcols and t.columns[n].role != "id"]

        def synonym_only(c: Any) -> bool:
            return not (r.named[c.name][1] - (c.words - set(c.parts)))

        cols.sort(
            key=lambda c: (
                synonym_only(c),
                r.where.get(c.name, 0) < at,
                abs(r.where.get(c.name, 0) - at),
            )
        )
        if cols:
            least = common.group(0).startswith("least")
            p.add(
                Plan(
                    op="aggregate",
                    measure=cols[0].name,
                    agg="mode",
                    order="asc" if least else "desc",
                    filters=filters,
                    words=p.words(cols[0]),
                ),
                f"the {'least' if least else 'most'} common {cols[0].name}",
            )
    versus(p, filters, measures, agg)
    group = dimension(p, exclude=[])
    if group is not None and group.numeric and re.search(rf"\b({_GROUP_ASKED})\b", r.text):
        measures = [c for c in measures if c.name != group.name]  # "which hour": a group
    else:
        group = dimension(p, exclude=[m.name for m in measures[:1]])
    time = time_of(t)
    if (
        r.cues & TREND
        and time is not None
        and (measures or t.of("measure"))
        and not (group is not None and group.role != "time" and agg in ("mode", "nunique"))
    ):
        counted = not measures and agg == "count"  # "how did the number of penguins change"
        m = measures[0] if measures else t.of("measure")[0]
        each = (
            group
            if group is not None and group.role != "time" and per(r.text, group, r.table)
            else None
        )
        p.add(
            Plan(
                op="trend",
                measure=None if counted else m.name,
                agg="count"
                if counted
                else (agg if agg in ("sum", "mean", "median") else default_agg(m)),
                time=(group if group is not None and group.role == "time" else time).name,
                group_by=each.name if each else None,
                filters=tuple(f for f in filters if f.column != time.name),
                period=period(r.text, r.table),
                words=p.words(None if counted else m, each)
                + ((("rows", how_words(r.text)),) if counted else ()),
            ),
            f"a trend of {'the number of rows' if counted else m.name}",
            open_=not measures and not counted,
        )
    single = re.search(rf"\b({_SINGLE})\b", r.text)
    if group is not None and measures and agg in ("min", "max") and single:
        # "the category with the smallest single price": the row's, not a group total
        p.add(
            Plan(
                op="extreme",
                measure=measures[0].name,
                group_by=group.name,
                order=order,
                filters=filters,
                words=(*p.words(measures[0], group), ("row", (single.group(1),))),
            ),
            f"{group.name} of the row with the {order} {measures[0].name}",
        )
    if group is not None:
        grouped(p, group, measures, agg, order, filters)
    m = measures[0] if measures else None
    if m is not None and m.name in fcols and len(measures) > 1 and agg not in (None, "count"):
        m = next((c for c in measures if c.name not in fcols), m)
    if m is not None and agg in (None, "max", "min") and (r.high or r.low) and WHO.search(r.text):
        label = p.label(exclude=[m.name])
        if re.search(r"\bwhen\b", r.text) and time is not None:
            label = time
        # "What is the record set for assists?" asks for the value (the question ends on
        # the measure); "What is the most powerful car?" for a name
        # as does "What is the length of the longest name?" (it starts on the measure)
        rows = {singular(w) for w in phrase(t.name).split()}  # "the car with ...": a row
        quiet = STOPWORDS | FILLER
        content = [
            t for t in _unplaced_tail(r.tokens) if t not in quiet and singular(t) not in quiet
        ]
        ends = [singular(content[-1]), content[-1]] if content else []
        if content and singular(content[0]) in m.parts:  # its own name, not "powerful"
            ends.append(singular(content[0]))
        head = re.match(r"^\W*what(\s+is|\s+was|'s|\s+are)\s+the\s+(\w+)\s*(\w*)", r.text)
        # "what is the least population listed?": the superlative's own noun is the measure
        own = head is not None and head.group(2) in r.up | r.down
        value_asked = (
            head
            and singular(head.group(2)) not in rows
            and not re.search(rf"\b({_ROW_WH_BUT_WHAT})\b", r.text)
            and (
                any(w in r.named[m.name][1] for w in ends)
                or (own and singular(head.group(3)) in m.parts)
            )
        )
        if label is not None and re.search(rf"\b({_ROW_WH})\b", r.text) and not value_asked:
            p.add(
                Plan(
                    op="extreme",
                    measure=m.name,
                    group_by=label.name,
                    order=order,
                    filters=filters,
                    words=p.words(m, label),
                ),
                f"which {label.name} holds the {order} {m.name}",
            )
    of_row = re.search(
        rf"\b({_OF_ROW_LINKS})\s+(the\s+)?(\w+\s+){{0,2}}({_OF_ROW_SUPERLATIVES})\b", r.text
    )
    if of_row and len(r.named) >= 2 and group is None:
        cut = len(r.text[: of_row.start()].split())
        shown = [  # the best named first ("the product type of the transactions ...")
            c
            for c in p.best(("measure", "category", "label", "id", "time"))
            if r.where.get(c.name, 99) < cut and c.name not in fcols
        ]
        ranked = [c for c in measures if r.where.get(c.name, -1) >= cut]
        if shown and ranked:
            p.add(
                Plan(
                    op="extreme",
                    measure=ranked[0].name,
                    group_by=shown[0].name,
                    order=order,
                    filters=filters,
                    words=p.words(ranked[0], shown[0]),
                ),
                f"{shown[0].name} of the row with the {order} {ranked[0].name}",
            )
    cat = next(iter(p.best(("category", "label", "time", "id"), exclude=list(fcols))), None)
    if cat is not None and (
        agg in ("nunique", "count") or re.search(r"\b(combinations?|pairs?)\b", r.text)
    ):
        pair = second_group(p, cat)
        if pair is not None and re.search(
            r"\b(combinations?|pairs?|distinct|unique|different)\b", r.text
        ):
            p.add(
                Plan(
                    op="aggregate",
                    measure=cat.name,
                    agg="nunique",
                    group_by2=pair.name,
                    filters=filters,
                    words=p.words(cat, pair),
                ),
                f"distinct pairs of {cat.name} and {pair.name}",
            )
    asked_for = re.search(rf"\bhow many ((?:{_DISTINCT}) )?(\w+)", r.text)
    if agg == "count" and m is None and not filters:
        distinct_count(p)
    if (
        cat is not None
        and (cat.role == "category" or (asked_for is not None and asked_for.group(1)))
        and agg == "count"
        and m is None
        and asked_for is not None
        and any(w in r.named[cat.name][1] for w in question_words(asked_for.group(2)))
    ):
        p.aggregate(f"how many distinct {cat.name}", cat, "nunique", filters)
    if (
        cat is not None
        and agg in ("mode", "nunique")
        and (m is None or agg == "mode" or r.where[cat.name] < r.where.get(m.name, 99))
    ):
        p.aggregate(
            f"the {agg} of {cat.name}", cat, agg, filters, order=order if agg == "mode" else "desc"
        )
    if m is not None:
        if agg == "share" and filters:
            # "what percentage weigh over 5000 g": the measure is only the threshold's
            # column, so the share is of rows, not of the measure's total
            share(p, filters, None if m.name in {f.column for f in filters} else m)
        a: Agg = (
            agg
            if agg not in (None, "mode", "share")
            else ("count" if agg == "count" else default_agg(m))
        )  # ("how many different rounds": a column of numbers has distinct values too)
        row_noun = counts_rows(r.text, t)  # "how many transactions": transaction_id
        # "how many results were at least 45?": the rows whose value meets it, not their total
        compared = any(f.column == m.name and f.op in COMPARING for f in filters)
        adds_up = set(m.parts) & ADDITIVE or how_many_of(r.text, m)
        if agg == "count" and (row_noun or compared or not adds_up):
            p.add(
                Plan(
                    op="aggregate",
                    agg="count",
                    filters=filters,
                    words=(("rows", how_words(r.text)),),
                ),
                "how many rows",
            )
            a = "count"
        elif agg == "count":
            a = "sum"  # "how many passengers": the measure adds up
        if agg == "mode" and m.role == "measure":
            p.aggregate(f"the most common {m.name}", m, "mode", filters)
        # "name a car with more than 200 horsepower": no word asks to aggregate, and the
        # measure only picks the rows; a mean of it is asked by nothing
        if not (agg is None and m.name in fcols):
            p.aggregate(f"one number: the {a} of {m.name}", m, a, filters)
    if agg == "share" and filters:
        share(p, filters)
    if (
        m is None
        and agg in ("max", "min", "mean", "sum", "median")
        and t.of("measure")
        and (r.named or r.filters)
    ):
        pick = t.of("measure")[0]
        p.add(
            Plan(op="aggregate", measure=pick.name, agg=agg, filters=filters),
            f"the {agg} of {pick.name} (no measure named)",
            open_=len(t.of("measure")) > 1,
        )
    if agg == "nunique" and not p.best(("label", "category"), exclude=list(fcols)):
        label = p.label(exclude=list(fcols))
        if label is not None:  # "how many different athletes": the rows' names
            p.add(
                Plan(op="aggregate", measure=label.name, agg="nunique", filters=filters),
                f"distinct {label.name} (the column that names rows)",
                open_=True,
            )
    if filters and (WHO.search(r.text) or r.named) and not HOW_MANY.search(r.text):
        shown = [
            c for c in p.best(("label", "category", "measure", "id", "time")) if c.name not in fcols
        ]
        if shown:
            p.add(
                Plan(
                    op="lookup",
                    group_by=shown[0].name,
                    filters=filters,
                    words=p.words(shown[0]),
                ),
                f"{shown[0].name} in the matching row",
            )
    if filters or HOW_MANY.search(r.text):
        what = p.best(("label", "category"), exclude=list(fcols))
        if agg == "nunique" and what:
            p.add(
                Plan(
                    op="aggregate",
                    measure=what[0].name,
                    agg="nunique",
                    filters=filters,
                    words=p.words(what[0]),
                ),
                f"distinct {what[0].name}",
            )
        p.add(
            Plan(
                op="aggregate",
                agg="count",
                filters=filters,
                words=(("rows", how_words(r.text)),),
            ),
            "how many rows match",
        )
    if m is None and (r.high or r.low) and t.of("measure") and WHO.search(r.text):
        label = p.label()
        if label is not None:
            pick = t.of("measure")[0]
            p.add(
                Plan(
                    op="extreme",
                    measure=pick.name,
                    group_by=label.name,
                    order=order,
                    filters=filters,
                    words=p.words(label),
                ),
                f"which {label.name} holds the {order} {pick.name} (no measure named)",
                open_=True,
            )
