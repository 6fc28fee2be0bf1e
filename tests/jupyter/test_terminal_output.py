"""Terminal IPython: the prompt-progress line is rewritten in place and gone
once the reply starts, as it is in a notebook cell."""

from __future__ import annotations

import pytest

from agent_nb._jupyter.magics.cell_output import READING, TerminalOutput


def _screen(raw: str) -> list[str]:
    """What a terminal shows for ``raw``: each ``\\r`` returns to the line's start."""
    lines = []
    for line in raw.split("\n"):
        shown: list[str] = []
        for part in line.split("\r"):
            shown[: len(part)] = part
        lines.append("".join(shown).rstrip())
    return lines


def test_the_progress_line_is_gone_when_the_reply_starts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    sink = TerminalOutput()
    sink.waiting(f"{READING}3,072 / 7,034 tokens")
    sink.waiting(f"{READING}7,034 / 7,034 tokens")
    sink.show("Hello", final=False, interrupted=False)
    sink.show("Hello world", final=True, interrupted=False)
    screen = _screen(capsys.readouterr().out)
    assert screen[0] == "Hello world"
    assert not any("reading the prompt" in line for line in screen)
