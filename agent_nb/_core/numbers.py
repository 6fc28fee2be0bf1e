"""Checks for numeric options: finite, of the right kind, and in range.

Python's comparisons are all false for NaN, so a check written as
``if value < 0: raise`` lets NaN through (and infinity passes any lower
bound). A NaN temperature then samples garbage for hundreds of tokens. Every
numeric option -- sampling values, token caps, seeds, budgets -- goes through
these two functions instead, and a bad value gets one line that names the
option and says what is allowed.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

__all__ = ["byte_size", "check_int", "check_real", "check_repeats"]


def _bounds(low: float | None, high: float | None, low_open: bool) -> str:
    if low is not None and high is not None:
        return f"between {low} ({'exclusive' if low_open else 'inclusive'}) and {high}"
    if low is not None:
        return f"{'>' if low_open else '>='} {low}"
    return f"<= {high}"


def check_real(
    name: str,
    value: Any,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
) -> float:
    """``value`` as a float if it is a finite real number in range, else `ValueError`."""
    allowed = f"{name} must be a finite number {_bounds(low, high, low_open)}"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{allowed}, got {type(value).__name__} {value!r}")
    number = float(value)
    if (
        not math.isfinite(number)
        or (low is not None and (number <= low if low_open else number < low))
        or (high is not None and number > high)
    ):
        raise ValueError(f"{allowed}, got {value!r}")
    return number


def check_int(name: str, value: Any, *, low: int | None = None, high: int | None = None) -> int:
    """``value`` if it is a whole number (not a bool, not a float) in range, else an error."""
    allowed = f"{name} must be a whole number {_bounds(low, high, False)}"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        kind = ValueError if isinstance(value, numbers.Real) else TypeError
        raise kind(f"{allowed}, got {type(value).__name__} {value!r}")
    number = int(value)
    if (low is not None and number < low) or (high is not None and number > high):
        raise ValueError(f"{allowed}, got {value!r}")
    return number


def check_repeats(value: Any, name: str = "repetition_stop") -> int:
    """A repetition stop: 0 (off) or a count of at least 2 (one span is no repetition)."""
    number = check_int(f"{name} (0 turns it off)", value, low=0)
    if number == 1:
        raise ValueError(f"{name} must be 0 (off) or at least 2 repeats in a row, got 1")
    return number


def byte_size(n: float) -> str:
    """``1536`` as ``"1.5 KB"``: bytes for a person (KB = 1,024 bytes), up to GB."""
    value = float(n)
    for unit in ("B", "KB", "MB"):
        if value < 1024:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"
