"""Free local ports and waiting for a local HTTP server, shared by the server fixtures."""

from __future__ import annotations

import pathlib
import socket
import subprocess
import time
import urllib.error
import urllib.request

__all__ = ["free_port", "wait_http"]


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_http(
    url: str, proc: subprocess.Popen[bytes], log: pathlib.Path, *, name: str, timeout: float
) -> None:
    """Wait until ``url`` answers 200; fail with the log's tail if ``proc`` exits first
    or ``timeout`` runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(
                f"{name} exited with code {proc.returncode} before it answered {url}:\n"
                + log.read_text(errors="replace")[-4000:]
            )
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.2)
    raise RuntimeError(
        f"{name} did not answer {url} within {timeout:.0f}s:\n"
        + log.read_text(errors="replace")[-4000:]
    )
