"""The cell goes through the front door (issue 49): what a ``%%agent`` cell asks of the
runtime before its first token, counted in a real IPython shell.

A profiler notes every call from ``agent_nb._jupyter`` code into ``agent_nb._runtime``
or ``agent_nb._core`` while one cell runs, up to the first event read from the turn's
stream. The cell hands the runner what it was asked and the kernel's settings
(`TurnAsk`, `KernelSettings`, in a `TurnRequest`) and the runner resolves them: the
model, the options, the tool servers by name, the window check, the session id.
"""

from __future__ import annotations

import sys
from collections import Counter
from typing import Any

from IPython.core.interactiveshell import InteractiveShell

from agent_nb.backends import ScriptedBackend
from tests.fixtures_magics import run

#: Calls that only make values (the request and what it carries) and the pure text
#: helper the cell's Markdown scan uses; everything else is the runtime doing work.
VALUES = {"__init__", "inline_code_spans"}


def _calls_before_the_first_token(shell: InteractiveShell, cell: str) -> Counter[str]:
    calls: Counter[str] = Counter()
    streaming = False

    def note(frame: Any, event: str, _arg: Any) -> None:
        nonlocal streaming
        caller = frame.f_back
        if event != "call" or caller is None or streaming:
            return
        into, by = frame.f_globals.get("__name__", ""), caller.f_globals.get("__name__", "")
        if not by.startswith("agent_nb._jupyter"):
            return
        if into.startswith(("agent_nb._runtime", "agent_nb._core")):
            if into == "agent_nb._runtime.stream":
                streaming = True  # the turn's events are read from here on
                return
            calls[f"{into}.{frame.f_code.co_name}"] += 1

    sys.setprofile(note)
    try:
        result, cap = run(shell, cell)
    finally:
        sys.setprofile(None)
    assert result.success, cap.stderr
    assert streaming, "the cell never read its stream"
    return calls


def test_a_cell_reaches_its_first_token_in_three_runtime_calls(
    shell: InteractiveShell, backend: ScriptedBackend
) -> None:
    backend.enqueue("Hello.", "Hi again.")
    run(shell, "%%agent door\nwarm up")  # the runner and the model exist from here on
    calls = _calls_before_the_first_token(shell, "%%agent door --max-tokens 64 -t 0.5\nhello")
    work = sorted(name for name in calls if name.rsplit(".", 1)[1] not in VALUES)
    assert work == [
        "agent_nb._runtime.kernel_runner.get_runner",
        "agent_nb._runtime.runner.start_turn",
        "agent_nb._runtime.runner.token_counter",
    ]
    assert sum(calls[name] for name in work) == 3
    # and the values it hands over: what was asked, the settings, the request
    assert calls["agent_nb._runtime.turn_settings.__init__"] == 2
    assert calls["agent_nb._runtime.front_door.__init__"] == 1
    # what the cell asked for reached the model, resolved by the runner
    assert backend.requests[-1].config.max_tokens == 64
    assert backend.requests[-1].config.temperature == 0.5
