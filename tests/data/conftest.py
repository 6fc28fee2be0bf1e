"""Fixtures the data tests share."""

from __future__ import annotations

import pytest


@pytest.fixture(params=["pandas", "duckdb"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test that takes it runs twice: a DataFrame's plans on pandas, then on DuckDB."""
    monkeypatch.setenv("AGENT_NB_DATA_ENGINE", request.param)
    return str(request.param)
