"""The shared-store tests' "kernels", forked from one server that has imported them.

``python -m tests.runtime.kernel_server`` imports `tests.runtime.shared_kernel`
(agent_nb, the SQL stores, SQLAlchemy's dialects, psycopg), with no thread
started and nothing open, then reads one JSON line per kernel on stdin:
``{"url", "user", "in", "out"}``. For each it forks a child that opens the two
named pipes as its stdin and stdout and runs `shared_kernel.main` on that store,
building its runner after the fork, as a fresh process would. The server reaps
each child the moment it ends and prints ``GONE pid``. Forking spares each
kernel the seconds a fresh interpreter spends importing SQLAlchemy and psycopg.

`KernelServer` is the tests' side: `start` gives a `Kernel`, a pipe pair that
speaks `shared_kernel`'s protocol, with ``pid`` for a real SIGKILL (`kill`).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import tempfile
import traceback
from pathlib import Path
from typing import IO, Any, Self

from tests.fork_server import ForkServerProcess, assert_fork_safe, import_sql_stores

__all__ = ["Kernel", "KernelServer"]


_alive: set[int] = set()


def _reap(signum: int, frame: Any) -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _alive.discard(pid)
        os.write(1, f"GONE {pid}\n".encode())  # a handler must not re-enter print()


def _kernel(job: dict[str, str]) -> None:
    from tests.runtime import shared_kernel

    code = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        sys.stdin = open(job["in"])  # noqa: SIM115 - the kernel's for as long as it lives
        sys.stdout = open(job["out"], "w")  # noqa: SIM115
        sys.argv = ["shared_kernel", job["url"], job["user"]]
        shared_kernel.main()
        sys.stdout.flush()
        code = 0
    except BaseException:
        traceback.print_exc()
    finally:
        os._exit(code)


def serve() -> None:
    # Imported before any fork; nothing runs or is open yet (each child opens its store).
    import tests.runtime.shared_kernel  # noqa: F401

    import_sql_stores()
    assert_fork_safe()
    signal.signal(signal.SIGCHLD, _reap)
    for line in sys.stdin:
        pid = os.fork()
        if pid == 0:
            _kernel(json.loads(line))
        _alive.add(pid)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for pid in list(_alive):  # stdin closed with kernels still running (a failed test)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


class KernelServer(ForkServerProcess):
    """The fork server, for as long as a ``with`` block runs."""

    module = "tests.runtime.kernel_server"

    def __enter__(self) -> Self:
        self.dir = Path(tempfile.mkdtemp(prefix="kernels_"))
        self.count = 0
        self.gone: set[int] = set()
        return super().__enter__()

    def start(self, url: str, user: str = "default") -> Kernel:
        self.count += 1
        pipes = self.dir / f"in{self.count}", self.dir / f"out{self.count}"
        for pipe in pipes:
            os.mkfifo(pipe)
        self.send(json.dumps({"url": url, "user": user, "in": str(pipes[0]), "out": str(pipes[1])}))
        # Opened in the child's order: each open waits for the other end.
        return Kernel(self, open(pipes[0], "w"), open(pipes[1]), user)

    def wait_gone(self, pid: int) -> None:
        """Until the server has reaped ``pid`` (a dead kernel's pid is then free)."""
        while pid not in self.gone:
            line = self.readline()
            assert line.startswith("GONE "), f"the kernels' server said {line!r}"
            self.gone.add(int(line.split()[1]))

    def __exit__(self, *exc: object) -> None:
        try:
            super().__exit__(*exc)
        finally:
            for pipe in self.dir.iterdir():
                pipe.unlink()
            self.dir.rmdir()


class Kernel:
    """One kernel; ``ask`` sends a command and reads its one-line answer."""

    def __init__(self, server: KernelServer, stdin: IO[str], stdout: IO[str], user: str) -> None:
        self.server, self.stdin, self.stdout, self.user = server, stdin, stdout, user
        self.pid: int = self.read()["ready"]

    def send(self, **cmd: Any) -> None:
        self.stdin.write(json.dumps(cmd) + "\n")
        self.stdin.flush()

    def read(self) -> dict[str, Any]:
        line = self.stdout.readline()
        if not line:
            raise AssertionError(f"kernel {self.user} exited (its traceback is on stderr)")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def ask(self, **cmd: Any) -> dict[str, Any]:
        self.send(**cmd)
        return self.read()

    def kill(self) -> None:
        """A real SIGKILL; returns once the process is gone."""
        os.kill(self.pid, signal.SIGKILL)  # not reaped before it dies: still this kernel
        self.server.wait_gone(self.pid)

    def stop(self) -> None:
        if self.pid not in self.server.gone:
            try:
                self.send(op="quit")
            except BrokenPipeError:
                pass
            self.server.wait_gone(self.pid)
        for pipe in (self.stdin, self.stdout):
            try:
                pipe.close()
            except BrokenPipeError:
                pass


if __name__ == "__main__":
    serve()
