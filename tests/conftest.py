"""Shared test wiring. Each area keeps its fixtures in its own plugin module."""

from __future__ import annotations

import pytest

from agent_nb.backends import ScriptedBackend

pytest_plugins = [
    "tests.fixtures_runtime",
    "tests.fixtures_mlx",
    "tests.fixtures_server",
    "tests.fixtures_lab",
    "tests.fixtures_magics",
]


@pytest.fixture
def scripted() -> ScriptedBackend:
    return ScriptedBackend()
