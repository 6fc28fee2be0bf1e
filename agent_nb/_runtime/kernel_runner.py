"""The kernel-scoped runner: one `AgentRunner` per process, shared by the magics and widgets.

Created on first use (or by ``%load_ext agent_nb``) and replaced only by
`set_runner`. Like every runner, it is shut down at interpreter exit (see
`agent_nb._runtime.runner`).
"""

from __future__ import annotations

import threading

from .runner import AgentRunner

__all__ = ["get_runner", "set_runner"]

_runner: AgentRunner | None = None
_runner_lock = threading.Lock()


def get_runner() -> AgentRunner:
    """The kernel-scoped runner, created on first use."""
    global _runner
    with _runner_lock:
        if _runner is None or _runner.is_shut_down:
            _runner = AgentRunner()
        return _runner


def set_runner(runner: AgentRunner) -> AgentRunner | None:
    """Replace the kernel-scoped runner; returns the previous one (not shut down)."""
    global _runner
    if not isinstance(runner, AgentRunner):
        raise TypeError(f"expected an AgentRunner, got {type(runner).__name__}")
    with _runner_lock:
        previous, _runner = _runner, runner
    return previous
