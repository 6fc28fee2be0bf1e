"""The one boundary where agent_nb errors become IPython ``UsageError``s.

A magic that fails on bad input should print one line that says what to do,
not a traceback into agent_nb. Every error agent_nb raises on purpose is an
`AgentError`; out-of-range arguments (``-t -1``, ``--max-tokens 0``) are
`ValueError` / `TypeError`. All of them cross into IPython here, and only
here: the magics' entry points are wrapped in `usage_errors`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from IPython.core.error import UsageError

from ...errors import AgentError, TurnInterruptedError

__all__ = ["usage_errors"]

P = ParamSpec("P")
R = TypeVar("R")


def usage_errors(magic: Callable[P, R]) -> Callable[P, R]:
    """Run ``magic``, turning agent_nb's errors into one-line `UsageError`s."""

    @functools.wraps(magic)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return magic(*args, **kwargs)
        except TurnInterruptedError:
            raise  # a note, shown as one (see its docstring)
        except (AgentError, ValueError, TypeError) as exc:
            raise UsageError(str(exc)) from None

    return wrapper
