"""Fixtures and helpers for the magic tests: a real IPython shell on the ScriptedBackend."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import ExecutionResult, InteractiveShell
from IPython.utils.capture import CapturedIO, capture_output

from agent_nb import AgentRunner, TextMessage, get_runner, set_runner
from agent_nb._jupyter.magics.agent_magics import AgentMagics
from agent_nb.backends import ScriptedBackend

__all__ = ["final_bundle", "magics", "run", "turns", "usage_error"]


@pytest.fixture
def backend() -> ScriptedBackend:
    return ScriptedBackend()


@pytest.fixture
def shell(backend: ScriptedBackend) -> Iterator[InteractiveShell]:
    sh = InteractiveShell.instance()
    sh.config.pop("AgentMagics", None)  # %config writes into the singleton shell's config
    runner = AgentRunner(model=backend)
    previous = set_runner(runner)
    sh.extension_manager.load_extension("agent_nb")
    names = set(sh.user_ns)
    yield sh
    # The singleton shell outlives the test: what it defined must not reach the next
    # one (a data turn reads frames from this namespace by name).
    for name in set(sh.user_ns) - names:
        del sh.user_ns[name]
    sh.extension_manager.unload_extension("agent_nb")
    sh.config.pop("AgentMagics", None)
    get_runner().shutdown()
    runner.shutdown()
    if previous is not None:
        set_runner(previous)


def run(sh: InteractiveShell, source: str, cell_id: str | None = None) -> tuple[Any, CapturedIO]:
    """Run a cell as a notebook would (rich display captured)."""
    with capture_output() as cap:
        result = sh.run_cell(source, cell_id=cell_id)
    return result, cap


def usage_error(result: ExecutionResult, cap: CapturedIO, fragment: str) -> str:
    assert isinstance(result.error_in_exec, UsageError), result.error_in_exec
    lines = cap.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("UsageError: "), cap.stderr
    assert fragment in lines[0], lines[0]
    return lines[0]


def final_bundle(cap: CapturedIO) -> dict[str, str]:
    data: dict[str, str] = cap.outputs[-1].data
    return data


def magics(sh: InteractiveShell) -> AgentMagics:
    found: AgentMagics = sh.magics_manager.registry["AgentMagics"]
    return found


def turns(session_id: str = "default") -> list[str]:
    """The user texts of a session's turns, oldest first."""
    history = get_runner().get_or_create_session(session_id).history
    return [e.text for e in history if isinstance(e, TextMessage) and e.author == "user"]
