"""How the suite runs on several cores (``pytest -n 2``, pytest-xdist), and why the
browser tests can share a process with the rest.

Scheduling: a test file is one unit of work, since its module fixtures (a kernel, a
server, a loaded model) are costly to start twice; all browser files form one unit,
so one worker starts JupyterLab and chromium. Units go out in collection order,
which `order_by_cost` makes the costliest first: the browser unit, then files with
slow tests, then the unit tests, so that no long unit starts last.

Playwright's sync API leaves its event loop marked as running on the main thread
between calls (it runs the loop in a greenlet and switches back), so every later
``asyncio.run`` there, ours or nbclient's, would fail or hang. A test that does not
use the browser runs with that mark lifted, and it is put back for the next browser
call.

Each worker gets its share of the cores for BLAS: OpenBLAS's pthread build starts
a thread per core, and two workers' threads (and their kernels' and servers')
contending for two cores slow every one of them.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Generator
from typing import Any

import pytest

__all__ = ["is_browser_file", "order_by_cost", "restore_browser_loop"]

BROWSER_UNIT = "browser"

if workers := int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0")):  # set before plugins load
    share = max(1, (os.cpu_count() or 1) // workers)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", str(share))  # inherited by kernels, servers

#: Playwright's loop while a test runs with its mark lifted, for `restore_browser_loop`.
_lifted: list[asyncio.AbstractEventLoop] = []


def is_browser_file(path: str) -> bool:
    """Browser tests live in ``*_browser.py`` files (the scheduler sees only node ids)."""
    return path.endswith("_browser.py")


def order_by_cost(items: list[pytest.Item]) -> None:
    """Browser files first, then files with slow tests, then the rest; a file's tests
    stay together (splitting a file would start its module fixtures twice)."""
    rank: dict[str, int] = {}
    for item in items:
        path = item.nodeid.split("::", 1)[0]
        cost = 0 if is_browser_file(path) else 1 if item.get_closest_marker("slow") else 2
        rank[path] = min(rank.get(path, 2), cost)
    items.sort(key=lambda item: rank[item.nodeid.split("::", 1)[0]])


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    order_by_cost(items)  # after tests/conftest.py's hook (tryfirst) marks the slow ones


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getoption("dist") not in ("load", "loadfile"):
        return None  # the user asked for another distribution: theirs
    from xdist.scheduler import LoadScopeScheduling

    class FileScheduling(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return BROWSER_UNIT if is_browser_file(path) else path

    config.option.loadscopereorder = False  # keep order_by_cost's order, not unit sizes
    return FileScheduling(config, log)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    playwright_loop = asyncio.events._get_running_loop()
    if playwright_loop is None or item.get_closest_marker("browser"):
        return (yield)
    asyncio.events._set_running_loop(None)
    _lifted.append(playwright_loop)
    try:
        return (yield)
    finally:
        _lifted.pop()
        if not playwright_loop.is_closed():  # the session's end may have closed it
            asyncio.events._set_running_loop(playwright_loop)


def restore_browser_loop() -> None:
    """Put Playwright's mark back for a session fixture's finalizer (closing the
    page, the browser, Playwright): it runs in the last test's teardown, which may
    be a test that runs with the mark lifted. Closing Playwright clears it again."""
    if _lifted and asyncio.events._get_running_loop() is None:
        asyncio.events._set_running_loop(_lifted[-1])
