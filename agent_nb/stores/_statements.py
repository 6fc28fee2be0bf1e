"""The statements of the SQL store, built once.

Building a SQLAlchemy statement per call (``select(...).where(...)``) costs more
than SQLite takes to run it; built here once, with named parameters, each is
compiled once per dialect and then only executed. Every statement that names
a session takes ``app``, ``user`` and ``sid``.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from ._schema import app_states, events, sessions, user_states

__all__ = [
    "BUMP_AFTER_EVENT",
    "CLEAR_USER",
    "DELETE_EVENTS",
    "DELETE_SESSION",
    "EVENTS",
    "INSERT_EVENT",
    "INSERT_SESSION",
    "LEASE",
    "LEASE_OWNER",
    "LIST_SESSIONS",
    "LOCK_SESSION",
    "REVISION",
    "SESSION",
    "SESSION_EXISTS",
    "SET_BRANCHES",
    "SET_LEASE_OWNER",
    "SHARED",
    "Shared",
]

_p = sa.bindparam
_s, _e = sessions.c, events.c

_IS_SESSION = sa.and_(_s.app_name == _p("app"), _s.user_id == _p("user"), _s.id == _p("sid"))
_OF_SESSION = sa.and_(
    _e.app_name == _p("app"), _e.user_id == _p("user"), _e.session_id == _p("sid")
)

SESSION_EXISTS = sa.select(_s.id).where(_IS_SESSION)
REVISION = sa.select(_s.revision).where(_IS_SESSION)
#: Columns by name (``app_name``, ``id``, ``state``, ...).
INSERT_SESSION = sa.insert(sessions)
SESSION = sa.select(_s.state, _s.revision, _s.update_time, _s.branches, _s.active_branch).where(
    _IS_SESSION
)
EVENTS = (
    sa.select(_e.data, _e.invocation_id, _e.parent_invocation_id)
    .where(_OF_SESSION)
    .order_by(_e.seq)
)
DELETE_EVENTS = sa.delete(events).where(_OF_SESSION)
DELETE_SESSION = sa.delete(sessions).where(_IS_SESSION)

#: The writers' first statement: takes the session row (the revision check).
LOCK_SESSION = sa.select(_s.revision, _s.state).where(_IS_SESSION).with_for_update()
# The column keeps its stored name, ``holder`` (renaming it would need a migration of
# every existing file); the code reads it as what it is: the turn lease's owner.
_LEASE_OWNER = _s.holder.label("lease_owner")
LEASE = sa.select(_s.revision, _LEASE_OWNER, _s.lease_until).where(_IS_SESSION).with_for_update()
LEASE_OWNER = sa.select(_LEASE_OWNER).where(_IS_SESSION).with_for_update()
SET_LEASE_OWNER = (
    sa.update(sessions).where(_IS_SESSION).values(holder=_p("new_owner"), lease_until=_p("until"))
)

BUMP_AFTER_EVENT = (
    sa.update(sessions)
    .where(_IS_SESSION)
    .values(
        revision=_s.revision + 1,
        state=_p("new_state"),
        update_time=_p("now"),
        branches=_p("new_branches"),
    )
)
#: A rewind or a switch: the same, and the active branch.
SET_BRANCHES = BUMP_AFTER_EVENT.values(active_branch=_p("active"))
#: The event's position is the next one of its session, found inside the insert;
#: the other columns by name (``id``, ``data``, ...), ``app``/``user``/``sid`` too.
INSERT_EVENT = sa.insert(events).values(
    app_name=_p("app"),
    user_id=_p("user"),
    session_id=_p("sid"),
    seq=sa.select(sa.func.coalesce(sa.func.max(_e.seq) + 1, 0))
    .where(_OF_SESSION)
    .scalar_subquery(),
)

LIST_SESSIONS = (
    sa.select(_s.id)
    .where(_s.app_name == _p("app"), _s.user_id == _p("user"))
    .order_by(_s.update_time, _s.create_time, _s.id)
)
CLEAR_USER = [
    sa.delete(t).where(t.c.app_name == _p("app"), t.c.user_id == _p("user"))
    for t in (events, sessions)
]


class Shared:
    """The statements of one ``app:`` / ``user:`` state table (keyed by ``app`` [, ``user``])."""

    def __init__(self, table: sa.Table) -> None:
        self.table = table
        where: list[Any] = [table.c.app_name == _p("app")]
        if "user_id" in table.c:
            where.append(table.c.user_id == _p("user"))
        self.read = sa.select(table.c.state).where(*where)
        self.lock = self.read.with_for_update()
        self.write = (
            sa.update(table).where(*where).values(state=_p("new_state"), update_time=_p("now"))
        )

        #: Per dialect, an insert of an empty row that does nothing if the row exists
        #: (elsewhere the caller reads first).
        self.ensure: dict[str, Any] = {
            "postgresql": postgresql.insert(table).on_conflict_do_nothing(),
            "sqlite": sqlite.insert(table).on_conflict_do_nothing(),
        }


SHARED = {"app": Shared(app_states), "user": Shared(user_states)}
