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
    "tests.fixtures_postgres",
]


@pytest.fixture
def scripted() -> ScriptedBackend:
    return ScriptedBackend()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Browser tests run last. Playwright's sync API keeps an event loop running
    on the main thread from the first browser test until the session ends,
    and every later ``asyncio.run`` in that thread would fail."""
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)
