"""Which computed fact answers a question: words matched, nothing evaluated.

A 135M-parameter model given twenty true sentences about a table and asked
"Which region has the highest total revenue?" picks a neighbour of the right
one ("West, 7,355": another sentence's number). Told which sentence answers
the question, it words that one. `answering` scores each `Fact` by the
question's words: the columns it names (``region``, ``revenue``, ``month``),
a direction (``highest`` / ``most`` / ``best``; ``lowest`` / ``least``), a
change over time (``trend``, ``change``, ``rise``), the table's shape
(``contain``, ``columns``, ``rows``), a total or mean. A fact asked for one
part only answers with that part ("South has the lowest ...", "The total
revenue is ...").

`focus` is what the writer then reads: the table's shape and that one fact,
or, when no fact bears on the question, the headline facts (the largest
measure's ranking and trend). Measured on the embedded model with the 03
table and seven questions: from all twenty facts the writer answered two
right (the change, the peak month) and named West for all three region
questions; from the focused facts it answered six right, and the seventh
("what does this table contain?") with a vague but true sentence.

Plain word matching, deterministic and bounded: the question is the user's
text and is never parsed as code.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from .insights import Fact, Insights, facts_text

__all__ = ["answering", "focus", "names", "score", "words"]


def _cues(text: str) -> frozenset[str]:
    return frozenset(text.split())


_HIGH = _cues("highest most best top largest biggest greatest max maximum leading peak more")
_LOW = _cues("lowest least worst bottom smallest fewest min minimum weakest less")
_TREND = _cues(
    "trend trends change changed changes grow grew growth rise rose fall fell drop dropped "
    "increase increased decrease decreased over time went evolve evolved"
)
_SHAPE = _cues("contain contains columns column rows row table describe shape")
_TOTAL = _cues("total sum overall")
_MEAN = _cues("average mean typical")
#: The words that make a fact of each kind an answer, and how much they weigh
#: (a column the question names weighs 2).
_KIND_CUES = {
    "rank": (_HIGH | _LOW, 3),
    "peak": (_HIGH, 3),
    "trend": (_TREND, 3),
    "shape": (_SHAPE, 3),
    "summary": (_TOTAL | _MEAN | {"range"}, 1),
    "missing": (_cues("missing gaps empty null nan"), 1),
}
_WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> set[str]:
    """The lower-case words of ``text`` (``unit_price`` is two), each with a plural's
    singular too (``regions``: ``region``)."""
    found = set(_WORD.findall(text.lower()))
    return found | {_singular(w) for w in found}


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") else word


def names(column: str, asked: set[str]) -> int:
    """How many words of ``column``'s name a question made of the words ``asked``
    names, when it names every one ("unit price" names ``unit_price``: 2, "unit"
    names ``units``: 1), else 0. The longer name named wins: ``unit_price`` over
    ``units`` for "the average unit price"."""
    parts = _WORD.findall(column.lower())
    return len(parts) if all(p in asked or _singular(p) in asked for p in parts) else 0


def score(fact: Fact, asked: set[str]) -> int:
    """How well ``fact`` answers a question made of the words ``asked`` (0: not at all)."""
    named = sum(names(c, asked) for c in fact.columns)
    cues, weight = _KIND_CUES.get(fact.kind, (frozenset(), 0))
    return 2 * named + (weight if asked & cues else 0)


def _part(fact: Fact, asked: set[str]) -> str:
    """The part of ``fact`` asked for (a rank's one side, a summary's total or
    mean), else its whole text."""
    if fact.kind == "rank":
        high, low = bool(asked & _HIGH), bool(asked & _LOW)
        if high != low:
            return fact.high if high else fact.low
    if fact.kind == "summary":
        total, mean = bool(asked & _TOTAL), bool(asked & _MEAN)
        if total != mean:
            return fact.total if total else fact.mean
    return fact.text


def answering(tables: Iterable[Insights], question: str) -> tuple[str, str] | None:
    """(table name, sentence): the fact of ``tables`` that best answers
    ``question``, or None when no fact bears on it. Ties go to the earlier fact
    (the larger measure first)."""
    asked = words(question)
    best: tuple[int, str, Fact] | None = None
    for insights in tables:
        for fact in insights.facts:
            points = score(fact, asked)
            if points and (best is None or points > best[0]):
                best = (points, insights.name, fact)
    return None if best is None else (best[1], _part(best[2], asked))


def focus(tables: Sequence[Insights], question: str) -> str:
    """What a writer reads for ``question``: each table's shape and the fact that
    answers it, or the headline facts when none does (see the module docstring)."""
    answer = answering(tables, question)
    texts = []
    for insights in tables:
        shape = [f.text for f in insights.facts if f.kind == "shape"]
        if answer is not None:
            chosen = [*shape, answer[1]] if insights.name == answer[0] else shape
        else:
            headline = [_first(insights, "rank"), _first(insights, "trend")]
            chosen = shape + [h for h in headline if h]
        texts.append(facts_text(insights.name, chosen))
    return "\n\n".join(texts)


def _first(insights: Insights, kind: str) -> str:
    return next((f.text for f in insights.facts if f.kind == kind), "")
