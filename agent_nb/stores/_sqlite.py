"""`SQLiteStore`: sessions that survive a kernel restart, in one SQLite file.

It is `DatabaseStore` on a ``sqlite:///`` URL (one SQL implementation for
every dialect), with what a file adds: the path is checked before SQLite is
asked, so a missing directory or a directory given as the file gets a
message naming it; ``durable`` picks ``synchronous=FULL`` (a committed event
survives power loss) or ``NORMAL`` (faster; a crash still loses nothing);
``read_only`` opens the file with SQLite's ``mode=ro``. Every file an earlier
agent_nb wrote loads (`agent_nb.stores._schema` migrates it in place).
"""

from __future__ import annotations

import os
from pathlib import Path

import sqlalchemy as sa

from ..errors import StoreIsADirectoryError, StoreNotFoundError, StorePermissionError
from ._database import DatabaseStore
from ._schema import stored_version

__all__ = ["SQLiteStore"]


def _check_path(path: Path, *, read_only: bool = False) -> None:
    """Fail before sqlite does, with a message that names the path."""
    if read_only and not path.is_file():
        raise StoreNotFoundError(
            f"cannot open SQLiteStore at {str(path)!r} read-only: there is no such file; "
            "check the path, or drop ?mode=ro to create it"
        )
    if path.is_dir():
        raise StoreIsADirectoryError(
            f"SQLiteStore path {str(path)!r} is a directory; give a file name inside it, "
            f"e.g. {str(path / 'sessions.db')!r}"
        )
    parent = path.parent
    if not parent.is_dir():
        raise StoreNotFoundError(
            f"cannot open SQLiteStore at {str(path)!r}: directory {str(parent)!r} does not "
            "exist; create it first (os.makedirs) or choose another path"
        )
    target = path if path.exists() else parent
    if read_only:
        return
    if not os.access(target, os.W_OK) or not os.access(parent, os.W_OK):
        raise StorePermissionError(
            f"cannot write SQLiteStore at {str(path)!r}: {str(target)!r} is not writable "
            "(SQLite also needs to create journal files next to it); choose a writable path"
        )


class SQLiteStore(DatabaseStore):
    """A `SessionStore` in one SQLite file, so sessions survive kernel restarts.

    >>> runner = AgentRunner(store="sqlite:///sessions.db")        # doctest: +SKIP
    >>> runner = AgentRunner(store=SQLiteStore("~/agent.db"))     # doctest: +SKIP

    After a restart ``runner.get_or_create_session(id)`` comes back with its
    history and state (the model's KV cache is rebuilt on the next turn).
    ``session.close()`` only frees memory; ``delete()`` removes the rows too.

    ``path`` is a file path (``~`` expanded) or ``":memory:"``; its directory
    must exist and be writable. ``durable=False`` uses ``synchronous=NORMAL``
    (faster appends; a power cut may lose the last commits, a crash does not).
    ``timeout`` is how long a write waits for another process's lock.
    ``read_only=True`` opens an existing file for reading only (SQLite's
    ``mode=ro``); a write then raises `StorePermissionError`.

    Rewinding and switching branches replay session state only: ``app:`` and
    ``user:`` state is shared with other sessions and is not rolled back.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        durable: bool = True,
        timeout: float = 10.0,
        read_only: bool = False,
    ) -> None:
        self.path = str(path) if str(path) == ":memory:" else str(Path(path).expanduser())
        self.read_only = read_only
        self._synchronous = "FULL" if durable else "NORMAL"
        if self.path != ":memory:":
            _check_path(Path(self.path), read_only=read_only)
        super().__init__(sa.URL.create("sqlite", database=self.path), connect_timeout=timeout)

    @property
    def user_version(self) -> int:
        """The schema version stored in the file."""
        with self._tx(write=False) as conn:
            return stored_version(conn)

    def __repr__(self) -> str:
        return f"SQLiteStore({self.path!r}{', read_only=True' if self.read_only else ''})"
