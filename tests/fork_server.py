"""What the tests' fork servers share: the imports each child would otherwise pay
for, and the pipe to the server process.

A fork server (`tests.stores.crash_writers`, `tests.runtime.kernel_server`)
imports SQLAlchemy's dialects, psycopg and agent_nb's stores once, starts no
thread and opens nothing, then forks a child per job: each child still opens
(and migrates) its own store, as a fresh process would, without the seconds a
fresh interpreter spends on those imports. The servers differ in their
protocols (when a child is reaped, how it talks), so only this much is shared.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path
from typing import Self

__all__ = ["ROOT", "ForkServerProcess", "assert_fork_safe", "import_sql_stores"]

ROOT = Path(__file__).resolve().parents[1]


def import_sql_stores() -> None:
    """Import what opening a SQLite or PostgreSQL store needs; nothing is opened."""
    import psycopg  # noqa: F401
    import sqlalchemy.dialects.postgresql.psycopg
    import sqlalchemy.dialects.sqlite.pysqlite  # noqa: F401

    import agent_nb.stores._database
    import agent_nb.stores._sqlite  # noqa: F401


def assert_fork_safe() -> None:
    assert threading.active_count() == 1, "a thread before fork would be lost in the child"


class ForkServerProcess:
    """The server process (``python -m MODULE``) for as long as a ``with`` block
    runs: one JSON line per job on its stdin, its answers a line each on stdout.
    Closing its stdin ends it, and it ends any child still alive."""

    module: str  # set by each server's client class

    def __enter__(self) -> Self:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", self.module],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        return self

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def readline(self) -> str:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line.endswith("\n"), f"the server {self.module} ended"
        return line

    def __exit__(self, *exc: object) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=60)
        finally:
            self.proc.stdout.close()
