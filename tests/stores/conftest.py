"""The fork server of the SIGKILL rounds (`tests.stores.crash_writers`), one per module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.stores.crash_writers import WriterServer

__all__ = ["writers"]


@pytest.fixture(scope="module")
def writers() -> Iterator[WriterServer]:
    with WriterServer() as server:
        yield server
