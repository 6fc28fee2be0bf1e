"""Plans whose answer is a list: distinct values, the top or bottom k, matching rows' values.

* "List the different marital statuses": a column's ``distinct`` values;
* "List the 5 most common ages": groups ranked by rows, their labels;
* "List the 3 players with the most rebounds": the rows at an extreme, the
  named label column's values (a ranking of groups when the label repeats:
  "the top 5 teams by total points");
* "List the university ratings of the top 5 CGPA scores": the rows at an
  extreme of the ranked measure, another column's values;
* "List the 5 lowest monthly incomes": the measure's own values;
* "List 5 lifters from the '74 kg' weight class": the values of the rows
  that match (the first ``k``).
"""

from __future__ import annotations

import re
from typing import Any, cast

from . import vocabulary
from .lexicon import time_column
from .query import Plan
from .words import AGG_WORDS, MODE, RANKING, singular, stem

__all__ = ["list_plans", "values_of"]

#: The words that make a list a ranking ("the top 5", "the 3 lowest").
_RANKING_WORDS = vocabulary.alternation_of(RANKING)
_RANKED = re.compile(rf"\b({_RANKING_WORDS})\b")

#: The words that name an id as such ("the 3 lowest ids", "the highest order number").
_ID_WORDS = vocabulary.words("id_words")
#: A time column read by periods ("the 4 most common years").
_PERIOD_NOUNS = vocabulary.alternation("year_month_day")
#: The ends of the table's order ("the first 3 rows").
_FIRST_LAST = vocabulary.alternation("first_last")
#: The count's own nouns ("the number of reviews").
_NUMBER = vocabulary.alternation("number_count")
_NUMBERS = vocabulary.alternation("number_count_plural")
#: The words that ask for distinct values ("the 3 highest different revenues").
_DISTINCT = vocabulary.alternation("distinct_words")
#: The words right before a column's name that put it beside the ranking ("states by ...").
_BESIDE = vocabulary.words("by_per_each")
#: The words that ask for the ranked values per group ("the top 5 teams by total points").
_PER_GROUP = vocabulary.alternation("by_per_for_each_overall")


def _entity(p: Any) -> Any:
    """The label column, when the question names the table's rows ("the 3 heaviest cars"
    over a table named cars; "which players ..." over a PLAYER column)."""
    r = p.r
    label = p.label()
    if label is None:
        return None
    names = {singular(r.table.name.lower()), r.table.name.lower(), *label.words}
    # (not a filter's words: "which students passed?" asks for students that did)
    applied = {w for f in r.filters for w in f.words}
    named = {w for _, ws in r.named.values() for w in ws} - set(label.words) - applied
    for i, t in enumerate(r.tokens):
        if singular(t) in names or t in names:
            after = r.tokens[i + 1] if i + 1 < len(r.tokens) else ""
            if singular(after) in named or after in named:
                return None  # "car weights": the weights, not the cars
            return label
    return None


def _period_named(text: str) -> Any:
    """ "the 4 most common years a guest stayed": a time column read by years."""
    m = re.search(rf"\b({_PERIOD_NOUNS})s?\b", text)
    return m.group(1) if m else None


def list_plans(p: Any) -> list[tuple[Plan, str]]:
    """The candidate plans of a question whose answer is a list (``p``: the planner)."""
    r = p.r
    out: list[tuple[Plan, str]] = []
    k = r.k or 1
    filters = tuple(r.filters)
    fcols = {f.column for f in filters}
    order = p.order()

    def top(why: str, **parts: Any) -> None:
        """A plan of the question's top or bottom k, in its order, of its matching rows."""
        out.append((Plan(order=order, k=k, listed=True, filters=filters, **parts), why))

    named = p.best(("measure", "category", "label", "id", "time"), numeric=True)
    named = named + [c for c in p.best(("category", "label", "id", "time")) if c not in named]

    others = list(named)  # the list is empty while it is sorted

    def modifier(c: Any) -> bool:  # "product codes": product_name only modifies the codes
        at = r.where.get(c.name, 0) + 1
        nxt = r.tokens[at] if at < len(r.tokens) else ""
        return any(o.name != c.name and nxt in r.named[o.name][1] for o in others) and (
            r.named[c.name][0] < 2
        )

    named.sort(
        key=lambda c: (
            modifier(c),
            r.where.get(c.name, 0),
            len(set(c.parts) - r.named[c.name][1]),
        )
    )
    free = [c for c in named if c.name not in fcols]
    distinct = bool(set(r.words) & AGG_WORDS["nunique"]) or "possible values" in r.text
    head = re.search(rf"\b({_FIRST_LAST})\s+(\d+|two|three|four|five|ten)\b", r.text)
    entity = _entity(p)
    if head and (free or entity):
        col = free[0] if free else entity
        assert col is not None
        out.append(
            (
                Plan(
                    op="values",
                    group_by=col.name,
                    filters=filters,
                    k=k,
                    listed=True,
                    order="asc" if head.group(1) == "last" else "desc",
                    words=(*p.words(col), ("rows", (head.group(1),))),
                ),
                f"{col.name} of the {head.group(1)} {k} rows",
            )
        )
    if entity is not None and not free and filters and not (r.high or r.low):
        out.append(
            (
                Plan(
                    op="values",
                    group_by=entity.name,
                    filters=filters,
                    k=k,
                    listed=r.k is not None,
                    words=p.words(entity),
                ),
                f"{entity.name} of the rows where " + " and ".join(f.describe() for f in filters),
            )
        )
    time = time_column(r.table)
    period = _period_named(r.text)
    by_rows = re.search(rf"\b({_NUMBER}) of (\w+)", r.text)
    if (
        time is not None
        and period
        and (_RANKED.search(r.text) or MODE.search(r.text))
        and by_rows
        and not any(  # "the number of reviews": rows, unless a column is named by it whole
            by_rows.group(2) in r.named[c.name][1] and len(c.parts) < 2 for c in free
        )
    ):  # "the top 4 years according to the number of reviews"
        top(
            f"the {k} {period}s of {time.name} with the most rows",
            op="rank",
            agg="count",
            group_by=time.name,
            period=period,
            words=(("time", (period, f"{period}s")), ("rows", tuple(by_rows.group(0).split()))),
        )
    counts = re.search(rf"\b({_NUMBERS}) of\b", r.text)
    mode = MODE.search(r.text)
    # "the number of stores for the 2 commonest", not "the 2 most popular stores in terms
    # of number of purchases"
    counts_asked = counts is not None and (mode is None or counts.start() < mode.start())
    if MODE.search(r.text) and free:
        col = free[0]
        top(
            f"the {k} {'most' if order == 'desc' else 'least'} common {col.name}",
            op="rank",
            agg="count",
            group_by=col.name,
            labels=not counts_asked,  # "the number of stores for the 2 commonest"
            period=_period_named(r.text) if col.role == "time" else None,
            words=p.words(col),
        )
    ranked = _RANKED.search(r.text) or (
        (r.high or r.low) and re.search("|".join(sorted(r.cues & (r.up | r.down))), r.text)
    )
    ranked_by = [c for c in free if entity is not None and c.name != entity.name and c.role != "id"]
    measure = next(
        (c for c in ranked_by if c.role == "measure"), ranked_by[0] if ranked_by else None
    )
    if (
        ranked
        and measure is not None
        and entity is not None
        and all(c.numeric for c in ranked_by)
        # "the 3 players with the most points": names; "the top 3 points by a player": values
        and r.where.get(measure.name, 0) > r.where.get(entity.name, 0)
    ):
        top(
            f"the {k} {entity.name} with the {order} {measure.name}",
            op="extreme",
            measure=measure.name,
            group_by=entity.name,
            words=p.words(measure, entity),
        )
    if ranked and free:
        after = len(r.text[: ranked.end()].split())
        measures = [c for c in free if c.numeric and c.role == "measure"] or [
            c
            for c in free
            if c.numeric
            and (c.role == "category" or (c.role == "id" and r.named[c.name][1] & _ID_WORDS))
        ]  # an id is ranked where the question says so ("the 3 lowest ids"), not by "products"
        by = sorted(
            measures,
            key=lambda c: (r.where.get(c.name, 0) < after - 1, abs(r.where.get(c.name, 0) - after)),
        )

        def own(c: Any) -> set[str]:  # the words that name it, synonyms aside
            return set(r.named[c.name][1] - (c.words - set(c.parts)))

        by.sort(key=lambda c: not own(c))  # stable: a column named by its own words first
        measure = by[0] if by else None
        taken = set(r.named[measure.name][1]) if measure is not None else set()
        if measure is not None:  # a synonym of the measure ("weight" of kg) leaves a part
            stems = {stem(x) for x in measure.parts}
            taken = {w for w in taken if w in measure.parts or stem(w) in stems} or taken
        shown = [
            c
            for c in free
            if (measure is None or c.name != measure.name)
            and own(c)
            and not (own(c) & taken)  # one word names one column
            and not any(  # "single-product price": "product" names four columns, none shown
                o.name != c.name and own(o) == own(c) for o in free
            )
            and c.role != "id"
            # "the SOP of the top 5 ...", "the bottom 3 states by ...": named first or
            # right after the ranking
            and (
                r.where.get(c.name, 99) <= after + 2
                or r.tokens[max(0, r.where.get(c.name, 0) - 1)] in _BESIDE
            )
        ]
        unique = re.search(rf"\b({_DISTINCT})\b", r.text)
        if measure is not None and unique is None:
            unique = values_of(r, measure)
        if re.search(r"\bnon[- ]?unique\b|\brepeat(ed|s)?\b|\bduplicates?\b", r.asked.lower()):
            unique = None
        if measure is not None and unique and measure.numeric:
            # "the 3 highest different revenues", "the lowest 4 price values": distinct values
            top(
                f"the {k} {'highest' if order == 'desc' else 'lowest'} distinct {measure.name}",
                op="distinct",
                measure=measure.name,
                words=(*p.words(measure), ("distinct", (unique.group(1),))),
            )
        if measure is not None:
            if shown:
                show = shown[0]
                agg = p.agg_cue()
                repeats = show.role != "label" or show.nunique < 0.9 * len(r.table.df)
                grouped = re.search(rf"\b({_PER_GROUP})\b", r.text)
                if (
                    repeats
                    and (grouped or agg in ("sum", "mean"))
                    and show.role in ("category", "label")
                ):
                    a = (
                        agg
                        if agg in ("sum", "mean", "median", "max", "min", "range", "std")
                        else "sum"
                    )
                    values_asked = r.where.get(measure.name, 99) < r.where.get(show.name, 0)
                    top(
                        f"the {k} {show.name} with the {order} {a} of {measure.name}",
                        op="rank",
                        measure=measure.name,
                        agg=cast(Any, a),
                        group_by=show.name,
                        labels=not values_asked,
                        words=p.words(measure, show),
                    )
                top(
                    f"{show.name} of the {k} rows with the {order} {measure.name}",
                    op="extreme",
                    measure=measure.name,
                    group_by=show.name,
                    words=p.words(measure, show),
                )
            top(
                f"the {k} {'highest' if order == 'desc' else 'lowest'} {measure.name}",
                op="extreme",
                measure=measure.name,
                words=p.words(measure),
            )
        elif free and not distinct:
            col = free[0]
            top(
                f"the {k} {col.name} with the {'most' if order == 'desc' else 'fewest'} rows",
                op="rank",
                agg="count",
                group_by=col.name,
                words=p.words(col),
            )
    if free:
        col = free[0]
        if distinct or not filters:
            out.append(
                (
                    Plan(op="distinct", measure=col.name, filters=filters, words=p.words(col)),
                    f"the distinct values of {col.name}",
                )
            )
        if filters:
            out.append(
                (
                    Plan(
                        op="values",
                        group_by=col.name,
                        filters=filters,
                        k=k,
                        listed=r.k is not None,
                        words=p.words(col),
                    ),
                    f"{col.name} of the rows where " + " and ".join(f.describe() for f in filters),
                )
            )
            out.append(
                (
                    Plan(op="distinct", measure=col.name, filters=filters, words=p.words(col)),
                    f"the distinct values of {col.name} where "
                    + " and ".join(f.describe() for f in filters),
                )
            )
    return out


def values_of(r: Any, measure: Any) -> re.Match[str] | None:
    """ "the lowest 4 price values", "the 3 highest values of X": the values ``measure``
    takes, each once (its rows' values, repeats kept, when the question says so: "the 5
    (non-unique) highest values", "even if they are repeated"). A question that allows
    fewer than k ("if there are less than 3, list as many as there are") reads the same."""
    ws = r.named[measure.name][1]
    at = [i for i, t in enumerate(r.tokens) if t in ws or singular(t) in ws]
    if not at:
        return None
    after = " ".join(r.tokens[max(at) + 1 : max(at) + 2])
    before = " ".join(r.tokens[max(0, min(at) - 3) : min(at)])
    if after == "values" or re.search(r"\bvalues (of|for)( the)?$", before):
        return re.search(r"\b(values)\b", r.text)
    return re.search(r"\b(as many as there are)\b", r.asked.lower())
