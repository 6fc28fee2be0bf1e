"""What a question's words say about a table, before any plan: columns, filters, k, kind.

`Reading` collects, each with the words it came from: the columns the
question names (and where), the filters its values, thresholds, negations
and quoted texts make, the ``k`` of "top 5", the answer type its form asks
for (``boolean`` for "Is there...", ``list`` for "List..." or "the 3
highest", ``number`` for "How many..."), and the words it could not place.
The planner (`planner`) turns a reading into ranked candidate plans.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from typing import Any

from . import vocabulary
from .derive import with_derived
from .lexicon import Named, Stated, match_columns, match_values, numbers
from .query import Derived, Filter
from .reading_column_filters import month_tests, year_columns
from .reading_derived import claim, claimed_words, derivations, signs_as_words
from .reading_filters import comparator, filters_of, spans, without_instructions
from .reading_same_row import same_as_a_named_row
from .reading_than_row import than_a_named_row
from .table import Column, Table
from .word_classes import DETERMINERS, FEWER, MORE, is_noun
from .wordnet import pole, pole_on
from .words import (
    AGG_WORDS,
    ASK_BOOL,
    ASKING,
    COMPARATORS,
    CORR,
    FILLER,
    HIGH,
    HOW_MANY,
    LIST_CUE,
    LOW,
    MISSING,
    NEGATION,
    QUANTITIES,
    STOPWORDS,
    TREND,
    phrase,
    question_words,
    singular,
    stem,
)

__all__ = ["Reading", "read"]

#: "can you name ...", "would you list ...": a request, as "name ..." is.
_POLITE = vocabulary.words("polite_request_auxiliaries")
_POLITE_ALTERNATION = vocabulary.alternation("polite_request_auxiliaries")
#: The words beside a number that make it a ranking's k ("the top 5", "5 most common").
_RANK_WORDS = HIGH | LOW | vocabulary.words("rank_words_beside_k")
#: The first words of a comparison's phrase whose other words are a bound's, never an
#: end asked for: "at least", "no more than", "or less".
_BOUND_LEADS = frozenset(("at", "no", "not", "or"))
#: The ends of time's order, on a column of an event's years (`Reading._on_dates`).
_TIME_ENDS: dict[str, int] = vocabulary.mapping("time_order_ends")
_NEGATIONS = vocabulary.alternation_of(
    vocabulary.tagged("negations", "word|run|apostrophe", without="pronoun joined")
)
_NEG = re.compile(rf"\b({_NEGATIONS})\b")


@dataclasses.dataclass
class Reading:
    """A question's words over one table (see the module docstring)."""

    table: Table
    question: str
    text: str
    tokens: list[str]
    words: list[str]
    named: dict[str, tuple[float, set[str]]]
    where: dict[str, int]  # a named column's first word index
    values: list[Named]
    stated: list[Stated]
    filters: list[Filter]
    k: int | None
    k_words: tuple[str, ...]
    expect: str | None  # boolean, list, number or None
    negated: list[tuple[int, str]]  # negation words and where
    notes: list[str]  # what a filter's reading assumed
    open: list[str]  # choices the words left open
    #: "more than 100 lifters": (operator, number, what is counted, words)
    count_tests: list[tuple[str, Any, Any, tuple[str, ...]]] = dataclasses.field(
        default_factory=list
    )
    asked: str = ""  # the question as asked, with its instructions ("if there are none ...")
    derived: tuple[Derived, ...] = ()  # columns the words compute (`reading_derived`)
    #: comparatives a filter spent ("fewer gold medals than Sweden"): no end asked for
    spent: set[str] = dataclasses.field(default_factory=set)
    #: the column of two values joined by "or" ("which came first, A or B?"; "" for two
    #: numbers), None where there are none (`_either_of`)
    either: str | None = None
    #: ``either`` where the question asks which of them the rows it names hold, with no
    #: comparative ("was Big Bang 2 recorded in Japanese or Korean?")
    options: str | None = None
    #: the column of the row named in "the same C as X" (`reading_same_row`): the other
    #: rows' values of it are asked for ("which nation ...": the other nations)
    same_as: str | None = None

    @functools.cached_property
    def outcomes(self) -> tuple[str, dict[str, str]] | None:
        """The table's column of results and its marks (`reading_outcomes.outcome_column`),
        read once for the question's filters and its placement."""
        from .reading_outcomes import outcome_column

        return outcome_column(self.table)

    @functools.cached_property
    def asking_verb(self) -> int:
        """Where the verb that asks for the answer stands ("name a party", "can you list
        the teams", "please name ...", "could you please show ..."), or -1."""
        t, i = self.tokens, 0
        if t[i : i + 1] == ["please"]:
            i += 1
        if t[i : i + 1] and t[i] in _POLITE and t[i + 1 : i + 2] == ["you"]:
            i += 2 + (t[i + 2 : i + 3] == ["please"])
        return i if t[i : i + 1] and t[i] in ASKING else -1

    @functools.cached_property
    def up(self) -> frozenset[str]:
        """The question's words for the high end: the operations' own (``HIGH``) and any
        superlative WordNet places at its attribute's high end ("broadest")."""
        return frozenset(w for w in self.tokens if self.side(w) > 0)

    @functools.cached_property
    def down(self) -> frozenset[str]:
        return frozenset(w for w in self.tokens if self.side(w) < 0)

    def side(self, word: str) -> int:
        """+1 where ``word`` reads the high end of a column here, -1 the low end, else 0:
        `pole` on the table's attributes, else the operations' own words. A speed read on
        a table that holds only the times taken turns round: "the fastest" took the least
        time, "the slowest" the most."""
        on_speed = self._by_time and pole_on(word, "speed")
        if on_speed:
            return -on_speed
        end = self.end_of_order(word)
        if end:
            return end
        if self.either and "than" not in self.tokens and word in MORE | FEWER:
            return 1 if word in MORE else -1  # "who had more draws, A or B?": the higher
        return pole(word, self._nouns) or (1 if word in HIGH else -1 if word in LOW else 0)

    def end_of_order(self, word: str) -> int:
        """+1 where ``word`` reads the last end of a named column whose own order is
        asked for (an event's years: the latest; places: the highest), -1 the first,
        else 0 (`_on_dates`, `_on_places`)."""
        if self._on_places and word in vocabulary.words("first_last"):
            return _TIME_ENDS[word]  # "came in last place": the highest Place
        if not self._on_dates:
            return 0
        return self.time_end(word)

    @staticmethod
    def time_end(word: str) -> int:
        """+1 where ``word`` asks for the later in time ("latest", "newer"), -1 the earlier
        ("first", "older": the greater age was earlier), else 0."""
        return _TIME_ENDS.get(word) or -pole_on(word, "age")

    def said_at(self, f: Filter) -> int:
        """Where the question first says filter ``f``, by its own words, not those another
        filter shares ("Lake Bafa ... than Lake Yay": "bafa", not the "lake" of both);
        past the end where it says none."""
        others = {w for g in self.filters if g is not f for w in g.words}
        own = set(f.words) - others or set(f.words)
        return min((i for i, t in enumerate(self.tokens) if t in own), default=len(self.tokens))

    @functools.cached_property
    def _on_places(self) -> bool:
        """Whether the question names a column of places out of the table's order
        (`table.column_ends`): "first" is its 1, "last" its highest."""
        return any(self.table.columns[n].ends == "places" for n in self.named)

    @functools.cached_property
    def _on_dates(self) -> bool:
        """Whether the question names a column of an event's years (`table.column_ends`), and
        the table has no ages: its order is time's, "the earliest" and "founded first"
        its least, "the latest", "founded last" and "the most recent" its most, and "the
        oldest" (the longest ago) its least."""
        named = (self.table.columns[n] for n in self.named)
        return any(c.ends == "years" for c in named) and "age" not in self._nouns

    @functools.cached_property
    def _by_time(self) -> bool:
        """Whether a speed is measured here by a time taken: a column of durations, and
        none that names a speed."""
        columns = self.table.columns.values()
        return any(c.duration for c in columns) and "speed" not in self._nouns

    @functools.cached_property
    def _nouns(self) -> frozenset[str]:
        """The words of the table's column names: the attributes a superlative is read on
        (a column of times measures a duration)."""
        columns = self.table.columns.values()
        return frozenset(p for c in columns for p in (*c.parts, *("duration",) * c.duration))

    @property
    def high(self) -> bool:
        return bool(self.cues & self.up)

    @property
    def low(self) -> bool:
        return bool(self.cues & self.down)

    @property
    def cues(self) -> set[str]:
        cols = self.table.columns
        used = {
            w
            for n, (_, ws) in self.named.items()
            for w in ws
            if w in cols[n].parts or (w not in cols[n].words and w not in self.up | self.down)
        }  # "the broadest petals": broadest names petal width and asks for its maximum
        # "an attendance lower than 50,000": a comparison's word, no end asked for
        t = self.tokens
        compared = {w for i, w in enumerate(t) if t[i + 1 : i + 2] == ["than"]}
        compared -= {w for i, w in enumerate(t) if t[i + 1 : i + 2] != ["than"]}
        return set(self.words) - used - compared - self.bound_words - self.spent

    @functools.cached_property
    def bound_words(self) -> frozenset[str]:
        """The words of a comparison's phrase ("at **least** 5", "no **more** than"): a
        bound, no end asked for; a word that stands outside one too is still a cue."""
        t = self.tokens
        inside: set[int] = set()
        for phrase_, _ in COMPARATORS:
            words = phrase_.split()
            if len(words) < 2 or words[0] not in _BOUND_LEADS:
                continue  # "the minimum of X" asks for the minimum
            for i in range(len(t) - len(words) + 1):
                if t[i : i + len(words)] == words:
                    inside |= set(range(i, i + len(words)))
        outside = {w for i, w in enumerate(t) if i not in inside}
        return frozenset(t[i] for i in inside) - outside

    def near(
        self,
        index: int,
        roles: tuple[str, ...],
        numeric: bool = False,
        value: float | None = None,
        spent: tuple[str, ...] = (),
    ) -> Column | None:
        """The named column closest to word ``index`` (of ``roles``); with ``value``, one
        whose values span it comes first; one named only by ``spent`` words (the
        comparison's own: "a score of 4") is not a candidate."""
        best: tuple[float, Column] | None = None
        for name, at in self.where.items():
            col = self.table.columns[name]
            if spent and self.named[name][1] <= set(spent):
                continue
            if col.role not in roles and not (numeric and col.numeric):
                continue
            if numeric and not col.numeric:
                continue
            own = self.named[name][1] - (col.words - set(col.parts))
            distance = abs(at - index) - 0.3 * self.named[name][0] + (0.5 if at > index else 0)
            distance += 0 if own else 3  # named only by a synonym ("score")
            if value is not None and not spans(self.table, col, value):
                distance += 10
            if best is None or distance < best[0]:
                best = (distance, col)
        return best[1] if best else None


def _k(tokens: list[str], stated: list[Stated], listy: bool) -> tuple[int | None, tuple[str, ...]]:
    for s in stated:
        if not float(s.value).is_integer() or not 1 <= s.value <= 50:
            continue
        i = s.start
        prev = tokens[i - 1] if i > 0 else ""
        if prev in vocabulary.words("most_least") and i >= 2 and tokens[i - 2] == "at":
            continue  # "at least 4": a threshold
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        if prev in _RANK_WORDS | vocabulary.words("k_leads") or nxt in _RANK_WORDS:
            return int(s.value), s.words
        if listy and prev in vocabulary.words("listed_k_leads") and nxt not in ("per", "kg", "and"):
            return int(s.value), s.words
    return None, ()


_SYMBOLS: tuple[tuple[str, str], ...] = (
    (">=", "at least"),
    ("<=", "at most"),
    ("!=", "other than"),
    (">", "more than"),
    ("<", "less than"),
    ("=", "equal to"),
)


def _symbols(question: str) -> str:
    """Comparison signs as words: "transaction_qty > 5" is "transaction_qty more than 5"."""
    for sign, words in _SYMBOLS:
        question = re.sub(rf"(?<=[\w)`'\"])\s*{re.escape(sign)}\s*(?=-?\d)", f" {words} ", question)
    return question


_REQUEST_ONE = vocabulary.alternation("request_phrases_for_one")
_OF_ONE = vocabulary.alternation("determiners_of_one")
_NAME_ONE = re.compile(
    rf"^\W*(?:please )?(?:(?:{_POLITE_ALTERNATION}) you (?:please )?)?"
    rf"(?:{_REQUEST_ONE})"
    rf"\s+(?:{_OF_ONE})\s+(?!of\b|few\b|couple\b)"
)

_ROW_QUESTION = vocabulary.alternation("who_which")


def _asks_a_row(text: str) -> bool:
    """Whether the question asks for a row or its name, whatever number it mentions:
    "which driver ...", "who ...", "what country has the largest number of ..." (the noun
    after "what" is asked; not "what number of ...", nor "what is ...")."""
    if re.match(rf"^\W*({_ROW_QUESTION})\b", text):
        return True
    asked = re.match(r"^\W*what\s+(\w+)", text)
    if asked is None:
        return False
    word = asked.group(1)
    return word not in STOPWORDS | _COMPUTED and not HOW_MANY.search(word) and is_noun(word)


#: The nouns after "what" that ask for a computed number ("what percentage", "what
#: amount of"), not for a row.
_COMPUTED = frozenset(w for cue in AGG_WORDS.values() for w in cue) | QUANTITIES


#: "can you name ...": a request (`_POLITE`); "which islands are ...": a plural asked for.
_REQUEST_VERBS = vocabulary.alternation("request_verbs_after_polite")
_PLURAL_QUESTION = vocabulary.alternation("plural_question_words")
_NOT_ASKED_NOUN = vocabulary.alternation("not_after_asked_noun")


def read(table: Table, question: str) -> Reading:
    """The reading of ``question`` over ``table`` (see the module docstring)."""
    asked = question
    question = _symbols(without_instructions(question))
    found = derivations(table, signs_as_words(question))
    if found:  # "the difference between A and B": a column computed from two
        question = signs_as_words(question)
        claimed = phrase(question).split()
        table = with_derived(
            table,
            [f.derived for f in found],
            {f.derived.name: claimed_words(claimed, f.claimed) for f in found if not f.test},
        )
    months = month_tests(table, question)  # "in February": the month of each date
    if months:
        table = with_derived(table, [d for d, _ in months])
    years = year_columns(table, question)  # "established before 1978": the year each cell writes
    if years:
        table = with_derived(table, years)
    text = question.lower().replace("’", "'")
    tokens = phrase(question).split()
    words = question_words(question)
    named = match_columns(table, words, question)
    if found:
        named = claim(named, tokens, found)
    named = _without_a_total_of(named, tokens, numbers(question))
    for col in table.of("empty"):
        if f" {phrase(col.name)} " in f" {phrase(question)} ":
            raise ValueError(f"{col.name} has no values (all missing): nothing to compute")
    live = [c for c in table.columns.values() if c.role != "empty"]
    if not named and len(live) == 1:  # df["col"]: the one column is what is asked about
        named = {live[0].name: (1.0, set())}
    where = {}
    for name, (_, ws) in named.items():
        col = table.columns[name]
        own = {w for w in ws if w not in col.words or w in col.parts} or ws  # not a synonym
        at = [i for i, t in enumerate(tokens) if t in own or singular(t) in own or stem(t) in own]
        where[name] = min(at) if at else 0
    values = match_values(table, question)
    stated = numbers(question)
    toks = phrase(question).split()
    values = [
        v
        for v in values
        if not (  # "more than 8 cylinders": a threshold, not a value
            str(v.value).replace(".", "").isdigit() and comparator(toks, v.start) is not None
        )
    ]
    # "can you name a party ...?" asks for the party, not whether one can be named
    polite = re.match(rf"^\W*({_POLITE_ALTERNATION}) you (please )?({_REQUEST_VERBS})\b", text)
    # "what are the number of times ...", "list the number of teams ...": one count;
    # "name a player who ...": one of them, not the list
    listy = (
        bool(LIST_CUE.search(text) or polite)
        and not _COUNT_LISTED.search(text)
        and not _NAME_ONE.match(text)
    )
    k, k_words = _k(tokens, stated, listy)
    expect = "boolean" if ASK_BOOL.search(text) and not set(words) & CORR and not polite else None
    if expect is None and (listy or (k is not None and k > 1)):
        expect = "list"
    plural = re.match(
        rf"^\W*({_PLURAL_QUESTION})\s+(?:other\s+)?(\w+)\s+(?!({_NOT_ASKED_NOUN})\b)\w+", text
    )  # ("which other stadiums are ...": the stadiums)
    if (
        expect is None
        and plural
        and plural.group(2).endswith("s")
        and len(plural.group(2)) > 3
        and (singular(plural.group(2)) != plural.group(2))
    ):
        expect = "list"  # "which islands are there?", "which countries won more than ...?"
    if expect is None and HOW_MANY.search(text) and not _asks_a_row(text):
        expect = "number"  # "which driver completed the least number of laps?" asks a row
    negated = [(i, t) for i, t in enumerate(tokens) if _NEG.fullmatch(t) or t in NEGATION]
    reading = Reading(
        table,
        question,
        text,
        tokens,
        words,
        named,
        where,
        values,
        stated,
        [],
        k,
        k_words,
        expect,
        negated,
        [],
        [],
    )
    reading.asked = asked
    reading.either = _either_of(reading)
    if reading.either is not None and "than" not in tokens:
        if (reading.up | reading.down | MORE | FEWER) & set(tokens):
            # "does Lake Bafa or Lake Yay have a bigger area?", "did Austria win more in
            # 1992 or 1996?": which of the two (as "which is bigger, A or B?" asks)
            reading.expect = None if expect == "boolean" else expect
        elif reading.either and _names_other_rows(reading, reading.either):
            # "was Big Bang 2 recorded in Japanese or Korean?": which of them the named
            # rows hold, not whether either is there
            reading.options = reading.either
            reading.expect = None if expect == "boolean" else expect
    reading.derived = tuple(f.derived for f in found) + tuple(d for d, _ in months) + tuple(years)
    reading.filters = filters_of(reading)
    of_years = {d.name: d.column for d in years}
    for taken in reading.filters:  # the words that name Established name the year
        named.pop(of_years.get(taken.column, ""), None)  # filtered, not a column to show
    than_a_named_row(reading)  # "more bronze medals than Sweden": Sweden's own Bronze
    same_as_a_named_row(reading)  # "the same number of golds as Hungary": Hungary's own
    reading.filters += [test for _, test in months]
    for f in found:  # "Horsepower greater than Displacement": Horsepower - Displacement > 0
        if f.test is not None:
            said = claimed_words(tokens, f.claimed)
            reading.filters.append(Filter(column=f.derived.name, op=f.test, value=0, words=said))
    return reading


def _without_a_total_of(
    named: dict[str, tuple[float, set[str]]], tokens: list[str], stated: list[Stated]
) -> dict[str, tuple[float, set[str]]]:
    """ "won a total of three bronze awards": "total" before "of" and a number is the
    number's quantity, as "the amount of X" is X; a column it alone names (Total) is not
    named."""
    starts = {s.start for s in stated}
    quantity = {
        t
        for i, t in enumerate(tokens[:-2])
        if t in AGG_WORDS["sum"] and tokens[i + 1] == "of" and i + 2 in starts
    }  # (not "a score of 2-0", "the song of 2014": a column's own noun)
    return {n: (sc, ws) for n, (sc, ws) in named.items() if not ws or not ws <= quantity}


def _names_other_rows(r: Reading, column: str) -> bool:
    """Whether the question names rows by something besides the two values of ``column``
    it offers: a value of another column, or a number ("the 2003 model"). "Is there a
    car from Japan or Germany?" names none: whether either is there."""
    return bool(r.stated) or any(v.column.name != column for v in r.values)


def _either_of(r: Reading) -> str | None:
    """The column of two values joined by "or" ("A or B", "the A or the B"); "" for two
    numbers; None where there are none."""
    by: dict[str, list[tuple[int, int]]] = {}  # a column (or "numbers") -> (start, end)s
    for v in r.values:
        by.setdefault(v.column.name, []).append((v.start, v.start + len(v.words)))
    for s in r.stated:
        by.setdefault("", []).append((s.start, s.start + len(s.words)))
    for column, at in by.items():
        if len(at) == 2:
            (_, end), (start, _) = sorted(at)
            between = r.tokens[end:start]  # "A or B", "the A or the B"
            if between[:1] == ["or"] and all(t in DETERMINERS for t in between[1:]):
                return column
    return None


_COUNT_LEADS = vocabulary.alternation("count_listing_leads")
_COUNT_NOUNS = vocabulary.alternation("count_nouns")
_COUNT_LISTED = re.compile(rf"^\W*({_COUNT_LEADS})\s+(the\s+)?(total\s+)?({_COUNT_NOUNS})\s+of\b")


#: What "over" spans in a trend's own words ("over time", "over the years").
_TREND_SPANS = vocabulary.alternation("trend_spans")


def unused_words(
    r: Reading, used: set[str], op: str = "correlation", columns: set[str] | None = None
) -> list[str]:
    """Content words of the question that no part of the plan (of operation ``op``) used;
    "associated" is left out unless the plan is a correlation. ``columns``: the plan's
    columns, whose names' words are its own (the "per" of Miles_per_Gallon); a column
    the question names and the plan does not use leaves its words out."""
    spent = {w for _, (_, ws) in r.named.items() for w in ws} & used
    cues = HIGH | LOW | TREND | MISSING | {w for ws in AGG_WORDS.values() for w in ws}
    cues |= CORR if op == "correlation" else set()
    cues |= (r.up | r.down) & (MORE | FEWER)  # "who had more draws, A or B?" (`Reading.side`)
    rows = {singular(w) for w in phrase(r.table.name).split()}  # "cars" of table cars
    rows |= {  # the "per" of Miles_per_Gallon
        w for n in r.named if columns is None or n in columns for w in phrase(n).split()
    }
    if re.search(rf"\bover ({_TREND_SPANS})\b", r.text):
        rows |= {"over", "time"}  # a trend's own words
    out = []
    tokens = r.tokens
    for i, token in enumerate(tokens):
        w = singular(token)
        if token in used or w in used or w in spent or token in spent or w in rows:
            continue
        if token in STOPWORDS or w in STOPWORDS or w in FILLER or token in FILLER or w in cues:
            continue
        if len(token) < 2 and not token.isdigit() and _initials(tokens, i):
            continue  # "u.s." and "x-ray", not "the letter k" nor "group b"
        out.append(token)
    return out


def _initials(tokens: list[str], i: int) -> bool:
    """Whether the one-letter token at ``i`` is part of an abbreviation ("u.s.": u, s) or
    of a hyphened word ("x-ray"): a letter beside another one-letter token, or the letter
    a possessive or a contraction leaves ("team's": s)."""
    if tokens[i] in ("s", "t", "d", "m"):
        return True
    near = tokens[max(0, i - 1) : i] + tokens[i + 1 : i + 2]
    return any(len(t) == 1 for t in near)
