"""Cutting long notebook text to a budget by dropping its middle.

Tracebacks and cells carry their most useful lines at both ends (the call
that started it all, the line that raised; imports, the last expression), so
a long text keeps its head and tail and says how much was left out, instead
of losing its end as a plain truncation would.
"""

from __future__ import annotations

__all__ = ["cut_middle"]


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
        return f"{text[:half]} … ({len(text) - 2 * half} characters left out) … {text[-half:]}"
    marker = f"… ({left_out} line{'s' * (left_out != 1)} left out) …"
    return "\n".join([*head, marker, *reversed(tail)])
