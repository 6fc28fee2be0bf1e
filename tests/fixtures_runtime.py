"""Runners for tests: made through a factory that shuts each one down afterwards."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from agent_nb import AgentRunner
from agent_nb.backends import ScriptedBackend

__all__ = ["RunnerFactory", "make_runner", "runner"]


class RunnerFactory:
    """Makes the runners a test needs and shuts every one down after it.

    ``make_runner(...)`` takes `AgentRunner`'s arguments (the model defaults
    to a fresh `ScriptedBackend`, so no test loads MLX by accident);
    ``make_runner.adopt(r)`` takes over a runner a helper built.
    """

    def __init__(self) -> None:
        self.made: list[AgentRunner] = []

    def __call__(self, *args: Any, **kwargs: Any) -> AgentRunner:
        kwargs.setdefault("model", ScriptedBackend())
        return self.adopt(AgentRunner(*args, **kwargs))

    def adopt(self, runner: AgentRunner) -> AgentRunner:
        self.made.append(runner)
        return runner

    def shutdown_all(self) -> None:
        for runner in reversed(self.made):
            runner.shutdown()


@pytest.fixture
def make_runner() -> Iterator[RunnerFactory]:
    factory = RunnerFactory()
    yield factory
    factory.shutdown_all()


@pytest.fixture
def runner(scripted: ScriptedBackend, make_runner: RunnerFactory) -> AgentRunner:
    return make_runner(model=scripted)
