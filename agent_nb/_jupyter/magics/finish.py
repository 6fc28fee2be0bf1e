"""What a ``%%agent`` cell does once its reply is in: the ``--data`` table and
chart, ``-o VAR``, ``--code``, the context-window note, and how the cell ends
(a failed turn is a one-line `UsageError`; an interrupted one a one-line
`TurnInterruptedError`, so Run All stops there).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

from ..._core.window import omitted_line
from ...errors import ContextWindowError, TurnInterruptedError
from .cell_output import Outcome
from .code_cell import next_cell
from .data_cell import attach, show_answer

if TYPE_CHECKING:
    from ..data_question import DataQuestion

__all__ = ["end_cell", "finish_cell", "window_refusal"]


def finish_cell(
    shell: Any, args: Any, outcome: Outcome, data: DataQuestion | None, session_id: str | None
) -> None:
    """After the reply (see the module docstring); ``session_id`` None: ``--once``."""
    reply = outcome.reply
    final = data.final_answer() if data is not None else None  # the model may fill the plan
    if final is not None and reply is not None and not outcome.interrupted:
        reply = outcome.reply = attach(reply, final, show_answer(final))
    if args.output and reply is not None:
        shell.user_ns[args.output] = reply
    if args.code and reply is not None and not outcome.interrupted:
        next_cell(shell, reply.text, args.output)
    if reply is not None and reply.usage.omitted_turns:
        print(omitted_line(reply.usage.omitted_turns, reply.usage.context_window))
    if isinstance(outcome.error, ContextWindowError):
        refusal = window_refusal(outcome.error, args)
        if refusal is not None:
            raise refusal
    end_cell(outcome, session_id)


def end_cell(outcome: Outcome, session_id: str | None) -> None:
    """How a cell ends: a failed turn is a one-line `UsageError`, an interrupted one
    a one-line `TurnInterruptedError`; ``session_id`` None: ``--once``."""
    if outcome.error is not None:
        raise UsageError(f"the turn failed: {type(outcome.error).__name__}: {outcome.error}")
    if outcome.interrupted:
        where = "a temporary session" if session_id is None else f"session {session_id!r}"
        raise TurnInterruptedError(
            f"■ interrupted; the partial reply is kept in {where}, which is ready"
        )


def window_refusal(error: ContextWindowError, args: Any) -> UsageError | None:
    """A ``--max-tokens`` beyond the model's window is refused as ``-5`` is, in one
    line; None for any other window error."""
    if error.sent or args.max_tokens is None or error.tokens != args.max_tokens:
        return None
    return UsageError(f"--{error}".replace("--max_tokens", "--max-tokens", 1))
