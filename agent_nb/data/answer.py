"""One question over the notebook's DataFrames: candidates tried in turn, every word accounted for.

`ask` profiles each table (`table.profile`, with the user's `context`; kept
while the table's object and content stay the same, `profiles.profiled`),
reads the question over the one whose columns and values it names best,
and tries the planner's candidates in order (`planner.plan_candidates`),
validating each by running it: a `PlanError` (no rows, no numbers, a value
that is not there), an answer of the wrong type for the question (a number
for "Is there...?") or an empty list nobody asked for moves on to the next.
Among the valid ones, the first that uses every word that would change the
answer wins.

`Answer` holds the typed answer (`Answer.value`: bool, number, string or
list), the template sentence (answer first, `describe`), the check's
reference (`evidence`), the plan and why, and what was left out. Where a
word that would change the answer (a filter, a negation, a comparison) is
not applied by any candidate, the answer gives **no** value: its sentence
says what was computed and "not applied: '...'".
"""

from __future__ import annotations

import dataclasses
import functools
import operator
import re
from collections.abc import Mapping
from typing import Any

from . import vocabulary
from .answer_form import form_faults
from .cells import name_without_details, venue_marked, without_venue_mark
from .choice import chosen
from .describe import sentence
from .execute import PlanError, Result, amount_as_written, run_plan
from .execute_ops import notes_of
from .placement import Unplaced, shown_column, unplaced
from .planner import Candidate, plan_candidates
from .profiles import profiled
from .query import Plan
from .reading import Reading, unused_words
from .table import Table
from .words import COMPARING, EXCEPT, NEGATION, phrase

__all__ = ["Answer", "ask", "refine"]

#: The one-word exclusions ("outside of the US", "except 2010"): unused, they block.
_EXCLUDING = frozenset(p for p in EXCEPT if " " not in p)
#: A question's words that take an empty list for an answer ("if there are none").
_EMPTY_OK_PHRASES = vocabulary.alternation("empty_answer_allowed")
_EMPTY_OK = re.compile(rf"\b({_EMPTY_OK_PHRASES})\b")
#: The words after which a number is a bound, with the comparators' own ("than 5").
_THRESHOLD = vocabulary.words("threshold_prepositions")
#: What "non-" joins without a filter to apply: "non-unique" (repeats allowed).
_NON_QUALITIES = vocabulary.words("non_prefixed_qualities")
#: Negations typed without their apostrophe ("dont"), and the "t" of one split at it.
_RUN_TOGETHER = frozenset(vocabulary.tagged("negations", "run|rest"))
#: What a negation split at its apostrophe leaves before the "t" ("don", "haven").
_CONTRACTED = frozenset(vocabulary.tagged("negations", "stem"))


@dataclasses.dataclass(frozen=True)
class Answer:
    """A question's answer over one table (see the module docstring)."""

    question: str
    table: str
    plan: Plan
    reasons: tuple[str, ...]
    result: Result
    notes: tuple[str, ...]
    left_out: tuple[str, ...] = ()  # content words no part used (a note)
    not_applied: str = ""  # the question's words that would change the answer, unused
    open: bool = False  # the words left a choice open (the model may fill the plan)
    unplaced: tuple[Unplaced, ...] = ()  # left-out words that would change the answer
    foreign: tuple[str, ...] = ()  # words that name the table's other columns, not the plan's

    @property
    def understood(self) -> bool:
        """Every word that would change the answer is placed: a value may be stated."""
        return not (self.not_applied or self.unplaced)

    @property
    def value(self) -> Any:
        """The typed answer (bool, number, string or list); None when a word that would
        change it was not applied, or the question names nothing of the table."""
        return self.result.value if self.understood else None

    @property
    def kind(self) -> str:
        return self.result.kind if self.understood else "none"

    @property
    def could_not_place(self) -> tuple[str, ...]:
        """The words that kept a value from being stated, in the question's order."""
        words = [u.word for u in self.unplaced if u.asked]
        # (two rules may block one word: it is said once)
        return tuple(dict.fromkeys((*([self.not_applied] if self.not_applied else []), *words)))

    @property
    def data(self) -> Any:
        """The result as a small DataFrame; None where no value may be stated (its
        numbers answer another question than the one asked)."""
        if not self.understood:
            return None
        return self.result.shown  # cells as written ("1,234", "3rd"), not the numbers read

    @property
    def sentence(self) -> str:
        """The template sentence: the answer first, worded by code."""
        if not self.understood:
            return self.reading
        text = sentence(self.plan, self.result, self.table)
        return f"{text}\n\n*({self.note})*" if self.note else text

    @property
    def reading(self) -> str:
        """What was read and what could not be placed, with no computed value: a
        question the reading did not fully place gets no number."""
        from .describe import reading_of

        read = f"No answer: I read {reading_of(self.plan)} in {self.table}"
        unasked = [u.word for u in self.unplaced if not u.asked]
        if not self.could_not_place:  # only the operation: the words asked for another
            why = next(u.why for u in self.unplaced if not u.asked)
            return (
                f"{read}, but the question does not ask for {' or '.join(unasked)} ({why}). "
                "Reword it to say what to compute (how many, the average, the total, ...)."
            )
        words = [f"'{w}'" for w in self.could_not_place]
        why = next((u.why for u in self.unplaced if u.asked), "")
        if why and not self.not_applied:  # the first word's reason: what to reword
            words[0] += f" ({why})"
        if not self.not_applied and all(u.form for u in self.unplaced if u.asked):
            return f"{read}, but I could not place {', '.join(words)}. Reword the question."
        return (
            f"{read}, but I could not place {', '.join(words)}. Say what it means in the "
            "data context (a column's description or a value's synonyms: `--data-context` "
            "in a cell, `data_context=` in the chat widget), or reword the question."
        )

    @property
    def why(self) -> str:
        """Why this plan: the words that named its columns, and what it computes."""
        own = [x for x in self.reasons if not x.startswith("tried first")]
        return "; ".join(own[-3:])

    @property
    def note(self) -> str:
        """The one line about a left-out word, or nothing."""
        if not self.understood or not self.left_out:
            return ""
        return "left out: " + ", ".join(f"'{w}'" for w in self.left_out[:3])

    @functools.cached_property
    def chart(self) -> Any:
        """The Altair chart of the result, built once (the view and the cell share it)."""
        from .chart import chart_for

        return chart_for(self.result) if self.understood else None

    @property
    def view(self) -> dict[str, Any]:
        from .chart import view_bundle

        if not self.understood:  # the plan line alone: its numbers are no answer
            return view_bundle(f"{self.plan.describe()} (not answered)", None, None)
        return view_bundle(self.plan.describe(), self.data, self.chart)

    @property
    def facts(self) -> str:
        """What the writer reads: the computed answer, no table."""
        lines = [f"Facts about {self.table} (computed with pandas):", f"- {self.sentence}"]
        return "\n".join(lines + ([f"- {self.note}"] if self.note else []))

    @property
    def trace(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "plan": self.plan.model_dump(mode="json"),
            "describe": self.plan.describe(),
            "why": list(self.reasons),
            "notes": list(self.notes),
            "left_out": list(self.left_out),
            "not_applied": self.not_applied,
            "unplaced": [dataclasses.asdict(u) for u in self.unplaced],
        }

    @property
    def reference(self) -> dict[str, Any]:
        from .evidence import reference

        bare = sentence(self.plan, self.result, self.table) if self.understood else ""
        ref = reference(self.plan, self.result, bare)
        ref["sentence"] = self.sentence
        ref["note"] = f"*({self.note})*" if self.note else ""
        ref["foreign"] = list(self.foreign)
        if not self.understood:  # nothing but the template says what was not placed
            ref.update(numbers=[], names=[], items=[], yes=None, allowed=[], must="not applied")
        return ref


def _score(table: Table, question: str) -> float:
    from .lexicon import match_columns, match_values
    from .words import question_words

    named = match_columns(table, question_words(question), question)
    return sum(s for s, _ in named.values()) + 2 * len(match_values(table, question))


def _fits(r: Reading, result: Result) -> str | None:
    """Why ``result`` is not an answer to the question's form, or None."""
    kind = result.kind
    if r.expect == "boolean" and kind != "boolean":
        return f"a {kind}, not yes or no"
    if r.expect == "list" and not kind.startswith("list") and kind != "none":
        return f"a {kind}, not a list"
    if r.expect == "number" and kind not in ("number", "mapping") and kind != "none":
        return f"a {kind}, not a number"
    if kind.startswith("list") and not result.value and not _EMPTY_OK.search(r.asked.lower()):
        return "an empty list"
    single = result.get("tied") is None and not result.get("every")
    if r.expect != "list" and kind.startswith("list") and single and len(result.value) != 1:
        return "a list for a single answer"  # (a tie's list, or every group a test keeps)
    return None


def _changers(r: Reading, used: set[str]) -> list[int]:
    """Indexes of question words that would change the answer and that nothing used."""
    out = []
    value_words = {w for v in r.values for w in v.words}
    numbers = {
        i
        for s in r.stated
        for i in range(s.start, s.start + len(s.words))
        if not (r.k is not None and s.value == r.k)
    }  # "five values": the k again
    for i, token in enumerate(r.tokens):
        if token in used:
            continue
        if i in numbers and token not in r.k_words:
            if token.isdigit() or (i > 0 and r.tokens[i - 1] in COMPARING | _THRESHOLD):
                out.append(i)  # "one season" is not a threshold
        elif (
            (token in NEGATION or token == "t")
            and i + 1 < len(r.tokens)
            and r.tokens[i + 1] in _NON_QUALITIES
            and token == "non"
        ):
            continue  # "non-unique": repeats allowed, not a filter
        elif token in NEGATION or token in _EXCLUDING or token in _RUN_TOGETHER:
            if token == "t" and (
                i == 0 or r.tokens[i - 1] in used or r.tokens[i - 1] not in _CONTRACTED
            ):
                continue
            out.append(i)
        elif token in value_words or (
            token in COMPARING and i + 1 < len(r.tokens) and r.tokens[i + 1] == "than"
        ):
            out.append(i)
    return out


def _span(r: Reading, idx: list[int]) -> str:
    lo, hi = max(0, min(idx) - 1), min(len(r.tokens), max(idx) + 2)
    return " ".join(r.tokens[lo:hi])


def _used(plan: Plan, r: Reading) -> set[str]:
    used = set(plan.used()) | set(r.k_words)
    used |= {w for ws in (f.words for f in (*plan.filters, *plan.condition)) for w in ws}
    for name, (_, ws) in r.named.items():
        if name in plan.columns():
            used |= ws
    out = set()
    for w in used:
        out |= {w, *phrase(w).split()}
    for t in r.tokens:  # a plural or a stem of a used word
        if t.rstrip("s") in out or t[:-1] in out:
            out.add(t)
    return out


def _answer(table: Table, r: Reading, cands: list[Candidate]) -> Answer:
    """The first candidate's answer that places every word (see `_first_placed`), its
    amount then stated with the unit its cells give (not where the question asks "how
    many": its number is the answer; the checks compared the numbers)."""
    answer = _first_placed(table, r, cands)
    answer = dataclasses.replace(answer, result=_named(table, answer.plan, answer.result))
    if r.expect == "number":
        return answer
    return dataclasses.replace(answer, result=amount_as_written(table, answer.plan, answer.result))


def _named(table: Table, plan: Plan, result: Result) -> Result:
    """The names the answer states without the lines that detail them in their cells
    ("Cosimo de' Medici" of "Cosimo de' Medici\n(Pater Patriae)"), and without the word
    that marks where the row's event was, in a column that marks it ("at Detroit
    Waza": Detroit Waza); the table shown keeps the cells as written."""
    shown = table.df.get(shown_column(plan) or "")
    marked = shown is not None and venue_marked(shown.dropna().head(_MARKS_READ))

    def name(cell: Any) -> Any:
        cell = name_without_details(cell)
        return without_venue_mark(cell) if marked else cell

    value = result.value
    named: Any = [name(v) for v in value] if isinstance(value, list) else name(value)
    names = tuple(name(n) for n in result.names)
    if named == value and names == result.names:
        return result
    return dataclasses.replace(result, value=named, names=names)


#: How many of a column's cells are read to know whether it marks venues.
_MARKS_READ = 200


def _first_placed(table: Table, r: Reading, cands: list[Candidate]) -> Answer:
    first: Answer | None = None
    applied: Answer | None = None
    failed: list[str] = []
    for cand in cands:
        if cand.plan.op == "columns" and first is not None:
            break
        try:
            result = run_plan(table, cand.plan)
        except PlanError as exc:
            failed.append(f"{cand.plan.describe()}: {exc}")
            continue
        why = _fits(r, result) if cand.plan.op != "columns" else None
        if why is not None:
            failed.append(f"{cand.plan.describe()}: {why}")
            continue
        answer = _judged(table, r, cand, result, failed)
        if applied is not None:
            if answer.understood and _refines(cand, applied.plan, r):
                return answer
            continue
        if not answer.not_applied:
            if answer.understood:
                return answer  # the first reading that places every word that changes it
            applied = answer  # a word is not placed: this one says so, unless ...
        first = first or answer
    if first is None:
        raise ValueError(failed[-1] if failed else "nothing in the question can be computed")
    return applied or first


def _refines(cand: Candidate, plan: Plan, r: Reading) -> bool:
    """Whether ``cand`` is ``plan`` made to place a word that one could not: the same
    operation on the same columns, reading every word it read, with nothing left open
    ("the last president from the Republican party": the president of the last
    matching row, where the first reading took the matching row's)."""
    same = _WHAT_IT_COMPUTES(cand.plan) == _WHAT_IT_COMPUTES(plan)
    return same and not cand.open and _used(cand.plan, r) >= _used(plan, r)


_WHAT_IT_COMPUTES = operator.attrgetter("op", "group_by", "measure", "agg")


def _judged(table: Table, r: Reading, cand: Candidate, result: Result, failed: list[str]) -> Answer:
    """``cand``'s answer: its words sorted into used, harmless and blocking."""
    used = _used(cand.plan, r)
    missed = _changers(r, used)
    mine = cand.plan.columns()
    named = tuple(x for x in cand.reasons[:-1] if not x.startswith("'") or x.split("'")[1] in mine)
    cand = dataclasses.replace(cand, reasons=(*named, cand.reasons[-1]))
    left = tuple(
        w
        for w in unused_words(r, used, cand.plan.op, cand.plan.columns())
        if r.tokens.index(w) not in missed
    )
    reasons = tuple(f"tried first: {f}" for f in failed[:3]) + cand.reasons
    not_applied = _span(r, missed) if missed and cand.plan.op != "columns" else ""
    choice = chosen(r, cand.plan, dict(result.detail))
    if choice is not None:  # "more or less than ...?": the word that holds, not yes or no,
        word, test = choice  # and the test that holds, shown in the plan and its table
        cand = dataclasses.replace(cand, plan=cand.plan.model_copy(update={"test": test}))
        result = dataclasses.replace(result, value=word, frame=result.frame.assign(test=test))
    blocking: tuple[Unplaced, ...] = ()
    if cand.plan.op != "columns":
        blocking, harmless = unplaced(r, cand.plan, list(left), used)
        blocking += tuple(form_faults(r, cand.plan, used, result.rows, result.value))
        left = harmless
    return Answer(
        r.question,
        table.name,
        cand.plan,
        reasons,
        result,
        (*table.notes, *notes_of(result)),  # the row cap, where it applies
        left,
        not_applied,
        cand.open,
        blocking,
        _foreign(table, cand.plan),
    )


def _foreign(table: Table, plan: Plan) -> tuple[str, ...]:
    """The words that name only columns the plan does not read ("weigh" of body_mass_g
    beside a bill length): a model's sentence that uses one speaks of another quantity."""
    from .words import STOPWORDS

    if plan.op in ("columns", "shape") or (plan.op == "missing" and plan.measure is None):
        return ()  # the answer speaks of every column
    mine = plan.columns()
    own = {w for c in table.columns.values() if c.name in mine for w in c.words}
    said = {w for f in (*plan.filters, *plan.condition) for w in phrase(str(f.value)).split()}
    other = {w for c in table.columns.values() if c.name not in mine for w in c.words}
    named = set(phrase(table.name).split())
    return tuple(sorted(w for w in other - own - said - named - STOPWORDS if len(w) > 2))


def ask(
    frames: Mapping[str, Any],
    question: str,
    context: Mapping[str, Any] | None = None,
) -> Answer:
    """The answer to ``question`` over ``frames`` (name -> DataFrame), see the module docstring.

    Raises ValueError in one line for a table nothing can be computed from (empty,
    all missing) or a question no plan can answer.
    """
    from .context import table_context

    tables = [profiled(name, df, table_context(context, name)) for name, df in frames.items()]
    table = max(tables, key=lambda t: _score(t, question)) if len(tables) > 1 else tables[0]
    r, cands = plan_candidates(table, question)
    return _answer(table, r, cands)


def refine(
    frames: Mapping[str, Any],
    answer: Answer,
    plan: Plan,
    why: str,
    context: Mapping[str, Any] | None = None,
) -> Answer:
    """``answer`` with the model's ``plan`` put first (validated by running; the word
    matcher's candidates stay behind it)."""
    from .context import table_context
    from .planner import plan_candidates as again

    table = profiled(answer.table, frames[answer.table], table_context(context, answer.table))
    r, cands = again(table, answer.question)
    chosen = Candidate(plan, (*cands[0].reasons[:-1], why) if cands else (why,))
    try:
        return _answer(table, r, [chosen, *cands])
    except ValueError:
        return answer
