"""The session-id rule, checked in one place."""

from __future__ import annotations

import re

from ..errors import InvalidSessionIdError

__all__ = ["SESSION_ID_RULE", "check_session_id"]

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
