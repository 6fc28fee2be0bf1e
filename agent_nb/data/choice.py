"""A comparison asked as a choice: "is Siena's sample more or less than Quinnipiac's?".

The question offers two words that order ("more or less", "more/less", "greater
than or less than", "higher or lower"), and the answer is the one that holds,
not yes or no. `chosen` turns a comparison's computed sides into that word, and
the test that holds, which the plan and its table then show; where the two
sides are equal, or either is no number, it gives None and the answer stays a
yes or no, which `answer_form` refuses for such a question.
"""

from __future__ import annotations

import numbers
import re
from typing import Any, Literal

from .query import Plan
from .reading import Reading

__all__ = ["chosen", "offered"]

#: "A or B", "A/B", "A than or B than": two words on either side of "or" or a slash.
_PAIR = re.compile(r"\b([a-z]+)(?: than)?\s*(?:/|\bor\b)\s*([a-z]+)\b")


def _direction(r: Reading, word: str) -> int:
    from .word_classes import FEWER, MORE

    if word in MORE:
        return 1
    if word in FEWER:
        return -1
    return r.side(word)


def offered(r: Reading) -> tuple[str, str] | None:
    """The words the question offers, the high end's first ("more", "less"), or None."""
    for m in _PAIR.finditer(r.text.lower()):
        a, b = m.group(1), m.group(2)
        da, db = _direction(r, a), _direction(r, b)
        if da and db and da == -db:
            return (a, b) if da > 0 else (b, a)
    return None


def chosen(r: Reading, plan: Plan, detail: dict[str, Any]) -> tuple[str, Literal[">", "<"]] | None:
    """The offered word a comparison's sides (``detail``: left, right) make true, and the
    test that holds between them; None where no choice is offered, the comparison does
    not order, the sides are equal, or either is no number."""
    if plan.op != "compare" or plan.test not in ("<", "<=", ">", ">="):
        return None
    pair = offered(r)
    left: Any = detail.get("left")
    right: Any = detail.get("right")
    if pair is None or not (_number(left) and _number(right)) or left == right:
        return None
    return (pair[0], ">") if float(left) > float(right) else (pair[1], "<")


def _number(value: Any) -> bool:
    """Whether ``value`` is a number to order (NumPy's too; no flag, no NaN)."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return False
    return isinstance(value, numbers.Real) and value == value
