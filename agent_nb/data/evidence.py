"""What the check compares, and the check: is a model's sentence true to the result's meaning?

`reference` builds the check's reference from a plan and its result, as a
JSON value (it travels in ``temp:`` state to the writer's callback): the
answer (its words: "Yes", the number, the labels), every number the sentence
may state with its role (a growth %, a first value, a count), the labels it
must and must not name, the filters its number was computed under, and the
direction the result goes. `check_sentence` accepts a sentence only when

* a yes/no answer starts with the right word; a list is stated as a list
  (``[a, b]``, bullet lines, or after a colon) holding the answer's items,
  each as often as the answer has it, and nothing else;
* every number it states is one of the result's, after rounding as written,
  and a percentage is a number whose role is a percentage (a change or a
  share), never the first month's mean;
* it states at least one of the answer's own numbers, when it has any;
* it names each of the answer's labels and none of the result's others;
* it names each filter's value (or column);
* its direction words agree with the result (no "lowest" for a maximum,
  no "fell" for a rise, no "fewer" for more).

`checked_reply` is what the reader gets: the model's sentence when it
passes, else the template sentence and one line saying the wording was replaced.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from . import vocabulary
from .describe import answer_text
from .execute import Result
from .query import Plan
from .wordnet import lemmas
from .words import phrase

__all__ = ["REPLACED", "check_sentence", "checked_reply", "reference", "stated_list"]

#: The one line under a template sentence that replaced the model's wording.
REPLACED = "*(the model's wording was replaced by the computed sentence: {why})*"
_NUMBER = re.compile(r"(?<![\w.])[-+−]?\d[\d,]*(?:\.\d+)?(?![\w])")
#: The words of the high end and of a rise, and of the low end and of a fall: a sentence
#: that says one where the result went the other way is wrong.
_UP = vocabulary.words("rising_words")
_DOWN = vocabulary.words("falling_words")
#: The words a yes-or-no sentence starts with; those that say a list is empty.
_YES_NO = vocabulary.alternation("yes_no_words")
_EMPTY = vocabulary.alternation("empty_answer_words")
_PERCENT_ROLES = ("change", "share")


def _finite(values: Any) -> list[float]:
    return [float(x) for x in values if isinstance(x, (int, float)) and math.isfinite(float(x))]


def reference(plan: Plan, result: Result, sentence: str) -> dict[str, Any]:
    """The check's reference (see the module docstring), as a JSON value."""
    value = result.value
    roles: dict[str, list[float]] = {}
    for role, number in result.roles:
        if math.isfinite(number):
            roles.setdefault(role, []).append(float(number))
    inside = [v for text in (sentence, *result.names) for v, _ in _stated(text)]
    filters = [f for f in (*plan.filters, *plan.condition)]
    allowed = _finite(
        [n for ns in roles.values() for n in ns]
        + inside
        + [f.value for f in filters if isinstance(f.value, (int, float))]
        + [x for f in filters if isinstance(f.value, tuple) for x in f.value]
        + [plan.k, result.rows]
    )
    if plan.against is not None and isinstance(plan.against, (int, float)):
        allowed.append(float(plan.against))
    answer_numbers = roles.get("value", []) + roles.get("change", []) + roles.get("left", [])
    if plan.op == "exists":
        answer_numbers = []
    if plan.agg == "share" and plan.op == "aggregate":
        roles["share"] = roles.get("value", [])
    percent = [n for r in _PERCENT_ROLES for n in roles.get(r, [])]
    direction = None
    if plan.op in ("rank", "extreme") or (plan.op == "aggregate" and plan.agg in ("max", "min")):
        up = plan.order == "desc" if plan.op != "aggregate" else plan.agg == "max"
        direction = "up" if up else "down"
    if plan.op == "trend" and plan.group_by is None and roles.get("change"):
        direction = "up" if roles["change"][0] >= 0 else "down"
    if plan.op == "compare" and plan.test in ("<", ">", "<=", ">=") and isinstance(value, bool):
        up = plan.test in (">", ">=")
        direction = "up" if up == value else "down"
    words = []
    for f in filters:
        if isinstance(f.value, str):
            words.append([phrase(f.value), phrase(f.column)])
        elif isinstance(f.value, tuple):
            words.append([phrase(str(x)) for x in f.value] + [phrase(f.column)])
        elif isinstance(f.value, (int, float)) and not isinstance(f.value, bool):
            words.append([phrase(answer_text(f.value)), phrase(str(f.value))])
    return {
        "sentence": sentence,
        "answer": answer_text(value) if value is not None else None,
        "yes": value if isinstance(value, bool) else None,
        "items": [answer_text(v) for v in value] if isinstance(value, list) else [],
        "numbers": _finite(answer_numbers),
        "allowed": sorted(set(allowed + [abs(x) for x in allowed])),
        "percent": sorted(set(_finite(percent) + [abs(x) for x in _finite(percent)])),
        "names": list(result.names)[:20] if not isinstance(value, list) else [],
        "others": [o for o in result.others if o not in result.names][:50],
        "filters": words,
        "direction": direction,
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


def _matches(value: float, decimals: int, ref: float) -> bool:
    """``value`` is ``ref`` rounded to ``decimals`` places (a half either way)."""
    return abs(ref - value) <= 0.5 * 10**-decimals + 1e-9 * max(1.0, abs(ref))


def _named(name: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(name.lower())}(?!\w)", text.lower()) is not None


def check_sentence(text: str, ref: Mapping[str, Any]) -> str | None:
    """None when ``text`` is true to ``ref`` (`reference`), else why not."""
    low = text.lower().strip()
    if ref.get("yes") is not None:
        lead = re.match(rf"\W*({_YES_NO})\b", low)
        want = "yes" if ref["yes"] else "no"
        if lead is None or lead.group(1) not in (want, "true" if ref["yes"] else "false"):
            return f"it did not start with {want.capitalize()}"
    items = [str(x) for x in ref.get("items", [])]
    if ref.get("answer") == "[]" and not re.search(rf"\[\s*\]|\b({_EMPTY})\b", low):
        return "it did not say the list is empty"
    if items:
        why = _list_differs(text, items)
        if why is not None:
            return why
    bare = text
    for name in sorted([*ref["names"], *ref.get("items", [])], key=len, reverse=True):
        bare = re.sub(rf"(?<!\w){re.escape(str(name))}(?!\w)", " ", bare, flags=re.IGNORECASE)
    stated = _stated(bare)
    for value, decimals in stated:
        if not any(_matches(abs(value), decimals, r) for r in ref["allowed"]):
            return f"it stated {value:g}, which is not in the result"
    for m in re.finditer(r"(\d[\d,]*(?:\.\d+)?)\s?%", bare):
        ((value, decimals),) = _stated(m.group(1)) or [(math.nan, 0)]
        if not any(_matches(abs(value), decimals, r) for r in ref.get("percent", [])):
            return f"it stated {m.group(0)} as a percentage, which the result is not"
    numbers = ref["numbers"]
    if (
        numbers
        and not ref.get("items")
        and not any(_matches(abs(v), d, abs(r)) for v, d in stated for r in numbers)
    ):
        return "it stated none of the answer's numbers"
    for name in ref["names"]:
        if not _named(name, text):
            return f"it did not name {name}"
    for other in ref["others"]:
        if _named(other, text) and not any(_named(other, n) for n in ref["names"]):
            return f"it named {other}, which is not the answer"
    said = phrase(text)
    spoken = {lemma for w in said.split() for lemma in (w, *lemmas(w))}
    for word in ref.get("foreign", []):
        if word in spoken:
            return f"it spoke of {word!r}, which the answer does not measure"
    for options in ref.get("filters", []):
        if not any(o and f" {o} " in f" {said} " for o in options):
            return f"it did not name the filter {options[0]!r}"
    direction = ref.get("direction")
    if direction:
        wrong = _DOWN if direction == "up" else _UP
        hit = set(said.split()) & wrong
        if hit:
            return f"it said {sorted(hit)[0]!r}, but the result goes the other way"
    return None


_ITEM_SPLIT = re.compile(r",(?!\d{3}(?!\d))\s*|\s+and\s+|;\s*")


def stated_list(text: str) -> list[str] | None:
    """The items a sentence states as a list: ``[a, b]``, bullet lines, or what follows
    its first colon; None when it states none as a list ("are a and b")."""
    bracket = re.search(r"\[([^\[\]]*)\]", text)
    if bracket:
        found = [x.strip(" '\"*`") for x in _ITEM_SPLIT.split(bracket.group(1))]
        return [x for x in found if x]
    bullets = re.findall(r"^\s*(?:[-*•]|\d+[.)])\s+(.+?)\s*$", text, re.MULTILINE)
    if bullets:
        return [b.strip().strip("*`'\"").rstrip(".;,").strip() for b in bullets]
    first = text.strip().split("\n\n")[0]
    if ":" in first:
        tail = first.split(":", 1)[1].strip().rstrip(".")
        return [p.strip(" '\"*`") for p in _ITEM_SPLIT.split(tail) if p.strip(" '\"*`")]
    return None


def _same_item(said: str, item: str) -> bool:
    if said.lower() == item.lower():
        return True
    if _isnum(said) and _isnum(item):
        ((value, decimals),) = _stated(said.replace(",", "")) or [(math.nan, 0)]
        return _matches(value, decimals, float(item.replace(",", "")))
    return False


def _list_differs(text: str, items: list[str]) -> str | None:
    """Why ``text`` does not state exactly ``items`` as a list (in any order), or None."""
    said = stated_list(text)
    if said is None:
        return "it did not state the answer as a list"
    left = list(items)
    for x in said:
        hit = next((i for i, item in enumerate(left) if _same_item(x, item)), None)
        if hit is None:
            return f"it listed {x!r}, which is not in the answer"
        left.pop(hit)
    if left:
        return f"it did not list {left[0]}"
    return None


def _isnum(value: Any) -> bool:
    try:
        float(str(value).replace(",", ""))
    except ValueError:
        return False
    return True


def checked_reply(text: str, ref: Mapping[str, Any]) -> str | None:
    """None to keep the model's ``text``; else the template sentence and the note."""
    why = check_sentence(text.strip(), ref) if text.strip() else "it was empty"
    if why is None:
        return None
    return f"{ref['sentence']}\n\n{REPLACED.format(why=why)}"
