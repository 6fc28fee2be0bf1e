"""A real PostgreSQL server for the tests: a temporary cluster, started and stopped here.

Debian's ``postgresql`` package (installed by ``.ci/setup --test``) provides
``initdb`` and ``pg_ctl``. The server refuses to run as root, so as root the
cluster belongs to the unprivileged ``nobody`` user. It listens on a free
port on 127.0.0.1 only, keeps its socket in its own directory, and asks for a
password over TCP (scram-sha-256), so a wrong password is really refused.

Each store a test opens gets its own schema (``search_path`` in the URL), so
tests never see each other's rows and no database has to be created.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

__all__ = ["TempPostgres", "free_port", "pg_bin", "postgres"]

USER, PASSWORD, DATABASE = "agent", "s3cret-pw", "agent_nb"


def pg_bin() -> Path | None:
    """The directory with initdb/pg_ctl (Debian keeps them out of PATH), or None."""
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    if candidates:
        return Path(candidates[-1]).parent
    found = shutil.which("initdb") and shutil.which("pg_ctl")
    return Path(found).parent if found else None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class TempPostgres:
    """``with TempPostgres() as pg: pg.url()`` — a server for as long as the block runs."""

    def __init__(self, *, fast: bool = True) -> None:
        self.fast = fast  # fsync off: the tests kill clients, never the server
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="agent_nb_pg_"))
        self._run_as: Any = None
        self._admin: Any = None  # one psycopg connection for CREATE SCHEMA (no psql per store)

    def _cmd(self, *args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            list(args), check=True, capture_output=True, text=True, user=self._run_as, **kwargs
        )

    def __enter__(self) -> TempPostgres:
        try:
            self._start()
        except BaseException:
            self.__exit__()
            raise
        return self

    def _start(self) -> None:
        bindir = pg_bin()
        if bindir is None:
            raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql)")
        if os.geteuid() == 0:
            self._run_as = "nobody"
            nobody = pwd.getpwnam("nobody")
            os.chown(self.dir, nobody.pw_uid, nobody.pw_gid)
        pwfile = self.dir / "pw"
        pwfile.write_text(PASSWORD + "\n")
        if self._run_as:
            os.chown(pwfile, pwd.getpwnam("nobody").pw_uid, -1)
        data = self.dir / "data"
        self._bindir = bindir
        self._cmd(
            str(bindir / "initdb"), "-D", str(data), "-U", USER, f"--pwfile={pwfile}",
            "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--no-sync",
        )  # fmt: skip
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1"
        if self.fast:
            options += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        self._cmd(
            str(bindir / "pg_ctl"), "-D", str(data), "-o", options,
            "-l", str(self.dir / "log"), "-w", "-t", "60", "start",
        )  # fmt: skip
        self._data = data
        self._cmd(
            str(bindir / "createdb"), "-h", str(self.dir), "-p", str(self.port), "-U", USER,
            DATABASE,
        )  # fmt: skip

    def url(self, schema: str | None = None, *, password: str = PASSWORD) -> str:
        """A URL for the test database; ``schema`` gets its own tables (created here)."""
        base = f"postgresql://{USER}:{quote(password)}@127.0.0.1:{self.port}/{DATABASE}"
        if schema is None:
            return base
        if self._admin is None:
            import psycopg

            self._admin = psycopg.connect(
                host=str(self.dir), port=self.port, user=USER, dbname=DATABASE, autocommit=True
            )
        self._admin.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
        return base + "?options=" + quote(f"-csearch_path={schema}")

    def fresh_url(self) -> str:
        return self.url("s_" + uuid.uuid4().hex[:12])

    def sql(self, statement: str) -> str:
        bindir = self._bindir
        done = self._cmd(
            str(bindir / "psql"), "-h", str(self.dir), "-p", str(self.port), "-U", USER,
            "-d", DATABASE, "-v", "ON_ERROR_STOP=1", "-Atc", statement,
        )  # fmt: skip
        return done.stdout

    def __exit__(self, *exc: object) -> None:
        if self._admin is not None:
            self._admin.close()
        try:
            if getattr(self, "_data", None) is not None:
                self._cmd(str(self._bindir / "pg_ctl"), "-D", str(self._data), "-m", "fast", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres() -> Iterator[TempPostgres]:
    """One server for the whole run (started on first use, stopped at the end)."""
    if pg_bin() is None:
        pytest.skip("PostgreSQL is not installed; .ci/setup --test installs Debian's postgresql")
    with TempPostgres() as server:
        yield server
