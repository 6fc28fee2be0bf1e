"""A ``%%agent`` turn that pauses for approval (`agent_nb._runtime.approval`).

Where the front end can answer ``input()``, the cell asks there, one call at
a time: JupyterLab and the classic notebook (a kernel whose request allows
stdin), a terminal IPython. The answer resumes the turn, and its rest
streams into the same cell. Elsewhere (nbclient, papermill, VS Code without
stdin, a script piped into IPython) nobody could answer, so the cell ends
with one line that says what waits and how to answer: ``%agent approve ID``
or ``%agent deny ID``, in any later cell (or the widget's buttons). A kernel
interrupt while the cell asks stops the turn, the waiting call answered.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from IPython.core.error import StdinNotImplementedError, UsageError
from IPython.core.magic_arguments import MagicArgumentParser

from ..._core.approvals import call_line, waiting_line
from ..._core.ids import check_session_id
from ..._runtime.face import EventStream, get_runner
from .cell_output import Outcome

__all__ = ["answer_args", "answer_turn", "can_ask", "settle"]

_YES = ("y", "yes")


def can_ask(shell: Any) -> bool:
    """Whether ``input()`` reaches a person: a kernel whose front end allows stdin
    for this request, or a shell reading from a terminal."""
    kernel = getattr(shell, "kernel", None)
    if kernel is not None:
        return bool(getattr(kernel, "_allow_stdin", False))
    stdin = sys.stdin
    return stdin is not None and stdin.isatty()


def _ask(call: Any) -> bool | None:
    """y/yes approves; anything else denies; None: the front end cannot answer."""
    try:
        answer = input(f"Approve {call_line(call)}? [y/N] ")
    except (StdinNotImplementedError, EOFError):
        return None
    return answer.strip().lower() in _YES


def _recorded(session: Any, timeout: float = 10.0) -> None:
    """Wait (a little) for the stopped turn to be recorded, so the cell's note that
    the session is ready is true."""
    deadline = time.monotonic() + timeout
    while session.busy and time.monotonic() < deadline:
        time.sleep(0.02)


def settle(shell: Any, outcome: Outcome, show_part: Callable[[EventStream], Outcome]) -> Outcome:
    """While the turn waits: ask in the cell and stream each answer's part (with
    ``show_part``), else print the line that says how to answer. Returns the
    outcome of the last part shown."""
    while outcome.reply is not None and outcome.reply.awaiting_approval:
        reply = outcome.reply
        session = get_runner().get_or_create_session(reply.session_id)
        call = reply.awaiting_approval[0]
        try:
            approved = _ask(call) if can_ask(shell) else None
        except KeyboardInterrupt:
            session.cancel()  # the waiting call is answered as not run
            _recorded(session)
            outcome.reply, outcome.interrupted = None, True
            return outcome
        if approved is None:
            print(waiting_line(reply.session_id, reply.awaiting_approval))
            return outcome
        answer = session.approve_async if approved else session.deny_async
        outcome = show_part(answer(call.call_id))
    return outcome


def answer_args(argv: list[str], approved: bool, default_session: str) -> tuple[str, str | None]:
    """``[ID] [--call CALL_ID]`` of ``%agent approve|deny``: the session and the call."""
    parser = MagicArgumentParser(prog=f"%agent {'approve' if approved else 'deny'}", add_help=False)
    parser.add_argument("session", nargs="?")
    parser.add_argument("--call", metavar="CALL_ID")
    options = parser.parse_args(argv)
    return check_session_id(options.session or default_session), options.call


def answer_turn(session_id: str, call_id: str | None, approved: bool) -> EventStream:
    """Answer the calls the session's turn waits on; the rest of the turn's stream.
    Never opens a session: only a turn running in this kernel can be answered."""
    runner = get_runner()
    if session_id not in {i.id for i in runner.sessions(include_hidden=True)}:
        raise UsageError(
            f"session {session_id!r} has no tool call waiting for approval in this kernel"
        )
    session = runner.get_or_create_session(session_id)
    return (session.approve_async if approved else session.deny_async)(call_id)
