"""How the suite runs on several cores (``pytest -n 2``, pytest-xdist), and why the
browser tests can share a process with the rest.

Scheduling: a test file is one unit of work, since its module fixtures (a kernel, a
server, a loaded model) are costly to start twice. All browser files form one unit,
so one worker starts JupyterLab and chromium; so do the files that name one of the
`SHARED` session fixtures (the quickstart's Run All, the ``mlx_lm.server``), since
a session fixture is set up once in every worker that asks for it. Units go out in
collection order, which `order_by_cost` makes the costliest first: the browser
unit, then units with slow tests, then the unit tests, so that no long unit starts
last.

Playwright's sync API leaves its event loop marked as running on the main thread
between calls (it runs the loop in a greenlet and switches back), so every later
``asyncio.run`` there, ours or nbclient's, would fail or hang. A test that does not
use the browser runs with that mark lifted, and it is put back for the next browser
call.

Each worker gets its share of the cores for BLAS: OpenBLAS's pthread build starts
a thread per core, and two workers' threads (and their kernels' and servers')
contending for two cores slow every one of them. The decode kernel's OpenMP threads
(``AGENT_NB_CPU_THREADS``) get the same share.
"""

from __future__ import annotations

import asyncio
import functools
import os
import re
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

__all__ = [
    "SHARED",
    "is_browser_file",
    "order_by_cost",
    "restore_browser_loop",
    "shared_units",
    "unit_of",
]

BROWSER_UNIT = "browser"
TESTS = Path(__file__).resolve().parent

#: Session fixtures that cost tens of seconds of CPU each time they are set up: the
#: files that name one run in one unit (the scheduler sees node ids, not fixtures,
#: so a file counts when its source names the fixture).
SHARED = ("quickstart_cold", "mlx_server")

if workers := int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0")):  # set before plugins load
    share = max(1, (os.cpu_count() or 1) // workers)
    os.environ.setdefault("OPENBLAS_NUM_THREADS", str(share))  # inherited by kernels, servers
    os.environ.setdefault("AGENT_NB_CPU_THREADS", str(share))  # the decode kernel's OpenMP

#: Playwright's loop while a test runs with its mark lifted, for `restore_browser_loop`.
_lifted: list[asyncio.AbstractEventLoop] = []


def is_browser_file(path: str) -> bool:
    """Browser tests live in ``*_browser.py`` files (the scheduler sees only node ids)."""
    return path.endswith("_browser.py")


@functools.cache
def shared_units() -> dict[str, str]:
    """Test file (as node ids name it) -> the `SHARED` fixture it shares a unit over."""
    units = {}
    for path in sorted(TESTS.rglob("test_*.py")):
        source = path.read_text(encoding="utf-8")
        for fixture in SHARED:
            if re.search(rf"\b{fixture}\b", source):
                units[path.relative_to(TESTS.parent).as_posix()] = fixture
                break
    return units


def unit_of(path: str) -> str:
    """The unit of work a test file's tests go out in."""
    if is_browser_file(path):
        return BROWSER_UNIT
    return shared_units().get(path, path)


def order_by_cost(items: list[pytest.Item]) -> None:
    """Browser files first, then units with slow tests, then the rest; a unit's tests
    stay together (splitting a file would start its module fixtures twice)."""
    rank: dict[str, int] = {}
    for item in items:
        unit = unit_of(item.nodeid.split("::", 1)[0])
        cost = 0 if unit == BROWSER_UNIT else 1 if item.get_closest_marker("slow") else 2
        rank[unit] = min(rank.get(unit, 2), cost)
    items.sort(key=lambda item: rank[unit_of(item.nodeid.split("::", 1)[0])])


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    order_by_cost(items)  # after tests/conftest.py's hook (tryfirst) marks the slow ones


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getoption("dist") not in ("load", "loadfile"):
        return None  # the user asked for another distribution: theirs
    from xdist.scheduler import LoadScopeScheduling

    class FileScheduling(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return unit_of(nodeid.split("::", 1)[0])

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
