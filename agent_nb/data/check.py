"""Is a model's sentence true to the result? Numbers and names, checked as written.

`check_sentence` accepts a sentence only when

* every number it states matches a number of the result after rounding as
  written ("30.4" matches 30.45 to one decimal only if it rounds so; "554,894"
  is not 55,489), percentages included;
* it states at least one of the answer's own numbers, when the answer has any;
* it names each of the answer's groups and none of the result's other groups
  ("Chinstrap" where the answer is Gentoo is refused).

`checked_reply` is what the reader gets: the model's sentence when it passes,
else the template sentence built from the result and one line saying the
wording was replaced. The check reads a JSON value (`check_state`), so it can
travel in ``temp:`` state from the data agent to the writer's callback.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["REPLACED", "check_sentence", "check_state", "checked_reply"]

#: The one line under a template sentence that replaced the model's wording.
REPLACED = "*(the model's wording was replaced by the computed sentence: {why})*"
_NUMBER = re.compile(r"(?<![\w.])[-+−]?\d[\d,]*(?:\.\d+)?(?![\w])")


def check_state(sentence: str, numbers: Sequence[float], allowed: Sequence[float],
                names: Sequence[str], others: Sequence[str]) -> dict[str, Any]:  # fmt: skip
    """The check's reference as a JSON value (finite numbers only). The numbers the
    template itself states, and those inside the answer's names ("datsun 1200",
    "2015-12"), are allowed too."""
    inside = [v for text in (sentence, *names) for v, _ in _stated(text)]
    finite = [float(x) for x in (*allowed, *inside) if math.isfinite(x)]
    return {
        "sentence": sentence,
        "numbers": [float(x) for x in numbers if math.isfinite(x)],
        "allowed": sorted(set(finite + [abs(x) for x in finite])),
        "names": list(names),
        "others": [o for o in others if o not in names][:50],
    }


def _stated(text: str) -> list[tuple[float, int]]:
    out = []
    for token in _NUMBER.findall(text):
        clean = token.replace(",", "").replace("−", "-").lstrip("+")
        decimals = len(clean.split(".")[1]) if "." in clean else 0
        try:
            out.append((float(clean), decimals))
        except ValueError:
            continue
    return out


def _matches(value: float, decimals: int, reference: float) -> bool:
    """``value`` is ``reference`` rounded to ``decimals`` places (a half either way:
    30.45 may be written 30.4 or 30.5, never 30.3)."""
    return abs(reference - value) <= 0.5 * 10**-decimals + 1e-9 * max(1.0, abs(reference))


def _named(name: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(name.lower())}(?!\w)", text.lower()) is not None


def check_sentence(text: str, reference: Mapping[str, Any]) -> str | None:
    """None when ``text`` is true to ``reference`` (`check_state`), else why not."""
    bare = text
    for name in sorted(reference["names"], key=len, reverse=True):  # "No. 457" names, not 457
        bare = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", " ", bare, flags=re.IGNORECASE)
    stated = _stated(bare)
    allowed = reference["allowed"]
    for value, decimals in stated:
        if not any(_matches(abs(value), decimals, r) for r in allowed):
            return f"it stated {value:g}, which is not in the result"
    numbers = reference["numbers"]
    if numbers and not any(_matches(abs(v), d, abs(r)) for v, d in stated for r in numbers):
        return "it stated none of the answer's numbers"
    for name in reference["names"]:
        if not _named(name, text):
            return f"it did not name {name}"
    for other in reference["others"]:
        if _named(other, text) and not any(_named(other, n) for n in reference["names"]):
            return f"it named {other}, which is not the answer"
    return None


def checked_reply(text: str, reference: Mapping[str, Any]) -> str | None:
    """None to keep the model's ``text``; else the template sentence and the note."""
    why = check_sentence(text.strip(), reference) if text.strip() else "it was empty"
    if why is None:
        return None
    return f"{reference['sentence']}\n\n{REPLACED.format(why=why)}"
