"""Session ids: the rule, checked in one place, and the hidden single-turn ids.

A single-turn run (`AgentRunner.run_single_turn_async`, ``%%agent --once``)
works on a temporary session whose id is `SINGLE_TURN_PREFIX` plus a uuid4.
The id passes the rule like any other; the prefix is what lets the runner
hide such sessions from listings (also ones a dead kernel left in a shared
store) and the magics name them "a --once turn".
"""

from __future__ import annotations

import re
import uuid

from ..errors import InvalidSessionIdError

__all__ = [
    "SESSION_ID_RULE",
    "SINGLE_TURN_PREFIX",
    "check_session_id",
    "is_single_turn_id",
    "new_single_turn_id",
]

SINGLE_TURN_PREFIX = "_st-"

SESSION_ID_RULE = (
    "a session id is 1 to 128 characters from A-Z a-z 0-9 _ . - and is not '.' or '..'"
)
_ID = re.compile(r"[A-Za-z0-9_.-]{1,128}")


def check_session_id(session_id: object) -> str:
    if not isinstance(session_id, str):
        raise TypeError(f"session id must be a str, got {type(session_id).__name__}")
    # fullmatch with ASCII classes: no stripping, no Unicode letters, no newline
    # sneaking past a trailing '$'.
    if not _ID.fullmatch(session_id) or session_id in (".", ".."):
        raise InvalidSessionIdError(f"invalid session id {session_id!r}: {SESSION_ID_RULE}")
    return session_id


def new_single_turn_id() -> str:
    """A fresh id for a hidden single-turn session."""
    return f"{SINGLE_TURN_PREFIX}{uuid.uuid4()}"


def is_single_turn_id(session_id: str) -> bool:
    """Whether ``session_id`` names a hidden single-turn session."""
    return session_id.startswith(SINGLE_TURN_PREFIX)
