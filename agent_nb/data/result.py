"""A plan's answer as pandas computed it: `Result`, its answer type, and `PlanError`."""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal

__all__ = [
    "MAX_LIST",
    "MAX_ROWS",
    "PlanError",
    "Result",
    "kind_of",
    "measure_share",
    "number",
    "plain",
    "tie_refused",
    "with_ties",
]

MAX_ROWS = 10
MAX_LIST = 50


class PlanError(ValueError):
    """A plan that cannot be computed on this table (one true line)."""


@dataclasses.dataclass(frozen=True)
class Result:
    """A plan's answer (see the module docstring)."""

    value: Any
    frame: Any
    roles: tuple[tuple[str, float], ...] = ()  # (role, number) the sentence may state
    names: tuple[str, ...] = ()  # the answer's labels
    others: tuple[str, ...] = ()  # the result's other labels
    chart: Literal["bar", "line"] | None = None
    x: str = ""
    y: str = ""
    rows: int = 0  # rows the value was computed over
    detail: tuple[tuple[str, Any], ...] = ()  # what describe words (op-specific)
    written: Any = None  # ``frame`` with cells read from text as written ("17 years")

    @property
    def shown(self) -> Any:
        """The result table as the reader sees it: cells of a column read from text
        as they were written; ``frame`` holds the numbers the sentence states."""
        return self.frame if self.written is None else self.written

    @property
    def kind(self) -> str:
        """DataBench's answer type of ``value`` (or ``table`` for a trend, ``none``)."""
        return kind_of(self.value)

    def get(self, key: str, default: Any = None) -> Any:
        return dict(self.detail).get(key, default)

    @property
    def numbers(self) -> dict[str, float]:
        return dict(self.roles)


def kind_of(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, dict):
        return "mapping"
    if isinstance(value, list):
        numeric = value and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in value
        )
        return "list[number]" if numeric else "list[category]"
    return "category"


def plain(value: Any) -> Any:
    """A pandas / numpy scalar as a plain JSON value: dates as ISO text, whole floats as
    ints, a missing value as None (the one place for this rule)."""
    if hasattr(value, "item") and not isinstance(value, str):
        try:
            value = value.item()
        except (ValueError, AttributeError):
            pass
    if hasattr(value, "isoformat"):
        text = value.isoformat()
        return text[:10] if text.endswith("T00:00:00") or len(text) == 10 else text
    if isinstance(value, float) and value != value:
        return None  # missing
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value if isinstance(value, (str, int, float, bool)) or value is None else str(value)


def number(value: Any) -> float | None:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None


def with_ties(ordered: Any, k: int) -> int:
    """How many of ``ordered`` (a Series of values, best first) the top ``k`` holds once
    the values tied with the k-th are let in: a "highest" that dropped a tied row would
    name a winner the numbers do not pick."""
    n = min(k, len(ordered))
    while 0 < n < len(ordered) and ordered.iloc[n] == ordered.iloc[k - 1]:
        n += 1
    return n


def tie_refused(n: int, total: int, k: int) -> bool:
    """Whether a tie leaves nothing to state: more rows tie than a list holds, or every
    one of several ties (then no row has the highest: the reply says so instead)."""
    return n > k and (n > MAX_LIST or (n == total and total > 1))


def measure_share(
    share: float, part_n: int, base_n: int, some: float, whole: float, measure: str
) -> Result:
    """The share of a measure's total that the rows meeting a condition hold, with that
    part and the whole (what the sentence says it is a share of: not the rows)."""
    import pandas as pd

    frame = pd.DataFrame({measure: [some], "of": [whole], "share %": [share], "rows": [part_n]})
    roles = (
        ("value", share), ("count", float(part_n)), ("base", float(base_n)),
        ("part", some), ("whole", whole),
    )  # fmt: skip
    return Result(share, frame, roles, rows=base_n)
