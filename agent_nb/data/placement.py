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
from .words import HOW_MANY, MODE, STOPWORDS, singular, stem

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
    """A blocking rule: ``test`` returns a reason when the word would change the answer."""

    name: str
    test: Callable[[_Ask], str | None]


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


#: The blocking rules, in order (see the module docstring).
RULES: tuple[Rule, ...] = (
    Rule("names another column", _names_other_column),
    Rule("names a value", _names_value),
    Rule("asks for each group", _asks_each),
    # "English score" qualifies; "a guest stayed", "product codes" do not: which one a
    # word is takes its part of speech (the lexicon's), not its place alone.
    # Rule("qualifies a column", _qualifies_a_column),
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


def unplaced(r: Reading, plan: Plan, left: list[str], used: set[str]) -> tuple[Unplaced, ...]:
    """The words of ``left`` that would change the answer, each with why."""
    columns = frozenset(_plan_columns(plan))
    out = []
    for word in left:
        if placed_by_plan(word, plan, r):
            continue
        index = r.tokens.index(word) if word in r.tokens else -1
        ask = _Ask(r, plan, index, word, columns, frozenset(used))
        for rule in RULES:
            why = rule.test(ask)
            if why is not None:
                out.append(Unplaced(word, why))
                break
    return tuple(out)


def _plan_columns(plan: Plan) -> set[str]:
    cols = {c for c in (plan.measure, plan.group_by, plan.group_by2, plan.time, plan.other) if c}
    cols |= {f.column for f in (*plan.filters, *plan.condition)}
    for d in plan.derive:
        cols |= {d.name, d.column, *([d.other] if d.other else [])}
    for sub in (plan.of, plan.versus):
        if sub is not None:
            cols |= _plan_columns(sub)
    return cols
