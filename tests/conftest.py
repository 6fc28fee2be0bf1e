"""Shared test wiring. Each area keeps its fixtures in its own plugin module."""

from __future__ import annotations

import pytest

from agent_nb.backends import ScriptedBackend

pytest_plugins = [
    "tests.parallel",
    "tests.fixtures_runtime",
    "tests.fixtures_mlx",
    "tests.fixtures_server",
    "tests.fixtures_lab",
    "tests.fixtures_magics",
    "tests.fixtures_postgres",
    "tests.fixtures_notebooks",
]


@pytest.fixture(autouse=True)
def _replay_off(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Replay (agent_nb._runtime.replay) stays off, and away from the user's cache
    file, unless a test turns it on: a test that runs the same greedy request
    twice means to ask the model twice."""
    monkeypatch.setenv("AGENT_NB_REPLAY", "0")
    replay_file = tmp_path_factory.mktemp("replay") / "replay.sqlite"
    monkeypatch.setenv("AGENT_NB_REPLAY_FILE", str(replay_file))


@pytest.fixture
def scripted() -> ScriptedBackend:
    return ScriptedBackend()


#: Markers and fixtures that make a test slow: a model load, a kernel, a browser, a server.
SLOW_MARKERS = ("mlx", "kernel", "browser")
SLOW_FIXTURES = frozenset(
    {"embedded_model_dir", "mlx_backend", "mlx_runner", "mlx_server", "postgres", "jupyter_lab",
     "lab_browser", "lab", "quickstart_cold", "toolsets", "demo_http_url", "filesystem_server"}
)  # fmt: skip


@pytest.hookimpl(tryfirst=True)  # before -m "not slow" deselects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """``slow`` for every test that needs the model, a kernel, a browser or a server,
    on top of those marked by hand (tests that start processes). `tests/parallel.py`
    then orders the files by this mark."""
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if any(item.get_closest_marker(m) for m in SLOW_MARKERS) or fixtures & SLOW_FIXTURES:
            item.add_marker(pytest.mark.slow)
