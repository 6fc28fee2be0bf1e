"""Shared test wiring. Each area keeps its fixtures in its own plugin module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from agent_nb import AgentRunner
from agent_nb.backends import ScriptedBackend

pytest_plugins = [
    "tests.fixtures_mlx",
    "tests.fixtures_server",
    "tests.fixtures_lab",
    "tests.fixtures_magics",
]


@pytest.fixture
def scripted() -> ScriptedBackend:
    return ScriptedBackend()


@pytest.fixture
def runner(scripted: ScriptedBackend) -> Iterator[AgentRunner]:
    r = AgentRunner(model=scripted)
    yield r
    r.shutdown()
