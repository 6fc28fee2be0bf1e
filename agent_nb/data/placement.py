"""Which of a question's left-out words would change its answer: the gate before a value.

A reader trusts a stated value, so the data agent states one only when every
content word of the question is placed (docs/data.md, "Answer only what was
understood"). `answer` finds the words no part of the plan used
(`reading.unused_words`); this module sorts them, by a table of rules, into
words that change nothing (said in a note) and words that would change the
answer (the answer then has no value: the reply says what it read and what
it could not place).

Each rule is a row of `RULES`: a name, a test over one left-out word in its
question, and why it blocks. One loop (`unplaced`) applies them; a new kind
of blocking word is a new row. The tests read only the question's own
structure (where a word stands next to the words that named a column) and
the table (its columns' words and values, what the lexicon derives from
them): no English content-word list.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Iterable
from typing import Any

from . import vocabulary
from .lexicon import kinds_of_values
from .planner_cues import period_of
from .query import AGG_NAME, LOOKUP_ENDS, Plan
from .reading import Reading
from .reading_outcomes import WORDS as OUTCOME_WORDS
from .reading_outcomes import recorders
from .row_nouns import counting_columns, names_rows, row_name_columns
from .table import Column, Table, holds_years, years_written
from .word_classes import (
    AUX,
    CLOSED,
    COMPARISON_STARTS,
    COMPLEX_PREPOSITIONS,
    DETERMINERS,
    GENERIC,
    LINKS,
    NEUTRAL,
    OCCURRENCES,
    OPERATING,
    a_kind_of_character,
    a_time,
    forms,
    is_noun,
    marked_kind,
    parts_of,
)
from .words import (
    AGG_WORDS,
    ASKING,
    COMPARATORS,
    HOW_MANY,
    MISSING,
    MODE,
    NEGATION,
    NUMBER,
    QUANTITIES,
    STOPWORDS,
    phrase,
    singular,
)

__all__ = [
    "RULES",
    "Rule",
    "Unplaced",
    "means_column",
    "placed_by_plan",
    "shown_column",
    "unplaced",
]


@dataclasses.dataclass(frozen=True)
class Unplaced:
    """A word the plan could not place, and why it matters; or (``asked`` False) a part
    of the plan no word asked for, named by ``word`` ("a count", "a mean")."""

    word: str
    why: str
    asked: bool = True
    # the word is understood, and the answer is of another form than it asks for (a
    # place, a time, one of several rows): a rewording helps, a data context does not
    form: bool = False


@dataclasses.dataclass(frozen=True)
class _Ask:
    """One left-out word in its question: what the rules read."""

    r: Reading
    plan: Plan
    index: int  # the word's place among the question's tokens
    word: str
    plan_columns: frozenset[str]
    used: frozenset[str]  # every question word some part of the plan used

    @property
    def before(self) -> str:
        """The question's word before this one ("" at the start)."""
        return self.r.tokens[self.index - 1] if self.index > 0 else ""

    @property
    def after(self) -> str:
        """The question's word after this one ("" at the end)."""
        tokens = self.r.tokens
        return tokens[self.index + 1] if self.index + 1 < len(tokens) else ""


@dataclasses.dataclass(frozen=True)
class Rule:
    """A rule over one left-out word: ``test`` returns why it applies, or None; a
    blocking rule's word would change the answer, a placing rule's changes nothing."""

    name: str
    test: Callable[[_Ask], str | None]
    blocks: bool


def _names_other_column(a: _Ask) -> str | None:
    """The word names, with the question's other words, the whole of a column the plan
    does not use ("minutes" of MIN, "games played" of GP). One word of a longer name
    ("reviews" of author_num_reviews) names the table's rows as often as the column."""
    mine = forms(a.word)
    for name, (_, ws) in a.r.named.items():
        col = a.r.table.columns[name]
        if name in a.plan_columns or not col.parts:
            continue
        # a label column names the rows: "a player" is a row of PLAYER; a column of
        # numbers or dates, one per row, is asked for by "the density of", "the year of"
        asked_of = (col.numeric or col.role == "time") and a.after == "of"
        if names_rows(col, a.r.table) and not asked_of:
            continue
        # the name's words before a bracketed unit ("Density (ab/km²)": density)
        head = {singular(w) for w in phrase(re.split(r"[(\[]", name)[0]).split()}
        parts = [p for p in col.parts if p in head] or list(col.parts)
        if not any(mine & forms(p) for p in parts):
            continue
        said = {x for w in ws for x in forms(w)} | mine
        if all(forms(p) & said for p in parts):
            return f"it names the column {name}, which the answer does not use"
    return None


def _form_names_a_column(a: _Ask) -> str | None:
    """A form of the word is the whole one-word name of a column of numbers the plan
    does not use, though the reading did not name it: "races won" of Wins. (Not a time:
    "dated before", "timed in after" read the rows in the order its values run, which
    the first row, and a row before or after another, in the table's order, follow.)"""
    mine = forms(a.word)
    for name, col in a.r.table.columns.items():
        if name in a.plan_columns or name in a.r.named or not col.numeric or col.role == "time":
            continue
        if col.in_order and (a.plan.offset or a.plan.op == "lookup"):
            continue  # "drawn first" of Draw: the first row
        if len(col.parts) == 1 and mine & forms(col.parts[0]):
            return f"it names the column {name}, which the answer does not use"
    return None


def _agent_names_a_column(a: _Ask) -> str | None:
    """The word's doer (WordNet's derivation: owned -> owner, directed -> director) heads
    the name of a column the plan does not use: "who owned the last locomotive" asks
    about Original Owner, not the row's Name."""
    from .wordnet import bases

    doers = {
        b.word for b in bases(a.word) if b.via == "derivation" and b.word.endswith(("er", "or"))
    }
    if not doers or doers & {singular(t) for t in a.r.tokens}:
        return None  # "how many riders rode ...": the rows are its doers
    if a.before in a.used:
        return None  # "did the Detroit Tigers play ...": a placed value is its doer
    after = a.r.tokens[a.index + 1 : a.index + 3]
    if {" ".join(after), *after[:1]} & COMPARISON_STARTS:
        return None  # "built after 1900": when, which a filter of the plan applies
    for name, col in a.r.table.columns.items():
        if name in a.plan_columns or not col.parts or col.numeric:
            continue
        if col.parts[-1] in doers or singular(col.parts[-1]) in doers:
            return f"it asks about {name} (its {col.parts[-1]}), which the answer does not use"
    return None


def _names_value(a: _Ask) -> str | None:
    """The word is (part of) a value of the table that no filter of the plan applies."""
    for v in a.r.values:
        if a.word in v.words and not set(v.words) & a.used:
            return f"it names the value {v.value!r} of {v.column.name}, which is not applied"
    return None


def _held_by_cells(a: _Ask) -> str | None:
    """ "How many were sunk?" over a Fate column that says which ships were: a word the
    table's cells hold picks out some rows, and a count of every row does not apply it.
    (Not the table's place in "listed in the chart": the object of a preposition.)"""
    plan = a.plan
    if plan.op != "aggregate" or plan.agg != "count" or plan.filters or plan.condition:
        return None
    if a.before in DETERMINERS and a.index >= 2 and a.r.tokens[a.index - 2] in CLOSED | LINKS:
        return None
    mine, df = forms(a.word), a.r.table.df
    for col in a.r.table.columns.values():
        if col.role not in ("label", "category") or col.numeric:
            continue
        held = [v for k, v in col.values.items() if mine & set(phrase(k).split())]
        cells = df[col.name].dropna()
        if held and not cells.isin(held).all():  # ("Released: 1990" in every row: no pick)
            return f"{col.name} holds '{a.word}' in some rows, and the answer counts every row"
    return None


def _names_an_outcome(a: _Ask) -> str | None:
    """ "won", "lost" over a table that records that outcome in columns the plan does
    not read: a column of results ("who won the first game?" of a team's season: the
    opponent of that game lost), a column named for the side ("Loser" where the plan
    reads Winner: "how many times did A lose to B"), the count of it ("Wins" where the
    plan sums Games), or the word among a column's values (Result: Won, Nominated)."""
    if a.word not in OUTCOME_WORDS:
        return None
    if a.before and a.plan.measure and a.before in _words_of([a.plan.measure], a.r.table):
        return None  # "votes won", "earnings won": what was won is the plan's measure
    kind = OUTCOME_WORDS[a.word]
    found = recorders(a.r.table, kind, a.r.outcomes)
    if not found or found & a.plan_columns:
        return None
    what = {"w": "wins", "l": "losses", "d": "draws"}[kind]
    return f"{sorted(found)[0]} records the {what}, and the answer does not read it"


def _part_of_a_value(a: _Ask) -> str | None:
    """The word is one word of a longer name in the table ("brown" of Brown University)
    that no filter applies: it names that row, and the answer is over others."""
    for col in a.r.table.columns.values():
        if col.role not in ("label", "category") or col.listy:
            continue
        # a word of a short name, written as one ("Brown" of Brown University)
        hits = [
            v for k, v in col.values.items()
            if a.word in phrase(k).split() and len(k.split()) <= 4 and _a_name(str(v))
        ]  # fmt: skip
        if 0 < len(hits) <= 2:  # a word of many names ("album", "club") names none
            return f"it is part of the value {hits[0]!r} of {col.name}, which is not applied"
    return None


def _the_tables_subject(a: _Ask) -> str | None:
    """ "How many games did this team play in 1982?": a noun after "this" that names no
    column or value of the table points at what the whole table is about (the team
    whose games it lists), not at any of its rows."""
    if a.index < 1 or a.r.tokens[a.index - 1] != "this" or not is_noun(a.word):
        return None
    return None if names_a_column(a.word, a.r.table) else "it names what the table is about"


def _a_name(text: str) -> bool:
    """Written as a name: each longer word capitalised ("Brown University", "El Campo")."""
    words = [w for w in re.findall(r"[^\W\d_]+", text) if len(w) > 3]
    return bool(words) and all(w[0].isupper() for w in words)


def _unit_not_applied(a: _Ask) -> str | None:
    """A unit stated with a number ("more than 5 meters") that the plan did not convert
    to its column's: the number would be compared in another unit."""
    from .units import quantities

    for q in quantities(a.r.question):
        if a.word in {w for x in q.words[1:] for w in phrase(x).split()}:
            return f"'{' '.join(q.words)}' is in {q.unit.name}s, and no column read is"
    return None


def _unit_of_the_attribute(word: str, plan: Plan, r: Reading) -> bool:
    """Whether ``word`` is the unit of a quantity said with the adjective of the attribute
    a plan column measures, after the unit ("20 years old") or as the comparative before
    the number ("older than 20 years"): an age in years, the column's own (Age). Only a
    unit of time, over a column that names no unit: "taller than 6 feet" of a Height with
    no unit stays unplaced (its metres are not feet), and a column of times taken
    ("3:45", read in seconds) converts "3 minutes long"."""
    from .units import column_unit, quantities

    columns = r.table.columns
    kept = [
        c for c in plan.columns()
        if c in columns and not columns[c].duration and column_unit(c) is None
    ]  # fmt: skip
    for q in quantities(r.question):
        if q.unit.dimension != "[time]":
            continue
        if word not in {w for x in q.words[1:] for w in phrase(x).split()}:
            continue
        before = [t for t in phrase(r.question[: q.span[0]]).split()[-2:] if t != "than"]
        after = phrase(r.question[q.span[1] :]).split()[:1]
        if any(_measures_attribute(w, kept, r.table) for w in (*after, *before[-1:])):
            return True
    return False


def _answer_unit(a: _Ask) -> tuple[str, str] | None:
    """ "in kilograms": the unit the question asks the answer in, beside the unit of
    the plan's measure (pint names both), when both are stated and of one dimension."""
    from .units import column_unit, word_unit

    if a.index < 1 or a.r.tokens[a.index - 1] != "in" or a.plan.measure is None:
        return None
    asked, own = word_unit(a.word), column_unit(a.plan.measure)
    if asked is None or own is None or asked.dimension != own.dimension:
        return None
    return asked.name, own.name


def _unit_of_the_answer(a: _Ask) -> str | None:
    units = _answer_unit(a)
    return None if units is None or units[0] != units[1] else "the answer's own unit"


def _another_unit(a: _Ask) -> str | None:
    units = _answer_unit(a)
    if units is None or units[0] == units[1]:
        return None
    return f"it asks for the answer in {units[0]}s, and the answer is in {units[1]}s"


def _asks_each(a: _Ask) -> str | None:
    """ "per island" asks for every group's value; a plan over all rows does not give it."""
    if a.word != "per" or a.plan.group_by is not None:
        return None
    after = set(a.r.tokens[a.index + 1 : a.index + 3])  # "per island", "per each island"
    if not any(after & {x for w in ws for x in forms(w)} for _, ws in a.r.named.values()):
        return None  # "per cent", "miles per gallon"
    return "it asks for a value per group, and the answer is one value"


def _names_the_rows(a: _Ask) -> str | None:
    """A noun between a determiner and a link names the rows, not a column or a value:
    "any applicant with ...", "a single season?", "the players who ..."."""
    if a.word in _COMPUTED:
        return None  # "the difference in attendance": a computation, never the rows
    i = a.index - 1
    while i >= 0 and a.r.tokens[i] in NEUTRAL:
        i -= 1
    before = a.r.tokens[i] if i >= 0 else ""
    after = a.after
    if before in DETERMINERS and (not after or after in LINKS):
        return "it names the rows"
    return None


def _part_of_a_row_name(a: _Ask) -> str | None:
    """A word of the name of a column that tells the rows apart names the rows:
    "product" of product_id, "lifter" of Lifter Name ("single-product price")."""
    cols = _row_name_columns(a)
    return f"it names the rows ({cols[0].name})" if cols else None


def _row_name_columns(a: _Ask) -> list[Column]:
    return row_name_columns(a.word, a.r.table)


def _repeats_kept(a: _Ask) -> str | None:
    """ "non-unique" keeps repeated values: every plan but a distinct one does."""
    if a.word == "non" and a.after in ("unique", "distinct") and a.plan.op != "distinct":
        return "the plan keeps repeated values"
    return None


def _quantity_of(a: _Ask) -> str | None:
    """ "the amount of X", "the quantity of X": as "the number of", X itself."""
    word = singular(a.word)  # "the amounts of the lowest 5 incomes": the incomes
    if word in QUANTITIES and a.r.tokens[a.index + 1 : a.index + 2] == ["of"]:
        return "'the amount of X' is X"
    return None


def _repeats_a_comparison(a: _Ask) -> str | None:
    """ "at least 25 or more": "or more" says again what the applied "at least" says."""
    if a.word not in _OR_COMPARATIVES or a.r.tokens[a.index - 1 : a.index] != ["or"]:
        return None
    same = (">=", ">") if a.word == "more" else ("<=", "<")
    if any(f.op in same for f in (*a.plan.filters, *a.plan.condition)):
        return "it repeats a comparison the plan applies"
    return None


#: Comparatives that, after "or", repeat a bound ("or more").
_OR_COMPARATIVES = vocabulary.words("or_comparatives")


def _unit_of_the_number_after(a: _Ask) -> str | None:
    """ "in the year 1944", "after minute 80": a unit naming the number right after it,
    which a part of the plan applies (the filter on 1944)."""
    from .units import word_unit

    number = next((s for s in a.r.stated if s.start == a.index + 1), None)
    if number is None or not set(number.words) & a.used or word_unit(a.word) is None:
        return None
    return f"it names the unit of {number.text}"


def _closed_class(a: _Ask) -> str | None:
    if a.word in CLOSED:
        return "a closed-class word"
    if a.word == "per" and a.r.tokens[a.index + 1 : a.index + 2] == ["cent"]:
        return "'per cent' is percent"

    around = " ".join(a.r.tokens[max(0, a.index - 2) : a.index + 3])
    if any(p in around and a.word in p.split() for p in COMPLEX_PREPOSITIONS):
        return "part of a preposition"
    return None


#: Prepositions that set the rows against a side ("played against Haiti"): placed by
#: the value they introduce, which a filter applies.
_SIDES = frozenset(("against", "versus", "vs"))


def _introduces_a_placed_value(r: Reading, index: int, used: set[str]) -> bool:
    """Whether the word at ``index`` sets the rows against a value a filter applies
    ("played against Haiti"): placed by that value, so no note names it."""
    if r.tokens[index] not in _SIDES:
        return False
    rest = [t for t in r.tokens[index + 1 : index + 3] if t not in DETERMINERS]
    return bool(rest) and rest[0] in used


def _verb_of_a_placed_part(a: _Ask) -> str | None:
    """A verb that links the rows to a part the plan placed: "players scored more than
    3000", "reviews written in 2024", "products that were sold"."""
    before = a.before
    after = a.r.tokens[a.index + 1 : a.index + 3]
    own, inflected = parts_of(a.word)
    # a word WordNet does not know at all is a name more often than a verb: "did
    # Vidir have" names a team the table writes "Víðir"
    verb = "v" in own or "v" in inflected
    if before in AUX and (a.word.endswith(("ed", "en", "ing")) or (verb and not is_noun(a.word))):
        return "it links the rows to what the plan reads"
    compared = after and (after[0] in a.used or " ".join(after) in COMPARISON_STARTS)
    if compared and (a.word.endswith(("ed", "en", "ing", "s")) or before in AUX):
        return "it links the rows to what the plan reads"
    return None


def _predicate_noun(a: _Ask) -> str | None:
    """ "how many drafted players **were quarterbacks**?": a plural noun after "were" that
    follows the rows' own plural noun says what those rows are, a condition no part of
    the plan applies ("who were the winners?" asks for the winners, and is not one)."""
    i = a.index - 1
    while i >= 0 and a.r.tokens[i] in DETERMINERS:
        i -= 1
    if i < 1 or a.r.tokens[i] not in _COPULAS or not is_noun(a.word):
        return None
    _, inflected = parts_of(a.word)
    if "v" in inflected and not a.word.endswith("s"):
        return None  # "medals were won by Kenya": a passive verb, not what the rows are
    subject = a.r.tokens[i - 1]
    if subject in STOPWORDS or subject in CLOSED or not is_noun(subject):
        return None
    if singular(subject) == subject or singular(a.word) == a.word or subject in OCCURRENCES:
        return None  # both plural: "how many times were goals scored" counts occasions
    return f"'{a.r.tokens[i]} {a.word}' says what the rows are, and no part of the plan applies it"


#: The plural copulas: "players were quarterbacks" (a singular one links a name too
#: often: "how many times was Nina Hagen the Evil Queen?").
_COPULAS = vocabulary.words("plural_copulas")


def _orders_in_time(a: _Ask) -> str | None:
    """ "which school was the first to be closed?" read as the table's first row: the word
    is the rest of a column's name that a time noun heads ("closed" of Year Closed,
    "opened" of Date Opened), which says when each row's event was, so the first or
    last in time is by that column, not by the table's layout."""
    plan = a.plan
    if plan.op != "lookup" or not LOOKUP_ENDS.keys() & set(a.r.tokens):
        return None
    mine = forms(a.word)
    for name, col in a.r.table.columns.items():
        if name in a.plan_columns or len(col.parts) < 2:
            continue
        if col.numeric and not holds_years(a.r.table.df[name]):
            continue  # a count of days or weeks: how long, not when
        if any(a_time(singular(w)) and singular(w) != w for w in phrase(name).split()):
            continue  # "Days held": a plural of time is a length of time
        rest = [p for p in col.parts if not a_time(p)]
        # every other word of the name is said, this one among them ("which district was
        # first to have a successor seated?" of Date successor seated)
        said = mine | {x for t in a.r.tokens for x in forms(t)}
        if (
            len(rest) < len(col.parts)
            and any(forms(p) & mine for p in rest)
            and all(forms(p) & said for p in rest)
        ):
            return f"it names {name}, which orders the rows in time: the table's order is not it"
    return None


def _an_event_out_of_order(a: _Ask) -> str | None:
    """ "who was the first player born?" read as the table's first row: an inflected verb
    says the rows' event, and a column of years or dates whose years go back and forth
    down the table (Date of birth) says the rows are not in the order the events came;
    the first in time is not the first row. A table whose years run in order is read
    in it ("the first film released in 2002")."""
    plan = a.plan
    if plan.op != "lookup" or plan.measure is not None or plan.offset:
        return None  # not the first or last row in the table's order ("the one after X")
    if "order" not in dict(plan.words) or "v" not in parts_of(a.word)[1]:
        return None  # no inflected verb: "born", "held", "scrapped"
    if set(a.r.tokens) & vocabulary.words("listed_order_words"):
        return None  # "the first listed", "last on the chart": the table's order is meant
    mine = forms(a.word)
    # (numbers in order: a text column counts as in order only because it is not compared)
    ranked = [c for c in a.r.table.columns.values() if c.numeric and c.in_order]
    if any(mine & forms(p) for c in ranked for p in c.parts):
        return None  # "the last ranking player" of a Rank in order: the table's order is it
    df = a.r.table.df
    for name in a.r.table.columns:
        years = years_written(df[name])
        if years is not None and _back_and_forth(years):
            return f"it says the rows' event, and the years of {name} are not in the table's order"
    return None


def _back_and_forth(years: Any) -> bool:
    """Whether ``years`` go up and down the table, twice each at least: one cell out of
    place ("14 July 2013" among a season's 2009 dates) leaves a table in its order."""
    steps = years.diff().dropna()
    return min(int((steps > 0).sum()), int((steps < 0).sum())) >= 2


def _an_alternative(a: _Ask) -> str | None:
    """ "Trains that were either scrapped or destroyed": a word joined by "or" to a word of
    a value the plan applies is another value asked for, which the plan does not test."""
    t = a.r.tokens
    applied = {w for f in (*a.plan.filters, *a.plan.condition) for w in f.words}
    for link, other in ((a.index - 1, a.index - 2), (a.index + 1, a.index + 2)):
        if 0 <= other < len(t) and t[link] in ("or", "nor") and t[other] in applied:
            return f"it is joined by {t[link]!r} to {t[other]!r}, a value applied alone"
    return None


def _verb_form(a: _Ask) -> str | None:
    own, inflected = parts_of(a.word)
    if "v" in inflected and a.word.endswith(("ed", "ing")):
        return "a verb form"
    if own == {"v"} or (not own and set(inflected) == {"v"}):
        return "a verb"
    # between its subject and a preposition or a placed part: "penguins live on",
    # "cars made in", "passengers flew in" (an irregular form WordNet does not list);
    # past a negated auxiliary ("penguins did not live on": the negation is the filter's)
    i = a.index - 1
    while i > 0 and a.r.tokens[i] in NEGATION and a.r.tokens[i - 1] in AUX:
        i -= 2
    before = a.r.tokens[i] if i >= 0 else ""
    after = a.after
    subject = bool(before) and (is_noun(before) or before in a.used) and before not in STOPWORDS
    linked = not after or after in STOPWORDS or after in CLOSED or after in a.used
    verb = "v" in own or "v" in inflected or not (own or inflected)  # or a form WordNet lacks
    if subject and linked and verb and not is_noun(a.word):
        return "a verb between its subject and what it links"
    return None


def _compound_name(a: _Ask) -> str | None:
    """A word that, with the word beside it, makes one name the dictionary knows ("the
    United Kingdom", "the United States", "New Zealand") after a preposition of place or
    time ("riders from the United Kingdom"): the name says where the rows are, and no
    part of the plan places it. Read alone, "united" would be a verb and "kingdom" the
    rows' noun."""
    from .wordnet import parts_of_speech

    t, i = a.r.tokens, a.index
    for start in (i - 1, i):
        pair = t[start : start + 2] if start >= 0 else []
        if len(pair) < 2 or set(pair) & (STOPWORDS | CLOSED) or set(pair) & a.used:
            continue
        if "n" not in parts_of_speech(" ".join(pair)):
            continue
        j = start - 1
        while j >= 0 and t[j] in DETERMINERS | NEUTRAL:
            j -= 1
        if j >= 0 and t[j] in _PLACES:
            return f"'{' '.join(pair)}' says where the rows are, and nothing in the plan places it"
    return None


#: Prepositions whose object restricts the rows (where, when, against what) rather than
#: naming them ("how many of the players", "the gap between lifters" name them).
_PLACES = (CLOSED | LINKS) - AUX - {"of", "with", "between", "among", "amongst", "whose", "whom"}


def _head_noun(a: _Ask) -> str | None:
    """A noun that heads its phrase (the next word is no noun) and names nothing in the
    table: what the rows are ("applicants with ...", "products listed", "an employee
    older than ..."). A noun before a noun qualifies it ("English score") and is not."""
    own, _ = parts_of(a.word)
    if not is_noun(a.word) or (own and own <= {"a"}):
        return None
    if a.word in _ENDS or a.word in _COMPUTED or a.r.side(a.word):
        return None  # "the last to coach", "the highest", "the difference": never the rows
    if a.word != "one" and NUMBER.fullmatch(a.word):
        return None  # "episode two": a number, a value to place ("the only one" is none)
    i = a.index - 1
    while i >= 0 and a.r.tokens[i] in DETERMINERS | NEUTRAL:
        i -= 1
    if i >= 0 and a.r.tokens[i] in _PLACES:
        return None  # "from alabama", "at home", "in the season": a place the rows are in
    nxt = a.after
    if nxt and not nxt.isdigit() and nxt not in STOPWORDS | CLOSED and is_noun(nxt):
        _, inflected_next = parts_of(nxt)
        if not ("v" in inflected_next and nxt.endswith(("ed", "ing"))):
            return None
    return "it names the rows"


#: Nouns that name a computation on values ("the difference in attendance"), which
#: only a plan that computes it places.
_COMPUTED = vocabulary.words("computation_nouns")
_DIFFERENCES = frozenset(("difference", "gap", "margin"))

#: Nouns of an order's ends ("the last to win", "the next"): a place in an order.
_ENDS = vocabulary.words("order_ends")


def _kind_of_a_plan_column(a: _Ask) -> bool:
    """The word names a plan column by its kind: "athletes" of Lifter Name (a lifter is
    an athlete)."""
    from .wordnet import hypernyms

    mine = forms(a.word)
    periods = {"year", "month", "day", "date", a.plan.period or "year"}
    for name in a.plan_columns:
        col = a.r.table.columns.get(name)
        if col is not None and col.role == "time" and mine & periods:
            return True  # "which year" of a date column
        parts = col.parts if col is not None else ()
        if mine & {k for p in parts for k in (p, *hypernyms(p, 1, senses=1)[:2])}:
            return True
    return False


def _measured(a: _Ask) -> str | None:
    """The noun a superlative applies to is what is measured ("the longest name"): when
    the plan measures something else, the answer is not to this question ("the least
    amount of votes": what is measured is the votes)."""
    before, i = a.before, a.index - 1
    counts = a.plan.measure is None or a.plan.agg in ("count", "mode")
    if before == "of" and i >= 2 and singular(a.r.tokens[i - 1]) in QUANTITIES:
        measure = a.r.table.columns.get(a.plan.measure or "")
        if counts or (measure is not None and measure.words & (QUANTITIES | {"count"})):
            return None  # "the largest amount of events": the rows, or a quantity, count them
        before = a.r.tokens[i - 2]
    if counts and before in vocabulary.words("counted_quantifiers"):
        return None  # "the most products": the rows counted
    superlative = before.endswith("est") or before in vocabulary.words("superlatives_without_est")
    superlative = superlative and before in a.r.up | a.r.down
    # "the average price"; not "the average employee" (the rows), nor the "average" of
    # a column's own name ("grade point average scores")
    aggregated = any(before in ws for ws in AGG_WORDS.values()) and before not in a.used
    if aggregated and ("a" in parts_of(a.word)[0] or _part_of_a_row_name(a) or _names_the_rows(a)):
        aggregated = False
    if (superlative or aggregated) and is_noun(a.word) and not _kind_of_a_plan_column(a):
        measured = a.plan.measure or a.plan.group_by or "the rows"
        return f"the question measures its '{a.word}', and the answer measures {measured}"
    return None


def _counted_elsewhere(a: _Ask) -> str | None:
    """The noun "how many" counts ("how many groups have ...") asks for a count of its
    kind; an answer that adds up a measure, or counts another kind, is not one."""
    from .planner_cues import how_words

    if a.word not in how_words(a.r.text):
        return None
    counts = a.plan.agg in ("count", "nunique", "streak") and a.plan.op in ("aggregate", "rank")
    if counts or a.plan.op == "shape" or _kind_of_a_plan_column(a) or _a_count_of(a):
        return None
    return f"the question counts its '{a.word}', and the answer is {a.plan.describe()}"


def _a_count_of(a: _Ask) -> bool:
    """ "how many gold medals": the noun before the counted one names the measure the plan
    adds up (Gold), a column that counts them ("gold medals", "total medals")."""
    col = a.r.table.columns.get(a.plan.measure or "")
    if col is None or a.plan.agg != "sum" or not col.integer or a.index < 1:
        return False
    return bool(forms(a.r.tokens[a.index - 1]) & col.words) or col.name in counting_columns(
        a.word, a.r.table
    )


#: The comparators' words, and the words that order beyond them ("above", "after").
_ORDER_WORDS = frozenset(
    w for phrase_, op in COMPARATORS if op != "=" for w in phrase_.split() if w not in STOPWORDS
) | vocabulary.words("order_words_beyond_comparators")


def _compares(a: _Ask) -> str | None:
    """A comparison or an order word ("above Cayman Islands", "after Hawthorn", "more
    than") that no filter of the plan applies: the answer is not what it asks."""
    if a.word not in _ORDER_WORDS:
        return None
    around = " ".join(a.r.tokens[max(0, a.index - 2) : a.index + 3])
    if a.word in _PARTS_OF_PHRASES and not any(
        a.word in p.split() and p in around for p, _ in COMPARATORS
    ):
        return None  # "end up", "added up": not "up to"
    return f"'{a.word}' compares or orders, and the answer applies no such test"


#: Order words that compare only as part of their phrase ("up to", "or less").
_PARTS_OF_PHRASES = frozenset(("up", "or", "no", "not", "to"))


def _what_a_number_counts(a: _Ask) -> str | None:
    """The noun right after a stated number ("at most 9 medals", "over 5 stations") is
    what the number counts: it must name the column the number is compared with."""
    number = next((s for s in a.r.stated if s.start <= a.index - 1 < s.start + len(s.words)), None)
    if number is None or not set(number.words) & a.used or not is_noun(a.word):
        return None  # "in one season": no number the plan compares with
    counted = a.plan.of if a.plan.of is not None else a.plan
    if _kind_of_a_plan_column(a):
        return None
    if counted.measure is not None:
        return f"the question counts its '{a.word}', and the answer compares another column"
    # a count of rows: "more than 1000 products" counts the rows; but a number that
    # some filter compares with a column no word named ("at least 5 medals" read as
    # Gold, the only column whose values span 5) counts what the question names
    for f in (*counted.filters, *counted.condition):
        if f.value == number.value and f.column not in a.r.named:
            compared = f"{number.text} was compared with {f.column}"
            return f"the question counts its '{a.word}', and {compared}"
    return None


def _names_a_date(a: _Ask) -> str | None:
    """A month or a weekday ("released in January") names dates: where no filter of the
    plan reads them, the answer is over every date."""
    from .wordnet import hypernyms

    kinds = set(hypernyms(a.word, 2, senses=1))
    if kinds & {"month", "calendar month", "day of the week", "weekday"}:
        return f"'{a.word}' names dates, and no filter of the answer reads them"
    return None


def _asked_for(a: _Ask) -> str | None:
    """The noun after "which" or "what" is what the question asks for ("which species
    has ..."): a noun that names no column of the plan asks for what the answer lacks."""
    i = a.index - 1  # "name the only relay ...": past "only", to the article
    while i > 0 and a.r.tokens[i] in NEUTRAL | {"only"}:
        i -= 1
    verb = a.r.tokens[i - 1] if i >= 1 else ""
    if verb in ("me", "us") and i >= 2:  # "tell me a district ..."
        verb = a.r.tokens[i - 2]
    # "name a player", "list the teams"
    article = a.r.tokens[i] if i >= 0 else ""
    asking = a.before in ("which", "what") or (article in DETERMINERS and verb in ASKING)
    asking = asking or _what_was_the(a)
    if not asking or not is_noun(a.word) or _kind_of_a_plan_column(a):
        return None
    shown = shown_column(a.plan)
    shown_col = a.r.table.columns.get(shown) if shown is not None else None
    names_a_number = shown_col is not None and shown_col.numeric  # "which country rank last"
    if a.after in a.used and is_noun(a.after) and not names_a_number:
        return None  # "the product codes": the codes are asked for, and placed
    if (
        a.after == "of"
        and a.r.tokens[a.index + 2 : a.index + 3]
        and a.r.tokens[a.index + 2] in a.used
    ):
        return None  # "the last type of dance": the dance is asked for, and placed
    cols = {c.name for c in _row_name_columns(a)}
    if cols and (shown in cols or (shown is None and cols & set(a.plan.columns()))):
        return None  # "which player": a row of PLAYER, named by PLAYER
    if shown is not None and _holds_the_time(a.word, a.r.table, shown):
        return None  # "in what year was it released?": Release holds years
    if shown_col is not None and a_name_answers(a.word, a.r.table, shown_col):
        return None  # "which lake is the deepest?": the rows' Name, whatever they are
    return f"the question asks for its '{a.word}', and no column of the answer names it"


def names_a_column(word: str, table: Table) -> bool:
    """Whether a form of ``word`` is a word of any column of ``table``."""
    mine = forms(word)
    return any(mine & col.words for col in table.columns.values())


def a_name_answers(noun: str, table: Table, col: Column) -> bool:
    """Whether ``col``, the table's Name, answers "which <noun>": the rows' names,
    whatever the rows are ("which lake", "which locomotive"), where the noun names no
    column, and no other column's values are kinds of it in WordNet ("which country"
    of a Nationality that holds China and Canada, beside a Name of athletes)."""
    if col.parts != ("name",) or names_a_column(noun, table):
        return False
    kind = singular(noun)
    return not any(
        kind in kinds_of_values(other, least=2)
        for other in table.columns.values()
        if other.name != col.name
    )


def _holds_the_time(word: str, table: Table, name: str) -> bool:
    """Whether column ``name`` holds the time ``word`` asks for: years for "year" (whole
    numbers from 1000 to 2100), dates for "date" or "day"."""
    col = table.columns.get(name)
    if col is None or singular(word) not in ("year", "date", "day"):
        return False
    if col.numeric and holds_years(table.df[name]):
        return singular(word) == "year"
    return col.role == "time" and singular(word) in ("date", "day")


def _what_was_the(a: _Ask) -> bool:
    """ "what was the last year that ...": the noun after "what" and its copula, "the" and
    an order word ("first", "last", a superlative), or before "of" ("what is the date of
    ..."), is what the question asks for."""
    t, i = a.r.tokens, a.index - 1
    if a.after == "of" and t[max(0, i - 2) : i + 1] in _WHAT_IS_THE:
        # "what is the date of the first episode": the date (a column's) is asked for;
        # "the name of the first rider" is the rider's, whatever the column is called
        return _names_another_column(a)
    ordered = i >= 0 and (t[i] in _ONE_OF_AN_ORDER or t[i].endswith("est"))
    while ordered and i > 0 and (t[i] in _ONE_OF_AN_ORDER or t[i] in a.r.up | a.r.down):
        i -= 1
    if t[max(0, i - 2) : i + 1] in _WHO_IS_THE:
        # "who was the (last) opponent": the noun is asked for where it names a column
        # of names ("Opponent in the final"); a noun of its own ("who was the first prime
        # minister"), or of a column of numbers ("who was the pick after Moses Malone?":
        # Pick orders the rows), is the row's
        return _names_another_column(a, text=True)
    # not "what is the record set for assists?": a noun of its own
    return ordered and t[max(0, i - 2) : i + 1] in _WHAT_IS_THE


_WHAT_IS_THE = [["what", w, "the"] for w in vocabulary.listed("copulas")]
_WHO_IS_THE = [["who", w, "the"] for w in vocabulary.listed("copulas")]
#: Words before a noun that pick one row of an order: "the last year that ...", "the
#: only ship built as ...".
_ONE_OF_AN_ORDER = vocabulary.words("one_of_an_order")


def _names_another_column(a: _Ask, *, text: bool = False) -> bool:
    """Whether a form of the word is a word of the name of a column the plan does not use
    (with ``text``, a column of text)."""
    mine = forms(a.word)
    others = (
        c for n, c in a.r.table.columns.items()
        if n not in a.plan_columns and not (text and c.numeric)
    )  # fmt: skip
    return any(mine & forms(p) for c in others for p in c.parts)


def shown_column(plan: Plan) -> str | None:
    """The column whose value the answer states as the row's or the group's name."""
    if plan.op == "rank" and plan.labels and not plan.each:
        return plan.group_by
    if plan.op in ("extreme", "values", "lookup", "distinct"):
        return plan.group_by or plan.measure
    return None


def _row_of_an_extreme(a: _Ask) -> str | None:
    """ "the most populated city", "the team with the most caps": the noun that heads the
    superlative's phrase is the row asked for, and the extreme's value is no row."""
    plan, tokens, i = a.plan, a.r.tokens, a.index
    if plan.op != "aggregate" or plan.agg not in ("max", "min") or not is_noun(a.word):
        return None
    ends = a.r.up | a.r.down
    start = i - 1
    while start >= 0 and tokens[start] not in DETERMINERS:
        start -= 1
    if start < 0 or tokens[start] not in ("the", "this", "that"):
        return None  # "the highest score of a game": the game is any one
    between = tokens[start + 1 : i]
    if any(t in CLOSED | STOPWORDS or (is_noun(t) and t not in ends) for t in between):
        return None  # "the most amount of people", "the maximum grade among applicants"
    heads = a.after in ("with", "that", "who", "which", "whose") and bool(ends & set(tokens[i:]))
    if not heads and (not ends & set(tokens[start:i]) or (a.after and is_noun(a.after))):
        return None  # "the highest river length": the river qualifies the length
    what = "largest" if plan.agg == "max" else "smallest"
    return f"it asks for the {a.word}, and the answer is the {what} {plan.measure}, a number"


def _names_of_numbers(a: _Ask) -> str | None:
    """ "the abbreviated month names": a name is asked for, and the column the answer
    shows holds numbers (a Month of 1, beside a Month_1 of "Jan")."""
    shown = shown_column(a.plan)
    col = a.r.table.columns.get(shown) if shown is not None else None
    if singular(a.word) != "name" or col is None or not col.numeric:
        return None
    return f"it asks for names, and {shown} holds numbers"


def _a_number(a: _Ask) -> str | None:
    """A number left out ("built in the 1800s" with no filter of years) is a value the
    answer does not apply: no rule about nouns places it as the rows."""
    if any(ch.isdigit() for ch in a.word):
        return "a number no part of the plan compares with"
    if a.word != "one" and NUMBER.fullmatch(a.word):  # "two athletes" ("one" is a pronoun)
        return "a number no part of the plan compares with"
    return None


def _a_letter(a: _Ask) -> str | None:
    """One letter ("the first letter k", "group b") is a value or a name, not a word a
    dictionary's senses judge (WordNet's "k" is potassium)."""
    if len(a.word) == 1 and a.word.isalpha():
        return "a letter: a value or a name the reading did not find"
    if a_kind_of_character(a.word):  # "names that begin with a vowel"
        return "a kind of letter: which letters it means is not read"
    return None


def _unknown_word(a: _Ask) -> str | None:
    """A word WordNet does not know ("gurung", a misspelt "sentor") is a name or a word
    the reading cannot judge: no rule about nouns or verbs places it as harmless."""
    from .wordnet import parts_of_speech

    if not a.word.isalpha() or len(a.word) < 3 or a.word in CLOSED | STOPWORDS:
        return None
    if parts_of_speech(a.word) or parts_of_speech(singular(a.word)) or _misspelt(a.word):
        return None
    if parts_of_speech(a.word + a.after) or parts_of_speech(a.before + a.word):
        return None  # "per cent": percent
    if _two_words(a.word):
        return None
    return "no dictionary knows the word: a name, or a word the reading cannot judge"


def _two_words(word: str) -> bool:
    """Whether ``word`` is two words written as one ("airbase", "goalscorer", "listedon")."""
    from .wordnet import parts_of_speech

    for i in range(2, len(word) - 1):
        head, tail = word[:i], word[i:]
        short_ok = {h for h in (head, tail) if len(h) < 3} <= (CLOSED | STOPWORDS)
        if short_ok and parts_of_speech(head) and (parts_of_speech(tail) or tail in STOPWORDS):
            return True
        if short_ok and head in STOPWORDS and parts_of_speech(tail):
            return True
    return False


def _misspelt(word: str) -> bool:
    """Whether one letter dropped, doubled, swapped or changed makes ``word`` a word
    WordNet knows ("postion", "winnter", "perfomed", "aslo"): a typing slip, which the
    other rules judge as the word it was meant to be (`_meant`)."""
    return _meant(word) != word


@functools.lru_cache(maxsize=4096)
def _meant(word: str) -> str:
    """The word WordNet knows that one slip away from ``word`` it was meant to be: a
    swap first ("aslo": also), then a letter dropped ("winnter"), one left out
    ("perfomed", "previos": previous), one changed; ``word`` itself where WordNet knows
    it, or where no slip makes a word."""
    from .wordnet import parts_of_speech

    if len(word) < 4 or not word.isalpha() or parts_of_speech(word):
        return word
    if parts_of_speech(singular(word)):
        return word
    letters = "abcdefghijklmnopqrstuvwxyz"
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    ranked = (
        [a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1],
        [a + b[1:] for a, b in splits if b],
        [a + c + b for a, b in splits for c in letters],
        [a + c + b[1:] for a, b in splits if b for c in letters],
    )
    for edits in ranked:
        known = sorted(e for e in set(edits) - {word} if len(e) >= 3 and parts_of_speech(e))
        if known:
            return known[0]
    return word


def _judged_as(word: str, r: Reading) -> str:
    """The word the rules judge ``word`` as: a slip that hides a word that orders or
    links ("previos": previous, "aslo": also) as that word; any other word, a name one
    slip from a word ("rowell") included, as itself."""
    meant = _meant(word)
    if meant == word:
        return word
    if meant in STOPWORDS | CLOSED | _ORDER_WORDS | _ENDS | OPERATING or r.side(meant):
        return meant
    return word


def _rows_of_a_kind(a: _Ask) -> str | None:
    """A noun for the rows that marks a kind of them by a property ("women": female
    ones) restricts the rows: where no value of the table says so, it is not placed."""
    if _head_noun(a) is None:
        return None
    kind = marked_kind(a.word)
    if kind is None:
        return None
    return f"it asks for {kind} rows, and no column of the table says which rows are {kind}"


#: The rules, in order (see the module docstring): a blocking rule says why the word
#: would change the answer; a placing rule says why it changes nothing. A word no rule
#: places blocks: a value is stated only for a question whose every word is placed.
RULES: tuple[Rule, ...] = (
    Rule("the quantity of what follows", _quantity_of, blocks=False),
    Rule("repeats an applied comparison", _repeats_a_comparison, blocks=False),
    Rule("names another column", _names_other_column, blocks=True),
    Rule("names a value", _names_value, blocks=True),
    Rule("is held by some rows' cells", _held_by_cells, blocks=True),
    Rule("names an outcome", _names_an_outcome, blocks=True),
    Rule("a form names another column", _form_names_a_column, blocks=True),
    Rule("its doer names another column", _agent_names_a_column, blocks=True),
    Rule("is part of a value", _part_of_a_value, blocks=True),
    Rule("an alternative to an applied value", _an_alternative, blocks=True),
    Rule("orders the rows in time", _orders_in_time, blocks=True),
    Rule("an event the table's order does not follow", _an_event_out_of_order, blocks=True),
    Rule("names what the table is about", _the_tables_subject, blocks=False),
    Rule("asks for each group", _asks_each, blocks=True),
    Rule("a unit not applied", _unit_not_applied, blocks=True),
    Rule("asks for the answer in another unit", _another_unit, blocks=True),
    Rule("the answer's unit", _unit_of_the_answer, blocks=False),
    Rule("is what a superlative measures", _measured, blocks=True),
    Rule("names rows of a kind", _rows_of_a_kind, blocks=True),
    Rule("is what the question asks for", _asked_for, blocks=True),
    Rule("asks for names of numbers", _names_of_numbers, blocks=True),
    Rule("is the row of an extreme", _row_of_an_extreme, blocks=True),
    Rule("is counted elsewhere", _counted_elsewhere, blocks=True),
    Rule("names a date", _names_a_date, blocks=True),
    Rule("compares or orders", _compares, blocks=True),
    Rule("is what a number counts", _what_a_number_counts, blocks=True),
    Rule("the unit of the number after it", _unit_of_the_number_after, blocks=False),
    Rule("a number", _a_number, blocks=True),
    Rule("a letter", _a_letter, blocks=True),
    Rule("a word no dictionary knows", _unknown_word, blocks=True),
    Rule("a closed-class word", _closed_class, blocks=False),
    Rule("says what the rows are", _predicate_noun, blocks=True),
    Rule("part of a name", _compound_name, blocks=True),
    Rule("repeats kept", _repeats_kept, blocks=False),
    Rule("names the rows' column", _part_of_a_row_name, blocks=False),
    Rule("names the rows", _names_the_rows, blocks=False),
    Rule("a verb", _verb_form, blocks=False),
    Rule("heads its phrase", _head_noun, blocks=False),
    Rule("links the rows to a placed part", _verb_of_a_placed_part, blocks=False),
)


def placed_by_plan(word: str, plan: Plan, r: Reading) -> bool:
    """Whether the plan's operation itself is what ``word`` asks for: "common" or
    "frequent" of a count ranking, the "many" of "how many" of a count, "empty" of a
    missing-value test, "long" of a length (the attribute an adjective measures), and
    the verb that asks for the answer ("Name a species ...", "can you list ...")."""
    if r.asking_verb >= 0 and r.tokens[r.asking_verb] == word:
        return True
    if plan.of is not None and placed_by_plan(word, plan.of, r):
        return True
    tests = {f.op for f in (*plan.filters, *plan.condition)}
    if plan.op == "missing" or tests & {"missing", "present"}:
        if {word, singular(word)} & (MISSING | vocabulary.words("empty_value_words")):
            return True
        if word == "non" and "present" in tests:  # "non-empty"
            return True
    # a lookup reads the first matching row in the table's order (the last where its
    # order is turned); the row next to a named one is the first after it, the last before
    if (
        plan.op == "lookup"
        and word in LOOKUP_ENDS
        and (plan.offset or LOOKUP_ENDS[word] == plan.order)
    ):
        return True
    measured = (plan.measure, plan.group_by)
    if _measures_attribute(word, measured, r.table) or _pertains_to(word, plan.columns(), r.table):
        return True
    if _unit_of_the_attribute(word, plan, r):  # "20 years old" of Age
        return True
    if r.end_of_order(word) and plan.measure in r.table.columns:  # "founded last": the latest
        return bool(r.table.columns[plan.measure].ends)
    if plan.period is not None and period_of(word) == plan.period:
        return True  # "per month", "monthly": the dates grouped by month
    apart = plan.agg == "range" or plan.combine is not None or bool(tests & {"in", "between"})
    if word == "between" and (apart or any(d.op in ("-", "/") for d in plan.derive)):
        return True  # "the difference between A and B", "more households between A and B"
    subtracts = plan.agg == "range" or plan.combine in ("difference", "gap")
    if word in _DIFFERENCES and (subtracts or any(d.op == "-" for d in plan.derive)):
        return True  # "the difference between the greatest and the least": a range
    if word in ("other", "others", "another") and "!=" in tests:
        return True  # "one other single besides X": the exclusion is applied
    if plan.op == "compare" and plan.test in ("<", "<=", ">", ">="):
        from .choice import offered

        if word in (offered(r) or ()):  # "more or less than 24": the choice it answers
            return True
    if plan.op == "aggregate" and word in AGG_NAME.get(plan.agg, "").split():
        return True  # the operation's own name: "standard deviation"
    counts = plan.agg in ("count", "mode", "streak") or (plan.op == "rank" and plan.measure is None)
    if counts and MODE.search(f"most {word}") and word not in vocabulary.words("most_least"):
        return True
    return counts and bool(HOW_MANY.search(word))


def _superlatives(r: Reading, plan: Plan, used: set[str]) -> list[Unplaced]:
    """A superlative that names an attribute ("the fastest", "the oldest") asks for that
    attribute's extreme: where it names none of the plan's columns, it is not placed."""
    from .wordnet import attributes

    measured = _words_of(plan.columns(), r.table)
    out = []
    for token in dict.fromkeys(r.tokens):
        if token in GENERIC or token in used or token not in r.up | r.down:
            continue
        if placed_by_plan(token, plan, r):  # "the most popular": the most rows
            continue
        nouns = [a.noun for a in attributes(token)]
        if nouns and not set(nouns) & measured:
            what = plan.measure or plan.group_by or "the rows"
            out.append(
                Unplaced(token, f"it asks for the {nouns[0]}, and the answer measures {what}")
            )
    return out


_OPERATES = "it operates (a range, an exclusion, a bound), and the plan applies none"


def unplaced(
    r: Reading, plan: Plan, left: list[str], used: set[str]
) -> tuple[tuple[Unplaced, ...], tuple[str, ...]]:
    """The words of ``left`` that would change the answer, each with why, and those a
    rule placed as changing nothing (said in a note)."""
    columns = frozenset(plan.columns())
    blocking = _superlatives(r, plan, used)
    harmless: list[str] = []
    for word in left:
        if placed_by_plan(word, plan, r) or word in {u.word for u in blocking}:
            continue
        index = r.tokens.index(word) if word in r.tokens else -1
        meant = _judged_as(word, r)
        if meant != word and meant in STOPWORDS | CLOSED:
            harmless.append(word)  # "aslo": also, which changes nothing
            continue
        if meant != word and placed_by_plan(meant, plan, r):
            continue
        if index >= 0 and _introduces_a_placed_value(r, index, used):
            continue
        if meant in OPERATING:  # placed only by the part it introduces ("while squatting")
            if r.tokens[index + 1 : index + 2] and r.tokens[index + 1] in used:
                harmless.append(word)
            else:
                blocking.append(Unplaced(word, _OPERATES))
            continue
        ask = _Ask(r, plan, index, meant, columns, frozenset(used))
        for rule in RULES:
            why = rule.test(ask)
            if why is None:
                continue
            if rule.blocks:
                blocking.append(Unplaced(word, why))
            else:
                harmless.append(word)
            break
        else:
            blocking.append(Unplaced(word, "no part of the plan places it"))
    return tuple(blocking), tuple(harmless)


def _pertains_to(word: str, columns: Iterable[str], table: Table) -> bool:
    """ "the average unitary price": "unitary" pertains to "unit" (WordNet's pertainym or
    a derivation), a word of the name of unit_price, one of ``columns``."""
    from .wordnet import bases

    names = {p for c in columns if c in table.columns for p in table.columns[c].parts}
    return bool(names) and any(b.word in names for b in bases(word))


def _measures_attribute(word: str, columns: Iterable[str | None], table: Table) -> bool:
    """An adjective whose attribute names one of ``columns``: "how long" of a length,
    "the tallest" of a height, "the most expensive" of a price."""
    from .wordnet import attributes

    measured = _words_of((c for c in columns if c), table)
    return any(a.noun in measured for a in attributes(word))


def means_column(word: str, column: str, table: Table) -> bool:
    """Whether ``word`` names ``column`` through its meaning, not its spelling: the
    attribute an adjective measures ("the tallest" of height), or a pertainym or a
    derivation of a word of its name."""
    return _measures_attribute(word, (column,), table) or _pertains_to(word, (column,), table)


def _words_of(columns: Iterable[str], table: Table) -> set[str]:
    """The words of column names, and their singulars: what an attribute noun meets. A
    column of times measures a duration, and the speed over its course."""
    names = list(columns)
    words = {w for c in names for w in phrase(c).split()}
    timed = any(c in table.columns and table.columns[c].duration for c in names)
    timed_nouns = vocabulary.words("timed_attribute_nouns") if timed else frozenset()
    return words | {singular(w) for w in words} | timed_nouns
