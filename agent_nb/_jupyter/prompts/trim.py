"""Cutting long notebook text to a budget by dropping its middle.

Tracebacks and cells carry their most useful lines at both ends (the call
that started it all, the line that raised; imports, the last expression), so
a long text keeps its head and tail and says how much was left out, instead
of losing its end as a plain truncation would.

Budgets are in tokens, counted as the turn's model counts them (its tokenizer,
or the one estimate; see `agent_nb._core.tokens`): `fit_middle` searches for
the longest middle cut whose counted text fits.
"""

from __future__ import annotations

from collections.abc import Callable

from ..._core.tokens import TextCounter

__all__ = ["cut_middle", "fit_middle"]


def cut_middle(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else its head and tail around a marker.

    Whole lines are kept where possible; the marker counts the lines left out.
    """
    if len(text) <= limit:
        return text
    lines = text.splitlines()
    head: list[str] = []
    tail: list[str] = []
    used = 0
    room = max(0, limit - 48)  # the marker line
    i, j = 0, len(lines) - 1
    while i <= j:
        take_head = len(head) <= len(tail)
        line = lines[i] if take_head else lines[j]
        if used + len(line) + 1 > room:
            break
        used += len(line) + 1
        if take_head:
            head.append(line)
            i += 1
        else:
            tail.append(line)
            j -= 1
    left_out = j - i + 1
    if not head and not tail:  # one huge line: cut by characters
        half = room // 2
        tail_start = len(text) - half  # not text[-half:], which is all of it for half 0
        return f"{text[:half]} … ({tail_start - half} characters left out) … {text[tail_start:]}"
    marker = f"… ({left_out} line{'s' * (left_out != 1)} left out) …"
    return "\n".join([*head, marker, *reversed(tail)])


def fit_middle(
    text: str,
    budget_tokens: int,
    count: TextCounter,
    wrap: Callable[[str], str] = lambda text: text,
) -> str:
    """``wrap(cut_middle(text, n))`` for the largest ``n`` whose result ``count``
    puts within ``budget_tokens`` (the wrapping, a label or fences, counts too).

    A binary search over the character limit: about a dozen counts for a long
    text, one for a text that already fits.
    """
    whole = wrap(text)
    if count(whole) <= budget_tokens:
        return whole
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if count(wrap(cut_middle(text, middle))) <= budget_tokens:
            low = middle
        else:
            high = middle - 1
    return wrap(cut_middle(text, low))
