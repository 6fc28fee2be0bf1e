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
from collections.abc import Callable

from .query import Plan
from .reading import Reading
from .table import SAMPLE_ROWS, Column, Table
from .words import HIGH, HOW_MANY, LOW, MODE, STOPWORDS, singular, stem

__all__ = ["RULES", "Rule", "Unplaced", "placed_by_plan", "unplaced"]


@dataclasses.dataclass(frozen=True)
class Unplaced:
    """A word the plan could not place, and why it matters."""

    word: str
    why: str


@dataclasses.dataclass(frozen=True)
class _Ask:
    """One left-out word in its question: what the rules read."""

    r: Reading
    plan: Plan
    index: int  # the word's place among the question's tokens
    word: str
    plan_columns: frozenset[str]
    used: frozenset[str]  # every question word some part of the plan used


@dataclasses.dataclass(frozen=True)
class Rule:
    """A rule over one left-out word: ``test`` returns why it applies, or None; a
    blocking rule's word would change the answer, a placing rule's changes nothing."""

    name: str
    test: Callable[[_Ask], str | None]
    blocks: bool


def _forms(word: str) -> set[str]:
    return {word, singular(word), stem(word)}


def _names_other_column(a: _Ask) -> str | None:
    """The word names, with the question's other words, the whole of a column the plan
    does not use ("minutes" of MIN, "games played" of GP). One word of a longer name
    ("reviews" of author_num_reviews) names the table's rows as often as the column."""
    forms = _forms(a.word)
    for name, (_, ws) in a.r.named.items():
        col = a.r.table.columns[name]
        if name in a.plan_columns or not col.parts or _names_rows(col, a.r.table):
            continue  # a label column names the rows: "a player" is a row of PLAYER
        parts = list(col.parts)
        if not any(forms & _forms(p) for p in parts):
            continue
        said = {x for w in ws for x in _forms(w)} | forms
        if all(_forms(p) & said for p in parts):
            return f"it names the column {name}, which the answer does not use"
    return None


def _names_rows(col: Column, table: Table) -> bool:
    """A column whose values tell the rows apart (a label, an id, one year per row):
    its name names the rows ("a player" of PLAYER, "years with ..." of YEAR)."""
    if col.role in ("label", "id"):
        return True
    return col.role == "time" and col.nunique >= min(len(table.df), SAMPLE_ROWS)


def _names_value(a: _Ask) -> str | None:
    """The word is (part of) a value of the table that no filter of the plan applies."""
    for v in a.r.values:
        if a.word in v.words and not set(v.words) & a.used:
            return f"it names the value {v.value!r} of {v.column.name}, which is not applied"
    return None


def _qualifies_a_column(a: _Ask) -> str | None:
    """The word stands right before the words that named a column of the plan ("English
    score", "perfect rating", "room ratings"): it says which one, or which rows."""
    nxt = a.r.tokens[a.index + 1] if a.index + 1 < len(a.r.tokens) else ""
    if not nxt or nxt in STOPWORDS:
        return None
    for name in a.plan_columns:
        ws = a.r.named.get(name, (0.0, set()))[1]
        if a.r.where.get(name) != a.index + 1:  # the column's words start right after it
            continue
        if _forms(nxt) & {x for w in ws for x in _forms(w)}:
            return f"it qualifies {name} ('{a.word} {nxt}'), and the answer reads all of {name}"
    return None


def _asks_each(a: _Ask) -> str | None:
    """ "per island" asks for every group's value; a plan over all rows does not give it."""
    if a.word != "per" or a.plan.group_by is not None:
        return None
    after = set(a.r.tokens[a.index + 1 : a.index + 3])  # "per island", "per each island"
    if not any(after & {x for w in ws for x in _forms(w)} for _, ws in a.r.named.values()):
        return None  # "per cent", "miles per gallon"
    return "it asks for a value per group, and the answer is one value"


#: Closed-class words the question's stop words do not hold (prepositions, conjunctions,
#: determiners, pronouns): they place nothing and change nothing on their own.
_CLOSED = frozenset(
    "both while under between among amongst according within via across during since until "
    "upon toward towards whether either neither though although because such own another "
    "other others them they he she his her him its itself ourselves themselves here".split()
)
_DETERMINERS = frozenset("a an any each every all the one no some which what".split())
#: Words between a determiner and its noun that do not qualify it ("a single given season").
_NEUTRAL = frozenset("single given individual particular specific same".split())
_LINKS = frozenset(
    "with who whom whose that which where in of has have had is are was were did does do "
    "for from at on by".split()
)
_AUX = frozenset("who that which were was is are been be have has had did does do".split())


def _names_the_rows(a: _Ask) -> str | None:
    """A noun between a determiner and a link names the rows, not a column or a value:
    "any applicant with ...", "a single season?", "the players who ..."."""
    i = a.index - 1
    while i >= 0 and a.r.tokens[i] in _NEUTRAL:
        i -= 1
    before = a.r.tokens[i] if i >= 0 else ""
    after = a.r.tokens[a.index + 1] if a.index + 1 < len(a.r.tokens) else ""
    if before in _DETERMINERS and (not after or after in _LINKS):
        return "it names the rows"
    return None


def _closed_class(a: _Ask) -> str | None:
    return "a closed-class word" if a.word in _CLOSED else None


def _verb_of_a_placed_part(a: _Ask) -> str | None:
    """A verb that links the rows to a part the plan placed: "players scored more than
    3000", "reviews written in 2024", "products that were sold"."""
    before = a.r.tokens[a.index - 1] if a.index > 0 else ""
    after = a.r.tokens[a.index + 1 : a.index + 3]
    if before in _AUX and a.word.endswith(("ed", "en", "ing")):
        return "it links the rows to what the plan reads"
    if after and (after[0] in a.used or " ".join(after) in _COMPARISON_STARTS):
        if a.word.endswith(("ed", "en", "ing", "s")) or before in _AUX:
            return "it links the rows to what the plan reads"
    return None


_COMPARISON_STARTS = frozenset(
    "more than|less than|fewer than|at least|at most|greater than|higher than|lower than|"
    "exactly|over|under|above|below".split("|")
)

def _pos(word: str) -> tuple[set[str], dict[str, str]]:
    """(the parts of speech of ``word`` itself, {part of speech: lemma} of the lemmas it
    is an inflected form of), from WordNet (`wordnet.lemmas`)."""
    from .wordnet import lemmas

    own, inflected = set(), {}
    for lemma, pos in lemmas(word):
        if lemma == word.lower():
            own.add(pos)
        else:
            inflected.setdefault(pos, lemma)
    return own, inflected


def _content(word: str) -> bool:
    own, inflected = _pos(word)
    return bool(own & {"n", "a"} or set(inflected) & {"n", "a"})


def _verb_form(a: _Ask) -> str | None:
    own, inflected = _pos(a.word)
    if "v" in inflected and a.word.endswith(("ed", "ing")):
        return "a verb form"
    if own == {"v"} or (not own and set(inflected) == {"v"}):
        return "a verb"
    # between its subject and a preposition or a placed part: "penguins live on",
    # "cars made in", "passengers flew in" (an irregular form WordNet does not list)
    before = a.r.tokens[a.index - 1] if a.index > 0 else ""
    after = a.r.tokens[a.index + 1] if a.index + 1 < len(a.r.tokens) else ""
    subject = bool(before) and (_noun(before) or before in a.used) and before not in STOPWORDS
    linked = bool(after) and (after in STOPWORDS or after in _CLOSED or after in a.used)
    verb = "v" in own or "v" in inflected or not (own or inflected)
    if subject and linked and verb and not _noun(a.word):
        return "a verb between its subject and what it links"
    return None


def _noun(word: str) -> bool:
    own, inflected = _pos(word)
    return "n" in own or "n" in inflected


def _head_noun(a: _Ask) -> str | None:
    """A noun that heads its phrase (the next word is no noun) and names nothing in the
    table: what the rows are ("applicants with ...", "products listed", "an employee
    older than ..."). A noun before a noun qualifies it ("English score") and is not."""
    own, inflected = _pos(a.word)
    if not _noun(a.word) or (own and own <= {"a"}):
        return None
    nxt = a.r.tokens[a.index + 1] if a.index + 1 < len(a.r.tokens) else ""
    if nxt and nxt not in STOPWORDS and nxt not in _CLOSED and _noun(nxt):
        own_next, inflected_next = _pos(nxt)
        if not ("v" in inflected_next and nxt.endswith(("ed", "ing"))):
            return None
    return "it names the rows"


def _measured(a: _Ask) -> str | None:
    """The noun a superlative applies to is what is measured ("the longest name"): when
    the plan measures something else, the answer is not to this question."""
    before = a.r.tokens[a.index - 1] if a.index > 0 else ""
    counts = a.plan.measure is None or a.plan.agg in ("count", "mode")
    if counts and before in ("most", "fewest", "least", "more", "fewer"):
        return None  # "the most products": the rows counted
    if before in HIGH | LOW and _noun(a.word):
        measured = a.plan.measure or a.plan.group_by or "the rows"
        return f"the question measures its '{a.word}', and the answer measures {measured}"
    return None


def _a_marked_kind(word: str) -> str | None:
    """The property that a noun's nearest kind names, where that kind is a person
    named by a property ("women": female, "boys": male, "men": adult); None else."""
    from .wordnet import hypernyms, parts_of_speech

    for kind in hypernyms(word)[:1]:
        if "a" in parts_of_speech(kind) and hypernyms(kind)[:1] == ("person",):
            return kind
    return None


def _rows_of_a_kind(a: _Ask) -> str | None:
    """A noun for the rows that marks a kind of them by a property ("women": female
    ones) restricts the rows: where no value of the table says so, it is not placed."""
    if _head_noun(a) is None:
        return None
    kind = _a_marked_kind(a.word)
    if kind is None:
        return None
    return f"it asks for {kind} rows, and no column of the table says which rows are {kind}"


#: The rules, in order (see the module docstring): a blocking rule says why the word
#: would change the answer; a placing rule says why it changes nothing. A word no rule
#: places blocks: a value is stated only for a question whose every word is placed.
RULES: tuple[Rule, ...] = (
    Rule("names another column", _names_other_column, blocks=True),
    Rule("names a value", _names_value, blocks=True),
    Rule("asks for each group", _asks_each, blocks=True),
    Rule("is what a superlative measures", _measured, blocks=True),
    Rule("names rows of a kind", _rows_of_a_kind, blocks=True),
    Rule("a closed-class word", _closed_class, blocks=False),
    Rule("names the rows", _names_the_rows, blocks=False),
    Rule("a verb", _verb_form, blocks=False),
    Rule("heads its phrase", _head_noun, blocks=False),
    Rule("links the rows to a placed part", _verb_of_a_placed_part, blocks=False),
)


def placed_by_plan(word: str, plan: Plan, r: Reading) -> bool:
    """Whether the plan's operation itself is what ``word`` asks for: "common" or
    "frequent" of a count ranking, the "many" of "how many" of a count."""
    if plan.of is not None and placed_by_plan(word, plan.of, r):
        return True
    counts = plan.agg in ("count", "mode") or (plan.op == "rank" and plan.measure is None)
    if counts and MODE.search(f"most {word}") and word not in ("most", "least"):
        return True
    return counts and bool(HOW_MANY.search(word))


def unplaced(
    r: Reading, plan: Plan, left: list[str], used: set[str]
) -> tuple[tuple[Unplaced, ...], tuple[str, ...]]:
    """The words of ``left`` that would change the answer, each with why, and those a
    rule placed as changing nothing (said in a note)."""
    columns = frozenset(_plan_columns(plan))
    blocking, harmless = [], []
    for word in left:
        if placed_by_plan(word, plan, r):
            continue
        index = r.tokens.index(word) if word in r.tokens else -1
        ask = _Ask(r, plan, index, word, columns, frozenset(used))
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


def _plan_columns(plan: Plan) -> set[str]:
    cols = {c for c in (plan.measure, plan.group_by, plan.group_by2, plan.time, plan.other) if c}
    cols |= {f.column for f in (*plan.filters, *plan.condition)}
    for d in plan.derive:
        cols |= {d.name, d.column, *([d.other] if d.other else [])}
    for sub in (plan.of, plan.versus):
        if sub is not None:
            cols |= _plan_columns(sub)
    return cols
